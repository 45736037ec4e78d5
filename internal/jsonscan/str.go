package jsonscan

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// The one decoder of JSON string escapes: the transport (UnescapeInPlace), the log parser
// (package jsonl validates with Hex4, decodes with Unescape) and the graph's labels (Escape, rune
// by rune, only as much as a label takes) all decode through Escape.

// Hex4 returns the value of the four hex digits at b[i:i+4].
func Hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var v rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | rune(c)
	}
	return v, true
}

// simple maps the character after a backslash to what it stands for (0: not a one-character
// escape).
var simple = [256]byte{'"': '"', '\\': '\\', '/': '/', 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}

// Escape decodes the escape sequence at b[i] (a backslash): the character it stands for and the
// index past it. A \u surrogate pair is one character; a lone surrogate is U+FFFD, as
// encoding/json decodes it. ok is false for an invalid or cut sequence. Small enough to be
// inlined: a log's text escapes every few bytes.
func Escape(b []byte, i int) (r rune, next int, ok bool) {
	if i+1 < len(b) {
		if s := simple[b[i+1]]; s != 0 {
			return rune(s), i + 2, true
		}
	}
	return escapeU(b, i)
}

// escapeU decodes the \u escape at b[i], and the low surrogate after a high one.
func escapeU(b []byte, i int) (r rune, next int, ok bool) {
	if i+1 >= len(b) || b[i+1] != 'u' {
		return 0, 0, false
	}
	cp, ok := Hex4(b, i+2)
	if !ok {
		return 0, 0, false
	}
	if !utf16.IsSurrogate(cp) {
		return cp, i + 6, true
	}
	if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
		if lo, ok := Hex4(b, i+8); ok {
			if p := utf16.DecodeRune(cp, lo); p != utf8.RuneError {
				return p, i + 12, true
			}
		}
	}
	return utf8.RuneError, i + 6, true
}

// Unescape decodes the body of a JSON string (the bytes between its quotes). Bytes that are not
// escapes are kept as they are (invalid UTF-8 too); an invalid escape ends the text.
func Unescape(body []byte) string {
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	return string(AppendUnescape(make([]byte, 0, len(body)), body))
}

// AppendUnescape appends the decoded body of a JSON string to dst, as Unescape decodes it, without
// a string's copy (the secret scan decodes into one buffer, string after string).
func AppendUnescape(dst, body []byte) []byte {
	for bs := bytes.IndexByte(body, '\\'); bs >= 0; bs = bytes.IndexByte(body, '\\') {
		dst = append(dst, body[:bs]...)
		r, next, ok := Escape(body, bs)
		if !ok {
			return dst
		}
		dst = utf8.AppendRune(dst, r)
		body = body[next:]
	}
	return append(dst, body...)
}

// AppendQuote appends s as a JSON string: quotes, backslashes and control characters escaped,
// every other byte as it is (invalid UTF-8 too), as Unescape reads it back and as Claude Code's
// JSON.stringify writes text. A string read from a log (an id) is so written back as the same
// bytes; encoding/json would turn invalid UTF-8 into U+FFFD, another id.
func AppendQuote(dst []byte, s string) []byte {
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = AppendByteEscape(append(dst, s[last:i]...), c)
		last = i + 1
	}
	return append(append(dst, s[last:]...), '"')
}

// AppendByteEscape appends the escape JSON writes for the ASCII byte c: \" \\ \b \f \n \r \t,
// and \u00XX (lower-case hex, as encoding/json writes it) for any other.
func AppendByteEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&15])
}

const hexDigit = "0123456789abcdef"
