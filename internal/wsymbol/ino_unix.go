//go:build unix

package wsymbol

import (
	"os"
	"syscall"
)

// fileIno is the file's inode: the same path with another inode is a replaced file, not an append.
func fileIno(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
