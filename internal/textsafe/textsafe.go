// Package textsafe makes text from a log safe to show: in a terminal, an editor, a JSON or Markdown
// document. It sits under every package that shows such text (check's messages, graph labels,
// Markdown, the CLI's stderr), so none of them imports another for it.
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable makes text taken from a log safe to show in a terminal, an editor or a JSON document:
// invalid UTF-8 becomes U+FFFD, and control characters (C0, DEL, C1: terminal escape sequences)
// and bidirectional overrides (which can make text read differently from what it is) are written
// as visible escapes such as \x1b or \u202e. Messages carry ids and tool names from the log, so
// every message goes through it.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || Unsafe(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x80 && Unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Unsafe reports whether Printable writes r as an escape: C0 and C1 controls, DEL, and the
// bidirectional overrides and marks.
func Unsafe(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
