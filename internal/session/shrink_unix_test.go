//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/testutil"
)

// A large log is parsed in two halves on two goroutines. When it is mapped and shrinks meanwhile,
// the fault on the other goroutine must reach the caller's recovery (layout.Guard) as the fault it
// is: a goroutine that does not turn faults into panics kills the process ("fatal error: fault",
// issue 20). Run in a child process, so that the old crash fails this test instead of the package.
func TestShrinkingMappedFileFaultsInTheCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the halves are parsed on two cores only")
	}
	if os.Getenv("CCDAG_SHRINK_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestShrinkingMappedFileFaultsInTheCaller$", "-test.v")
		cmd.Env = append(os.Environ(), "CCDAG_SHRINK_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v\n%s", err, tail(out))
		}
		return
	}
	text := gen.Session(parallelMin+1<<20, 1)
	p := filepath.Join(t.TempDir(), "live.jsonl")
	b := testutil.MapWritten(t, p, text)
	f := &File{Path: p, Lane: "main", text: b, starts: lineStarts(b)}
	// The first half stays readable; the second, parsed on the other goroutine, is cut away.
	if err := os.Truncate(p, int64(f.starts[len(f.starts)/2])); err != nil {
		t.Fatal(err)
	}
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if _, ok := recover().(interface{ Addr() uintptr }); !ok {
			t.Error("the fault did not reach the caller")
		}
	}()
	f.parseAll()
	t.Error("parsed a file cut in half without a fault")
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
