package textsafe

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain ü 🙂":                 "plain ü 🙂",
		"a\nb\x1b]0;t\x07":          `a\x0ab\x1b]0;t\x07`,
		"x\u202ey\u2066\u0085\x7f":  `x\u202ey\u2066\u0085\x7f`,
		"bad \xff\xfe utf-8":        "bad \ufffd\ufffd utf-8",
		`already \x1b escaped \u20`: `already \x1b escaped \u20`,
	} {
		got := Printable(in)
		if got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
		if again := Printable(got); again != got { // errorf may meet text escaped before
			t.Errorf("Printable is not idempotent on %q: %q", got, again)
		}
	}
}
