package secrets

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestLiveIsNeverWrong: a string is decoded and run by the rules only when one of its keywords is
// live (live.go), and that must find what decoding every string that holds a keyword finds
// (Scanner.line's reference): on made lines whose keywords stand where a rule's expression may or
// may not follow them, written plain and with escapes before, inside and after them, fold traps (ſ,
// the Kelvin sign, as they are and as \u escapes) among them, as long values and as short ones in a
// long line. The corpus's lines are held to it by TestLineResumesExactly.
func TestLiveIsNeverWrong(t *testing.T) {
	s := Default()
	r := rand.New(rand.NewPCG(8, 9))
	hex := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("0123456789abcdefABCDEF"[r.IntN(22)])
		}
		return b.String()
	}
	var parts []string
	for _, k := range s.keywords {
		parts = append(parts, k.text, strings.ToUpper(k.text), k.text+hex(32), k.text+"_"+hex(20))
	}
	for _, p := range secretstest.Plants(11) {
		parts = append(parts, p.Secret)
	}
	parts = append(parts, "=", " = ", ":", ": ", `"`, `'`, " => ", " := ", "||=", "?=", ",", " ", "\t", "\n", "_", "-", ".",
		"ſ", "\u212a", "é", `\u017f`, `\u212A`, "skills_directory_and_more", "task_list_for_today_", "the token is", "a key of",
		"SK"+hex(32), "sk"+hex(32), "hvs."+hex(90), "Bearer ", "password", strings.Repeat("w", 30),
		"LTAIſ"+hex(19)+" ", "LTAIK"+hex(19)+" ", "api_key = ſ"+hex(23)+" ", "api_key = K"+hex(23)+" ")
	var dead, decoded int
	check := func(line []byte) {
		t.Helper()
		got := s.line(line, nil, true)
		want := s.line(line, nil, false)
		if !slices.Equal(got, want) {
			t.Fatalf("a line of %d bytes (%.400q):\n got %v\nwant %v", len(line), line, got, want)
		}
	}
	hits := 0
	for n := range 6000 {
		var text strings.Builder
		for range 1 + r.IntN(10) {
			text.WriteString(parts[r.IntN(len(parts))])
		}
		body := escapeRarely(r, text.String(), n%3)
		var lm *shortMasks
		if first := firstKeyword(s, []byte(body)); first >= 0 {
			decoded++
			var st *liveState
			if s.firstLive([]byte(body), 0, &st, lm, 0) < 0 {
				dead++
			}
		}
		line := []byte(`{"type":"user","message":{"content":"` + body + `"}}`)
		if n%2 == 1 { // a short value among others in a long line
			line = []byte(`{"a":"` + body + `","b":"` + escapeRarely(r, parts[r.IntN(len(parts))], 1) + `","c":"` + strings.Repeat("x", 300) + `"}`)
		}
		hits += len(s.Line(line, nil))
		check(line)
	}
	if hits == 0 || dead == 0 || dead == decoded {
		t.Fatalf("%d hits, %d of %d strings with a keyword had none live: the made lines do not try the gate both ways", hits, dead, decoded)
	}
	t.Logf("%d hits; %d of %d strings with a keyword had none live", hits, dead, decoded)
}

// escapeRarely writes text as a JSON string body: quotes, backslashes and line breaks as JSON must,
// and with level 1 a letter in ten as \u00XX and half the fold traps as \u escapes, with level 2 a slash in three as \/ and a character
// in twenty as \t, \\ or \".
func escapeRarely(r *rand.Rand, text string, level int) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case level == 1 && (strings.HasPrefix(text[i:], "ſ") || strings.HasPrefix(text[i:], "\u212a")) && r.IntN(2) == 0:
			r, n := utf8.DecodeRuneInString(text[i:])
			fmt.Fprintf(&b, `\u%04x`, r)
			i += n - 1
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case level == 1 && c < 0x80 && c > ' ' && r.IntN(10) == 0:
			b.WriteString(`\u00` + "0123456789abcdef"[c>>4:c>>4+1] + "0123456789abcdef"[c&15:c&15+1])
		case level == 2 && c == '/' && r.IntN(3) == 0:
			b.WriteString(`\/`)
		case level == 2 && r.IntN(20) == 0:
			b.WriteString([]string{`\t`, `\\`, `\"`}[r.IntN(3)])
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestLiveVerdicts: what the gate says at a keyword, on cases a person can check.
func TestLiveVerdicts(t *testing.T) {
	s := Default()
	hex32 := strings.Repeat("0f", 16)
	art := "AKCp" + strings.Repeat("a1", 35)[:69] // artifactory's form, \b before it
	for _, c := range []struct {
		body string
		live bool
	}{
		{"the token is in the header", false},            // prose: no assignment after "token"
		{"token = 8f3a9c2e71d4b6a0", true},               // an assignment and a value
		{`{\"token\": \"8f3a9c2e71d4b6a0\"}`, true},      // JSON in a string: the escapes decoded
		{"see skills_directory_listing_x", false},        // "sk" and a token, not twilio's
		{"SK" + hex32, true},                             // twilio's
		{"xSK" + hex32, true},                            // twilio's has no word boundary
		{"x" + art, false},                               // artifactory's has: not there
		{`\n` + art, true},                               // a line break before it is one
		{`\\n` + art, false},                             // a backslash and an n: not
		{`\\\n` + art, true},                             // a backslash and a line break
		{"use ſ here; skills_directory_listing_x", true}, // a fold trap: twilio's rule runs on windows
		{`\u017f and skills_directory_listing_x`, true},
		{"LTAI-" + hex32[:19] + " ", false},            // alibaba's: not its form
		{"LTAIſ" + hex32[:19] + " ", true},             // ſ is its form under (?i): a fold trap
		{`LTAI\u017f` + hex32[:19] + " ", true},        // the same written as an escape, after the keyword
		{`\u017f then LTAIſ` + hex32[:19] + " ", true}, // and before it
		{`\u212a then the token is here`, false},       // a trap does not make every keyword live
	} {
		var st *liveState
		if got := s.firstLive([]byte(c.body), 0, &st, nil, 0) >= 0; got != c.live {
			t.Errorf("%q: live %v, want %v", c.body, got, c.live)
		}
		line := []byte(`{"content":"` + c.body + `"}`)
		if got, want := s.line(line, nil, true), s.line(line, nil, false); !slices.Equal(got, want) {
			t.Errorf("%q: hits %v, want %v", c.body, got, want)
		}
	}
}
