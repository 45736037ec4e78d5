package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestAppendQuote: what AppendQuote writes is a JSON string that Unescape reads back as the same
// bytes, invalid UTF-8 included, and that encoding/json reads as the same text when it is UTF-8.
func TestAppendQuote(t *testing.T) {
	for _, s := range []string{"", "toolu_01abc", "a\"b\\c/d", "line\nnext\r\t\b\f\x00\x1f\x7f", "é ✓ \u2028", "toolu_\xff\xfe\xc3(", "<&>"} {
		q := AppendQuote(nil, s)
		if q[0] != '"' || q[len(q)-1] != '"' {
			t.Fatalf("%q: not quoted: %s", s, q)
		}
		if got := Unescape(q[1 : len(q)-1]); got != s {
			t.Errorf("%q: written %s, read back %q", s, q, got)
		}
		var dec string
		if err := json.Unmarshal(q, &dec); err != nil {
			t.Errorf("%q: %s is not JSON: %v", s, q, err)
		} else if utf8.ValidString(s) && dec != s {
			t.Errorf("%q: encoding/json reads %q", s, dec)
		}
	}
}

// FuzzAppendQuote: any bytes round-trip through AppendQuote and Unescape.
func FuzzAppendQuote(f *testing.F) {
	f.Add("toolu_\xff\"\\\n")
	f.Fuzz(func(t *testing.T, s string) {
		q := AppendQuote(nil, s)
		if got := Unescape(q[1 : len(q)-1]); got != s {
			t.Fatalf("%q: written %s, read back %q", s, q, got)
		}
	})
}
