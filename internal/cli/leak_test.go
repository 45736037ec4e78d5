package cli

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// TestGraphMasksSecretsBeforeEscaping (docs/spec.md §15): a password holding '_' and '*', which
// Mermaid writes as #95; and #42; (cutting the secret into pieces under 8 bytes), shows in no
// graph format, not even once the format's escapes are undone; with --no-redact each shows it.
func TestGraphMasksSecretsBeforeEscaping(t *testing.T) {
	g := secretstest.Plants(91)[4].Secret // 24 letters and digits
	var cut strings.Builder
	for i := 0; i < len(g); i += 4 {
		cut.WriteString(g[i : i+4])
		if i+4 < len(g) {
			cut.WriteByte("_*"[i/4%2])
		}
	}
	underscored := strings.ReplaceAll(cut.String(), "*", "_")
	plants := []secretstest.Planted{{Rule: "generic-api-key", Secret: underscored}, {Rule: "curl-auth-user", Secret: "admin:" + cut.String()}}
	prompt := func(uuid, parent, text string) string {
		b, _ := json.Marshal(text)
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + parent + `,"sessionId":"5e55a000-0000-4000-8000-0000000000d5","message":{"role":"user","content":` + string(b) + `}}` + "\n"
	}
	log := prompt("u1", "null", "Connect with DB_PASSWORD="+underscored+" to the staging db") +
		prompt("u2", `"u1"`, "then run curl -u 'admin:"+cut.String()+"' https://db.example.com/health")
	p := filepath.Join(t.TempDir(), "5e55a000-0000-4000-8000-0000000000d5.jsonl")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := run(t, "check", p); strings.Count(out, "[secret]") != 2 {
		t.Fatalf("the scan does not find both secrets, the test tests nothing:\n%s", out)
	}
	for _, f := range []string{"mermaid", "dot", "text", "html", "json"} {
		out, errs, code := run(t, "graph", "--format", f, p)
		if code != ExitOK {
			t.Fatalf("graph --format %s: exit %d: %s", f, code, errs)
		}
		for _, shown := range []string{out, unescaped(out)} {
			if leak := secretstest.Leak(shown, plants); leak != "" {
				i := strings.Index(shown, leak)
				t.Errorf("graph --format %s shows %q: …%s…", f, leak, shown[max(0, i-60):min(len(shown), i+30)])
			}
		}
		if raw, _, _ := run(t, "graph", "--no-redact", "--format", f, p); secretstest.Leak(unescaped(raw), plants) == "" {
			t.Errorf("graph --format %s --no-redact shows no secret: the labels miss the planting", f)
		}
	}
}

// unescaped is out with the escapes of the graph's formats undone: HTML's entities, JSON's and
// DOT's backslashes, Mermaid's entity codes (#95;, #quot;).
func unescaped(out string) string {
	out = html.UnescapeString(out)
	out = regexp.MustCompile(`\\u([0-9a-fA-F]{4})`).ReplaceAllStringFunc(out, func(m string) string {
		n, _ := strconv.ParseUint(m[2:], 16, 32)
		return string(rune(n))
	})
	out = regexp.MustCompile(`\\(.)`).ReplaceAllString(out, "$1")
	out = strings.NewReplacer("#quot;", `"`, "#lt;", "<", "#gt;", ">", "#amp;", "&").Replace(out)
	return regexp.MustCompile(`#([0-9]+);`).ReplaceAllStringFunc(out, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		return string(rune(n))
	})
}
