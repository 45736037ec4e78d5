package mdsafe

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":                       "plain words",
		"[x](command:evil) <b>hi</b> &amp;": `\[x\]\(command\:evil\) \<b\>hi\<\/b\> \&amp\;`,
		"# not a heading\n- not a list":     "\\# not a heading\\\n\\- not a list",
		"    not code":                      "\u00a0\u00a0\u00a0\u00a0not code",
		"para one\n\npara two":              "para one\n\npara two",
		"see https://x.example/a_b *now*":   `see https\:\/\/x\.example\/a\_b \*now\*`,
		"bidi \u202e override":              `bidi \\u202e override`,
		"1. first\r\n2) second":             "1\\. first\\\n2\\) second",
		"trailing   \nnext":                 "trailing\\\nnext",
		"a | b\n---|---":                    "a \\| b\\\n\\-\\-\\-\\|\\-\\-\\-",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if strings.Contains(Text("\x00\x1b[31m"), "\x1b") {
		t.Error("a control character passed through")
	}
}
