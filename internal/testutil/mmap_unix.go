//go:build unix

package testutil

import (
	"os"
	"syscall"
	"testing"
)

// MapWritten writes text to path and maps the file read-only, shared, as the CLI maps a log: a
// test may then shrink the file under the mapping. The mapping is removed at the test's end.
func MapWritten(t testing.TB, path string, text []byte) []byte {
	t.Helper()
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	b, err := syscall.Mmap(int(fh.Fd()), 0, len(text), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}
