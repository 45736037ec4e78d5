// Package mdsafe writes untrusted log text into Markdown so that no renderer turns it into links,
// HTML or formatting: inline code spans and fenced blocks whose fences outrun the text's backticks,
// control and bidirectional characters shown as visible escapes. Used by hover and the transcript.
package mdsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonscan"
)

// Markdown that carries log text (hover, the transcript), which is untrusted: a log can hold markdown links (command:
// URIs among them), raw HTML, code fences, bare URLs. Every piece of log text goes into an inline
// code span or a fenced code block whose fence is longer than any backtick run in the text, so no
// renderer (CommonMark, GFM autolinks, linkify) can turn it into a link, HTML or formatting. Only
// the server's own words are markdown.

// Code returns s as an inline code span, on one line. Bidirectional overrides and other
// characters that make text read differently from what it is show as visible escapes (\u202e).
func Code(s string) string {
	s = check.Printable(OneLine(s))
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
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\u2028', '\u2029', '\u0085':
			return '\n'
		}
		return r
	}, s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = check.Printable(strings.ReplaceAll(l, "\t", "    "))
	}
	s = strings.Join(lines, "\n")
	fence := strings.Repeat("`", max(3, LongestRun(s, '`')+1))
	return fence + "text\n" + s + "\n" + fence
}

func LongestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
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
