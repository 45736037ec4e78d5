package secrets

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
	"github.com/zricethezav/gitleaks/v8/config"
)

type kwHit struct{ pos, ki int }

// naiveKeywords is forKeywords' contract written the slow way: every keyword at every position
// (two-byte ones where tokenRun token bytes follow), then the escapes that may hide one.
func naiveKeywords(s *Scanner, b []byte) []kwHit {
	var byFirst [256][]int // keyword indexes by first byte: only to make the test quicker
	for ki, k := range s.keywords {
		byFirst[k.text[0]] = append(byFirst[k.text[0]], ki)
	}
	var out []kwHit
	low := make([]byte, len(b))
	for i, c := range b {
		low[i] = lower[c] // ASCII letters only (bytes.ToLower would replace bad UTF-8)
	}
	for p := range b {
		if bytes.HasPrefix(b[p:], []byte(`\/`)) || bytes.HasPrefix(b[p:], []byte(`\u00`)) && p+6 <= len(b) && b[p+4] >= '2' && b[p+4] <= '7' {
			out = append(out, kwHit{p, -1})
		}
		if p+6 <= len(b) && slices.Contains([]string{`\u017f`, `\u017F`, `\u212a`, `\u212A`}, string(b[p:p+6])) {
			out = append(out, kwHit{p, kiTrap})
		}
		var at []kwHit
		for _, ki := range byFirst[low[p]] {
			k := s.keywords[ki]
			if bytes.HasPrefix(low[p:], []byte(k.text)) && (len(k.text) > 2 || tokenAfter(b, p+2)) {
				at = append(at, kwHit{p, ki})
			}
		}
		// forKeywords gives a position's two-byte keyword first, then the longer ones in index order.
		slices.SortStableFunc(at, func(x, y kwHit) int { return min(len(s.keywords[y.ki].text), 3) - min(len(s.keywords[x.ki].text), 3) })
		slices.Reverse(at)
		slices.SortStableFunc(at, func(x, y kwHit) int { return min(len(s.keywords[x.ki].text), 3) - min(len(s.keywords[y.ki].text), 3) })
		out = append(out, at...)
	}
	return out
}

func fastKeywords(s *Scanner, b []byte) []kwHit {
	var out []kwHit
	forKeywords(s, b, func(pos, ki int) bool {
		out = append(out, kwHit{pos, ki})
		return true
	})
	return out
}

// shortKeywords is fastKeywords through a long line's masks (shortMasks), b a string of the line
// between pad's bytes; ok is false where that path does not take b (too long, or no vector test).
func shortKeywords(s *Scanner, b []byte, pad byte) (out []kwHit, ok bool) {
	if s.simd == nil || len(b) >= simdMin {
		return nil, false
	}
	at := 61 // b's places start in one block and may end in the next
	line := append(append(bytes.Repeat([]byte{pad}, at), b...), bytes.Repeat([]byte{pad}, 100)...)
	var lm shortMasks
	lm.reset(line)
	ok = lm.forKeywords(s, line[at:at+len(b)], at, func(pos, ki int) bool {
		out = append(out, kwHit{pos, ki})
		return true
	})
	// Line skips a string its masks show quiet: only one the look finds nothing in.
	var fresh shortMasks
	fresh.reset(line)
	if fresh.quiet(s, line[at:at+len(b)], at) && len(out) > 0 {
		return nil, true // a quiet string with hits: sameEveryWay reports it
	}
	return out, ok
}

// sameEveryWay compares each of the scanner's keyword passes over b with want.
func sameEveryWay(t *testing.T, s *Scanner, b []byte, want []kwHit) {
	t.Helper()
	if got := fastKeywords(s, b); !sameHits(got, want) {
		t.Fatalf("%q (vector test: %v):\n got %v\nwant %v", b, s.simd != nil, got, want)
	}
	for _, pad := range []byte{'"', 'y', '-'} { // a quote, as in JSON; bytes that continue keywords
		if got, ok := shortKeywords(s, b, pad); ok && !sameHits(got, want) {
			t.Fatalf("%q as a short string of a line, between %q:\n got %v\nwant %v", b, pad, got, want)
		}
	}
}

func sameHits(a, b []kwHit) bool {
	key := func(x, y kwHit) int {
		if x.pos != y.pos {
			return x.pos - y.pos
		}
		return x.ki - y.ki
	}
	slices.SortFunc(a, key)
	slices.SortFunc(b, key)
	return slices.Equal(a, b)
}

// TestKeywordIndexMissesNothing: the index of keywords' first three bytes (byte classes, pair
// groups, escapes) finds exactly what a search for every keyword at every position finds: on text
// dense with keywords in mixed case, on random bytes from the keywords' alphabet, and on every line
// of the real logs. A keyword it missed would be a secret never looked for.
func TestKeywordIndexMissesNothing(t *testing.T) {
	for _, s := range keywordPaths(t) {
		keywordIndexMissesNothing(t, s)
	}
}

// keywordPaths returns the default scanner and, where it has the vector tests (simd.go, quotes.go),
// one without them: the two passes, held to the same answers.
func keywordPaths(t testing.TB) []*Scanner {
	paths := []*Scanner{Default()}
	if Default().simd != nil || Default().quotes {
		s, err := parse(config.DefaultConfig)
		if err != nil {
			t.Fatal(err)
		}
		s.simd, s.quotes = nil, false
		paths = append(paths, s)
	} else {
		t.Log("this CPU has neither AVX-512 VBMI nor AVX2: the scalar passes alone are tested")
	}
	return paths
}

func keywordIndexMissesNothing(t *testing.T, s *Scanner) {
	r := rand.New(rand.NewPCG(1, 2))
	var words []string
	for _, k := range s.keywords {
		words = append(words, k.text, strings.ToUpper(k.text))
	}
	words = append(words, `\u0041`, `\u007a`, `\u0019`, `\u017f`, `\u212A`, `\/`, `\\`, `\n`, " ", "=", "é", "ſ", "\u212a", "AbCdEfGhIjKlMnOpQr0123456789", "\x00")
	alphabet := []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.=_~+/\\\" :éü")
	for n := range 3000 {
		var b []byte
		for range 1 + r.IntN(30) {
			if n%2 == 0 {
				b = append(b, words[r.IntN(len(words))]...)
			} else {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
			if r.IntN(3) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
		}
		sameEveryWay(t, s, b, naiveKeywords(s, b))
	}
	lines := 0
	for p, l := range testcorpus.Lines(t, "that the keyword index finds every keyword in real logs") {
		if len(l) > 4<<10 {
			l = l[:4<<10] // the naive search is slow (every keyword at every byte): a line's start
		}
		if got, want := fastKeywords(s, l), naiveKeywords(s, l); !sameHits(got, want) {
			t.Fatalf("%s: a line of %d bytes: %d keywords found, %d there", p, len(l), len(got), len(want))
		}
		lines++
	}
	t.Logf("%d corpus lines", lines)
}

// FuzzKeywords holds the keyword passes (vector, vector through a line's masks, scalar) to the slow
// search for every keyword at every place.
func FuzzKeywords(f *testing.F) {
	f.Add([]byte(strings.Repeat("the api_key = token secret in a long enough text of words: ", 4)))
	f.Add([]byte(strings.Repeat(`x\u0041pi_key \/ eyJhbGciOiJIUzI1NiJ9abcdefgh sk-ant-api03 `, 5)))
	f.Add([]byte("short"))
	paths := keywordPaths(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4<<10 {
			b = b[:4<<10]
		}
		want := naiveKeywords(paths[0], b)
		for _, s := range paths {
			sameEveryWay(t, s, b, want)
		}
	})
}
