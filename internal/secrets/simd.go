package secrets

import "slices"

// The keyword pass's first test, 64 places at a time (amd64 with AVX-512 VBMI: simd_amd64.s). A
// place may start a keyword only where its first four bytes' classes could begin one: the test asks
// a necessary condition of that, that each of the six pairs of those four classes (first and
// second, second and third, …, first and fourth) is a pair some keyword (or escape that hides one)
// has at those places, a keyword of three bytes with any fourth, one of two with token bytes after
// it, and the third class with a hash of the first two (pairHash) as in some keyword. The classes
// here are coarser than the scalar passes' (simdClass: 5 bits, digits one class, punctuation in
// pairs), so that a pair set is a 32×32 bit table of 128 bytes: all seven stay in registers and each
// is one byte permute for 64 places. On genuine text 2.1 % of places pass it (1.7 % with the 6-bit
// classes and their 512-byte tables, which took four permutes and eight loads a pair: a vector test
// 2.5× as costly for 1.24× the places let through), and each goes on to the exact tests the scalar
// loop makes (forKeywords): the answers are the same (TestKeywordIndexMissesNothing, FuzzKeywords),
// what differs is that the places no keyword starts at cost a fraction of a cycle each.

// simdTables is what keywordMasks reads; the layout is fixed by simd_amd64.s's offsets.
type simdTables struct {
	cls   [128]byte    // the class of each ASCII byte (simdClass)
	pairs [7][128]byte // places (0,1) (1,2) (0,2) (1,3) (2,3) (0,3), then (pairHash(0,1), 2): byte (y&3)<<5 | x, bit y>>2
	k03   [64]byte     // 0x03 in each byte
	k07   [64]byte     // 0x07
	k1f   [64]byte     // 0x1f
	bits  [64]byte     // 1 << (i&7) at byte i of each 16-byte lane (VPSHUFB's table)
}

// simdClassBits is the width of the vector test's classes.
const simdClassBits = 5

// simdClass is the vector test's class of byte b: letters of either case one each (1–26), digits
// one (27), "-_" (28), ".~" (29), "=+" (30), "/" (31), and 0 for every other byte. Keywords hold
// few digits and punctuation; letters are what tells them apart.
func simdClass(b byte) uint8 {
	switch {
	case 'a' <= b && b <= 'z':
		return b - 'a' + 1
	case 'A' <= b && b <= 'Z':
		return b - 'A' + 1
	case '0' <= b && b <= '9':
		return 27
	case b == '-' || b == '_':
		return 28
	case b == '.' || b == '~':
		return 29
	case b == '=' || b == '+':
		return 30
	case b == '/':
		return 31
	}
	return 0
}

// pairHash is the vector test's hash of two classes, (a + 7b) mod 32.
func pairHash(a, b uint8) uint8 { return (a + 7*b) & (1<<simdClassBits - 1) }

// simdBatch is how many blocks of 64 places one call looks at.
const simdBatch = 64

// simdMin is the length from which a string is looked at 64 places at a time.
const simdMin = 64 + 3

// buildSIMD makes the vector test's tables from the keywords.
func (s *Scanner) buildSIMD() {
	t := new(simdTables)
	for c := range 128 {
		t.cls[c] = simdClass(byte(c))
	}
	var every, tok []uint8
	for c := range uint8(1 << simdClassBits) {
		every = append(every, c)
	}
	for c := range 256 {
		if tokenByte[c] && !slices.Contains(tok, simdClass(byte(c))) {
			tok = append(tok, simdClass(byte(c)))
		}
	}
	add := func(c0, c1 uint8, third, fourth []uint8) {
		set := func(k int, x, y uint8) { t.pairs[k][int(y&3)<<5|int(x)] |= 1 << (y >> 2) }
		set(0, c0, c1)
		for _, c2 := range third {
			set(1, c1, c2)
			set(2, c0, c2)
			set(6, pairHash(c0, c1), c2)
			for _, c3 := range fourth {
				set(4, c2, c3)
			}
		}
		for _, c3 := range fourth {
			set(3, c1, c3)
			set(5, c0, c3)
		}
	}
	for _, k := range s.keywords {
		c := func(i int) []uint8 { return []uint8{simdClass(k.text[i])} }
		switch len(k.text) {
		case 2: // then tokenRun token bytes (forKeywords)
			add(simdClass(k.text[0]), simdClass(k.text[1]), tok, tok)
		case 3:
			add(simdClass(k.text[0]), simdClass(k.text[1]), c(2), every)
		default:
			add(simdClass(k.text[0]), simdClass(k.text[1]), c(2), c(3))
		}
	}
	add(simdClass('\\'), simdClass('u'), []uint8{simdClass('0'), simdClass('2')}, every) // \u00XX, \u017f, \u212a
	add(simdClass('\\'), simdClass('/'), every, every)                                   // \/
	for i := range 64 {
		t.k03[i], t.k07[i], t.k1f[i] = 0x03, 0x07, 0x1f
		t.bits[i] = 1 << (i & 7)
	}
	s.simd = t
}
