package secrets

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// sameQuotes reports where the quote index and the byte search disagree on line: the next quote
// from every place, and every string's end.
func sameQuotes(t *testing.T, line []byte) {
	t.Helper()
	if !Default().quotes {
		t.Skip("this CPU has no AVX2: lines are read by the byte search alone")
	}
	var x quoteIndex
	x.build(line)
	for i := 0; i <= len(line); i++ {
		want := bytes.IndexByte(line[i:], '"')
		if want >= 0 {
			want += i
		}
		if got := x.next(i); got != want {
			t.Fatalf("%q: the next quote from %d at %d, want %d", line, i, got, want)
		}
		if want == i {
			e1, err1 := x.stringEnd(line, i)
			e2, err2 := jsonscan.StringEnd(line, i)
			if e1 != e2 || (err1 == nil) != (err2 == nil) {
				t.Fatalf("%q: the string at %d ends at %d (%v), want %d (%v)", line, i, e1, err1, e2, err2)
			}
		}
	}
}

// TestQuoteIndexIsStringEnd: the quote index finds the strings jsonscan.StringEnd finds, on lines of
// quotes, backslash runs and text across the 64-byte blocks, and a line's scan is the same by both.
func TestQuoteIndexIsStringEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{`"`, `\`, `\\`, `\"`, `a`, ` `, `{`, `:`, `,`, "key=", "é"}
	for range 400 {
		var b []byte
		for n := r.IntN(700); len(b) < n; {
			b = append(b, parts[r.IntN(len(parts))]...)
		}
		sameQuotes(t, b)
	}
	paths := keywordPaths(t)
	lines := 0
	for p, l := range testcorpus.Lines(t, "that the quote index reads real lines as the byte search does") {
		if len(l) < 64<<10 {
			sameQuotes(t, l)
		}
		if len(paths) == 2 {
			if got, want := paths[0].line(l, nil, false), paths[1].line(l, nil, false); !slices.Equal(got, want) {
				t.Fatalf("%s: a line of %d bytes: %v with the index, %v without", p, len(l), got, want)
			}
		}
		lines++
	}
	t.Logf("%d corpus lines", lines)
}

// FuzzQuoteIndex holds the quote index (escaped quotes found 64 bytes at a time) to the byte search.
func FuzzQuoteIndex(f *testing.F) {
	f.Add([]byte(`{"a":"x\\\"y\\\\","b":"` + strings.Repeat(`\\\"`, 30) + `"}`))
	f.Add([]byte(strings.Repeat(`\`, 63) + `"` + strings.Repeat(`\"`, 40)))
	f.Fuzz(func(t *testing.T, b []byte) {
		sameQuotes(t, b)
	})
}
