//go:build !unix

package layout

import "os"

// Elsewhere there are no FIFOs to block on; the Lstat and the check on the open file still hold.
func openNonblocking(path string, _ bool) (*os.File, error) {
	return os.Open(path)
}
