package fileuri

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("paths below are Unix paths")
	}
	for _, c := range []struct{ path, uri string }{
		{"/home/dev/a b.jsonl", "file:///home/dev/a%20b.jsonl"},
		{"/p/#?%.jsonl", "file:///p/%23%3F%25.jsonl"},
	} {
		if got := FromPath(c.path); got != c.uri {
			t.Errorf("FromPath(%q) = %q, want %q", c.path, got, c.uri)
		}
		if got, ok := ToPath(c.uri); !ok || got != filepath.Clean(c.path) {
			t.Errorf("ToPath(%q) = %q, %v", c.uri, got, ok)
		}
	}
	for _, u := range []string{"untitled:1", "file://host/x", "http://x/y", "file:", "%zz"} {
		if p, ok := ToPath(u); ok {
			t.Errorf("ToPath(%q) = %q, want no path", u, p)
		}
	}
	if p, ok := ToPath("file://localhost/x"); !ok || p != "/x" {
		t.Errorf("localhost: %q %v", p, ok)
	}
}
