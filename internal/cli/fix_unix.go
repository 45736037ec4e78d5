//go:build unix

package cli

import "syscall"

// oNoFollow: the new file is never created through a link planted in its place.
const oNoFollow = syscall.O_NOFOLLOW

// writable asks the kernel whether this process may write path (its permissions and ACLs).
func writable(p string) bool { return syscall.Access(p, 2) == nil }
