//go:build unix

package archive

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A second run into a DEST another run holds is refused before it removes or writes anything: it
// would remove the other's temporary files.
func TestArchiveOneRunAtATime(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	os.MkdirAll(dest, 0o755)
	root, err := os.OpenRoot(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	unlock, err := lock(root)
	if err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(dest, tempPrefix+"other-run")
	write(t, temp, "being written")
	if _, err := Run(dest, []string{src}); !errors.Is(err, ErrBusy) {
		t.Errorf("a second run: %v, want ErrBusy", err)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("the other run's temporary file was removed: %v", err)
	}
	unlock()
	if res, err := Run(dest, []string{src}); err != nil || res.New != 5 {
		t.Errorf("after the other run: %+v %v", res, err)
	}
}

// A lock file in DEST that is a link staying inside DEST is not followed (os.Root follows such a
// link, O_NOFOLLOW or not: the run created the file it named): the run is refused, nothing
// created or copied through it (docs/spec.md §15).
func TestArchiveLockIsNoLink(t *testing.T) {
	for _, existing := range []bool{false, true} {
		src := tree(t)
		dest := filepath.Join(t.TempDir(), "archive")
		keep := filepath.Join(dest, "keep")
		os.MkdirAll(keep, 0o755)
		if existing {
			write(t, filepath.Join(keep, "target"), "kept")
		}
		symlink(t, filepath.Join("keep", "target"), filepath.Join(dest, lockName))
		res, err := Run(dest, []string{src})
		if !errors.Is(err, errLink) || res != nil {
			t.Errorf("target existing %v: %+v %v, want the link refused", existing, res, err)
		}
		names, _ := os.ReadDir(keep)
		if existing && (len(names) != 1 || read(t, filepath.Join(keep, "target")) != "kept") || !existing && len(names) != 0 {
			t.Errorf("target existing %v: written through the lock's link: %v", existing, names)
		}
		if names, _ := os.ReadDir(dest); len(names) != 2 {
			t.Errorf("target existing %v: DEST holds %v, want nothing copied", existing, names)
		}
	}
}
