//go:build unix

package archive

import "syscall"

// noFollow keeps an open from following a link put in a file's place after it was looked at;
// noBlock keeps it from blocking on a FIFO put there.
const (
	noFollow = syscall.O_NOFOLLOW
	noBlock  = syscall.O_NONBLOCK
)

// chmodReadOnlyFD: a mode is changed through a read-only descriptor (fchmod), so the archive never
// changes one by name.
const chmodReadOnlyFD = true
