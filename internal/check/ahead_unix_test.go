//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package check

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testutil"
)

// A mapped log that shrinks while it is checked on every core faults in a helper or in the
// checker: the fault reaches the caller as a panic it can recover (layout.Guard's), the process
// lives and nothing waits forever.
func TestParallelCheckOfALogThatShrinks(t *testing.T) {
	smallChunks(t)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	b := testutil.MapWritten(t, p, gen.Session(2<<20, 9))
	s := session.New("s", filepath.Dir(p))
	s.AddFile(session.NewFile(p, b))
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if _, ok := recover().(interface{ Addr() uintptr }); !ok {
			t.Error("no memory fault raised in the caller")
		}
	}()
	NewOptions(s, Options{OnePass: true, Parallel: true})
}
