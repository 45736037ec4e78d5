//go:build linux || darwin

package cache

import (
	"os"
	"strconv"
	"syscall"
)

// appendIdentity appends a log's device, inode and change time: a file replaced by another (a rename
// over it, `ccdag fix --write`) or rewritten in place with its size and modification time put back
// has another.
func appendIdentity(b []byte, fi os.FileInfo) []byte {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return append(b, '-')
	}
	sec, nsec := ctime(st).Unix()
	b = strconv.AppendUint(b, uint64(st.Dev), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(st.Ino), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, sec, 10)
	b = append(b, '.')
	return strconv.AppendInt(b, nsec, 10)
}
