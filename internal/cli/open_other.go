//go:build !windows

package cli

import "os"

// openLog opens a log, or the repaired file, for reading while it is renamed over or replaced:
// without following a link, without waiting on a FIFO.
func openLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonblock, 0)
}
