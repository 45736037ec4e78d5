package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/tokens"
)

func TestSessions(t *testing.T) {
	dir := writeHistory(t)
	out, errs, code := run(t, "sessions", "--format", "json", dir)
	if code != ExitOK || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct{ Sessions []sessionRow }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err, out)
	}
	if len(doc.Sessions) != 2 {
		t.Fatalf("%d sessions (the link out of the folder must not count):\n%s", len(doc.Sessions), out)
	}
	s := doc.Sessions[0] // newest first
	if s.ID != "s-new" || s.Project != "-home-dev-app" || s.Title != "Widget parser again" || s.Subagents != 1 ||
		s.Records != 4 || s.Start != "2026-02-01T10:00:00Z" || s.End != "2026-02-01T10:00:05Z" || filepath.Base(s.Path) != "s-new.jsonl" {
		t.Errorf("newest: %+v", s)
	}
	// the partial last line is reported as such; the Task call has no result but is in flight
	if s.Findings.Information == 0 || s.Findings.Error != 0 {
		t.Errorf("findings: %+v", s.Findings)
	}
	// tokens: one message each in the main log and the sub-agent's, counted once, both included
	if want := (tokens.Count{Input: 13, Output: 7, CacheRead: 100}); s.Tokens != want {
		t.Errorf("tokens %+v, want %+v", s.Tokens, want)
	}
	// the resumed chain: the last complete records, back to the prompt
	if s.Resume == nil || !s.Resume.Complete || s.Resume.Records != 2 {
		t.Errorf("resume %+v", s.Resume)
	}
	if doc.Sessions[1].ID != "s-old" || doc.Sessions[1].Title != "Fix the widget parser" {
		t.Errorf("older: %+v", doc.Sessions[1])
	}

	out, _, code = run(t, "sessions", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitOK || len(lines) != 3 || !strings.HasPrefix(lines[0], "START") || !strings.Contains(lines[1], "Widget parser again") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	if _, errs, code := run(t, "sessions", t.TempDir()); code != ExitUsage || errs == "" {
		t.Errorf("empty folder: exit %d %q", code, errs)
	}
	if out, errs, code := run(t, "sessions", filepath.Join(dir, "nope"), dir); code != ExitUsage || !strings.Contains(errs, "nope") || !strings.Contains(out, "s-old") {
		t.Errorf("missing folder: exit %d %q", code, errs)
	}
}
