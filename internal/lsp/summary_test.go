package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The status bar's record count leaves out a last line a live session is still writing, and counts
// it once it is whole — open in the editor or read from disk.
func TestSummaryIncompleteLastLine(t *testing.T) {
	_, _, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	whole := `{"parentUuid":"u-0001","isSidechain":false,"sessionId":"11111111-1111-4111-8111-111111111111","type":"user","message":{"role":"user","content":"more"},"uuid":"u-0009","timestamp":"2026-03-01T10:09:00.000Z"}`
	half := whole[:len(whole)/2]
	lines := strings.Count(text, "\n")

	dir := t.TempDir()
	path := filepath.Join(dir, "11111111-1111-4111-8111-111111111111.jsonl")
	if err := os.WriteFile(path, []byte(text+half), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(path)
	c := newClient(t, clientOpt{})
	summaryNow := func() summary {
		var s summary
		c.mustCall(methodSessionSummary, map[string]any{"textDocument": map[string]any{"uri": uri}}, &s)
		return s
	}
	if s := summaryNow(); s.Records != 7 {
		t.Errorf("read from disk with half a line at the end: %d records, want 7", s.Records)
	}

	c.open(uri, text+half, 1)
	if got := codesAt(c.diagsAt(uri, 1)); !strings.Contains(strings.Join(got, " "), "7:incomplete-last-line") {
		t.Fatalf("the half line is not reported as incomplete: %v", got)
	}
	if s := summaryNow(); s.Records != 7 {
		t.Errorf("open with half a line at the end: %d records, want 7", s.Records)
	}
	// the rest of the line arrives
	c.change(uri, 2, edit(rng{at(lines, len(half)), at(lines, len(half))}, whole[len(half):]+"\n"))
	c.diagsAt(uri, 2)
	if s := summaryNow(); s.Records != 8 {
		t.Errorf("after the line was completed: %d records, want 8", s.Records)
	}
	// a whole line without its newline yet is a record; a broken line in the middle is one too
	c.change(uri, 3, edit(rng{at(lines+1, 0), at(lines+1, 0)}, "{broken\n"+whole))
	c.diagsAt(uri, 3)
	if s := summaryNow(); s.Records != 10 {
		t.Errorf("a broken line then a whole unterminated one: %d records, want 10", s.Records)
	}
}
