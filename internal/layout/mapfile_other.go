//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package layout

import (
	"errors"
	"os"
)

func mmap(*os.File, int) ([]byte, error) { return nil, errors.New("no memory mapping here") }

func munmap([]byte) error { return nil }
