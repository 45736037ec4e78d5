package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/catalog/catalogtest"
)

// A warm run takes each log's version (for the resume loader's newest one) from the cache, where
// the config folder's logs have one entry for them all, while the log is as it was stamped: the
// cached entry says 2.1.99 of a log that says 2.1.10, and the listing names 2.1.99.
func TestSessionsCacheLogVersionsFromTheCache(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	dir := writeHistory(t) // <config>/projects
	old := filepath.Join(dir, "-home-dev-app", "s-old.jsonl")
	b, _ := os.ReadFile(old)
	fi, _ := os.Stat(old)
	os.WriteFile(old, []byte(strings.Replace(string(b), `"sessionId"`, `"version":"2.1.10","sessionId"`, 1)), 0o644)
	os.Chtimes(old, fi.ModTime(), fi.ModTime())
	if out := runProcess(t, "sessions", "--format", "json", dir); !strings.Contains(out, `"version": "2.1.10"`) {
		t.Fatalf("the loader is not the log's version:\n%s", out)
	}
	c := catalogtest.OpenCache(t)
	tails, err := c.Prefixed("tail:")
	if err != nil || len(tails) != 1 {
		t.Fatalf("log versions in %d entries (%v), want one", len(tails), err)
	}
	for _, e := range tails {
		if !bytes.Contains(e.Data, []byte("2.1.10")) {
			t.Fatalf("entry %s holds no 2.1.10: %q", e.Key, e.Data)
		}
		e.Data = bytes.Replace(e.Data, []byte("2.1.10"), []byte("2.1.99"), 1) // same length: still a list
		c.Put([]cache.Entry{e}, nil)
	}
	c.Close()
	if out := runProcess(t, "sessions", "--format", "json", dir); !strings.Contains(out, `"version": "2.1.99"`) {
		t.Errorf("log versions read again although stamped unchanged:\n%s", out)
	}
	os.WriteFile(old, append(b, '\n'), 0o644) // changed: its version is read again
	if out := runProcess(t, "sessions", "--format", "json", dir); strings.Contains(out, `"version": "2.1.99"`) {
		t.Errorf("a changed log's cached version used:\n%s", out)
	}
}

// A warm listing leaves collection to a memory limit (warmGC), and puts the collector's pace and
// the limit back when logs are to be read or the listing is done.
func TestWarmGC(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	pct := debug.SetGCPercent(150)
	lim := debug.SetMemoryLimit(1 << 40)
	defer debug.SetGCPercent(pct)
	defer debug.SetMemoryLimit(lim)
	restore := warmGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent %d in a warm listing, want off", got)
	}
	if got := debug.SetMemoryLimit(-1); got != warmHeap {
		t.Errorf("memory limit %d in a warm listing, want %d", got, warmHeap)
	}
	restoreGC() // logs to read
	restore()   // and at the end: nothing more
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent %d after, want 150 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("memory limit %d after, want it back", got)
	}
	debug.SetMemoryLimit(100 << 20) // a lower GOMEMLIMIT stays
	warmGC()
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("memory limit %d in a warm listing under a lower one, want it kept", got)
	}
	restoreGC()
	t.Setenv("GOGC", "50") // GOGC set wins
	warmGC()()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent %d with GOGC set, want untouched", got)
	}
}
