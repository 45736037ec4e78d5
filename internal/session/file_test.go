package session

import "testing"

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
