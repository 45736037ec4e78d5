//go:build unix

package cli

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// hardLinks is how many names the file has (1 where the platform does not say).
func hardLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// keepOwner gives dst the owner and group of the log (fi): a log fixed by root or by another
// member of a group-writable folder must stay writable by the Claude Code that owns it. A chown
// that is refused (only root gives files away) refuses the fix, with the reason.
func keepOwner(dst *os.File, fi fs.FileInfo) error {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	got, err := dst.Stat()
	if err != nil {
		return err
	}
	if st, ok := got.Sys().(*syscall.Stat_t); ok && st.Uid == want.Uid && st.Gid == want.Gid {
		return nil
	}
	if err := dst.Chown(int(want.Uid), int(want.Gid)); err != nil {
		return fmt.Errorf("cannot give it the log's owner and group (uid %d, gid %d): %w", want.Uid, want.Gid, unwrapPathErr(err))
	}
	return nil
}

// ownerOf names the log's owner for a message.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}
