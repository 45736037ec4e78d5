package secrets

import (
	"bytes"
	"maps"
	"os"

	"encoding/json"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/testcorpus"
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

// TestCorpusAgreesWithGitleaks: on the real logs, the scanner finds what gitleaks v8.30.1 finds.
// The counts were taken once with gitleaks' own detector (detect.NewDetectorDefaultConfig, then
// DetectString on every string value of every line decoded by encoding/json: 22, 10 and 3); none
// is a planted or known secret: they are the rules' false alarms on real text ("Bearer
// YOUR_JWT_TOKEN", a test JWT), which is why `secret` is a warning that names the rule.
func TestCorpusAgreesWithGitleaks(t *testing.T) {
	files := testcorpus.Files(t, "that the secret scan finds on the real logs what gitleaks finds")
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
	want := map[string]int{"curl-auth-header": 22, "generic-api-key": 10, "jwt": 3}
	if !maps.Equal(got, want) {
		t.Errorf("per rule %v, gitleaks %v", got, want)
	}
}
