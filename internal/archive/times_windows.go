package archive

import (
	"os"
	"syscall"
	"time"
)

// setTimes gives the open file f the modification time mtime (its access time left), through its
// handle (SetFileTime; f is open for writing, which grants it).
func setTimes(f *os.File, _ *os.Root, _ string, mtime time.Time) error {
	ft := syscall.NsecToFiletime(mtime.UnixNano())
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := c.Control(func(h uintptr) { serr = syscall.SetFileTime(syscall.Handle(h), nil, nil, &ft) }); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "SetFileTime", Path: f.Name(), Err: serr}
	}
	return nil
}
