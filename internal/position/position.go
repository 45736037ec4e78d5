// Package position maps between byte offsets in a line and LSP positions, whose columns count
// UTF-16 code units (the LSP default encoding). Out-of-range input clamps; it never panics.
package position

import "unicode/utf8"

// Pos is an LSP position: 0-based line and UTF-16 column.
type Pos struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Pos `json:"start"`
	End   Pos `json:"end"`
}

// UTF16Col returns the UTF-16 column of byte offset off in line (clamped to the line).
func UTF16Col(line []byte, off int) uint32 {
	off = max(0, min(off, len(line)))
	// Fast path: ASCII bytes are one unit each.
	i := 0
	for i < off && line[i] < utf8.RuneSelf {
		i++
	}
	if i == off {
		return uint32(off)
	}
	col := uint32(i)
	for i < off {
		r, size := utf8.DecodeRune(line[i:])
		if i+size > off { // an offset inside a character counts up to its start
			break
		}
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return col
}

// ByteOffset returns the byte offset in line of UTF-16 column col. A column past the end of the line
// gives len(line); a column inside a surrogate pair gives the start of its character.
func ByteOffset(line []byte, col uint32) int {
	var units uint32
	for i := 0; i < len(line); {
		if units >= col {
			return i
		}
		c := line[i]
		if c < utf8.RuneSelf {
			units++
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		n := uint32(1)
		if r >= 0x10000 {
			n = 2
		}
		if units+n > col {
			return i
		}
		units += n
		i += size
	}
	return len(line)
}

// SpanRange returns the range of bytes [start, end) of a line (line-relative offsets).
func SpanRange(lineNo int, line []byte, start, end int) Range {
	return Range{
		Start: Pos{Line: uint32(lineNo), Character: UTF16Col(line, start)},
		End:   Pos{Line: uint32(lineNo), Character: UTF16Col(line, end)},
	}
}
