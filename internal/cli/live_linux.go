package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Linux tells whether any process, of any user, has a file open for writing: a read lease
// (fcntl F_SETLEASE, F_RDLCK) is granted only when none has, and while it is held an open for
// writing waits (up to /proc/sys/fs/lease-break-time) until it is let go, the lease showing the
// wait (F_GETLEASE: F_UNLCK). A lease needs the file's owner or CAP_LEASE (root); for anyone else
// the processes are looked for in /proc/*/fd, which shows only their own.

const (
	fSetLease = 1024 // F_SETLEASE
	fGetLease = 1025 // F_GETLEASE
)

func fcntl(f *os.File, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// holdWriters makes sure no process has f (opened read-only) open for writing, waiting up to
// wait for one that opens and closes it per line, and holds off new ones until release. The
// error says who writes, or why that cannot be known.
func holdWriters(f *os.File, wait time.Duration) (release func(), err error) {
	deadline := time.Now().Add(wait)
	for {
		_, err = fcntl(f, fSetLease, syscall.F_RDLCK)
		if err == nil {
			return func() { fcntl(f, fSetLease, syscall.F_UNLCK) }, nil
		}
		if !errors.Is(err, syscall.EAGAIN) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	fi, serr := f.Stat()
	if serr != nil {
		return nil, serr
	}
	writers, hidden := openForWriting(fi)
	switch {
	case len(writers) > 0:
		return nil, fmt.Errorf("%s has it open for writing (a live session): run again when it is closed", strings.Join(writers, ", "))
	case errors.Is(err, syscall.EAGAIN):
		return nil, errors.New("another process has it open for writing (a live session): run again when it is closed")
	case hidden:
		uid, _ := ownerOf(fi)
		return nil, fmt.Errorf("cannot tell whether a process of its owner (uid %d) has it open for writing (%v): run as its owner or root", uid, err)
	}
	// No lease here (a file system without them), and every process that could write it is seen:
	// the check is the /proc scan just done.
	return func() {}, nil
}

// writerWaiting reports whether a process is waiting to open f for writing (its lease is being
// broken).
func writerWaiting(f *os.File) bool {
	l, err := fcntl(f, fGetLease, 0)
	return err == nil && l == syscall.F_UNLCK
}

// openForWriting lists the processes ("PID (name)") holding fi's file open for writing, and
// whether some process of the file's owner could not be looked into.
func openForWriting(fi os.FileInfo) (writers []string, hidden bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, true
	}
	uid, _ := ownerOf(fi)
	self := strconv.Itoa(os.Getpid())
	for _, p := range procs {
		pid := p.Name()
		if pid == self || pid[0] < '0' || pid[0] > '9' {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", pid, "fd"))
		if err != nil {
			if st, serr := os.Stat(filepath.Join("/proc", pid)); serr == nil {
				if o, ok := ownerOf(st); ok && o == uid {
					hidden = true
				}
			}
			continue
		}
		for _, fd := range fds {
			st, err := os.Stat(filepath.Join("/proc", pid, "fd", fd.Name()))
			if err != nil || !os.SameFile(st, fi) {
				continue
			}
			info, _ := os.ReadFile(filepath.Join("/proc", pid, "fdinfo", fd.Name()))
			if writable(info) {
				comm, _ := os.ReadFile(filepath.Join("/proc", pid, "comm"))
				writers = append(writers, fmt.Sprintf("process %s (%s)", pid, strings.TrimSpace(string(comm))))
				break
			}
		}
	}
	return writers, hidden
}

// writable reads the access mode from an fdinfo's "flags:" line (octal).
func writable(fdinfo []byte) bool {
	for _, l := range strings.Split(string(fdinfo), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			fl, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && fl&syscall.O_ACCMODE != syscall.O_RDONLY
		}
	}
	return false
}
