package mdsafe

import (
	"strings"

	"github.com/ccdag/ccdag/internal/textsafe"
)

// Text returns s as Markdown text that reads as s and nothing more: every ASCII punctuation
// character is backslash-escaped (CommonMark lets any of them be), so no emphasis, link, HTML,
// heading, list, table or entity can start, and a bare URL is no longer one word for an
// autolinker; leading spaces become no-break spaces (no indented code block); each line break is a
// hard break and blank lines stay paragraph breaks. Control and bidirectional characters show as
// visible escapes (textsafe.Printable's). For prose (prompts, replies) that should read as prose.
func Text(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i, ln := range lines {
		ln = strings.TrimRight(ln, " \t")
		if i > 0 {
			if ln != "" && lines[i-1] != "" && strings.TrimSpace(lines[i-1]) != "" {
				b.WriteString("\\\n") // a hard break: the line stays a line
			} else {
				b.WriteByte('\n')
			}
		}
		lead := len(ln) - len(strings.TrimLeft(ln, " \t"))
		for _, c := range ln[:lead] {
			if c == '\t' {
				b.WriteString("\u00a0\u00a0\u00a0\u00a0")
			} else {
				b.WriteString("\u00a0")
			}
		}
		// Printable's result is valid UTF-8 (invalid bytes become U+FFFD): bytes of 0x80 and
		// above belong to multi-byte characters and are copied as they are.
		p := textsafe.Printable(ln[lead:])
		for j := 0; j < len(p); j++ {
			if c := p[j]; c < 0x80 && isPunct(c) {
				b.WriteByte('\\')
			}
			b.WriteByte(p[j])
		}
	}
	return b.String()
}

func isPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}
