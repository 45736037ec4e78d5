package archive

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// setTimes gives the open file f the modification time mtime (its access time left), through its
// descriptor: utimensat(fd, NULL, …), what futimens is (x/sys has no futimens, and its Futimes goes
// by /proc and keeps microseconds).
func setTimes(f *os.File, _ *os.Root, _ string, mtime time.Time) error {
	m, err := unix.TimeToTimespec(mtime)
	if err != nil {
		return err
	}
	ts := [2]unix.Timespec{{Nsec: unix.UTIME_OMIT}, m}
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno unix.Errno
	if err := c.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall6(unix.SYS_UTIMENSAT, fd, 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	}); err != nil {
		return err
	}
	if errno != 0 {
		return &os.PathError{Op: "futimens", Path: f.Name(), Err: errno}
	}
	return nil
}
