//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package layout

import (
	"os"
	"syscall"
)

func mmap(fh *os.File, size int) ([]byte, error) {
	b, err := syscall.Mmap(int(fh.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// Read front to back: the kernel reads ahead more and drops pages behind sooner.
	_ = syscall.Madvise(b, syscall.MADV_SEQUENTIAL)
	return b, nil
}

func munmap(b []byte) error { return syscall.Munmap(b) }
