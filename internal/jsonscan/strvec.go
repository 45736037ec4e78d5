package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The string scanners (String, StringEnd, and so Value, ValueEnd and ObjectFields) read a string 64
// bytes at a time: a block's quotes and backslashes as bit masks (AVX2 on amd64, stringBlock;
// eight bytes a word elsewhere, blockSWAR), which backslashes escape the byte after them from the
// runs of backslashes (escapes), the escaped bytes checked against JSON's escape letters in the
// same masks. A log's text escapes every few bytes: a call per escape (bytes.IndexByte) cost more
// than the scan. A block starts where no escape is pending (an escape cut by a block's end is
// finished by hand before the next block), so no state crosses blocks.

// A block is 64 bytes from at: bit k of its masks stands for b[at+k], bytes past the input are 0.
// Its masks: quotes (q), backslashes (bs), the one-letter escapes' letters (" \ / b f n r t) and
// 'u' (these two only where bs<<1 is set).

// vector says stringBlock may be used (the CPU has AVX2); tests turn it off to run the words' path.
var vector = hasAVX2

// nextBlock returns the first block from b[at] that holds a quote or a backslash; ok is false when
// the rest of b holds neither. (Plain results, not a struct: a struct built from the assembly's
// results was copied 16 bytes at a time from its 8-byte stores, a stalled store forwarding.)
func nextBlock(b []byte, at int) (blk int, q, bs, letters, u uint64, ok bool) {
	if at >= len(b) {
		return 0, 0, 0, 0, 0, false
	}
	if !vector {
		return blockSWAR(b, at)
	}
	off, q, bs, letters, u := stringBlock(&b[at], len(b)-at)
	if at+off+64 <= len(b) {
		return at + off, q, bs, letters, u, true
	}
	return tailBlock(b, at+off)
}

// tailBlock is the block of the last bytes of b, from at (fewer than 64), padded with zeros
// (neither quote, backslash nor letter).
func tailBlock(b []byte, at int) (blk int, q, bs, letters, u uint64, ok bool) {
	if at >= len(b) {
		return 0, 0, 0, 0, 0, false
	}
	var tail [64]byte
	copy(tail[:], b[at:])
	off, q, bs, letters, u := stringBlock(&tail[0], 64)
	return at, q, bs, letters, u, off == 0
}

// String scans the string whose opening quote is at b[i], validating its escapes. It returns the
// index past the closing quote and whether the string holds escapes. Raw control characters and
// invalid UTF-8 inside are tolerated: refusing them would hide a whole record for one bad byte.
func String(b []byte, i int) (end int, escaped bool, err *Fault) {
	at := i + 1
	for {
		blk, q, bs, letters, u, ok := nextBlock(b, at)
		if !ok {
			return 0, false, &Fault{Off: i, Problem: Unclosed}
		}
		if bs == 0 {
			return blk + bits.TrailingZeros64(q) + 1, escaped, nil
		}
		starts, esc := escapes(bs)
		before := ^uint64(0) // the bytes before the closing quote, when the block holds it
		ends := q &^ esc
		if ends != 0 {
			before = ends&-ends - 1
		}
		// The first invalid escape before the end: a letter not JSON's, or \u without four hex digits.
		bad := esc &^ (letters | u) & before
		for us := esc & u & before; us != 0; us &= us - 1 {
			k := bits.TrailingZeros64(us)
			if bad != 0 && bits.TrailingZeros64(bad) < k {
				break
			}
			if _, ok := Hex4(b, blk+k+1); !ok {
				bad = 1 << k
				break
			}
		}
		if bad != 0 {
			k := bits.TrailingZeros64(bad)
			problem := BadEscape
			if u>>k&1 != 0 {
				problem = BadUnicodeEscape
			}
			return 0, false, badEscape(b, i, blk+k-1, problem)
		}
		if ends != 0 {
			return blk + bits.TrailingZeros64(ends) + 1, escaped || bs&before != 0, nil
		}
		escaped = true
		at = blk + 64
		if starts>>63 != 0 { // the block's last byte escapes the next one: finish that escape here
			p := at - 1
			if at >= len(b) {
				return 0, false, &Fault{Off: i, Problem: Unclosed}
			}
			switch c := b[at]; {
			case simple[c] != 0:
				at++
			case c == 'u':
				if _, ok := Hex4(b, at+1); !ok {
					return 0, false, badEscape(b, i, p, BadUnicodeEscape)
				}
				at += 5
			default:
				return 0, false, badEscape(b, i, p, BadEscape)
			}
		}
	}
}

// badEscape is the fault of the invalid escape at b[p] in the string opened at b[i]: the escape's,
// if a quote follows it, else the string's (never closed), as the scanner that found the closing
// quote first and then the escapes before it said.
func badEscape(b []byte, i, p int, problem Problem) *Fault {
	if bytes.IndexByte(b[p+1:], '"') < 0 {
		return &Fault{Off: i, Problem: Unclosed}
	}
	return &Fault{Off: p, Problem: problem}
}

// StringEnd returns the index just past the closing quote of the string whose opening quote is at
// b[i]: the first quote after an even run of backslashes, escapes not validated.
func StringEnd(b []byte, i int) (int, error) {
	at := i + 1
	for {
		blk, q, bs, _, _, ok := nextBlock(b, at)
		if !ok {
			return 0, ErrSyntax
		}
		if bs == 0 {
			return blk + bits.TrailingZeros64(q) + 1, nil
		}
		starts, esc := escapes(bs)
		if ends := q &^ esc; ends != 0 {
			return blk + bits.TrailingZeros64(ends) + 1, nil
		}
		at = blk + 64 + int(starts>>63) // past the byte the block's last escapes
	}
}

// escapes returns, of a block's backslashes bs with no escape pending from before it, those that
// start an escape and the bytes escaped (each start's next byte; the block's last byte's falls
// outside). simdjson's trick: a run of backslashes starting at an even place escapes from its even
// places, one at an odd place from its odd places; one subtraction finds each run's start and
// parity at once.
func escapes(bs uint64) (starts, escaped uint64) {
	const odd = 0xAAAAAAAAAAAAAAAA
	codes := ((bs<<1 | odd) - bs) ^ odd
	return codes & bs, codes ^ bs
}

const (
	lows  = 0x7f7f7f7f7f7f7f7f
	highs = 0x8080808080808080
	ones  = 0x0101010101010101
)

// eqBytes returns the high bit of each byte of w that equals c, exactly (a byte's sum never carries
// into the next).
func eqBytes(w uint64, c byte) uint64 {
	x := w ^ ones*uint64(c)
	return ^((x&lows + lows) | x) & highs
}

// packHighs gathers the high bits of a word's eight bytes into eight bits, byte k's as bit k.
func packHighs(m uint64) uint64 { return (m >> 7) * 0x0102040810204080 >> 56 }

// blockSWAR is nextBlock without vectors: eight bytes a word up to the first word with a quote or
// a backslash, then the block of 64 bytes from that word.
func blockSWAR(b []byte, at int) (blk int, q, bs, letters, u uint64, ok bool) {
	for at+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[at:])
		if eqBytes(w, '"')|eqBytes(w, '\\') != 0 {
			break
		}
		at += 8
	}
	if at >= len(b) {
		return 0, 0, 0, 0, 0, false
	}
	by := b[at:]
	if len(by) < 64 {
		var tail [64]byte // padded with zeros (neither quote, backslash nor letter)
		copy(tail[:], by)
		by = tail[:]
	}
	for k := 0; k < 8; k++ {
		w := binary.LittleEndian.Uint64(by[8*k:])
		q |= packHighs(eqBytes(w, '"')) << (8 * k)
		bs |= packHighs(eqBytes(w, '\\')) << (8 * k)
	}
	if q|bs == 0 {
		return 0, 0, 0, 0, 0, false
	}
	for after := bs << 1; after != 0; after &= after - 1 {
		k := bits.TrailingZeros64(after)
		switch c := by[k]; {
		case simple[c] != 0:
			letters |= 1 << k
		case c == 'u':
			u |= 1 << k
		}
	}
	return at, q, bs, letters, u, true
}
