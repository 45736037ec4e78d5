//go:build windows

package cli

import (
	"os"
	"syscall"
)

// openLog opens a log, or the repaired file, for reading while it is renamed over or replaced. Go's
// os.Open shares neither delete nor rename (no FILE_SHARE_DELETE): ccdag's own handle would stop
// its rename. A link is opened as itself (FILE_FLAG_OPEN_REPARSE_POINT), as O_NOFOLLOW does.
func openLog(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	const openReparsePoint = 0x00200000 // FILE_FLAG_OPEN_REPARSE_POINT
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE, nil,
		syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL|openReparsePoint, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
