//go:build unix

package cache

import (
	"syscall"
	"testing"
)

// groupReadableUmask sets the umask most systems run with (022: files group- and world-readable
// unless made otherwise) for the test, so a mode the cache leaves to the default shows.
func groupReadableUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}
