// Package mdsafe writes untrusted log text into Markdown so that no renderer turns it into links,
// HTML or formatting: inline code spans and fenced blocks whose fences outrun the text's backticks,
// control and bidirectional characters shown as visible escapes. Used by hover and the transcript.
package mdsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Markdown that carries log text (hover, the transcript), which is untrusted: a log can hold markdown links (command:
// URIs among them), raw HTML, code fences, bare URLs. Every piece of log text goes into an inline
// code span or a fenced code block whose fence is longer than any backtick run in the text, so no
// renderer (CommonMark, GFM autolinks, linkify) can turn it into a link, HTML or formatting. Only
// the server's own words are markdown.

// Code returns s as an inline code span, on one line. Bidirectional overrides and other
// characters that make text read differently from what it is show as visible escapes (\u202e).
func Code(s string) string {
	s = textsafe.Printable(OneLine(s))
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", LongestRun(s, '`')+1)
	pad := ""
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ' {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// Fenced returns s as a fenced code block, control characters and bidirectional overrides shown
// as visible escapes.
func Fenced(s string) string {
	b, _ := AppendFenced(make([]byte, 0, len(s)+16), "", s)
	return string(b[:len(b)-1])
}

// AppendFenced appends s as a fenced code block to dst, every line of it (fences included) led by
// prefix and ended by a newline, and returns the bytes and the number of lines written. Line
// breaks are \n, \r\n, \r, U+2028, U+2029 and U+0085; tabs become four spaces; control and
// bidirectional characters show as visible escapes (textsafe.Printable's), each invalid byte as
// U+FFFD. One pass, no copy of s: the transcript writes its text blocks with it.
func AppendFenced(dst []byte, prefix, s string) ([]byte, int) {
	n := max(3, LongestRun(s, '`')+1)
	open := func() {
		dst = append(dst, prefix...)
	}
	fence := func() {
		open()
		for range n {
			dst = append(dst, '`')
		}
	}
	fence()
	dst = append(dst, "text\n"...)
	lines := 3
	open()
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f {
				j := i + 1
				for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
					j++
				}
				dst = append(dst, s[i:j]...)
				i = j
				continue
			}
			switch c {
			case '\t':
				dst = append(dst, "    "...)
			case '\r', '\n':
				if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
					i++
				}
				dst = append(dst, '\n')
				lines++
				open()
			default:
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case r == '\u2028' || r == '\u2029' || r == '\u0085':
			dst = append(dst, '\n')
			lines++
			open()
		case textsafe.Unsafe(r):
			dst = append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	dst = append(dst, '\n')
	fence()
	dst = append(dst, '\n')
	return dst, lines
}

const hex = "0123456789abcdef"

// LongestRun returns the length of the longest run of c in s.
func LongestRun(s string, c byte) int {
	best := 0
	for {
		i := strings.IndexByte(s, c)
		if i < 0 {
			return best
		}
		j := i + 1
		for j < len(s) && s[j] == c {
			j++
		}
		best = max(best, j-i)
		s = s[j:]
	}
}

// OneLine folds line breaks, tabs and control characters into spaces and collapses runs of them.
func OneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// Shorten cuts s to at most n characters, marking the cut with an ellipsis.
func Shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// StringPrefix decodes at most about max bytes of a JSON string value (quotes included); a value
// that is not a string gives "".
func StringPrefix(raw []byte, max int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	cut := len(body) > max
	if cut {
		body = body[:max]
	}
	s := jsonscan.Unescape(body)
	if cut {
		s = strings.ToValidUTF8(s, "")
		// drop a partial character at the cut
		for len(s) > 0 {
			r, size := utf8.DecodeLastRuneInString(s)
			if r != utf8.RuneError || size > 1 {
				break
			}
			s = s[:len(s)-size]
		}
		s += "…"
	}
	return s
}
