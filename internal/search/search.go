// Package search finds records of session logs by their text (docs/spec.md §8): prompts, assistant
// text and thinking, tool inputs and tool results, case-insensitively, every word of the query in
// one record, one hit per record.
//
// It runs at the speed of memory: a chunk of the log is lower-cased (ASCII, 8 bytes at a time) into
// a buffer the cache keeps, and the query's longest word is looked for in it with bytes.Index.
// Only a line holding every word is parsed, its fields decoded and searched for the words
// (Unicode case folding); everything else is never parsed. The byte prefilter matches each word as
// a JSON writer that escapes only what JSON requires writes it (Claude Code does): a word whose
// letters a log spells as \u escapes is not found.
package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// MaxQuery is the longest query accepted, in bytes.
const MaxQuery = 1000

// Query is a compiled search.
type Query struct {
	// Redact replaces the secrets of the text a snippet is cut from, before it is cut
	// (docs/spec.md §15): a cut secret no longer matches its rule. Only that text is scanned.
	Redact bool

	words   []string // lower-cased (Unicode)
	needles [][]byte // per word, ASCII-lower-cased bytes its JSON form must hold (nil: none usable)
	anchor  []byte   // the longest needle, looked for first
}

// Compile checks and compiles a query: whitespace-separated words, all of which a record must hold.
func Compile(q string) (*Query, error) {
	if len(q) > MaxQuery {
		return nil, errors.New("the query is longer than 1000 characters")
	}
	if !utf8.ValidString(q) {
		return nil, errors.New("the query is not valid UTF-8")
	}
	words := strings.Fields(q)
	if len(words) == 0 {
		return nil, errors.New("the query is empty")
	}
	c := &Query{}
	for _, w := range words {
		lw := strings.ToLower(w)
		c.words = append(c.words, lw)
		n := needle(w)
		c.needles = append(c.needles, n)
		if len(n) > len(c.anchor) {
			c.anchor = n
		}
	}
	return c, nil
}

// needle returns the longest part of a word's JSON-escaped form that case folding maps byte for
// byte: runs of ASCII and of caseless characters (CJK), cut at letters with case outside ASCII,
// whose other case has other bytes.
//
// A control character cuts a run too: JSON.stringify writes it as \u00XX, but a line written
// otherwise may hold it raw (the parser tolerates that), and the needle must match both.
func needle(w string) []byte {
	var best, cur []byte
	for _, c := range w {
		if c < 0x20 { // cut: see above
			cur = nil
			continue
		}
		for _, r := range escapeJSON(string(c)) {
			if r >= utf8.RuneSelf && (unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) || unicode.SimpleFold(r) != r) {
				cur = nil
				continue
			}
			cur = utf8.AppendRune(cur, unicode.ToLower(r))
			if len(cur) > len(best) {
				best = append(best[:0], cur...)
			}
		}
	}
	// 'k' and 's' fold to non-ASCII letters too (U+212A, U+017F): logs written by Claude Code do not
	// use those for plain letters, so they are not looked for.
	return best
}

// escapeJSON writes s as JSON.stringify does, without the quotes.
func escapeJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20:
			const hex = "0123456789abcdef"
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Hit is one record that holds every word.
type Hit struct {
	Line    int        // 1-based
	Column  int        // 1-based byte column of the first match
	Kind    graph.Kind // the node kind of the field matched
	Snippet string     // the text around the match, on one line, safe to print
}

// Scanner searches logs with one query; its buffers are reused across files. Not safe for
// concurrent use: one per goroutine.
type Scanner struct {
	q   *Query
	low []byte
}

// NewScanner returns a scanner for q.
func (q *Query) NewScanner() *Scanner { return &Scanner{q: q} }

const chunkSize = 256 << 10

// File searches one log's bytes and calls emit for each hit in line order until emit returns
// false; it reports whether emit stopped it. A last line without a newline (a record being
// written) is not read.
func (s *Scanner) File(data []byte, emit func(Hit) bool) bool {
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	line, counted := 1, 0
	for off := 0; off < len(data); {
		end := min(off+chunkSize, len(data))
		end += bytes.IndexByte(data[end-1:], '\n') // the chunk ends with a whole line
		s.low = lowerASCII(s.low[:0], data[off:end])
		low := s.low
		for pos := 0; pos < len(low); {
			k := 0
			if len(s.q.anchor) > 0 {
				if k = bytes.Index(low[pos:], s.q.anchor); k < 0 {
					break
				}
			}
			ls := bytes.LastIndexByte(low[:pos+k], '\n') + 1
			le := pos + k + bytes.IndexByte(low[pos+k:], '\n')
			pos = le + 1
			if !s.q.holdsAll(low[ls:le]) {
				continue
			}
			line += bytes.Count(data[counted:off+ls], []byte{'\n'})
			counted = off + ls
			raw := data[off+ls : off+le]
			if n := len(raw); n > 0 && raw[n-1] == '\r' {
				raw = raw[:n-1]
			}
			if h, ok := s.q.Record(raw); ok {
				h.Line = line
				if !emit(h) {
					return true
				}
			}
		}
		off = end
	}
	return false
}

// holdsAll reports whether an ASCII-lower-cased line holds every word's needle.
func (q *Query) holdsAll(low []byte) bool {
	for _, n := range q.needles {
		if len(n) > 0 && !bytes.Contains(low, n) {
			return false
		}
	}
	return true
}

// lowerASCII appends src to dst with A-Z turned into a-z, 8 bytes at a time.
func lowerASCII(dst, src []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(src))[:n+len(src)]
	b := dst[n:]
	const (
		hi  = 0x8080808080808080
		low = 0x7f7f7f7f7f7f7f7f
		aa  = 0x0101010101010101 * (0x80 - 'A')
		zz  = 0x0101010101010101 * (0x7f - 'Z')
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		h := w & low
		upper := (h + aa) ^ (h + zz) // high bit set where 'A' <= byte&0x7f <= 'Z'
		upper &= ^w & hi             // ... and the byte is ASCII
		binary.LittleEndian.PutUint64(b[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return dst
}

// field is one searchable part of a record: a JSON value whose strings are searched.
type field struct {
	kind  graph.Kind
	span  jsonl.Span
	texts bool // a tool result's content: only text values (not types, ids or image data)
}

// Record searches one line: a hit when its searchable fields together hold every word.
func (q *Query) Record(line []byte) (Hit, bool) {
	f := session.NewFile("", line)
	r := f.Rec(0)
	if r == nil || r.LineErr() != nil {
		return Hit{}, false
	}
	var fields []field
	switch r.Type {
	case "user":
		who := classify.User(r)
		kind := graph.System
		if who.Typed() {
			kind = graph.UserInput
		}
		if r.Has(jsonl.FlagContentString) {
			fields = append(fields, field{kind: kind, span: r.D().ContentSpan})
		}
		for i := range r.D().Blocks {
			b := &r.D().Blocks[i]
			switch b.Kind {
			case jsonl.BlockText:
				k := kind
				if who == classify.ToolResults { // text beside results: its own words decide
					k = graph.System
					if classify.Text(r.Bytes(b.BodySpan)).Typed() {
						k = graph.UserInput
					}
				}
				fields = append(fields, field{kind: k, span: b.BodySpan})
			case jsonl.BlockToolResult:
				fields = append(fields, field{kind: graph.Observation, span: b.BodySpan, texts: true})
			}
		}
	case "assistant":
		for i := range r.D().Blocks {
			b := &r.D().Blocks[i]
			kind := graph.Thought
			if r.Has(jsonl.FlagAPIError) {
				kind = graph.System
			}
			switch b.Kind {
			case jsonl.BlockText, jsonl.BlockThinking:
				fields = append(fields, field{kind: kind, span: b.BodySpan})
			case jsonl.BlockToolUse:
				fields = append(fields, field{kind: graph.Action, span: b.InputSpan})
			}
		}
		if r.Has(jsonl.FlagContentString) {
			fields = append(fields, field{kind: graph.Thought, span: r.D().ContentSpan})
		}
	case "system":
		if r.D().ContentSpan.Valid() {
			fields = append(fields, field{kind: graph.System, span: r.D().ContentSpan})
		}
	}
	found := make([]bool, len(q.words))
	left := len(q.words)
	var hit Hit
	have := false
	for _, fd := range fields {
		if !fd.span.Valid() || int(fd.span.End) > len(line) {
			continue
		}
		start := int(fd.span.Start)
		eachString(line[start:fd.span.End], fd.texts, func(at int, raw []byte) {
			text := decode(raw)
			lower := strings.ToLower(text)
			for i, w := range q.words {
				j := strings.Index(lower, w)
				if j < 0 {
					continue
				}
				if !found[i] {
					found[i] = true
					left--
				}
				if !have {
					have = true
					hit = Hit{Kind: fd.kind, Column: start + at + rawOffset(raw, q.needles[i]) + 1}
					if len(lower) != len(text) { // folding changed lengths: show the start
						j = 0
					}
					shown, at, n := text, j, len(w)
					if q.Redact {
						shown, at, n = redacted(text, j, len(w))
					}
					hit.Snippet = snippet(shown, at, n)
				}
			}
		})
		if left == 0 {
			break
		}
	}
	return hit, left == 0
}

// redactAround is how far around a snippet the text is redacted: past the scan's widest window
// (a key block's), so a secret the snippet shows part of is found whole; the rest of a long
// string is not shown and not scanned.
const redactAround = 20 << 10

// redacted is the text around the match at [at, at+n) with its secrets replaced by their
// placeholders, and where the match is in it: a match inside a secret becomes its placeholder.
// Only the text within redactAround of the snippet is scanned and returned ("…" marks the cuts).
func redacted(text string, at, n int) (string, int, int) {
	lo, hi := max(0, at-before-redactAround), min(len(text), at+max(n, width)+redactAround)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	text, at = text[lo:hi], at-lo
	hits := secrets.Default().Text(text)
	if len(hits) == 0 {
		return text, at, n
	}
	shift := 0
	for _, h := range hits {
		s, e := int(h.Start), int(h.End)
		ph := len(secrets.Placeholder(h.Rule))
		if at >= e {
			shift += ph - (e - s)
			continue
		}
		if at+n > s { // the match overlaps the secret: it is shown as the placeholder
			end := max(at+n, e)
			n = end - min(at, s) - (e - s) + ph
			at = min(at, s)
		}
		break
	}
	return string(secrets.RedactLine([]byte(text), hits)), at + shift, n
}

// rawOffset is where in a JSON string (quotes included) its needle starts, else at its text.
func rawOffset(raw, needle []byte) int {
	if len(needle) > 0 {
		if k := bytes.Index(lowerASCII(nil, raw), needle); k >= 0 {
			return k
		}
	}
	return min(1, len(raw))
}

// eachString calls fn with the offset and bytes (quotes included) of every string value in a JSON
// value (not object keys). With texts, values of the keys a tool result's blocks use for other
// things than text (type, ids, image data) are left out.
func eachString(v []byte, texts bool, fn func(at int, raw []byte)) {
	key := ""
	for i := 0; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		j := i + 1
		for {
			k := bytes.IndexByte(v[j:], '"')
			if k < 0 {
				return // not closed: the line parsed, so this cannot happen
			}
			j += k
			b := j // an odd run of backslashes before the quote escapes it
			for b > i+1 && v[b-1] == '\\' {
				b--
			}
			if (j-b)%2 == 0 {
				break
			}
			j++
		}
		raw := v[i : j+1]
		n := j + 1
		for n < len(v) && (v[n] == ' ' || v[n] == '\t' || v[n] == '\n' || v[n] == '\r') {
			n++
		}
		if n < len(v) && v[n] == ':' {
			key = string(raw[1 : len(raw)-1])
		} else if !texts || !skipKey[key] {
			fn(i, raw)
		}
		i = j
	}
}

var skipKey = map[string]bool{"type": true, "id": true, "tool_use_id": true, "data": true, "media_type": true, "signature": true}

// decode returns a JSON string's text (raw has its quotes).
func decode(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	return jsonscan.Unescape(body)
}

const (
	before = 40  // bytes of context before the match
	width  = 160 // bytes of snippet at most
)

// snippet returns text around [at, at+n) on one line (runs of white space as one space), cut at
// character boundaries with "…" where it was cut, control and bidirectional characters escaped.
func snippet(text string, at, n int) string {
	start := max(0, at-before)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+width)
	if end < at+n {
		end = min(len(text), at+n)
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	space := false
	for _, r := range text[start:end] {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	if end < len(text) {
		b.WriteString("…")
	}
	return textsafe.Printable(b.String())
}
