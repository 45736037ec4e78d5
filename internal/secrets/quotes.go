package secrets

import (
	"math/bits"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// quoteIndex holds where a long line's quotes are, a bit a byte, and which of them are not escaped
// (ends), made 64 bytes at a time (quoteMasks, AVX2, gives the quotes and the backslashes; a quote
// is escaped when an odd run of backslashes stands before it, found for 64 bytes at once as
// simdjson does): finding the next string and its end is then a look at words, not a search per
// string and per escaped quote (jsonscan.StringEnd: a sixth of the scan on genuine logs, whose code
// is full of \").
type quoteIndex struct {
	quotes []uint64
	ends   []uint64 // the quotes no odd run of backslashes stands before
	bs     []uint64 // the backslashes, scratch
}

// quoteMin is the line length from which the quotes are indexed first.
const quoteMin = 256

func (x *quoteIndex) build(line []byte) {
	n := (len(line) + 63) / 64
	if cap(x.quotes) < n {
		x.quotes, x.ends, x.bs = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	}
	x.quotes, x.ends, x.bs = x.quotes[:n], x.ends[:n], x.bs[:n]
	full := len(line) / 64
	if full > 0 {
		quoteMasks(&line[0], full, &x.quotes[0], &x.bs[0])
	}
	if full < n {
		var q, b uint64
		for j, c := range line[full*64:] {
			switch c {
			case '"':
				q |= 1 << j
			case '\\':
				b |= 1 << j
			}
		}
		x.quotes[full], x.bs[full] = q, b
	}
	var carry uint64
	for w, b := range x.bs {
		x.ends[w] = x.quotes[w] &^ escaped(b, &carry)
	}
}

// escaped returns the bytes of a 64-byte block that a backslash escapes, given its backslashes and
// whether the block's first byte is escaped by the block before (*carry, updated for the next):
// the byte after each odd-length run of backslashes (simdjson's find_escaped_branchless).
func escaped(backslash uint64, carry *uint64) uint64 {
	const even = 0x5555555555555555
	backslash &^= *carry
	follows := backslash<<1 | *carry
	oddStarts := backslash &^ even &^ follows
	evenStarts, c := bits.Add64(oddStarts, backslash, 0)
	*carry = c
	return (even ^ evenStarts<<1) & follows
}

// next returns the place of the first quote at or after i, or -1.
func (x *quoteIndex) next(i int) int {
	return nextBit(x.quotes, i)
}

// nextBit returns the place of the first bit set in words at or after i, or -1.
func nextBit(words []uint64, i int) int {
	w := i >> 6
	if w >= len(words) {
		return -1
	}
	if m := words[w] >> (i & 63); m != 0 {
		return i + bits.TrailingZeros64(m)
	}
	for w++; w < len(words); w++ {
		if m := words[w]; m != 0 {
			return w<<6 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// stringEnd is jsonscan.StringEnd(b, q) by the index: past the first quote after q that no odd run
// of backslashes stands before.
func (x *quoteIndex) stringEnd(b []byte, q int) (int, error) {
	if j := nextBit(x.ends, q+1); j >= 0 {
		return j + 1, nil
	}
	return 0, jsonscan.ErrSyntax
}
