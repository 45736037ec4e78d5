//go:build !unix

package cli

// oNoFollow: Windows' CREATE_NEW (O_CREATE|O_EXCL) already fails on any existing name, a link too.
const oNoFollow = 0

// oNonblock: Windows has no FIFOs in the file system to block on.
const oNonblock = 0

// canWrite: Windows has no access(2); the read-only attribute is checked from the mode beside this
// call, and an ACL that refuses fails the first write, before anything is replaced.
func canWrite(string) bool { return true }
