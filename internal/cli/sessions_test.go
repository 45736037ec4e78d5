package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/catalog"
	"github.com/ccdag/ccdag/internal/prices"
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
	if want := (tokens.Count{Input: 13, Output: 7, CacheRead: 100, Unfinished: 2}); s.Tokens != want {
		t.Errorf("tokens %+v, want %+v", s.Tokens, want)
	}
	// neither message names a model: unpriced, not $0
	if s.Cost != (catalog.Cost{USD: 0, Priced: 0, Unpriced: 2}) || !strings.Contains(out, `"cost": {`) {
		t.Errorf("cost %+v", s.Cost)
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

// TestSessionsCost: a session's cost by the built-in table, by a table from --prices, and a model
// missing from the table counted as unpriced, never as $0.
func TestSessionsCost(t *testing.T) {
	defer prices.Use(nil)
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "-home-dev-app")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	log := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-02-01T10:00:01Z","message":{"id":"m1","model":"claude-opus-4-5-20251101","stop_reason":"end_turn","role":"assistant","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":10,"output_tokens":200,"cache_creation_input_tokens":1000,"cache_read_input_tokens":50000}}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-02-01T10:00:02Z","message":{"id":"m2","model":"some-other-model","stop_reason":"end_turn","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":5,"output_tokens":5}}}
`
	if err := os.WriteFile(filepath.Join(proj, "s1.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	rowOf := func(args ...string) sessionRow {
		t.Helper()
		out, errs, code := run(t, append([]string{"sessions", "--format", "json"}, append(args, root)...)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var doc struct{ Sessions []sessionRow }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sessions) != 1 {
			t.Fatal(err, out)
		}
		return doc.Sessions[0]
	}
	// Opus 4.5: 10 × $5 + 200 × $25 + 1 000 × $6.25 + 50 000 × $0.50 per million = $0.0363.
	if c := rowOf().Cost; c != (catalog.Cost{USD: 0.0363, Priced: 1, Unpriced: 1, LowerBound: true}) {
		t.Errorf("built-in table: %+v", c)
	}
	table := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(table, []byte(`{"some-other-model":{"input_cost_per_token":1e-06,"output_cost_per_token":1e-06}}`), 0o600)
	if c := rowOf("--prices", table).Cost; c != (catalog.Cost{USD: 0.00001, Priced: 1, Unpriced: 1, LowerBound: true}) {
		t.Errorf("--prices: %+v", c)
	}
	out, _, _ := run(t, "sessions", root)
	if !strings.Contains(out, "COST") || !strings.Contains(out, "≥ $0.036") {
		t.Errorf("text:\n%s", out)
	}
	if _, errs, code := run(t, "sessions", "--prices", filepath.Join(root, "nope.json"), root); code != ExitUsage || !strings.Contains(errs, "--prices") {
		t.Errorf("a missing price file: exit %d %q", code, errs)
	}
}
