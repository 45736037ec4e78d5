//go:build unix

package cli

import "syscall"

// oNoFollow: the new file is never created through a link planted in its place.
const oNoFollow = syscall.O_NOFOLLOW

// oNonblock: opening a FIFO put in a log's place does not wait for a writer.
const oNonblock = syscall.O_NONBLOCK

// canWrite asks the kernel whether this process may write path (its permissions and ACLs).
func canWrite(p string) bool { return syscall.Access(p, 2) == nil }
