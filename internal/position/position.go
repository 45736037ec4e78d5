// Package position maps between byte offsets in a line and LSP positions, whose columns count
// UTF-16 code units (the LSP default encoding). Out-of-range input clamps; it never panics.
package position

import (
	"encoding/binary"
	"unicode/utf8"
)

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
	// Fast path: ASCII bytes are one unit each; skip them eight at a time.
	i := 0
	for i+8 <= off && binary.LittleEndian.Uint64(line[i:])&0x8080808080808080 == 0 {
		i += 8
	}
	for i < off && line[i] < utf8.RuneSelf {
		i++
	}
	if i == off {
		return uint32(off)
	}
	// Valid UTF-8 ending on a character boundary (what real logs hold): every byte that starts a
	// character is one unit, and four-byte characters (outside the BMP) are two. No decoding.
	if (off == len(line) || utf8.RuneStart(line[off])) && utf8.Valid(line[i:off]) {
		return uint32(i) + countUnits(line[i:off])
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

// countUnits counts the UTF-16 units of valid UTF-8.
func countUnits(b []byte) uint32 {
	var n uint32
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
		if c >= 0xF0 {
			n++
		}
	}
	return n
}

// ByteOffset returns the byte offset in line of UTF-16 column col. A column past the end of the line
// gives len(line); a column inside a surrogate pair gives the start of its character.
func ByteOffset(line []byte, col uint32) int {
	// Fast path: over an ASCII prefix, columns are byte offsets.
	i, limit := 0, min(len(line), int(min(col, 1<<30)))
	for i < limit && line[i] < utf8.RuneSelf {
		i++
	}
	if i == limit {
		return limit
	}
	units := uint32(i)
	for i < len(line) {
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

// Lines is a text seen as lines: what mapping whole-text offsets needs. *session.File has it.
type Lines interface {
	// LineCount is the number of lines; a final line without a newline counts, and a text
	// ending in a newline has no empty line after it.
	LineCount() int
	// LineStart returns the byte offset of line i; i == LineCount() gives the text's length.
	LineStart(i int) int
	// Line returns line i without its newline ("\n" or "\r\n").
	Line(i int) []byte
	// BareCRs returns the offsets of the text's bare carriage returns ('\r' not followed by
	// '\n'), ascending: LSP ends a line there too (crlines.go). Usually none.
	BareCRs() []int
}

// colBlock is the spacing, in bytes, of the marks a Cols keeps.
const colBlock = 256

// Cols maps byte offsets of one line to UTF-16 columns. It is made in one pass over the line, and
// each lookup then scans at most colBlock bytes: a line with many findings (100 000 tool results on
// one line) costs the line's length once, not once per finding.
type Cols struct {
	line []byte
	pos  []int32  // pos[k]: the first character start at or after byte k*colBlock
	col  []uint32 // col[k]: the UTF-16 column of pos[k]
}

// NewCols maps line in one pass.
func NewCols(line []byte) *Cols {
	n := len(line)/colBlock + 1
	c := &Cols{line: line, pos: make([]int32, 0, n), col: make([]uint32, 0, n)}
	var col uint32
	for i := 0; i <= len(line); {
		if i >= len(c.pos)*colBlock {
			for len(c.pos)*colBlock <= i { // a long character can span a mark
				c.pos, c.col = append(c.pos, int32(i)), append(c.col, col)
			}
		}
		if i == len(line) {
			break
		}
		if line[i] < utf8.RuneSelf {
			col++
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return c
}

// Col returns UTF16Col(line, off).
func (c *Cols) Col(off int) uint32 {
	off = max(0, min(off, len(c.line)))
	k := min(off/colBlock, len(c.pos)-1)
	for k > 0 && int(c.pos[k]) > off {
		k--
	}
	p := int(c.pos[k])
	return c.col[k] + UTF16Col(c.line[p:], off-p)
}

// longLine is the length from which a Mapper maps a line once instead of scanning it per offset.
const longLine = 4096

// Mapper turns spans into ranges, mapping each long line it sees once (NewCols). The zero value is
// ready; one Mapper serves one version of the texts its lines come from.
type Mapper struct {
	lines map[*byte]*Cols // by the line's first byte: distinct for distinct lines of live texts
}

// SpanRange is SpanRange through the mapper (a nil mapper maps nothing ahead).
func (m *Mapper) SpanRange(lineNo int, line []byte, start, end int) Range {
	if m == nil || len(line) < longLine {
		return SpanRange(lineNo, line, start, end)
	}
	c := m.lines[&line[0]]
	if c == nil || len(c.line) != len(line) {
		if m.lines == nil {
			m.lines = map[*byte]*Cols{}
		}
		c = NewCols(line)
		m.lines[&line[0]] = c
	}
	return Range{
		Start: Pos{Line: uint32(lineNo), Character: c.Col(start)},
		End:   Pos{Line: uint32(lineNo), Character: c.Col(end)},
	}
}
