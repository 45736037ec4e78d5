//go:build unix

package archive

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock holds an exclusive lock on dest's lock file for the run, so that no other run removes this
// one's temporary files (removeTemps) or writes the same copies.
func lock(root *os.Root) (func(), error) {
	f, err := openInDest(root, lockName, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the lock file %s: %w", lockName, unwrap(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("locking %s: %w", lockName, err)
	}
	return func() { f.Close() }, nil
}
