package jsonrpc

import (
	"os"
	"syscall"
)

// fSetPipeSize is Linux's F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7).
const fSetPipeSize = 1031

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
			syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, 1<<20)
		})
	}
}
