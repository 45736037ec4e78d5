package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// `check` and `sessions` of a folder that is itself a link (~/.claude/projects kept on another
// disk) read the logs under it, named under the link; before, both said the folder held none.
func TestCheckAndSessionsOfALinkedFolder(t *testing.T) {
	real := filepath.Join(t.TempDir(), "projects")
	log, err := os.ReadFile("../../testdata/checks/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(real, "-home-x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "-home-x", "s.jsonl"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(real, named); err != nil {
		t.Skipf("no links here: %v", err)
	}
	if _, errs, code := run(t, "check", named); code != 0 || !strings.Contains(errs, "1 session, 1 file") {
		t.Errorf("check of the linked folder: exit %d, %q", code, errs)
	}
	out, errs, code := run(t, "sessions", "--no-cache", "--format", "json", named)
	if code != 0 || !strings.Contains(out, filepath.Join(named, "-home-x", "s.jsonl")) {
		t.Errorf("sessions of the linked folder: exit %d, %q %q", code, out, errs)
	}
}

// A sub-agent log named on the command line that is a link out of its session's folder is read
// through the link, as a named main log is (docs/spec.md §5, SECURITY.md), and the link is said
// on stderr. Before, every command took its session from the main log and left the named file
// unread, silently: `check` counted "1 file", `fix` had "nothing to repair", `redact` "no secret
// found", and `transcript` had no word of the sub-agent.
func TestNamedSubAgentLinkOutOfItsFolder(t *testing.T) {
	const id = "5e550000-0000-4000-8000-0000000000a1"
	proj := filepath.Join(t.TempDir(), "proj")
	sub := filepath.Join(proj, id, "subagents")
	elsewhere := t.TempDir()
	for _, d := range []string{sub, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(s string) string { return s + "\n" }
	main := rec(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"`+id+`","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"hi"}}`) +
		rec(`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"`+id+`","timestamp":"2026-02-01T10:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"look","prompt":"look around"}}]}}`) +
		rec(`{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"`+id+`","timestamp":"2026-02-01T10:00:05.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]},"toolUseResult":{"agentId":"x","status":"completed"}}`)
	secret := secretstest.Plants(11)[1].Secret // a GitHub token
	// the sub-agent's log: its words, a secret, and an orphan (line 3) that fix re-parents
	agent := rec(`{"type":"user","uuid":"g1","parentUuid":null,"sessionId":"`+id+`","isSidechain":true,"agentId":"x","timestamp":"2026-02-01T10:00:02.000Z","message":{"role":"user","content":"look around"}}`) +
		rec(`{"type":"assistant","uuid":"g2","parentUuid":"g1","sessionId":"`+id+`","isSidechain":true,"agentId":"x","timestamp":"2026-02-01T10:00:03.000Z","message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"the sub-agent's own words `+secret+`"}]}}`) +
		rec(`{"type":"user","uuid":"g3","parentUuid":"ghost","sessionId":"`+id+`","isSidechain":true,"agentId":"x","timestamp":"2026-02-01T10:00:04.000Z","message":{"role":"user","content":"and more"}}`)
	target := filepath.Join(elsewhere, "agent-x.jsonl")
	for p, text := range map[string]string{filepath.Join(proj, id+".jsonl"): main, target: agent} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	named := filepath.Join(sub, "agent-x.jsonl")
	if err := os.Symlink(target, named); err != nil {
		t.Skipf("no links here: %v", err)
	}
	real, _ := filepath.EvalSymlinks(target)
	said := "ccdag: " + named + ": a link named on the command line: followed to " + real + "\n"
	for _, c := range []struct {
		args           []string
		stdout, stderr string // what each says only when it read the named log
		code           int
	}{
		{[]string{"check", "--fail-on", "never", named}, "", "1 session, 2 files", ExitOK},
		{[]string{"check", "--format", "json", "--fail-on", "never", named}, `"files": 2`, "", ExitOK},
		// exit 1: the secret is a finding no repair covers
		{[]string{"fix", named}, "+++ b/" + named, "agent-x.jsonl:3: orphan: Re-parent line 3", ExitFindings},
		{[]string{"redact", named}, "", "1 secret(s) in 1 file(s)", ExitOK},
		{[]string{"transcript", named}, "own words", "", ExitOK},
	} {
		out, errs, code := run(t, c.args...)
		if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errs, c.stderr) {
			t.Errorf("%s: exit %d, the named link not read:\nstdout:\n%.1500s\nstderr:\n%s", c.args[0], code, out, errs)
		}
		if !strings.Contains(errs, said) {
			t.Errorf("%s: the link not said (%q):\n%s", c.args[0], said, errs)
		}
		if strings.Contains(out+errs, secret) {
			t.Errorf("%s: the secret shown", c.args[0])
		}
	}
	// Named through the main log, the link stays unread (a link out of the session's folder), and
	// its call says so.
	_, errs, _ := run(t, "check", "--fail-on", "never", filepath.Join(proj, id+".jsonl"))
	if !strings.Contains(errs, "1 session, 1 file") || strings.Contains(errs, "followed to") {
		t.Errorf("check of the main log:\n%s", errs)
	}
}

// The older layout (2.0.x): agent-<id>.jsonl beside the main log, tied to it by the sessionId its
// records carry. Named, a link out of the folder is read through the link for that id too: before,
// its session was the sub-agent log alone, without the main log beside it.
func TestNamedFlatSubAgentLinkOutOfItsFolder(t *testing.T) {
	const id = "5e550000-0000-4000-8000-0000000000a2"
	proj, elsewhere := t.TempDir(), t.TempDir()
	main := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + id + `","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	agent := `{"type":"user","uuid":"g1","parentUuid":null,"sessionId":"` + id + `","isSidechain":true,"agentId":"y","timestamp":"2026-02-01T10:00:02.000Z","message":{"role":"user","content":"look"}}` + "\n"
	target := filepath.Join(elsewhere, "agent-y.jsonl")
	for p, text := range map[string]string{filepath.Join(proj, id+".jsonl"): main, target: agent} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	named := filepath.Join(proj, "agent-y.jsonl")
	if err := os.Symlink(target, named); err != nil {
		t.Skipf("no links here: %v", err)
	}
	out, errs, code := run(t, "check", "--format", "json", "--fail-on", "never", named)
	if code != ExitOK || !strings.Contains(out, `"files": 2`) || !strings.Contains(out, `"path": "`+filepath.Join(proj, id+".jsonl")+`"`) {
		t.Errorf("check of the named link: exit %d, want its session's 2 files:\n%.1500s\n%s", code, out, errs)
	}
}
