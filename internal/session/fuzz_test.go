package session_test

import (
	"bytes"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// refLines splits text the way File counts lines: lines end at "\n", a "\r" before it is part of
// the line end, and a text ending in "\n" has no line after it.
func refLines(text []byte) (starts []int, contents [][]byte) {
	for off := 0; off < len(text); {
		starts = append(starts, off)
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			contents = append(contents, text[off:])
			break
		}
		c := text[off : off+i]
		c = bytes.TrimSuffix(c, []byte("\r"))
		contents = append(contents, c)
		off += i + 1
	}
	return starts, contents
}

// refLSPLines splits text the way LSP does: "\n", "\r\n" and a bare "\r" each end a line (a text
// ending in one has no line after it here: a position there is the end of the text either way).
func refLSPLines(text []byte) (starts []int, contents [][]byte) {
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' && text[i] != '\r' {
			continue
		}
		contents, starts = append(contents, text[start:i]), append(starts, start)
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	if start < len(text) {
		contents, starts = append(contents, text[start:]), append(starts, start)
	}
	return starts, contents
}

// units counts the UTF-16 code units of b, each invalid byte counting one (as U+FFFD).
func units(b []byte) int { return len(utf16.Encode([]rune(string(b)))) }

// refOffset is the obvious, slow LSP position -> byte offset mapping.
func refOffset(text []byte, line, char int64) int {
	starts, contents := refLSPLines(text)
	line, char = max(line, 0), max(char, 0) // each clamped on its own (line -1, character 5: line 0, character 5)
	if line >= int64(len(starts)) {
		return len(text)
	}
	c := contents[line]
	off := 0
	for off < len(c) {
		_, size := utf8.DecodeRune(c[off:])
		if int64(units(c[:off+size])) > char {
			break
		}
		off += size
	}
	return starts[line] + off
}

// FuzzPosition maps LSP positions on a session.File (after an edit, so the file's own line index
// and bare '\r' index are the ones being tested) and holds the mapping to the obvious reference:
// lines by LSP's rule, UTF-16 units counted with Go's own encoder, clamping as LSP asks, and
// FromOffset inverting Offset on characters.
func FuzzPosition(f *testing.F) {
	f.Add([]byte("a\nb"), []byte("x"), uint16(1), int64(0), int64(1))
	f.Add([]byte("{\"k\":\"😀中é\"}\r\n{\"u\":1}\n"), []byte("\r\n🙂"), uint16(7), int64(0), int64(7))
	f.Add([]byte("\xff\xfe\n\n\r\n"), []byte("\xed\xa0\x80"), uint16(2), int64(2), int64(-1))
	f.Add([]byte(""), []byte(""), uint16(0), int64(-5), int64(1<<40))
	f.Add([]byte("{\"a\":1,\r\"b\":2}\r\n{}\r"), []byte("\n"), uint16(8), int64(1), int64(3)) // bare '\r's end LSP lines
	f.Fuzz(func(t *testing.T, text, ins []byte, at uint16, line, char int64) {
		file := session.NewFile("/p.jsonl", bytes.Clone(text))
		s := session.New("p", "/")
		s.AddFile(file)
		pos := int(at) % (len(text) + 1)
		s.Edit(file, pos, pos, ins)
		want := append(append(append([]byte{}, text[:pos]...), ins...), text[pos:]...)
		if !bytes.Equal(file.Text(), want) {
			t.Fatalf("edit: text %q, want %q", file.Text(), want)
		}
		starts, contents := refLines(want)
		if file.LineCount() != len(starts) {
			t.Fatalf("%q: %d lines, want %d", want, file.LineCount(), len(starts))
		}
		for i := range starts {
			if file.LineStart(i) != starts[i] || !bytes.Equal(file.Line(i), contents[i]) {
				t.Fatalf("%q: line %d starts at %d (%q), want %d (%q)", want, i, file.LineStart(i), file.Line(i), starts[i], contents[i])
			}
		}
		off := position.Offset(file, line, char)
		if ref := refOffset(want, line, char); off != ref {
			t.Fatalf("%q: Offset(%d, %d) = %d, want %d", want, line, char, off, ref)
		}
		p := position.FromOffset(file, off)
		if back := position.Offset(file, int64(p.Line), int64(p.Character)); back != off {
			t.Fatalf("%q: Offset(FromOffset(%d) = %+v) = %d", want, off, p, back)
		}
		if lspStarts, _ := refLSPLines(want); int(p.Line) < len(lspStarts) {
			if wantCol := units(want[lspStarts[p.Line]:off]); int(p.Character) != wantCol {
				t.Fatalf("%q: FromOffset(%d) = %+v, want character %d", want, off, p, wantCol)
			}
		}
	})
}
