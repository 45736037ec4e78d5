package session

import (
	"slices"
	"testing"

	"github.com/ccdag/ccdag/internal/position"
)

// Rewrites stays the same while the file only grows at its end (appends, the last line
// completed) and counts the edits of earlier lines.
func TestRewrites(t *testing.T) {
	s := New("s", "/tmp")
	f := NewFile("/tmp/s.jsonl", []byte("{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\n"))
	s.AddFile(f)
	end := func() int { return len(f.Text()) }
	s.Edit(f, end(), end(), []byte("{\"uuid\":"))
	s.Edit(f, end(), end(), []byte("\"c\"}\n{\"uuid\":\"d\"}\n"))
	if f.Rewrites() != 0 {
		t.Fatalf("appends counted as %d rewrites", f.Rewrites())
	}
	s.Edit(f, 2, 3, []byte("u"))
	if f.Rewrites() != 1 {
		t.Fatalf("an edit of line 0: %d rewrites, want 1", f.Rewrites())
	}
	s.SetText(f, []byte("{}\n"))
	if f.Rewrites() != 2 {
		t.Fatalf("a new text: %d rewrites, want 2", f.Rewrites())
	}
}

// The bare carriage returns a file indexes once stay those of its text across edits: one typed
// between a '\r' and its '\n', appends, a '\n' after a final '\r', and a whole new text.
func TestBareCRsFollowEdits(t *testing.T) {
	s := New("s", "/tmp")
	f := NewFile("/tmp/s.jsonl", []byte("{\"uuid\":\"a\",\r\"x\":1}\r\n{\"uuid\":\"b\"}\n"))
	s.AddFile(f)
	fresh := func(step string) {
		t.Helper()
		want := position.AppendBareCRs(nil, f.Text(), 0, len(f.Text()))
		if got := f.BareCRs(); !slices.Equal(got, want) {
			t.Fatalf("%s: BareCRs = %v, want %v (text %q)", step, got, want, f.Text())
		}
	}
	fresh("loaded")
	end := func() int { return len(f.Text()) }
	s.Edit(f, 20, 20, []byte(" ")) // between the '\r' and the '\n' of line 0: both become bare
	fresh("split CRLF")
	s.Edit(f, end(), end(), []byte("{\"uuid\":\"c\",\r"))
	fresh("append ending in \\r")
	s.Edit(f, end(), end(), []byte("\n"))
	fresh("its \\n")
	s.Edit(f, 0, 13, nil)
	fresh("cut the first bare \\r")
	s.SetText(f, []byte("{}\r{}\n"))
	fresh("new text")
}
