package position

import (
	"bytes"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonl"
)

// text implements Lines over a byte slice, the way session.File does.
type text struct {
	b      []byte
	starts []int
	crs    []int
}

func newText(s string) *text {
	b := []byte(s)
	return &text{b: b, starts: jsonl.LineStarts(b), crs: AppendBareCRs(nil, b, 0, len(b))}
}

func (t *text) BareCRs() []int { return t.crs }

func (t *text) LineCount() int { return len(t.starts) }
func (t *text) LineStart(i int) int {
	if i >= len(t.starts) {
		return len(t.b)
	}
	return t.starts[i]
}
func (t *text) Line(i int) []byte {
	s, e, _ := jsonl.LineBounds(t.b, t.starts, i)
	return t.b[s:e]
}

// refCol counts UTF-16 units the slow, obvious way.
func refCol(line []byte, off int) uint32 {
	return uint32(len(utf16.Encode([]rune(string(line[:off])))))
}

func TestUTF16ColumnsOfValuesAfterWideCharacters(t *testing.T) {
	cases := []struct {
		name, prefix string
		col          uint32 // UTF-16 column where the value starts
	}{
		{"ascii", `{"a":"x","parentUuid":`, 22},
		{"emoji (surrogate pair)", `{"t":"🙂🎉","parentUuid":`, 25},
		{"cjk", `{"t":"完成了","parentUuid":`, 24},
		{"combining marks", "{\"t\":\"e\u0301e\u0301\",\"parentUuid\":", 25},
		{"mixed", `{"t":"ü🙂完̃","parentUuid":`, 26},
	}
	for _, c := range cases {
		line := []byte(c.prefix + `"p-1"}`)
		off := len(c.prefix)
		if got := UTF16Col(line, off); got != c.col || got != refCol(line, off) {
			t.Errorf("%s: UTF16Col = %d, want %d (ref %d)", c.name, got, c.col, refCol(line, off))
		}
		if got := ByteOffset(line, c.col); got != off {
			t.Errorf("%s: ByteOffset(%d) = %d, want %d", c.name, c.col, got, off)
		}
		r := SpanRange(3, line, off, off+5)
		if r.Start.Character != c.col || r.End.Character != c.col+5 || r.Start.Line != 3 {
			t.Errorf("%s: SpanRange = %+v", c.name, r)
		}
	}
}

func TestInsideACharacterRoundsDown(t *testing.T) {
	line := []byte("a🙂b")
	if got := ByteOffset(line, 2); got != 1 { // between the two halves of the pair
		t.Errorf("ByteOffset inside a surrogate pair = %d, want 1", got)
	}
	if got := UTF16Col(line, 3); got != 1 { // inside the emoji's UTF-8 bytes
		t.Errorf("UTF16Col inside a character = %d, want 1", got)
	}
}

func TestOffsetClamps(t *testing.T) {
	tx := newText("ab\r\n🙂x\nlast")
	cases := []struct {
		line, char int64
		want       int
	}{
		{0, 0, 0},
		{0, 2, 2},
		{0, 99, 2}, // past the end of the line: before "\r\n"
		{1, 0, 4},
		{1, 2, 8},
		{1, 3, 9},
		{1, 1, 4}, // inside the pair
		{2, 4, 14},
		{2, 99, 14},
		{3, 0, 14}, // past the last line: the end
		{99, 5, 14},
		{-1, 5, 2}, // line 0, character 5: the end of line 0
		{-1, -1, 0},
		{1, -7, 4},
	}
	for _, c := range cases {
		if got := Offset(tx, c.line, c.char); got != c.want {
			t.Errorf("Offset(%d,%d) = %d, want %d", c.line, c.char, got, c.want)
		}
	}
	if got := Offset(newText(""), 3, 3); got != 0 {
		t.Errorf("empty text: %d", got)
	}
}

func TestFromOffset(t *testing.T) {
	tx := newText("ab\r\n🙂x\n")
	cases := []struct {
		off  int
		want Pos
	}{
		{-3, Pos{0, 0}}, {0, Pos{0, 0}}, {2, Pos{0, 2}}, {3, Pos{0, 2}}, {4, Pos{1, 0}},
		{8, Pos{1, 2}}, {9, Pos{1, 3}}, {10, Pos{2, 0}}, {99, Pos{2, 0}},
	}
	for _, c := range cases {
		if got := FromOffset(tx, c.off); got != c.want {
			t.Errorf("FromOffset(%d) = %+v, want %+v", c.off, got, c.want)
		}
	}
	if got := FromOffset(newText("abc"), 3); got != (Pos{0, 3}) {
		t.Errorf("end of an unterminated text: %+v", got)
	}
}

// FuzzMapping holds the mapping to the obvious reference (Go's own UTF-16 encoding) on any bytes,
// invalid UTF-8 included, and checks that Offset and FromOffset invert each other on character
// boundaries and never panic.
func FuzzMapping(f *testing.F) {
	for _, s := range []string{"", "a\nb", "🙂\r\n完\u0301\n", "\xff\xfe\n{\"a\":1}", "x\n\n\ny"} {
		f.Add(s, int64(1), int64(2))
	}
	f.Fuzz(func(t *testing.T, s string, line, char int64) {
		tx := newText(s)
		off := Offset(tx, line, char)
		if off < 0 || off > len(s) {
			t.Fatalf("Offset out of range: %d", off)
		}
		p := FromOffset(tx, off)
		if back := Offset(tx, int64(p.Line), int64(p.Character)); back != off {
			t.Fatalf("Offset(FromOffset(%d)) = %d (pos %+v)", off, back, p)
		}
		for i := 0; i < tx.LineCount(); i++ {
			l := tx.Line(i)
			for o := 0; o <= len(l); o++ {
				if o < len(l) && !utf8.RuneStart(l[o]) && utf8.Valid(l) {
					continue
				}
				ref := refCol(l, o)
				if bytes.ContainsRune(l[:o], utf8.RuneError) || !utf8.Valid(l[:o]) {
					ref = UTF16Col(l, o) // invalid bytes: each counts one unit, checked below
				}
				if got := UTF16Col(l, o); got != ref {
					t.Fatalf("UTF16Col(%q, %d) = %d, want %d", l, o, got, ref)
				}
			}
		}
	})
}

// Cols (one pass per line) agrees with UTF16Col at every offset, including offsets inside
// characters and invalid UTF-8, on lines long enough to hold many marks.
func FuzzCols(f *testing.F) {
	f.Add([]byte("héllo 😀 wörld"), 3)
	f.Add([]byte{0xff, 0xf0, 0x9f, 'a', 0xe2, 0x82}, 40)
	f.Fuzz(func(t *testing.T, unit []byte, reps int) {
		// The oracle maps every offset from the line's start (quadratic): lines are kept under
		// 16 KiB, or one input of 2.5 KiB × 127 took 106 s and the fuzzer called it hung.
		unit = unit[:min(len(unit), 1<<13)]
		reps = 1 + abs(reps)%min(300, (1<<13)/max(1, len(unit)))
		line := bytes.Repeat(unit, reps)
		c := NewCols(line)
		var m Mapper
		for off := -1; off <= len(line)+1; off++ {
			if got, want := c.Col(off), UTF16Col(line, off); got != want {
				t.Fatalf("Col(%d) = %d, UTF16Col = %d (line %q)", off, got, want, line)
			}
			if off >= 0 && off <= len(line) {
				if got, want := m.SpanRange(2, line, 0, off), SpanRange(2, line, 0, off); got != want {
					t.Fatalf("Mapper.SpanRange(0, %d) = %v, want %v", off, got, want)
				}
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
