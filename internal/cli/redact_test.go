package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// plantedSpan is a secret planted in a log: its line (0-based), raw byte range in the line, rule.
type plantedSpan struct {
	line       int
	start, end int
	rule       string
	raw        string // the bytes of the line that hold it (the secret as the log writes it)
	secret     string
}

// plantSecrets copies a real corpus session into a temp folder and plants one secret of each kind
// (and an AWS key hidden by a \u escape, a generic key in \n-joined text) into text values of its
// records. It returns the copy's path, its text and where each secret is.
func plantSecrets(t *testing.T) (string, []byte, []plantedSpan) {
	t.Helper()
	src := testcorpus.Path(t, "dagster-io__erk/session/26efdcc5-de34-4028-a984-9a094a9fa95b.jsonl", "that planted secrets are found at their spans and redacted without changing any other byte")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var spans []plantedSpan
	marker := []byte(`"text":"`)
	next := 0
	plant := func(raw, secretRaw, rule, secret string) {
		for ; next < len(lines); next++ {
			i := bytes.Index(lines[next], marker)
			if i < 0 {
				continue
			}
			at := i + len(marker)
			l := lines[next]
			nl := append([]byte{}, l[:at]...)
			nl = append(nl, raw...)
			nl = append(nl, l[at:]...)
			lines[next] = nl
			off := strings.Index(raw, secretRaw)
			spans = append(spans, plantedSpan{line: next, start: at + off, end: at + off + len(secretRaw), rule: rule, raw: secretRaw, secret: secret})
			next++
			return
		}
		t.Fatal("no line left to plant in")
	}
	esc := func(s string) string {
		j, _ := json.Marshal(s)
		return string(j[1 : len(j)-1])
	}
	for _, p := range secretstest.Plants(11) {
		if p.Rule == "generic-api-key" {
			plant(esc("config:\napi_key="+p.Secret+"\nnext ")+" ", esc(p.Secret), p.Rule, p.Secret)
			continue
		}
		plant(esc("here: "+p.Secret+" (end) "), esc(p.Secret), p.Rule, p.Secret)
	}
	aws := secretstest.Plants(12)[0]
	hidden := `\u0041` + aws.Secret[1:]
	plant("key "+hidden+" done ", hidden, aws.Rule, aws.Secret)

	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(src))
	text := bytes.Join(lines, nil)
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // not a live session
	os.Chtimes(p, old, old)
	return p, text, spans
}

func noSecretIn(t *testing.T, what, s string, spans []plantedSpan) {
	t.Helper()
	for _, sp := range spans {
		for _, v := range []string{sp.secret, sp.raw, sp.secret[4:min(len(sp.secret), 20)]} {
			if strings.Contains(s, v) {
				t.Errorf("%s prints the %s secret", what, sp.rule)
			}
		}
	}
}

// redactedText is text with each planted span replaced by its placeholder.
func redactedText(text []byte, spans []plantedSpan) []byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		l := lines[sp.line]
		lines[sp.line] = append(append(append([]byte{}, l[:sp.start]...), "[REDACTED:"+sp.rule+"]"...), l[sp.end:]...)
	}
	return bytes.Join(lines, nil)
}

func TestPlantedSecretsFoundAtTheirSpans(t *testing.T) {
	p, _, spans := plantSecrets(t)
	out, errs, _ := run(t, "check", "--format", "json", p)
	noSecretIn(t, "check --format json", out+errs, spans)
	var res struct {
		Diagnostics []struct {
			Line, Column, EndColumn int
			Code, Message           string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	type key struct{ line, col, end int }
	got := map[key]string{}
	for _, d := range res.Diagnostics {
		if d.Code == "secret" {
			got[key{d.Line, d.Column, d.EndColumn}] = d.Message
		}
	}
	if len(got) != len(spans) {
		t.Errorf("%d secret findings, %d planted", len(got), len(spans))
	}
	for _, sp := range spans {
		msg, ok := got[key{sp.line + 1, sp.start + 1, sp.end + 1}]
		if !ok {
			t.Errorf("%s at line %d bytes %d-%d not found", sp.rule, sp.line+1, sp.start, sp.end)
		} else if !strings.Contains(msg, "gitleaks rule "+sp.rule) {
			t.Errorf("message %q does not name %s", msg, sp.rule)
		}
	}
	text, errs2, _ := run(t, "check", p)
	noSecretIn(t, "check", text+errs2, spans)
}

func TestRedactChangesOnlyTheSecrets(t *testing.T) {
	p, text, spans := plantSecrets(t)
	want := redactedText(text, spans)

	// Dry run: a diff with the secrets masked, the file untouched.
	out, errs, code := run(t, "redact", p)
	noSecretIn(t, "redact (dry run)", out+errs, spans)
	if code != ExitOK || !strings.Contains(out, "[SECRET:aws-access-token]") || !strings.Contains(out, "+") {
		t.Errorf("dry run: exit %d, out %.300s", code, out)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, text) {
		t.Fatal("the dry run changed the file")
	}

	// A copy for sharing.
	outDir := t.TempDir()
	_, errs, code = run(t, "redact", "-o", outDir, p)
	noSecretIn(t, "redact -o", errs, spans)
	cp, err := os.ReadFile(filepath.Join(outDir, "proj", filepath.Base(p)))
	if err != nil || code != ExitOK {
		t.Fatalf("redact -o: exit %d, %v: %s", code, err, errs)
	}
	if !bytes.Equal(cp, want) {
		t.Error("the copy differs from the original elsewhere than the secrets")
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, text) {
		t.Fatal("redact -o changed the original")
	}
	if _, _, code = run(t, "redact", "-o", outDir, p); code != ExitUsage {
		t.Error("redact -o overwrote an earlier copy")
	}

	// In place.
	_, errs, code = run(t, "redact", "--write", p)
	noSecretIn(t, "redact --write", errs, spans)
	b, _ := os.ReadFile(p)
	if code != ExitOK || !bytes.Equal(b, want) {
		t.Fatalf("redact --write: exit %d, %s", code, errs)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) > 0 && !json.Valid(l) {
			t.Fatalf("a redacted line is not JSON: %.200s", l)
		}
	}
	baks, _ := filepath.Glob(p + ".ccdag-*.bak")
	if len(baks) != 1 {
		t.Fatalf("backups %v", baks)
	}
	if bak, _ := os.ReadFile(baks[0]); !bytes.Equal(bak, text) {
		t.Error("the backup is not the original")
	}
	out, _, _ = run(t, "check", "--format", "json", p)
	if strings.Contains(out, `"secret"`) {
		t.Error("secrets remain after redact --write")
	}
}

// TestViewsRedactByDefault: transcript, graph --format html and search show no planted secret
// unless --no-redact.
func TestViewsRedactByDefault(t *testing.T) {
	p, _, spans := plantSecrets(t)
	for _, args := range [][]string{
		{"transcript", p},
		{"graph", "--format", "html", p},
		{"search", "here", filepath.Dir(p)},
		{"search", "--format", "json", "key", filepath.Dir(p)},
	} {
		out, errs, _ := run(t, args...)
		noSecretIn(t, strings.Join(args[:len(args)-1], " "), out+errs, spans)
		if !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: no placeholder in %.300s", args[0], out)
		}
	}
	aws := spans[0]
	for _, args := range [][]string{
		{"transcript", "--no-redact", p},
		{"search", "--no-redact", "here", filepath.Dir(p)},
	} {
		out, _, _ := run(t, args...)
		if !strings.Contains(out, aws.secret) {
			t.Errorf("%s --no-redact hides the secret", args[0])
		}
	}
}

// TestSessionsCountSecretsAndSayWhenDeleted: `ccdag sessions` counts a session's secrets and says
// when Claude Code deletes it (cleanupPeriodDays after its log's modification), only for logs
// under the config folder's projects/; a settings.json it cannot use is said and 30 days assumed.
func TestSessionsCountSecretsAndSayWhenDeleted(t *testing.T) {
	p, text, spans := plantSecrets(t)
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	inProjects := filepath.Join(cfg, "projects", "proj", filepath.Base(p))
	os.MkdirAll(filepath.Dir(inProjects), 0o755)
	os.WriteFile(inProjects, text, 0o644)
	mod := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)
	os.Chtimes(inProjects, mod, mod)

	type row struct {
		Path    string
		Secrets int
		Deletes string
	}
	rows := func(args ...string) ([]row, string) {
		out, errs, code := run(t, append([]string{"sessions", "--format", "json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var res struct{ Sessions []row }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		noSecretIn(t, "sessions", out+errs, spans)
		return res.Sessions, errs
	}
	for _, c := range []struct{ settings, deletes, said string }{
		{`{"cleanupPeriodDays": 10}`, "2026-03-11", ""},
		{``, "2026-03-31", ""},
		{`{"cleanupPeriodDays": -1}`, "2026-03-31", "negative"},
		{`{not json`, "2026-03-31", "not valid JSON"},
	} {
		os.Remove(filepath.Join(cfg, "settings.json"))
		if c.settings != "" {
			os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(c.settings), 0o644)
		}
		rs, errs := rows(filepath.Join(cfg, "projects"), filepath.Dir(p))
		if len(rs) != 2 {
			t.Fatalf("%d rows", len(rs))
		}
		for _, r := range rs {
			want := c.deletes
			if !strings.Contains(r.Path, filepath.Join(cfg, "projects")) && !strings.HasPrefix(r.Path, "projects") {
				want = "" // outside the config folder: never swept
			}
			if r.Deletes != want || r.Secrets != len(spans) {
				t.Errorf("%s: %s: deletes %q (want %q), %d secrets", c.settings, r.Path, r.Deletes, want, r.Secrets)
			}
		}
		if c.said != "" && !strings.Contains(errs, c.said) {
			t.Errorf("%s: not said: %s", c.settings, errs)
		}
	}
	out, _, _ := run(t, "sessions", filepath.Join(cfg, "projects"))
	if !strings.Contains(out, "DELETES") || !strings.Contains(out, "SECRETS") || !strings.Contains(out, "2026-03-31") {
		t.Errorf("text: %s", out)
	}
}

// TestArchiveCommand: `ccdag archive DEST DIR` copies a session, then nothing; the archive reads
// like any folder of logs.
func TestArchiveCommand(t *testing.T) {
	p, text, _ := plantSecrets(t)
	dest := filepath.Join(t.TempDir(), "arch")
	_, errs, code := run(t, "archive", dest, filepath.Dir(filepath.Dir(p)))
	if code != ExitOK || !strings.Contains(errs, "1 new file") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "proj", filepath.Base(p))); !bytes.Equal(b, text) {
		t.Fatal("archived copy differs")
	}
	if _, errs, _ = run(t, "archive", dest, filepath.Dir(filepath.Dir(p))); !strings.Contains(errs, "0 new file(s), 0 grown, 1 already archived; 0 byte") {
		t.Errorf("second run: %s", errs)
	}
	if out, _, _ := run(t, "sessions", "--format", "json", dest); !strings.Contains(out, `"deletes": ""`) {
		t.Errorf("the archive's session: %s", out)
	}
	if _, _, code := run(t, "archive", filepath.Join(filepath.Dir(p), "in"), filepath.Dir(p)); code != ExitUsage {
		t.Error("an archive inside its source was not refused")
	}
}

// TestRedactWriteSaysWhatItCouldNotRedact: a file redact --write refuses to write (a live session,
// a read-only file or folder) keeps its secrets, and the summary says so with exit 2, as fix says
// "nothing written"; it once ended "no secret found".
func TestRedactWriteSaysWhatItCouldNotRedact(t *testing.T) {
	secret := secretstest.Plants(7)[0].Secret
	text := []byte(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"5e550000-0000-4000-8000-000000000002","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"key ` + secret + `"}}` + "\n")
	for _, c := range []struct {
		name, why string
		live      bool
		file, dir os.FileMode
	}{
		{"live", "live session", true, 0o644, 0o755},
		{"read-only file", "the file is read-only", false, 0o444, 0o755},
		{"read-only folder", "its folder is read-only", false, 0o644, 0o555},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "proj")
			os.Mkdir(dir, 0o755)
			p := filepath.Join(dir, "5e550000-0000-4000-8000-000000000002.jsonl")
			if err := os.WriteFile(p, text, c.file); err != nil {
				t.Fatal(err)
			}
			if !c.live {
				old := time.Now().Add(-time.Hour)
				os.Chtimes(p, old, old)
			}
			os.Chmod(dir, c.dir)
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			_, errs, code := run(t, "redact", "--write", p)
			if code != ExitUsage || !strings.Contains(errs, c.why) || strings.Contains(errs, "no secret") ||
				!strings.Contains(errs, "1 secret(s) in 1 file(s) remain, not redacted: nothing written") {
				t.Errorf("exit %d, stderr:\n%s", code, errs)
			}
			if b, _ := os.ReadFile(p); !bytes.Equal(b, text) {
				t.Error("the log changed")
			}
		})
	}
}
