//go:build !linux && !windows && (!unix || aix)

package archive

import (
	"os"
	"time"
)

// setTimes gives dest/<name> (open as f) the modification time mtime (its access time left), by
// name: no call through the descriptor here. os.Root keeps it inside DEST.
func setTimes(_ *os.File, root *os.Root, name string, mtime time.Time) error {
	return root.Chtimes(name, time.Time{}, mtime)
}
