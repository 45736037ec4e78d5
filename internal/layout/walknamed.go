package layout

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WalkNamed is filepath.WalkDir over a folder a person named, which may itself be a link
// (~/.claude/projects kept on another disk): the walk goes through the link, and the paths given to
// fn are under the name, as if the link were the folder. Links inside are not followed, as in
// WalkDir. (WalkDir takes a root that is a link for a file of its own, and walks nothing.)
func WalkNamed(root string, fn fs.WalkDirFunc) error {
	from := root
	if li, err := os.Lstat(root); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(root); err == nil {
			from = t
		}
	}
	if from == root {
		return filepath.WalkDir(root, fn)
	}
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		return fn(root+p[len(from):], d, err)
	})
}
