package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// paths runs f with each way of making the blocks this CPU has: AVX2 (when it has it) and words.
func paths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer func(v bool) { vector = v }(vector)
	if hasAVX2 {
		vector = true
		t.Run("avx2", f)
	}
	vector = false
	t.Run("words", f)
}

// sameAsRef fails t unless String and StringEnd of the string opened at b[i] answer as the
// reference scanners (ref_test.go) do.
func sameAsRef(t testing.TB, b []byte, i int) {
	t.Helper()
	e, esc, f := String(b, i)
	we, wesc, wf := stringRef(b, i)
	if e != we || esc != wesc || (f == nil) != (wf == nil) || f != nil && *f != *wf {
		t.Fatalf("String(%q, %d) = %d, %v, %+v; the reference says %d, %v, %+v", b, i, e, esc, f, we, wesc, wf)
	}
	e2, err := StringEnd(b, i)
	we2, werr := stringEndRef(b, i)
	if e2 != we2 || err != werr {
		t.Fatalf("StringEnd(%q, %d) = %d, %v; the reference says %d, %v", b, i, e2, err, we2, werr)
	}
}

// sameAtQuotes holds every string of b that opens at a quote to the reference.
func sameAtQuotes(t testing.TB, b []byte) {
	t.Helper()
	for i := range b {
		if b[i] == '"' {
			sameAsRef(t, b, i)
		}
	}
}

// sameAlongStrings holds the strings of b to the reference as a scan meets them: from the first
// quote, then the first after each string's end (after a fault, after its opening quote); linear
// where sameAtQuotes, from inside a long string of escaped quotes, is not.
func sameAlongStrings(t testing.TB, b []byte) {
	t.Helper()
	for i := bytes.IndexByte(b, '"'); i >= 0; {
		sameAsRef(t, b, i)
		next := i + 1
		if e, _, f := stringRef(b, i); f == nil {
			next = e
		}
		k := bytes.IndexByte(b[next:], '"')
		if k < 0 {
			return
		}
		i = next + k
	}
}

// hostile returns strings that end, or fault, near a block's edges: escapes cut by a block's end,
// runs of backslashes of every length before a quote, \u with and without four hex digits, each
// one-byte escape letter and every other byte after a backslash, strings never closed.
func hostile() [][]byte {
	tails := []string{`"`, `\"`, `\\"`, `\\\"`, `\\\\"`, `\"x"`, `\\\"x"`, `\u00e9"`, `\ud83d\ude00"`, `\u12"`,
		`\u12`, `\u"`, `\u`, `\uZZZZ"`, `\x"`, `\x`, `\`, `\\`, `\\\`, `\n\t\r\b\f\/"`, `\u00e9`, `\"`,
		`\u00"x"`, `\q\"`, `a\ub"`, `\u0041\u0042"` + `\u00`}
	var out [][]byte
	for pad := 0; pad < 140; pad++ {
		p := strings.Repeat("a", pad)
		for _, tl := range tails {
			out = append(out, []byte(`"`+p+tl), []byte(`"`+p+tl+`,"next":"v"}`))
		}
		for run := 1; run < 70; run += 7 {
			out = append(out, []byte(`"`+p+strings.Repeat(`\`, run)+`"tail"`))
		}
	}
	for c := range 256 {
		for pad := 58; pad < 70; pad++ {
			p := strings.Repeat("b", pad)
			out = append(out, []byte(`"`+p+`\`+string([]byte{byte(c)})+`0000"`),
				[]byte(`"`+p+`\`+string([]byte{byte(c)})))
		}
	}
	return out
}

func TestStringAsReferenceHostile(t *testing.T) {
	cases := hostile()
	paths(t, func(t *testing.T) {
		for _, b := range cases {
			sameAtQuotes(t, b)
		}
	})
}

// TestStringAsReferenceRandom: strings of the bytes that matter (quotes, backslashes, escape
// letters, hex digits), of every length up to three blocks.
func TestStringAsReferenceRandom(t *testing.T) {
	const alphabet = `"\\\\\\u0aFfnx/ `
	r := rand.New(rand.NewPCG(1, 2))
	cases := make([][]byte, 20000)
	for k := range cases {
		b := make([]byte, 1+r.IntN(200))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		b[0] = '"'
		cases[k] = b
	}
	paths(t, func(t *testing.T) {
		for _, b := range cases {
			sameAtQuotes(t, b)
		}
	})
}

// TestStringAsReferenceCorpus: every string of every line of the real logs, and each line cut
// short (a truncated record ends inside a string).
func TestStringAsReferenceCorpus(t *testing.T) {
	var lines [][]byte
	for _, line := range testcorpus.Lines(t, "the vector string scan against the reference on real logs") {
		lines = append(lines, line)
	}
	paths(t, func(t *testing.T) {
		for _, l := range lines {
			sameAlongStrings(t, l)
			if len(l) > 2 {
				cut := l[:len(l)/2]
				if i := bytes.LastIndexByte(cut, '"'); i >= 0 {
					sameAsRef(t, cut, i)
				}
				if i := bytes.IndexByte(cut, '"'); i >= 0 {
					sameAsRef(t, cut, i)
				}
			}
		}
	})
}

// TestEscapes holds the one-subtraction escape finder to a walk of the backslashes.
func TestEscapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 200000; n++ {
		bs := r.Uint64() & r.Uint64() // runs of several lengths
		if n%3 == 0 {
			bs |= r.Uint64()
		}
		var starts, escaped uint64
		for k := 0; k < 64; k++ {
			if bs>>k&1 != 0 {
				starts |= 1 << k
				if k < 63 {
					escaped |= 1 << (k + 1)
				}
				k++
			}
		}
		s, e := escapes(bs)
		if s != starts || e != escaped {
			t.Fatalf("escapes(%064b) = %064b, %064b; want %064b, %064b", bs, s, e, starts, escaped)
		}
	}
}

// TestBlockMasks holds the AVX2 masks to the words' for every byte value at every place.
func TestBlockMasks(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU: only the words' path runs here")
	}
	defer func(v bool) { vector = v }(vector)
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 20000; n++ {
		b := make([]byte, 1+r.IntN(150))
		for j := range b {
			b[j] = byte(r.IntN(256))
			if r.IntN(4) == 0 {
				b[j] = '\\'
			}
		}
		at := r.IntN(len(b))
		b[at] = `"\\`[r.IntN(2)] // both paths start the block here
		vector = true
		var mv, mw [6]uint64
		var okv, okw bool
		var at1, at2 int
		at1, mv[0], mv[1], mv[2], mv[3], okv = nextBlock(b, at)
		mv[2] &= mv[1] << 1
		mv[3] &= mv[1] << 1
		vector = false
		at2, mw[0], mw[1], mw[2], mw[3], okw = nextBlock(b, at)
		if okv != okw || at1 != at2 || mv != mw {
			t.Fatalf("%q from %d: avx2 %d %x %v, words %d %x %v", b, at, at1, mv, okv, at2, mw, okw)
		}
	}
}

// FuzzStringAsReference holds String and StringEnd to the reference scanners on any input, both
// ways of making blocks.
func FuzzStringAsReference(f *testing.F) {
	for _, b := range hostile()[:200] {
		f.Add(b, uint8(0))
	}
	f.Add([]byte(`{"a":"x\"y","b":"\u00e9\\"}`), uint8(5))
	f.Fuzz(func(t *testing.T, b []byte, at uint8) {
		defer func(v bool) { vector = v }(vector)
		for _, v := range []bool{true, false} {
			if v && !hasAVX2 {
				continue
			}
			vector = v
			if i := int(at); i < len(b) && b[i] == '"' {
				sameAsRef(t, b, i)
			}
			sameAlongStrings(t, b)
		}
	})
}
