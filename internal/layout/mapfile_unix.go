//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package layout

import (
	"os"
	"syscall"
)

func mmap(fh *os.File, size int) ([]byte, error) {
	b, err := syscall.Mmap(int(fh.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED|populate)
	if err != nil {
		return nil, err
	}
	advise(b)
	return b, nil
}

func munmap(b []byte) error { return syscall.Munmap(b) }
