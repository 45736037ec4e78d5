package mdsafe

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// fencedByParts is Fenced as it was written before AppendFenced (line breaks unified, each line
// made printable, joined, fenced): AppendFenced must give the same bytes in one pass.
func fencedByParts(s string) string {
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
		lines[i] = textsafe.Printable(strings.ReplaceAll(l, "\t", "    "))
	}
	s = strings.Join(lines, "\n")
	fence := strings.Repeat("`", max(3, LongestRun(s, '`')+1))
	return fence + "text\n" + s + "\n" + fence
}

func TestAppendFencedIsFencedByParts(t *testing.T) {
	var cases []string
	for _, s := range hostile.Texts() {
		cases = append(cases, s)
	}
	alphabet := []string{"a", "é", "`", "```", "\t", "\r", "\n", "\r\n", "\u2028", "\u2029", "\u0085", "\x00", "\x1b", "\x7f",
		"\u0090", "\u202e", "\u2066", "\u200f", "\u061c", "\xff", "\xe2\x80", "\uFFFD", "漢", "😀", " ", "\v"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		want := fencedByParts(s)
		if got := Fenced(s); got != want {
			t.Fatalf("Fenced(%q) = %q, want %q", s, got, want)
		}
		got, n := AppendFenced([]byte("x"), "> ", s)
		wantP := "x> " + strings.ReplaceAll(want, "\n", "\n> ") + "\n"
		if string(got) != wantP || n != strings.Count(want, "\n")+1 {
			t.Fatalf("AppendFenced(%q) = %q, %d lines; want %q", s, got, n, wantP)
		}
	}
}
