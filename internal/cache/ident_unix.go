//go:build linux || darwin

package cache

import (
	"os"
	"strconv"
	"syscall"
)

// identity is a log's device, inode and change time: a file replaced by another (a rename over
// it, `ccdag fix --write`) or rewritten in place with its size and modification time put back
// has another.
func identity(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "-"
	}
	sec, nsec := ctime(st).Unix()
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10) + ":" +
		strconv.FormatInt(sec, 10) + "." + strconv.FormatInt(nsec, 10)
}
