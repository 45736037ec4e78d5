package cli

import (
	"errors"
	"runtime"
	"syscall"
)

// onWindows is replaced by tests: what Windows says when a file is held open is checked on linux.
var onWindows = runtime.GOOS == "windows"

// errHeldOpen is what `fix --write` says when Windows refuses to replace a log another program
// holds open (Claude Code, an editor): the log is untouched, the backup and new file removed.
var errHeldOpen = errors.New("another program (a running Claude Code session, an editor) has the file open, and Windows does not let a file held open be replaced: close it and run fix again")

// heldOpen reports whether err, from replacing or removing a file, is Windows refusing because a
// process holds the file open: ERROR_SHARING_VIOLATION (32), ERROR_LOCK_VIOLATION (33), or
// ERROR_ACCESS_DENIED (5), which MoveFileEx returns over a file open without FILE_SHARE_DELETE
// (the folder being writable was checked before). Elsewhere a file held open is always replaced.
func heldOpen(err error, windows bool) bool {
	var errno syscall.Errno
	if !windows || !errors.As(err, &errno) {
		return false
	}
	return errno == 32 || errno == 33 || errno == 5
}
