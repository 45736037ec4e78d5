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
	out, _, _ = run(t, "resume", "--claude-version", "2.1.328", filepath.Join("internal", "resume", "testdata", "orphan-result-then-call.jsonl"))
	for _, want := range []string{"as Claude Code 2.1.328 will load it (set by", "3 records sent of 3", "answered by Claude Code with an error result", "result without call", "No response requested."} {
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

// check --claude-version: the findings on the chain speak of the loader named.
func TestCheckClaudeVersion(t *testing.T) {
	p := filepath.Join("internal", "resume", "testdata", "pairing.jsonl")
	out, _, _ := run(t, "check", "--claude-version", "2.1.19", p)
	if !strings.Contains(out, "as Claude Code 2.1.19 will load it, removes this call") {
		t.Errorf("check --claude-version 2.1.19:\n%s", out)
	}
	if _, _, code := run(t, "check", "--claude-version", "latest", p); code != ExitUsage {
		t.Errorf("check --claude-version latest: exit %d, want 2", code)
	}
}

// TestResumeVersionEscaped (docs/spec.md §15): the log's version reaches the terminal only as a
// version. A version field holding an escape (it cleared the terminal) is no version; a
// --claude-version that is not one is refused, quoted.
func TestResumeVersionEscaped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte("{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"version\":\"2.1.50\x1b[2J\x1b]0;owned\x07\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"), 0o644)
	out, errs, _ := run(t, "resume", p)
	if strings.ContainsAny(out+errs, "\x1b\x07") || !strings.Contains(out, "hi") {
		t.Errorf("resume printed a control character or lost the record:\n%q\n%q", out, errs)
	}
	if strings.Contains(out, "2.1.50") {
		t.Errorf("an escape-laden version field was taken as a version:\n%s", out)
	}
	_, errs, code := run(t, "resume", "--claude-version", "2.1.5\x1b[2J", p)
	if code != ExitUsage || strings.ContainsAny(errs, "\x1b") {
		t.Errorf("--claude-version with an escape: exit %d, %q", code, errs)
	}
}
