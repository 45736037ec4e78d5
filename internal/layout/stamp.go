package layout

import (
	"io/fs"
	"os"
	"time"
)

// Stamp is what a look at a session file tells without opening it: its size and modification
// time. A live log only grows, which moves both; an unchanged stamp means the file is not read
// again.
type Stamp struct {
	Size int64
	Mod  time.Time
}

// StampOf looks at a session file (Lstat; through a symbolic link only when, resolved, it stays
// inside root, as Open): ok is false for anything Open would refuse. Nothing is opened.
func StampOf(path, root string) (st Stamp, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Stamp{}, false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if root != "" && !within(path, root) {
			return Stamp{}, false
		}
		if fi, err = os.Stat(path); err != nil {
			return Stamp{}, false
		}
	}
	if !fi.Mode().IsRegular() {
		return Stamp{}, false
	}
	return Stamp{Size: fi.Size(), Mod: fi.ModTime()}, true
}
