//go:build unix && !linux && !aix

package archive

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// setTimes gives the open file f the modification time mtime (its access time kept as fstat gives
// it), through its descriptor: futimes, to the microsecond (x/sys has no futimens here).
func setTimes(f *os.File, _ *os.Root, _ string, mtime time.Time) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := c.Control(func(fd uintptr) {
		var st unix.Stat_t
		if serr = unix.Fstat(int(fd), &st); serr != nil {
			return
		}
		serr = unix.Futimes(int(fd), []unix.Timeval{unix.NsecToTimeval(unix.TimespecToNsec(st.Atim)), unix.NsecToTimeval(mtime.UnixNano())})
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "futimes", Path: f.Name(), Err: serr}
	}
	return nil
}
