package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `ccdag resume`: the records sent in order, what is dropped, the loader named; JSON per §13.
func TestResumeCommand(t *testing.T) {
	p := filepath.Join("internal", "resume", "testdata", "pairing.jsonl") // run works from the repository root
	out, _, code := run(t, "resume", "--format", "json", "--claude-version", "2.1.53", p)
	if code != ExitFindings {
		t.Errorf("exit %d, want 1 as check's (an unmatched result is an error)", code)
	}
	var got resumeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var lines []int
	for _, c := range got.Chain {
		lines = append(lines, c.Line)
	}
	if got.Resume.Loader.Version != "2.1.53" || got.Resume.Loader.From != "setting" || len(lines) != 4 || lines[0] != 1 || lines[3] != 4 {
		t.Errorf("loader %+v, chain %v", got.Resume.Loader, lines)
	}
	if len(got.Dropped) != 2 || got.Dropped[0].What != "call without result" || got.Dropped[0].ID != "t1" || got.Dropped[1].What != "result without call" {
		t.Errorf("dropped %+v", got.Dropped)
	}
	out, _, _ = run(t, "resume", "--claude-version", "2.1.328", p)
	for _, want := range []string{"as Claude Code 2.1.328 will load it (set by", "4 records sent of 4", "answered by Claude Code with an error result", "result without call"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := run(t, "resume", "--fail-on", "never", p); code != ExitOK {
		t.Errorf("--fail-on never: exit %d, want 0", code)
	}
	if _, _, code := run(t, "resume", filepath.Join("internal", "resume", "testdata", "glued.jsonl")); code != ExitFindings {
		t.Errorf("glued: exit %d, want 1 (invalid-json is an error)", code)
	}
	if _, _, code := run(t, "resume", filepath.Join("internal", "resume", "testdata", "parallel.jsonl")); code != ExitOK {
		t.Errorf("healthy: exit %d, want 0", code)
	}
}

// A log Claude Code cannot resume at all: a clear message and exit 1, never an empty chain.
func TestResumeNothingToResume(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"notjson.jsonl":  "hello\nworld\n",
		"snapshot.jsonl": `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}` + "\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		out, errs, code := run(t, "resume", "--format", "json", p)
		if code != ExitFindings || out != "" || !strings.Contains(errs, "Claude Code cannot resume") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
	if _, _, code := run(t, "resume", "--claude-version", "x", "y.jsonl"); code != ExitUsage {
		t.Errorf("bad --claude-version: exit %d", code)
	}
}
