package secrets

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestMaskHidesEveryPart: a secret the scan found is hidden wherever a part of it of 8 bytes or
// more is shown — whole, cut at either end by a label's "…", escaped for Markdown, inside JSON —
// and the text around it is kept.
func TestMaskHidesEveryPart(t *testing.T) {
	plants := secretstest.Plants(3)
	m := NewMask()
	for _, p := range plants {
		line := []byte(`{"message":{"content":` + jsonString("key: "+p.Secret+" end") + `}}`)
		hits := Default().Line(line, nil)
		if p.Rule == "generic-api-key" {
			line = []byte(`{"message":{"content":` + jsonString("api_key="+p.Secret) + `}}`)
			hits = Default().Line(line, nil)
		}
		if len(hits) == 0 {
			t.Fatalf("%s: not found", p.Rule)
		}
		m.AddLine(line, hits)
	}
	for _, p := range plants {
		s := p.Secret
		if p.Rule == "private-key" {
			s = strings.Split(s, "\n")[2]
		}
		shown := map[string]string{
			"whole":    "before " + s + " after",
			"cut end":  "Bash: export TOKEN=" + s[:len(s)/2] + "…",
			"cut head": "…" + s[len(s)/3:] + " tail",
			"markdown": "`" + strings.ReplaceAll(s, "_", `\_`) + "`",
			"json":     jsonString("x " + s + " y"),
		}
		for name, text := range shown {
			got := m.String(text)
			if leak := secretstest.Leak(got, []secretstest.Planted{{Rule: p.Rule, Secret: s}}); leak != "" {
				t.Errorf("%s, %s: %q still shows %q", p.Rule, name, got, leak)
			}
			if !strings.Contains(got, "[REDACTED:") {
				t.Errorf("%s, %s: %q holds no placeholder", p.Rule, name, got)
			}
		}
		js := m.String(jsonString("x " + s + " y"))
		var back string
		if json.Unmarshal([]byte(js), &back) != nil {
			t.Errorf("%s: masked JSON %s is not JSON", p.Rule, js)
		}
		if got := m.String("before " + s + " after"); !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") {
			t.Errorf("%s: the text around the secret changed: %q", p.Rule, got)
		}
	}
	plain := "nothing secret here, only words of a log: Read internal/secrets/mask.go"
	if got := m.String(plain); got != plain {
		t.Errorf("text without a secret changed: %q", got)
	}
	if NewMask().String(plain) != plain || (*Mask)(nil).String(plain) != plain {
		t.Error("an empty mask changed text")
	}
}

// TestMaskEqual: masks that hide the same secrets under the same rules are equal, whatever else;
// one more secret, or another rule, and they are not; nil and empty hide nothing alike.
func TestMaskEqual(t *testing.T) {
	ps := secretstest.Plants(3)
	mk := func(n int, rule string) *Mask {
		m := NewMask()
		for _, p := range ps[:n] {
			r := p.Rule
			if rule != "" {
				r = rule
			}
			m.Add(p.Secret, r)
		}
		return m
	}
	var none *Mask
	for _, c := range []struct {
		a, b *Mask
		eq   bool
	}{
		{mk(2, ""), mk(2, ""), true},
		{mk(2, ""), mk(3, ""), false},
		{mk(2, ""), mk(2, "other"), false},
		{none, NewMask(), true},
		{NewMask(), mk(1, ""), false},
		{none, mk(1, ""), false},
	} {
		if c.a.Equal(c.b) != c.eq || c.b.Equal(c.a) != c.eq {
			t.Errorf("Equal: want %v", c.eq)
		}
	}
}
