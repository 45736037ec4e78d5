package secrets

import (
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

func rulesOf(line []byte, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Rule+"="+string(line[h.Start:h.End]))
	}
	return out
}

// TestAllowSignaturePerLine: `gitleaks:allow` hides the secrets of its own line of text only, as
// gitleaks skips only the line that holds it: a .env read into a log with one fixture line marked
// still shows its AWS key and GitHub token (issue 31, item 3).
func TestAllowSignaturePerLine(t *testing.T) {
	p := secretstest.Plants(31)
	aws, gh, slack := p[0].Secret, p[1].Secret, p[2].Secret
	env := "AWS_ACCESS_KEY_ID=" + aws + "\nGITHUB_TOKEN=" + gh + "\nSLACK=" + slack + " # gitleaks:allow\n"
	line := []byte(`{"type":"user","message":{"content":` + jsonString(env) + `}}`)
	got := rulesOf(line, Default().Line(line, nil))
	want := []string{"aws-access-token=" + aws, "github-pat=" + gh}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// On the line of the secret, before or after it, the mark hides it.
	for _, text := range []string{"# gitleaks:allow\nx " + aws + " y # gitleaks:allow", "x " + aws + " // gitleaks:allow"} {
		if h := Default().Text(text); len(h) != 0 {
			t.Errorf("%q: %v", text, h)
		}
	}
}

// TestSpecificRuleWins: a hit of a specific rule wins over an overlapping generic-api-key hit,
// wherever they overlap (issue 31, item 6); a generic hit overlapping none stays.
func TestSpecificRuleWins(t *testing.T) {
	p := secretstest.Plants(32)
	gh := p[1].Secret
	for _, text := range []string{
		"token=" + gh + "\n",
		`export GITHUB_TOKEN="` + gh + `"`,
		"config: auth_token: " + gh + " done",
	} {
		line := []byte(`{"t":` + jsonString(text) + `}`)
		got := rulesOf(line, Default().Line(line, nil))
		if want := []string{"github-pat=" + gh}; !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", text, got, want)
		}
	}
	gen := p[4].Secret
	text := "api_key=" + gen + "\ntoken=" + gh + "\n"
	got := Default().Text(text)
	var rules []string
	for _, h := range got {
		rules = append(rules, h.Rule+"="+text[h.Start:h.End])
	}
	if want := []string{"generic-api-key=" + gen, "github-pat=" + gh}; !slices.Equal(rules, want) {
		t.Errorf("got %v, want %v", rules, want)
	}
}

// TestDisjointPrefersSpecific: disjoint drops a generic hit overlapping a specific one that starts
// before it, after it, or inside it, and keeps the rest ordered and disjoint.
func TestDisjointPrefersSpecific(t *testing.T) {
	g := func(a, b int32) Hit { return Hit{a, b, generic} }
	x := func(a, b int32) Hit { return Hit{a, b, "x"} }
	for _, c := range []struct{ in, want []Hit }{
		{[]Hit{g(0, 10), x(0, 10)}, []Hit{x(0, 10)}},
		{[]Hit{g(0, 10), x(5, 20)}, []Hit{x(5, 20)}},
		{[]Hit{x(0, 6), g(5, 20)}, []Hit{x(0, 6)}},
		{[]Hit{g(0, 30), x(10, 12)}, []Hit{x(10, 12)}},
		{[]Hit{x(0, 100), g(40, 50), g(120, 130)}, []Hit{x(0, 100), g(120, 130)}},
		{[]Hit{g(0, 10), x(10, 20)}, []Hit{g(0, 10), x(10, 20)}},
		{[]Hit{x(0, 10), x(5, 20), g(30, 40)}, []Hit{x(0, 10), g(30, 40)}},
	} {
		if got := disjoint(slices.Clone(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("%v: got %v, want %v", c.in, got, c.want)
		}
	}
}

// TestTornAppend: a record cut inside a string with the next record glued to it (an interrupted
// append) does not turn the glued record's strings inside out: its secrets are found at their exact
// spans, and so are the torn part's (issue 31, item 4).
func TestTornAppend(t *testing.T) {
	p := secretstest.Plants(33)
	aws, gh := p[0].Secret, p[1].Secret
	torn := `{"type":"user","uuid":"u1","message":{"role":"user","content":"my key ` + aws + ` and then th`
	glued := `{"type":"assistant","uuid":"u2","parentUuid":"u1","message":{"content":[{"type":"text","text":"token ` + gh + ` done"}]}}`
	for _, line := range [][]byte{
		[]byte(torn + glued),
		[]byte(torn + "\\" + glued),                                // cut after a backslash
		[]byte(`{"a":"x` + glued),                                  // nothing in the torn part
		[]byte(torn + glued[:len(glued)-10] + "{\"x\":\"" + glued), // torn twice
	} {
		got := rulesOf(line, Default().Line(line, nil))
		var want []string
		if strings.Contains(string(line), aws) {
			want = append(want, "aws-access-token="+aws)
		}
		want = append(want, "github-pat="+gh)
		if strings.Count(string(line), gh) == 2 {
			want = append(want, "github-pat="+gh)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%.60q…: got %v, want %v", line, got, want)
		}
	}
	// A valid line with `{` closing a string is read as it is.
	line := []byte(`{"a":"` + gh + ` {","b":"x"}`)
	if got := rulesOf(line, Default().Line(line, nil)); !slices.Equal(got, []string{"github-pat=" + gh}) {
		t.Errorf("valid line: %v", got)
	}
}
