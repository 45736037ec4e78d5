package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestRedactQuickFixes: a planted secret is a `secret` diagnostic that names its rule and not the
// secret; *Redact* replaces exactly it, *Redact all in file* every one, and the text stays JSON.
func TestRedactQuickFixes(t *testing.T) {
	ps := secretstest.Plants(21)
	aws, gh := ps[0], ps[1]
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	text := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":` + esc("key "+aws.Secret) + `}}` + "\n" +
		`{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":` + esc("token "+gh.Secret) + `}}` + "\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(text), 0o644)
	uri := pathToURI(path)
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	var diags []diagnostic
	for _, d := range c.diagsAt(uri, 1) {
		if d.Code == "secret" {
			diags = append(diags, d)
			if strings.Contains(d.Message, aws.Secret) || strings.Contains(d.Message, gh.Secret) {
				t.Error("a diagnostic holds the secret")
			}
		}
	}
	if len(diags) != 2 || !strings.Contains(diags[0].Message, "aws-access-token") {
		t.Fatalf("diagnostics %+v", diags)
	}
	var acts []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": diags[0].Range,
		"context": map[string]any{"diagnostics": diags[:1]}}, &acts)
	var one, all *codeAction
	for i := range acts {
		switch {
		case strings.HasPrefix(acts[i].Title, "Redact this secret"):
			one = &acts[i]
		case strings.HasPrefix(acts[i].Title, "Redact all secrets in file (2)"):
			all = &acts[i]
		}
	}
	if one == nil || all == nil || len(one.Diagnostics) != 1 {
		t.Fatalf("actions %+v", acts)
	}
	want1 := strings.Replace(text, aws.Secret, "[REDACTED:aws-access-token]", 1)
	if got := applyEdits(t, text, one.Edit.Changes[uri]); got != want1 {
		t.Errorf("redact one:\n%s", got)
	}
	want2 := strings.Replace(want1, gh.Secret, "[REDACTED:github-pat]", 1)
	got := applyEdits(t, text, all.Edit.Changes[uri])
	if got != want2 {
		t.Errorf("redact all:\n%s", got)
	}
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %s", l)
		}
	}
}

// TestDeletionHoverAndLens: a main log under the config folder's projects/ says on line 1's hover
// when Claude Code deletes it, and a lens warns within 7 days of that day; a log elsewhere says
// nothing.
func TestDeletionHoverAndLens(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 10}`), 0o644)
	text := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"
	for _, c := range []struct {
		dir   string
		age   time.Duration
		hover bool
		lens  bool
	}{
		{filepath.Join(cfg, "projects", "p"), 5 * 24 * time.Hour, true, true},
		{filepath.Join(cfg, "projects", "p2"), 1 * time.Hour, true, false},
		{filepath.Join(t.TempDir(), "archive"), 9 * 24 * time.Hour, false, false},
	} {
		os.MkdirAll(c.dir, 0o755)
		path := filepath.Join(c.dir, "s.jsonl")
		os.WriteFile(path, []byte(text), 0o644)
		mod := time.Now().Add(-c.age)
		os.Chtimes(path, mod, mod)
		uri := pathToURI(path)
		cl := newClient(t, clientOpt{})
		cl.open(uri, text, 1)
		cl.diagsAt(uri, 1)
		h := cl.hoverText(uri, pos{Line: 0, Character: 2})
		day := mod.AddDate(0, 0, 10).Format("2006-01-02")
		if got := strings.Contains(h, "deletes this session") && strings.Contains(h, day); got != c.hover {
			t.Errorf("%s: hover %q", c.dir, h)
		}
		var lenses []lensWire
		cl.mustCall("textDocument/codeLens", docParams(uri), &lenses)
		warned := false
		for _, l := range lenses {
			if strings.HasPrefix(l.Command.Title, "⚠ Claude Code deletes") {
				warned = true
			}
		}
		if warned != c.lens {
			t.Errorf("%s: lens %v, want %v", c.dir, warned, c.lens)
		}
	}
}

// TestRedactQuickFixesToldApart (issue 32 item 7): several secrets of one rule on one line get one
// quick fix each, told apart by where each starts and its masked first characters (six look-alike
// "Redact this secret (generic-api-key)" entries before) — never 5 characters of a secret in a title.
func TestRedactQuickFixesToldApart(t *testing.T) {
	var keys []string
	for seed := uint64(1); seed <= 3; seed++ {
		keys = append(keys, secretstest.Plants(seed)[4].Secret)
	}
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	content := "config: api_key=" + keys[0] + " and api_key=" + keys[1] + " then api_key=" + keys[2]
	text := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":` + esc(content) + `}}` + "\n"
	uri := pathToURI(filepath.Join(t.TempDir(), "s.jsonl"))
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	diags := secretDiags(c, uri, 1)
	if len(diags) != 3 {
		t.Fatalf("%d secret findings on the line, want 3: %+v", len(diags), diags)
	}
	var acts []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{at(0, 0), at(0, 10)},
		"context": map[string]any{"diagnostics": diags}}, &acts)
	titles := map[string]bool{}
	for _, a := range acts {
		if !strings.HasPrefix(a.Title, "Redact this secret") {
			continue
		}
		if titles[a.Title] {
			t.Errorf("two quick fixes titled %q", a.Title)
		}
		titles[a.Title] = true
		if !strings.Contains(a.Title, "generic-api-key") || !strings.Contains(a.Title, "line 1 col ") {
			t.Errorf("title %q does not name the rule and where the secret is", a.Title)
		}
		for _, k := range keys {
			for i := 0; i+5 <= len(k); i++ {
				if strings.Contains(a.Title, k[i:i+5]) {
					t.Fatalf("title %q shows 5 characters of a secret", a.Title)
				}
			}
		}
	}
	if len(titles) != 3 {
		t.Errorf("%d distinct quick fixes for 3 secrets: %v", len(titles), titles)
	}
}

// A secret on a line that is no record (an object of keys ccdag does not read) is a diagnostic
// like one in a record, with its quick fix: `ccdag redact` replaces it, so the editor shows it.
func TestSecretOnALineThatIsNoRecord(t *testing.T) {
	key := secretstest.Plants(7)[0].Secret
	text := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"note":"pasted ` + key + `"}` + "\n"
	uri := pathToURI(filepath.Join(t.TempDir(), "s.jsonl"))
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	diags := secretDiags(c, uri, 1)
	if len(diags) != 1 || diags[0].Range.Start.Line != 1 {
		t.Fatalf("secret findings %+v, want one on line 2", diags)
	}
	var acts []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": diags[0].Range,
		"context": map[string]any{"diagnostics": diags}}, &acts)
	if !slices.ContainsFunc(acts, func(a codeAction) bool { return strings.HasPrefix(a.Title, "Redact this secret") }) {
		t.Errorf("no Redact quick fix for it: %+v", acts)
	}
}

// secretDiags returns the secret diagnostics published for uri at version.
func secretDiags(c *client, uri string, version int32) []diagnostic {
	var diags []diagnostic
	for _, d := range c.diagsAt(uri, version) {
		if d.Code == "secret" {
			diags = append(diags, d)
		}
	}
	return diags
}
