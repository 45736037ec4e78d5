package secrets

import "slices"

// The keyword pass's first test, 64 places at a time (amd64 with AVX-512 VBMI: simd_amd64.s). A
// place may start a keyword only where its first four bytes' classes could begin one: the test asks
// a necessary condition of that, that each of the six pairs of those four classes (first and
// second, second and third, …, first and fourth) is a pair some keyword (or escape that hides one)
// has at those places, a keyword of three bytes with any fourth, one of two with token bytes after
// it, and the third class with a hash of the first two (pairHash) as in some keyword. Each pair
// set is a 64×64 bit table that byte permutes look up 64 places at once. On genuine text 1.7 % of
// places pass it (the trigram set itself: 1.7 %), and each goes on to the exact tests the scalar loop makes
// (forKeywords): the answers are the same (TestKeywordIndexMissesNothing, FuzzKeywords), what
// differs is that the places no keyword starts at cost a fraction of a cycle each.

// simdTables is what keywordMasks reads; the layout is fixed by simd_amd64.s's offsets.
type simdTables struct {
	cls   [128]byte    // the class of each ASCII byte
	pairs [7][512]byte // places (0,1) (1,2) (0,2) (1,3) (2,3) (0,3), then (pairHash(0,1), 2): byte (y>>3)<<6 | x, bit y&7
	k08   [64]byte     // 0x08 in each byte
	k10   [64]byte     // 0x10
	k20   [64]byte     // 0x20
	k07   [64]byte     // 0x07
	bits  [64]byte     // 1 << (i&7) at byte i of each 16-byte lane (VPSHUFB's table)
	kf8   [64]byte     // 0xf8
	k3f   [64]byte     // 0x3f
}

// pairHash is the vector test's hash of two classes, (a + 7b) mod 64.
func pairHash(a, b uint8) uint8 { return (a + 7*b) & 63 }

// simdBatch is how many blocks of 64 places one call looks at.
const simdBatch = 64

// simdMin is the length from which a string is looked at 64 places at a time.
const simdMin = 64 + 3

// buildSIMD makes the vector test's tables from the keywords.
func (s *Scanner) buildSIMD() {
	t := new(simdTables)
	for c := range 128 {
		t.cls[c] = class[c]
	}
	var every, tok []uint8
	for c := range uint8(1 << classBits) {
		every = append(every, c)
	}
	for c := range 256 {
		if tokenByte[c] && !slices.Contains(tok, class[c]) {
			tok = append(tok, class[c])
		}
	}
	add := func(c0, c1 uint8, third, fourth []uint8) {
		set := func(k int, x, y uint8) { t.pairs[k][int(y>>3)<<6|int(x)] |= 1 << (y & 7) }
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
		c := func(i int) []uint8 { return []uint8{class[k.text[i]]} }
		switch len(k.text) {
		case 2: // then tokenRun token bytes (forKeywords)
			add(class[k.text[0]], class[k.text[1]], tok, tok)
		case 3:
			add(class[k.text[0]], class[k.text[1]], c(2), every)
		default:
			add(class[k.text[0]], class[k.text[1]], c(2), c(3))
		}
	}
	add(class['\\'], class['u'], []uint8{class['0'], class['2']}, every) // \u00XX, \u017f, \u212a
	add(class['\\'], class['/'], every, every)                           // \/
	for i := range 64 {
		t.k08[i], t.k10[i], t.k20[i], t.k07[i] = 0x08, 0x10, 0x20, 0x07
		t.bits[i] = 1 << (i & 7)
		t.kf8[i], t.k3f[i] = 0xf8, 0x3f
	}
	s.simd = t
}
