package position

import (
	"bytes"
	"sort"
)

// LSP ends a line at "\n", "\r\n" and a bare "\r"; ccdag (and JSON Lines) at "\n" only. A bare
// '\r' is JSON whitespace, so a valid record may hold one: its line is then two or more lines to
// an editor. Every position the server sends or receives goes through the functions below, which
// map a text's own lines (what Lines counts, what records and findings name) to LSP's and back.
// A text's bare carriage returns are indexed once (BareCRs, kept current by its edits); with none,
// every function here is the plain per-line mapping at the cost of one length check.

// AppendBareCRs appends to dst the offsets of the bare carriage returns in text[from:to]: '\r'
// not followed by '\n' (the byte at to, if any, is looked at). bytes.IndexByte finds them, so a
// text without '\r' costs one vectorised scan.
func AppendBareCRs(dst []int, text []byte, from, to int) []int {
	from, to = max(0, from), min(to, len(text))
	for from < to {
		k := bytes.IndexByte(text[from:to], '\r')
		if k < 0 {
			break
		}
		at := from + k
		if at+1 >= len(text) || text[at+1] != '\n' {
			dst = append(dst, at)
		}
		from = at + 1
	}
	return dst
}

// SpliceBareCRs updates crs, the bare carriage returns of a text, after text[start:oldEnd] was
// replaced by newLen bytes (text is the new text): those before start-1 stay, those from oldEnd on
// shift, and only the new bytes and the one before them (its '\r' may have met a '\n') are read.
// crs is updated in place (an append costs what it adds, however many there are above it): the
// caller holds the only copy.
func SpliceBareCRs(crs []int, text []byte, start, oldEnd, newLen int) []int {
	if len(crs) == 0 && bytes.IndexByte(text[max(0, start-1):min(len(text), start+newLen)], '\r') < 0 {
		return crs
	}
	lo := sort.SearchInts(crs, start-1)
	hi := sort.SearchInts(crs, oldEnd)
	tail := append([]int(nil), crs[hi:]...)
	out := AppendBareCRs(crs[:lo], text, start-1, start+newLen)
	delta := newLen - (oldEnd - start)
	for _, c := range tail {
		out = append(out, c+delta)
	}
	return out
}

// before counts the bare carriage returns before offset off.
func before(crs []int, off int) int {
	if len(crs) == 0 {
		return 0
	}
	return sort.SearchInts(crs, off)
}

// StartLine returns the LSP line on which line l of t starts.
func StartLine(t Lines, l int) uint32 {
	crs := t.BareCRs()
	if len(crs) == 0 {
		return uint32(l)
	}
	return uint32(l + before(crs, t.LineStart(l)))
}

// segment finds the LSP line holding byte off of line l (line-relative, within the line) and the
// part [s, e) of the line that LSP line covers.
func segment(crs []int, base, l int, line []byte, off int) (lsp uint32, s, e int) {
	k := before(crs, base)
	j := before(crs, base+off) // a '\r' at off ends the segment off is on
	s, e = 0, len(line)
	if j > k {
		s = crs[j-1] - base + 1
	}
	if j < len(crs) && crs[j] < base+len(line) {
		e = crs[j] - base
	}
	return uint32(l + j), s, e
}

// At returns the LSP position of byte offset off (clamped to the line) of line l of t.
func At(t Lines, l, off int) Pos {
	line := t.Line(l)
	off = max(0, min(off, len(line)))
	crs := t.BareCRs()
	if len(crs) == 0 {
		return Pos{Line: uint32(l), Character: UTF16Col(line, off)}
	}
	lsp, s, _ := segment(crs, t.LineStart(l), l, line, off)
	return Pos{Line: lsp, Character: UTF16Col(line[s:], off-s)}
}

// RangeIn returns the range of bytes [start, end) of line l of t (line-relative offsets).
func RangeIn(t Lines, l, start, end int) Range {
	return Range{Start: At(t, l, start), End: At(t, l, end)}
}

// Range is RangeIn through the mapper: a long line's columns are mapped once (per part between
// bare carriage returns).
func (m *Mapper) Range(t Lines, l, start, end int) Range {
	crs := t.BareCRs()
	line := t.Line(l)
	if len(crs) == 0 {
		return m.SpanRange(l, line, start, end)
	}
	base := t.LineStart(l)
	pos := func(off int) Pos {
		off = max(0, min(off, len(line)))
		lsp, s, e := segment(crs, base, l, line, off)
		return Pos{Line: lsp, Character: m.SpanRange(0, line[s:e], off-s, off-s).Start.Character}
	}
	return Range{Start: pos(start), End: pos(end)}
}

// Offset returns the byte offset in t of the LSP position (line, character), character in UTF-16
// code units. It clamps, as LSP asks: a negative line or character counts as 0 (each on its own);
// a character past the end of its line means the end of the line (before its newline or bare
// '\r'); a line past the last one means the end of the text. A character inside a surrogate pair
// or a multi-byte character gives its start.
func Offset(t Lines, line, character int64) int {
	n := t.LineCount()
	line, character = max(line, 0), max(character, 0)
	col := uint32(min(character, int64(^uint32(0))))
	crs := t.BareCRs()
	if len(crs) == 0 {
		if line >= int64(n) {
			return t.LineStart(n)
		}
		l := int(line)
		return t.LineStart(l) + ByteOffset(t.Line(l), col)
	}
	if n == 0 {
		return 0
	}
	// the last line of t starting on LSP line `line` or before it
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int64(m+before(crs, t.LineStart(m))) <= line {
			lo = m + 1
		} else {
			hi = m
		}
	}
	l := lo - 1
	base, content := t.LineStart(l), t.Line(l)
	k := before(crs, base)
	in := before(crs, base+len(content)) - k // the bare '\r's of the line
	d := int(line - int64(l+k))              // which of the line's LSP lines
	if d > in {                              // past the last line
		return t.LineStart(n)
	}
	s, e := 0, len(content)
	if d > 0 {
		s = crs[k+d-1] - base + 1
	}
	if d < in {
		e = crs[k+d] - base
	}
	return base + s + ByteOffset(content[s:e], col)
}

// FromOffset returns the LSP position of byte offset off in t (clamped to the text). An offset in a
// line's newline maps to the end of the line; the end of a text that ends in a newline maps to the
// start of the (empty) line after it.
func FromOffset(t Lines, off int) Pos {
	n := t.LineCount()
	if n == 0 || off <= 0 {
		return Pos{}
	}
	end := t.LineStart(n)
	off = min(off, end)
	l := lineOf(t, off)
	content := t.Line(l)
	rel := off - t.LineStart(l)
	if rel > len(content) && off == end && l == n-1 {
		return Pos{Line: uint32(n + len(t.BareCRs())), Character: 0}
	}
	return At(t, l, rel)
}

// LineAt returns the line of t holding LSP line `line` (LineCount() past the end, 0 before the
// start): what a request's range names, in the lines records and findings name.
func LineAt(t Lines, line int64) int {
	n := t.LineCount()
	if crs := t.BareCRs(); len(crs) == 0 || line >= int64(n)+int64(len(crs)) {
		return int(max(0, min(line, int64(n))))
	}
	return max(0, lineOf(t, Offset(t, line, 0)))
}

// lineOf returns the last line of t that starts at or before byte offset off (-1 when none does).
func lineOf(t Lines, off int) int {
	return sort.Search(t.LineCount(), func(m int) bool { return t.LineStart(m) > off }) - 1
}
