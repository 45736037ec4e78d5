package secrets

import (
	"bytes"
	"maps"
	"os"

	"encoding/json"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/testcorpus"
	"github.com/zricethezav/gitleaks/v8/config"
	"strings"
	"testing"
)

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestEachRuleAtItsSpan: every planted secret is found by its rule, at the exact bytes of the line
// that hold it, and redacting leaves every other byte as it was.
func TestEachRuleAtItsSpan(t *testing.T) {
	sc := Default()
	for _, p := range secretstest.Plants(1) {
		text := "here it is: " + p.Secret + " (done)"
		if p.Rule == "generic-api-key" {
			text = "config: api_key=" + p.Secret + "\nnext"
		}
		line := []byte(`{"type":"user","message":{"content":` + jsonString(text) + `}}`)
		hits := sc.Line(line, nil)
		if len(hits) != 1 {
			t.Fatalf("%s: %d hits %v", p.Rule, len(hits), hits)
		}
		h := hits[0]
		if h.Rule != p.Rule {
			t.Errorf("found by %s, want %s", h.Rule, p.Rule)
		}
		raw := jsonString(p.Secret)
		raw = raw[1 : len(raw)-1]
		if got := string(line[h.Start:h.End]); got != raw {
			t.Errorf("%s: span holds %q, want %q", p.Rule, got, raw)
		}
		red := RedactLine(line, hits)
		want := strings.Replace(string(line), raw, "[REDACTED:"+p.Rule+"]", 1)
		if string(red) != want {
			t.Errorf("%s: redacted line %s", p.Rule, red)
		}
		if !json.Valid(red) {
			t.Errorf("%s: redacted line is not JSON", p.Rule)
		}
	}
}

// TestEscapesHideNothing: a secret written with \u escapes, or split by an escaped quote around it,
// is found, and its span covers the escapes whole.
func TestEscapesHideNothing(t *testing.T) {
	sc := Default()
	p := secretstest.Plants(2)[0] // AWS
	esc := `\u0041` + p.Secret[1:]
	line := []byte(`{"type":"user","message":{"content":"key: ` + esc + `\" done"}}`)
	hits := sc.Line(line, nil)
	if len(hits) != 1 || string(line[hits[0].Start:hits[0].End]) != esc {
		t.Fatalf("hits %v", hits)
	}
	// Keys are not values: a secret-looking key is left alone.
	if hits := sc.Line([]byte(`{"`+p.Secret+`":1}`), nil); len(hits) != 0 {
		t.Errorf("a key was reported: %v", hits)
	}
}

func TestRedactString(t *testing.T) {
	p := secretstest.Plants(3)[1]
	got := RedactString("token " + p.Secret + " end")
	if got != "token [REDACTED:github-pat] end" {
		t.Errorf("got %q", got)
	}
	if RedactString("nothing here") != "nothing here" {
		t.Error("changed clean text")
	}
}

// TestCorpusFindsOnlyRealSecrets: on the real logs gitleaks' own detector (DetectString on every
// string value of every line decoded by encoding/json) reports 22 curl-auth-header, 10
// generic-api-key and 3 jwt hits. All but the three JWTs (a token a test run was issued) stand for
// a secret: "Bearer YOUR_JWT_TOKEN", "invalid-token-here", a tenant's UUID, "eyJ..." cut short,
// `:thumbnailKey="item.thumbnails3key"`. ccdag's placeholder allowlist leaves those out: a healthy
// log raises no false alarm.
func TestCorpusFindsOnlyRealSecrets(t *testing.T) {
	files := testcorpus.Files(t, "that the secret scan finds on the real logs only what is a secret")
	got := map[string]int{}
	sc := Default()
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			for _, h := range sc.Line(l, nil) {
				got[h.Rule]++
			}
		}
	}
	want := map[string]int{"jwt": 3}
	if !maps.Equal(got, want) {
		t.Errorf("per rule %v, want %v", got, want)
	}
}

// TestPlaceholdersAreNotSecrets: what stands for a secret in docs and tests is not reported, and
// the same shapes holding a real-looking value still are.
func TestPlaceholdersAreNotSecrets(t *testing.T) {
	sc := Default()
	find := func(text string) []Hit {
		return sc.Line([]byte(`{"type":"user","message":{"content":`+jsonString(text)+`}}`), nil)
	}
	for _, text := range []string{
		"curl https://api.x.io/tasks -H \"Authorization: Bearer YOUR_JWT_TOKEN\"",
		"curl https://api.x.io/tasks -H \"Authorization: Bearer invalid-token-here\"",
		"curl https://api.x.io/tasks -H \"Authorization: Bearer <token>\"",
		"acquiring new Azure AD access token for tenant=aee37f37-f5a2-42e2-97f4-2552c46c7e1a",
		"<img :thumbnailKey=\"item.thumbnails3key\" />",
		"api_key=xxxxxxxxxxxxxxxxxxxx",
	} {
		if h := find(text); len(h) != 0 {
			t.Errorf("%q: reported %v", text, h)
		}
	}
	for _, text := range []string{
		"curl https://api.x.io/tasks -H \"Authorization: Bearer 8fQz1LrT0pVx7mKc2WbN9sHd\"",
		"api_key=Zk3q9VwT1xR7pL2mN8bC4dF6",
	} {
		if h := find(text); len(h) != 1 {
			t.Errorf("%q: %d hits, want 1", text, len(h))
		}
	}
}

// TestDefaultRulesAllCompile: Default compiles a rule when first needed; every one of them must.
func TestDefaultRulesAllCompile(t *testing.T) {
	s, err := New(config.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Rules()); n < 200 || n != len(Default().Rules()) {
		t.Errorf("%d rules", n)
	}
}
