package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/cache"
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
	c := openTestCache(t)
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
