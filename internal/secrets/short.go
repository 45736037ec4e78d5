package secrets

import "math/bits"

// shortMasks runs the vector test over the short strings of a long line (below simdMin bytes, too
// short for a vector block of their own: uuids, times, names, paths, commands), a few blocks of the
// line at a time as its strings come, instead of the scalar loop's byte by byte: a sixth of the
// scan on genuine logs. The line's keys and structure between them go through the test too, and
// their places are never looked at; the blocks stop ahead of a long string (a base64 image is
// megabytes) by at most shortAhead blocks. A place whose four bytes run past its string's end
// passes where its first three may start a keyword of three (the tables take any fourth byte), and
// a longer keyword lies inside the string: the test still lets through every place the string's own
// look would.
type shortMasks struct {
	line []byte
	km   []uint64 // the vector test's masks, a block of 64 places each
	done int      // blocks computed; those before the current string's are stale
	full int      // blocks whose 64+3 bytes are in the line
}

// shortAhead is how many blocks one call computes at least.
const shortAhead = 2

func (lm *shortMasks) reset(line []byte) {
	lm.line, lm.done, lm.full = line, 0, 0
	if len(line) >= 64+3 {
		lm.full = (len(line) - 3) / 64
	}
	if cap(lm.km) < lm.full {
		lm.km = make([]uint64, lm.full)
	}
	lm.km = lm.km[:lm.full]
}

// forKeywords is forKeywords(s, body, fn) for body, a string of the line at offset at, strings
// asked for in line order. false: body's places run past the full blocks (the caller looks itself).
func (lm *shortMasks) forKeywords(s *Scanner, body []byte, at int, fn func(pos, ki int) bool) bool {
	if len(body) >= 3 {
		last := at + len(body) - 3 // the last place a keyword of three may start
		hi := last >> 6
		if !lm.upTo(s, at, hi) {
			return false
		}
		for blk := at >> 6; blk <= hi; blk++ {
			m, base := lm.km[blk], blk*64
			if base < at {
				m &^= 1<<(at-base) - 1
			}
			m &= 1<<(last-base+1) - 1 // all ones from 64 on (a shift past the width is 0)
			for m != 0 {
				start := base + bits.TrailingZeros64(m) - at
				m &= m - 1
				if inTri(s, body, start) && !candidate(s, body, start, fn) {
					return true
				}
			}
		}
	}
	if n := len(body); n >= 2 && body[n-2] == '\\' && body[n-1] == '/' {
		fn(n-2, -1)
	}
	return true
}

// upTo computes the masks of the blocks up to hi (a string at offset at ends there), at least
// shortAhead at a time; false when hi is past the full blocks.
func (lm *shortMasks) upTo(s *Scanner, at, hi int) bool {
	if hi >= lm.full {
		return false
	}
	if hi >= lm.done {
		lo := max(lm.done, at>>6)
		n := min(lm.full, max(hi+1, lo+shortAhead)) - lo
		keywordMasks(&lm.line[lo*64], n, s.simd, &lm.km[lo])
		lm.done = lo + n
	}
	return true
}

// quiet reports whether no place of body (a short string of the line at offset at) passes the
// vector test and it does not end in `\/`: its look would find nothing. false when not known (its
// places run past the full blocks). Most short strings (ids, times, names) are quiet: this spares
// them the look's calls.
func (lm *shortMasks) quiet(s *Scanner, body []byte, at int) bool {
	n := len(body)
	if n < 3 {
		return n < 2 || body[0] != '\\' || body[1] != '/'
	}
	last := at + n - 3
	hi := last >> 6
	if !lm.upTo(s, at, hi) {
		return false
	}
	lo := at >> 6
	m := lm.km[lo] &^ (1<<(at&63) - 1)
	if hi > lo {
		if m != 0 {
			return false
		}
		m = lm.km[hi]
	}
	m &= 1<<(last&63+1) - 1
	return m == 0 && (body[n-2] != '\\' || body[n-1] != '/')
}

// inTri reports whether the three bytes at start are in the trigram set (forKeywords).
func inTri[T string | []byte](s *Scanner, b T, start int) bool {
	tri := (*[1 << (3 * classBits) / 64]uint64)(s.tri)
	h := uint32(class[b[start]])<<(2*classBits) | uint32(class[b[start+1]])<<classBits | uint32(class[b[start+2]])
	return tri[h>>6&(1<<(3*classBits-6)-1)]&(1<<(h&63)) != 0
}
