package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestNoOutputShowsASecret (docs/spec.md §15): secrets planted in a real session — prompts (the
// title), a tool input, a tool result, a sub-agent log — show in no output of any command, not 8
// bytes of one; and each view that has --no-redact shows them with it (so the planting reaches
// every view, and this test can fail).
func TestNoOutputShowsASecret(t *testing.T) {
	ps := secretstest.PlantSession(t)
	out := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(out, 0o755)
	type view struct {
		name     string
		args     []string
		file     string // the output is written here (-o), not to stdout
		noRedact bool   // the view has --no-redact
	}
	views := []view{
		{name: "check text", args: []string{"check", ps.Dir}},
		{name: "check json", args: []string{"check", "--format", "json", ps.Dir}},
		{name: "check sarif", args: []string{"check", "--format", "sarif", ps.Dir}},
		{name: "sessions text", args: []string{"sessions", ps.Dir}, noRedact: true},
		{name: "sessions json", args: []string{"sessions", "--format", "json", ps.Dir}, noRedact: true},
		{name: "resume text", args: []string{"resume", ps.Main}, noRedact: true},
		{name: "resume json", args: []string{"resume", "--format", "json", ps.Main}},
		{name: "transcript", args: []string{"transcript", ps.Main}, noRedact: true},
		{name: "transcript all branches", args: []string{"transcript", "--all-branches", ps.Main}, noRedact: true},
		{name: "transcript of the sub-agent", args: []string{"transcript", ps.Agent}, noRedact: true},
		{name: "export", args: []string{"export", "--format", "otlp-json", "-o", filepath.Join(out, "export.json"), ps.Dir}, file: filepath.Join(out, "export.json"), noRedact: true},
		{name: "redact (dry run)", args: []string{"redact", ps.Dir}},
	}
	for _, f := range []string{"json", "text", "dot", "mermaid", "html"} {
		views = append(views,
			view{name: "graph " + f, args: []string{"graph", "--format", f, ps.Main}, noRedact: true},
			view{name: "graph " + f + " of the sub-agent", args: []string{"graph", "--format", f, ps.Agent}, noRedact: true},
			view{name: "graph " + f + " collapsed", args: []string{"graph", "--format", f, "--max-nodes", "20", ps.Main}})
	}
	for _, w := range ps.Words {
		views = append(views, view{name: "search " + w, args: []string{"search", w, ps.Dir}, noRedact: true},
			view{name: "search json " + w, args: []string{"search", "--format", "json", w, ps.Dir}})
	}
	for _, p := range ps.Plants { // a search for the secret itself finds it, and shows its placeholder
		s := strings.Split(p.Secret, "\n")[1%len(strings.Split(p.Secret, "\n"))]
		views = append(views, view{name: "search the " + p.Rule + "'s middle", args: []string{"search", s[len(s)-16:], ps.Dir}})
	}
	output := func(v view, args []string) string {
		stdout, stderr, _ := run(t, args...)
		if v.file != "" {
			b, err := os.ReadFile(v.file)
			if err != nil {
				t.Fatalf("%s: %v (%s)", v.name, err, stderr)
			}
			os.Remove(v.file)
			stdout = string(b)
		}
		return stdout + stderr
	}
	for _, v := range views {
		got := output(v, v.args)
		if leak := secretstest.Leak(got, ps.Plants); leak != "" {
			i := strings.Index(got, leak)
			t.Errorf("%s shows %q: …%s…", v.name, leak, got[max(0, i-60):min(len(got), i+30)])
		}
		if strings.HasPrefix(v.name, "search") && !strings.Contains(got, "[REDACTED:") {
			t.Errorf("%s: no hit shows a placeholder:\n%.600s", v.name, got)
		}
		if v.noRedact {
			args := append([]string{v.args[0], "--no-redact"}, v.args[1:]...)
			if secretstest.Leak(output(v, args), ps.Plants) == "" {
				t.Errorf("%s --no-redact shows no secret: the planting misses this view", v.name)
			}
		}
	}
}

// TestRedactWriteNamesTheSessionsOtherFiles (docs/spec.md §15): `redact --write S.jsonl` changes
// only S, as fix does, and names each other file of the session that holds secrets, with how
// many, and exits 1 while any remain; naming the session's folder redacts them all.
func TestRedactWriteNamesTheSessionsOtherFiles(t *testing.T) {
	ps := secretstest.PlantSession(t)
	agentBefore, _ := os.ReadFile(ps.Agent)
	_, errs, code := run(t, "redact", "--write", ps.Main)
	agentName := filepath.Base(ps.Agent)
	if code != ExitFindings || !strings.Contains(errs, agentName+" (of the same session) holds 2 secret(s)") ||
		!strings.Contains(errs, "2 secret(s) remain in 1 other file(s)") {
		t.Errorf("redact --write MAIN: exit %d, stderr:\n%s", code, errs)
	}
	if b, _ := os.ReadFile(ps.Main); secretstest.Leak(string(b), ps.Plants) != "" {
		t.Error("the main log still holds a secret")
	}
	if b, _ := os.ReadFile(ps.Agent); string(b) != string(agentBefore) {
		t.Error("a file not named was changed")
	}
	_, errs, code = run(t, "redact", "--write", ps.Dir)
	if code != ExitOK || strings.Contains(errs, "remain") {
		t.Errorf("redact --write DIR: exit %d, stderr:\n%s", code, errs)
	}
	logs, _ := filepath.Glob(filepath.Join(ps.Dir, "*.jsonl"))
	for _, p := range logs {
		if b, _ := os.ReadFile(p); secretstest.Leak(string(b), ps.Plants) != "" {
			t.Errorf("%s still holds a secret", filepath.Base(p))
		}
	}
}
