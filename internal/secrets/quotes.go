package secrets

import (
	"math/bits"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// quoteIndex holds where a long line's quotes are, a bit a byte, made 64 bytes at a time (quoteMasks,
// AVX2): finding the next string and its end is then a look at words, not a search per string and
// per escaped quote (jsonscan.StringEnd: a sixth of the scan on genuine logs, whose code is full of
// \").
type quoteIndex struct {
	quotes []uint64
}

// quoteMin is the line length from which the quotes are indexed first.
const quoteMin = 256

func (x *quoteIndex) build(line []byte) {
	n := (len(line) + 63) / 64
	if cap(x.quotes) < n {
		x.quotes = make([]uint64, n)
	}
	x.quotes = x.quotes[:n]
	full := len(line) / 64
	if full > 0 {
		quoteMasks(&line[0], full, &x.quotes[0])
	}
	if full < n {
		var q uint64
		for j, c := range line[full*64:] {
			if c == '"' {
				q |= 1 << j
			}
		}
		x.quotes[full] = q
	}
}

// next returns the place of the first quote at or after i, or -1.
func (x *quoteIndex) next(i int) int {
	w := i >> 6
	if w >= len(x.quotes) {
		return -1
	}
	if m := x.quotes[w] >> (i & 63); m != 0 {
		return i + bits.TrailingZeros64(m)
	}
	for w++; w < len(x.quotes); w++ {
		if m := x.quotes[w]; m != 0 {
			return w<<6 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// stringEnd is jsonscan.StringEnd(b, q) by the index.
func (x *quoteIndex) stringEnd(b []byte, q int) (int, error) {
	for i := q + 1; ; {
		j := x.next(i)
		if j < 0 {
			return 0, jsonscan.ErrSyntax
		}
		// An odd run of backslashes before the quote escapes it.
		k := j - 1
		for b[k] == '\\' {
			k--
		}
		if (j-1-k)%2 == 0 {
			return j + 1, nil
		}
		i = j + 1
	}
}
