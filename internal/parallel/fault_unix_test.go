//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package parallel

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
)

// A memory fault in f (a mapped file that shrank) reaches the caller as the runtime's fault
// error, with its address, when the caller turned faults into panics: the process lives.
func TestDoCarriesTheCallersFaultHandling(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	b, err := syscall.Mmap(int(fh.Fd()), 0, 1<<20, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		p := recover()
		if _, ok := p.(interface{ Addr() uintptr }); !ok {
			t.Errorf("recovered %v, want the fault with its address", p)
		}
	}()
	var sum byte
	Do(func() {
		for i := 0; i < len(b); i += 4096 {
			sum += b[i]
		}
	}, func() {})
	t.Errorf("no fault (sum %d)", sum)
}
