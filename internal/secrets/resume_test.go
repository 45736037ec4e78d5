package secrets

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// TestLineResumesExactly: Line looks for keywords in a decoded string only from near where its raw
// bytes hold the first one (less Scanner.reach), which must find what a look from the start finds:
// on every line of the real logs, and on made lines whose keywords, values and secrets are written
// with escapes (\u00XX of a letter, \/, \n) just before, inside and after them.
func TestLineResumesExactly(t *testing.T) {
	s := Default()
	same := func(line []byte) bool {
		t.Helper()
		got := s.line(line, nil, true)
		want := s.line(line, nil, false)
		if !slices.Equal(got, want) {
			t.Errorf("a line of %d bytes (%.300q):\n got %v\nwant %v", len(line), line, got, want)
			return false
		}
		return true
	}
	r := rand.New(rand.NewPCG(5, 6))
	var parts []string
	for _, k := range s.keywords {
		parts = append(parts, k.text, strings.ToUpper(k.text))
	}
	for _, p := range secretstest.Plants(7) {
		parts = append(parts, p.Secret)
	}
	parts = append(parts, "=", " = ", ": ", `"`, " ", "\n", "/", "Bearer ", "export ", "prose without any ",
		"Zk3q9VwT1xR7pL2mN8bC4dF6", "aB3dE5gH7jK9mN1pQ3sT", strings.Repeat("x7Yq", 10))
	hits := 0
	for n := range 3000 {
		var text strings.Builder
		for range 1 + r.IntN(12) {
			text.WriteString(parts[r.IntN(len(parts))])
		}
		line := []byte(`{"type":"user","message":{"content":"` + escapeSome(r, text.String()) + `"}}`)
		hits += len(s.Line(line, nil))
		if !same(line) && n > 20 {
			t.FailNow()
		}
	}
	if hits == 0 {
		t.Fatal("the made lines hold no secret: the comparison proves nothing")
	}
	lines := 0
	for _, l := range testcorpus.Lines(t, "that Line finds on real logs what a look from each string's start finds") {
		if !same(l) {
			t.FailNow()
		}
		lines++
	}
	t.Logf("%d made hits, %d corpus lines", hits, lines)
}

// escapeSome writes text as a JSON string body, a third of its ASCII letters and slashes escaped
// (\u00XX, \/) and its quotes and line breaks as JSON must.
func escapeSome(r *rand.Rand, text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '/' && r.IntN(3) == 0:
			b.WriteString(`\/`)
		case c < 0x80 && c > ' ' && r.IntN(3) == 0:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
