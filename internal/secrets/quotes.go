package secrets

import (
	"math/bits"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// quoteIndex holds where a long line's quotes and backslashes are, a bit a byte, made 64 bytes at a
// time (quoteMasks, AVX2): finding the next string and its end is then a look at words, not a
// search per string and per escaped quote (jsonscan.StringEnd: a sixth of the scan on genuine logs,
// whose code is full of \").
type quoteIndex struct {
	quotes []uint64
	bs     []uint64 // the backslashes
}

// quoteMin is the line length from which the quotes are indexed first.
const quoteMin = 256

func (x *quoteIndex) build(line []byte) {
	n := (len(line) + 63) / 64
	if cap(x.quotes) < n {
		x.quotes, x.bs = make([]uint64, n), make([]uint64, n)
	}
	x.quotes, x.bs = x.quotes[:n], x.bs[:n]
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

// stringEnd is jsonscan.StringEnd(b, q) by the index: past the first quote after q that no odd run
// of backslashes stands before. The backslashes before a quote are counted back from it, until a
// string has shown a few escaped quotes (JSON inside a string, genuine logs' code): from there its
// quotes and backslashes are read a word at a time (escapedEnd).
func (x *quoteIndex) stringEnd(b []byte, q int) (int, error) {
	for i, n := q+1, 0; ; n++ {
		if n == escapedMany {
			return x.escapedEnd(i)
		}
		j := x.next(i)
		if j < 0 {
			return 0, jsonscan.ErrSyntax
		}
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

// escapedMany is how many escaped quotes a string shows before its end is looked for by words.
const escapedMany = 4

// escapedEnd is stringEnd from i, the byte after a quote (which ends any run of backslashes before
// it), a word of quotes and backslashes at a time.
func (x *quoteIndex) escapedEnd(i int) (int, error) {
	w := i >> 6
	from := ^uint64(0) << (i & 63) // the first word's bytes from i on
	var carry uint64
	for ; w < len(x.quotes); w, from = w+1, ^uint64(0) {
		qs, bs := x.quotes[w]&from, x.bs[w]&from
		if bs|carry != 0 {
			qs &^= escaped(bs, &carry)
		}
		if qs != 0 {
			return w<<6 + bits.TrailingZeros64(qs) + 1, nil
		}
	}
	return 0, jsonscan.ErrSyntax
}
