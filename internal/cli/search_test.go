package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// history writes a small ~/.claude/projects: two sessions of one project (the newer with a nested
// sub-agent log), a link to a log outside the folder, and returns the folder.
func writeHistory(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "-home-dev-app")
	sub := filepath.Join(proj, "s-new", "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, text string, age time.Duration) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		os.Chtimes(p, when, when)
	}
	write(filepath.Join(proj, "s-old.jsonl"),
		`{"type":"user","uuid":"o1","sessionId":"s-old","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"Fix the widget parser"}}`+"\n", 48*time.Hour)
	write(filepath.Join(proj, "s-new.jsonl"),
		`{"type":"user","uuid":"n1","sessionId":"s-new","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"Widget parser again"}}`+"\n"+
			`{"type":"assistant","uuid":"n2","parentUuid":"n1","sessionId":"s-new","timestamp":"2026-02-01T10:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"look at the widget","prompt":"Find the widget parser"}}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100}}}`+"\n"+
			`{"type":"user","uuid":"n3","parentUuid":"n2","message":{"role":"user","content":"widget being written`, time.Hour)
	write(filepath.Join(sub, "agent-a1.jsonl"),
		`{"type":"user","uuid":"g1","sessionId":"s-new","isSidechain":true,"message":{"role":"user","content":"Find the widget parser"}}`+"\n"+
			`{"type":"assistant","uuid":"g2","parentUuid":"g1","sessionId":"s-new","isSidechain":true,"message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":3,"output_tokens":2}}}`+"\n", time.Hour)
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	write(outside, `{"type":"user","uuid":"x1","message":{"role":"user","content":"widget secret"}}`+"\n", 0)
	if err := os.Symlink(outside, filepath.Join(proj, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "projects")
}

func TestSearch(t *testing.T) {
	dir := writeHistory(t)
	out, errs, code := run(t, "search", "WIDGET parser", dir)
	if code != ExitOK || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"s-new.jsonl:1:119: USER_INPUT: Widget parser again",
		"s-new.jsonl:2:", // the Task call's input
		"agent-a1.jsonl:1:112: USER_INPUT: Find the widget parser",
		"s-old.jsonl:1:",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d hits, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("hit %d = %s, want %s", i, lines[i], w)
		}
	}
	if strings.Contains(out, "secret") || strings.Contains(out, "being written") {
		t.Errorf("followed a link out of the folder or read a partial line:\n%s", out)
	}
	if !strings.Contains(lines[1], ": ACTION: ") {
		t.Errorf("the tool call's kind: %s", lines[1])
	}

	// --limit and --format json
	out, _, code = run(t, "search", "--format", "json", "--limit", "2", "widget", dir)
	var doc struct {
		Hits []struct {
			Path         string
			Line, Column int
			Kind         string
			Snippet      string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if len(doc.Hits) != 2 || doc.Hits[0].Line != 1 || doc.Hits[0].Kind != "USER_INPUT" || !strings.HasSuffix(doc.Hits[0].Path, "s-new.jsonl") {
		t.Errorf("json: %+v", doc.Hits)
	}

	// no hit: exit 1 and an empty list
	out, _, code = run(t, "search", "--format", "json", "nowhere", dir)
	if code != ExitFindings || !bytes.Equal(bytes.TrimSpace([]byte(out)), []byte("{\"hits\":[\n]}")) {
		t.Errorf("no hit: exit %d %q", code, out)
	}
}

func TestSearchBadInput(t *testing.T) {
	dir := writeHistory(t)
	for _, args := range [][]string{
		{"search"},
		{"search", "", dir},
		{"search", "  ", dir},
		{"search", strings.Repeat("x", 1001), dir},
		{"search", "--limit", "-1", "x", dir},
		{"search", "--format", "xml", "x", dir},
		{"search", "x", t.TempDir()}, // no log there
	} {
		if _, errs, code := run(t, args...); code != ExitUsage || errs == "" {
			t.Errorf("%.40q: exit %d, stderr %q", args, code, errs)
		}
	}
	// an unreadable folder among readable ones: reported, the rest searched, exit 2
	out, errs, code := run(t, "search", "widget", filepath.Join(dir, "missing"), dir)
	if code != ExitUsage || !strings.Contains(errs, "missing") || !strings.Contains(out, "s-new.jsonl") {
		t.Errorf("exit %d, stderr %q, out %q", code, errs, out)
	}
	// the default folder
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Dir(dir))
	if out, _, code := run(t, "search", "widget"); code != ExitOK || !strings.Contains(out, "s-old.jsonl") {
		t.Errorf("default folder: exit %d %s", code, out)
	}
}
