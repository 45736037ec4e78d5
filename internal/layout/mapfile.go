package layout

import (
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"
)

// Mapped is a log's bytes for reading once (the command line, the workspace index): mapped
// read-only into memory where the platform can (no copy, no zeroed buffer, no heap for the GC to
// scan), read into memory elsewhere or when mapping fails. Bytes must not be modified, nor kept
// after Close.
//
// A mapped file that another process truncates makes a later access to the lost pages fault
// (SIGBUS). Code touching Data must run in a goroutine that called Guard; the fault then surfaces as
// a panic that Guard's recovery turns into an error, instead of killing the process.
type Mapped struct {
	Data   []byte
	mapped bool
}

// MapFile opens path through Open (root as there: a regular file only, and a link only when root
// is "" or it stays inside root) and maps it, or reads it when it is small or cannot be mapped.
func MapFile(path, root string) (*Mapped, error) {
	fh, size, err := openSized(path, root)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if size >= mapMin && size == int64(int(size)) {
		if b, err := mmap(fh, int(size)); err == nil {
			return &Mapped{Data: b, mapped: true}, nil
		}
	}
	b, err := readOpen(fh, size, 0)
	if err != nil {
		return nil, err
	}
	return &Mapped{Data: b}, nil
}

// mapMin: below it, a read costs less than setting up and tearing down a mapping.
const mapMin = 64 << 10

// Close releases the mapping.
func (m *Mapped) Close() error {
	if m == nil || !m.mapped {
		return nil
	}
	m.mapped = false
	b := m.Data
	m.Data = nil
	return munmap(b)
}

// ErrShrunk is returned by Guard when a mapped file was truncated while it was read.
var ErrShrunk = errors.New("the file shrank while it was read")

// faultError is ErrShrunk with the address that faulted, by which Holds finds the file.
type faultError struct{ addr uintptr }

func (e *faultError) Error() string { return fmt.Sprintf("%v (fault at %#x)", ErrShrunk, e.addr) }
func (e *faultError) Unwrap() error { return ErrShrunk }

// Holds reports whether err is Guard's fault at an address of m's bytes: m is the file that shrank.
func (m *Mapped) Holds(err error) bool {
	var fe *faultError
	if m == nil || len(m.Data) == 0 || !errors.As(err, &fe) {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data)))
	return fe.addr >= start && fe.addr-start < uintptr(len(m.Data))
}

// Guard runs f with memory faults turned into panics (debug.SetPanicOnFault) and returns
// ErrShrunk when one happened: a mapped file truncated under f cannot crash the process. Other
// panics are passed on.
func Guard(f func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(interface{ Addr() uintptr }); ok {
				err = &faultError{re.Addr()}
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}
