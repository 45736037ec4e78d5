package jsonrpc

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe asks for a 1 MiB buffer (the unprivileged maximum) when f is a pipe: a workflow graph
// is megabytes of JSON, and through the default 64 KiB it goes in dozens of writes, each waiting
// for the editor to read. Failure changes nothing.
func growPipe(f *os.File) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20)
		})
	}
}
