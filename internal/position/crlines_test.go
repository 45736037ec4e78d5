package position

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"
)

// lspStarts are the starts of a text's lines by LSP's rule ("\n", "\r\n", bare "\r"), computed
// the obvious way: what vscode-languageserver-textdocument does.
func lspStarts(b []byte) []int {
	starts := []int{0}
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			i++
			starts = append(starts, i+1)
		case b[i] == '\r' || b[i] == '\n':
			starts = append(starts, i+1)
		}
	}
	return starts
}

// refPos is the LSP position of byte offset off by lspStarts; ok is false inside a "\r\n".
func refPos(b []byte, starts []int, off int) (p Pos, ok bool) {
	if off > 0 && off < len(b) && b[off-1] == '\r' && b[off] == '\n' {
		return Pos{}, false
	}
	l := 0
	for l+1 < len(starts) && starts[l+1] <= off {
		l++
	}
	seg := b[starts[l]:off]
	col := UTF16Col(b[starts[l]:], len(seg)) // invalid bytes: each counts one unit
	if utf8.Valid(seg) {
		col = refCol(seg, len(seg))
	}
	return Pos{Line: uint32(l), Character: col}, true
}

// checkBareCRs holds every mapping of tx to the reference on every offset of s.
func checkBareCRs(t *testing.T, s string) {
	t.Helper()
	tx := newText(s)
	b := tx.b
	starts := lspStarts(b)
	for off := 0; off <= len(b); off++ {
		if off < len(b) && !utf8.RuneStart(b[off]) { // inside a character (or a stray byte)
			continue
		}
		want, ok := refPos(b, starts, off)
		if !ok {
			continue
		}
		if got := FromOffset(tx, off); got != want {
			t.Fatalf("%q: FromOffset(%d) = %+v, want %+v", s, off, got, want)
		}
		if got := Offset(tx, int64(want.Line), int64(want.Character)); got != off {
			t.Fatalf("%q: Offset(%+v) = %d, want %d", s, want, got, off)
		}
	}
	var m Mapper
	for l := 0; l < tx.LineCount(); l++ {
		base, line := tx.LineStart(l), tx.Line(l)
		if want := uint32(slices.Index(starts, base)); StartLine(tx, l) != want {
			t.Fatalf("%q: StartLine(%d) = %d, want %d", s, l, StartLine(tx, l), want)
		}
		for off := 0; off <= len(line); off++ {
			want, ok := refPos(b, starts, base+off)
			if !ok || off < len(line) && !utf8.RuneStart(line[off]) {
				continue
			}
			if got := At(tx, l, off); got != want {
				t.Fatalf("%q: At(%d, %d) = %+v, want %+v", s, l, off, got, want)
			}
			if got, want := m.Range(tx, l, 0, off), RangeIn(tx, l, 0, off); got != want {
				t.Fatalf("%q: Mapper.Range(%d, 0, %d) = %+v, want %+v", s, l, off, got, want)
			}
		}
	}
	for L := -1; L <= len(starts)+1; L++ {
		want := tx.LineCount()
		if L < 0 {
			want = 0
		} else if L < len(starts) && starts[L] < len(b) || L < len(starts) && !bytes.HasSuffix(b, []byte("\n")) {
			want = 0
			for want+1 < tx.LineCount() && tx.LineStart(want+1) <= starts[L] {
				want++
			}
		}
		if got := LineAt(tx, int64(L)); got != want {
			t.Fatalf("%q: LineAt(%d) = %d, want %d", s, L, got, want)
		}
	}
}

func TestBareCarriageReturnsEndLines(t *testing.T) {
	for _, s := range []string{
		"", "a\rb", "a\r\nb", "a\r\r\nb\n", "\r", "\r\r", "x\r", "x\r\n", "\r\n\r",
		"{\"uuid\":\"a\",\r\"parentUuid\":null}\n{\"uuid\":\"b\",\r\r\"parentUuid\":\"a\"}\r\n",
		"🙂\r完\u0301\rx\n\ry\r", "\xff\r\xfe\n",
	} {
		checkBareCRs(t, s)
	}
	// the orphan's line of a log whose first record holds a bare '\r': LSP line 2, not 1
	tx := newText("{\"a\":1,\r\"b\":2}\n{\"orphan\":true}\n")
	if got := At(tx, 1, 2); got != (Pos{Line: 2, Character: 2}) {
		t.Errorf("At(1, 2) = %+v, want line 2", got)
	}
	if got := Offset(tx, 2, 0); got != tx.LineStart(1) {
		t.Errorf("Offset(2, 0) = %d, want %d", got, tx.LineStart(1))
	}
	if got := LineAt(tx, 1); got != 0 {
		t.Errorf("LineAt(1) = %d, want 0 (the second part of line 0)", got)
	}
}

// FuzzBareCRs holds the line mapping to LSP's rule computed the obvious way on any bytes, and the
// index an edit keeps (SpliceBareCRs) to the index of the new text made afresh.
func FuzzBareCRs(f *testing.F) {
	for _, s := range []string{"a\rb\r\nc\n", "\r\r\n\r", "{\"x\":\r1}\n🙂\r", "\r\n", "plain\nlines\n"} {
		f.Add(s, 1, 2, "\r")
	}
	f.Fuzz(func(t *testing.T, s string, start, end int, repl string) {
		if len(s) > 512 {
			s = s[:512]
		}
		checkBareCRs(t, s)
		start, end = abs(start)%(len(s)+1), abs(end)%(len(s)+1)
		if start > end {
			start, end = end, start
		}
		crs := AppendBareCRs(nil, []byte(s), 0, len(s))
		next := []byte(s[:start] + repl + s[end:])
		got := SpliceBareCRs(crs, next, start, end, len(repl))
		if want := AppendBareCRs(nil, next, 0, len(next)); !slices.Equal(got, want) {
			t.Fatalf("%q [%d:%d] = %q: SpliceBareCRs = %v, want %v", s, start, end, repl, got, want)
		}
	})
}

// BenchmarkBareCRs: the one scan a file's first position costs (no bare '\r': LF and CRLF logs).
func BenchmarkBareCRs(b *testing.B) {
	rec := `{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","message":{"content":[{"type":"text","text":"Done."}]}}`
	for _, nl := range []string{"\n", "\r\n"} {
		text := bytes.Repeat([]byte(rec+nl), (64<<20)/(len(rec)+len(nl)))
		b.Run(fmt.Sprintf("%q", nl), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if crs := AppendBareCRs(nil, text, 0, len(text)); len(crs) != 0 {
					b.Fatal(len(crs))
				}
			}
		})
	}
}
