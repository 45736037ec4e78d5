package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
)

// A log that shrinks while check or sessions reads it (mapped) is reported by name as such, every
// other session is still read, and the exit code is ExitRead: neither the usage error's 2 nor
// the Go runtime's "fatal error: fault" (issue 20).
func TestLogThatShrinksWhileReadIsReported(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapping is tested on linux")
	}
	dir := filepath.Join(t.TempDir(), "-home-dev-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","uuid":"u%d","sessionId":"s","message":{"role":"user","content":"hello"}}` + "\n"
	big := bytes.Repeat([]byte(strings.ReplaceAll(line, "%d", "1")), 4<<20/len(line)) // mapped, not read
	shrinking := filepath.Join(dir, "shrinking.jsonl")
	if err := os.WriteFile(shrinking, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "healthy.jsonl"), []byte(`{"type":"user","uuid":"h1","sessionId":"h","parentUuid":"gone","message":{"role":"user","content":"hi"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mapFile = func(p, root string) (*layout.Mapped, error) {
		m, err := layout.MapFile(p, root)
		if err == nil && p == shrinking {
			err = os.Truncate(p, 0)
		}
		return m, err
	}
	defer func() { mapFile = layout.MapFile }()
	for _, args := range [][]string{{"check", dir}, {"sessions", "--format", "json", filepath.Dir(dir)}} {
		if err := os.WriteFile(shrinking, big, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := run(t, args...)
		if code != ExitRead || !strings.Contains(errs, "shrinking.jsonl: the file shrank while it was read") || !strings.Contains(out, "healthy") && !strings.Contains(out, `"h"`) {
			t.Errorf("%s: exit %d, want %d\nstderr %s\nstdout %s", args[0], code, ExitRead, errs, out)
		}
	}
}
