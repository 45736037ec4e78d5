package secrets

import (
	"bytes"
	"github.com/zricethezav/gitleaks/v8/config"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// Hit is a secret in a line: the bytes [Start, End) of the line (inside one JSON string, an escape
// inside the secret taken whole, so replacing them keeps the string valid) and the rule that found it.
// It never holds the secret itself.
type Hit struct {
	Start, End int32
	Rule       string
}

// A rule's expression runs on windows around its keywords: from windowBefore bytes before to
// windowAfter (windowLong) after.
const (
	windowBefore = 128
	windowAfter  = 320      // past the keyword: a token, or the value after `api_key=` (≤ 150); longer, see find
	windowLong   = 16 << 10 // for a rule spanning lines (a private key block)
)

// forKeywords calls fn with the position and index of every keyword found in b (case-insensitive),
// positions ascending, until fn returns false; and with index -1 at an escape that could hide a
// keyword from a look at raw JSON (\u00XX of printable ASCII, \/). A two-byte keyword ("ey" of jwt, "sk" of twilio)
// counts only where tokenRun bytes of a token follow it: every rule with one has its secret run on
// from the keyword, and "ey" alone is in most English text.
//
// This loop is most of the scan's cost on a log with few secrets (every byte of every string goes
// through it): per byte one look into a bit set of the keywords' first three bytes, as classes of
// 6 bits (class), 2^18 bits that stay in the L1 cache; ordinary text hits it at a few per cent of its
// bytes. Only a hit looks further: the first two bytes' group, its third bytes, the first four
// bytes (quad: three in four hits on genuine text go no further), then its keywords. A two-byte
// keyword is in the set with every token byte after it.
func forKeywords[T string | []byte](s *Scanner, b T, fn func(pos, ki int) bool) {
	tri := (*[1 << (3 * classBits) / 64]uint64)(s.tri) // an array: the masked index needs no bounds check
	from := 0
	if s.simd != nil && len(b) >= simdMin {
		// 64 places a step (simd.go); the places that pass go through the exact test below.
		var masks [simdBatch]uint64
		p := *(*unsafe.Pointer)(unsafe.Pointer(&b)) // a string's or a slice's bytes: both start with the pointer
		for from < len(b)-3 {
			nb := min((len(b)-3-from)/64, simdBatch)
			base := from
			if nb == 0 { // the last places: a block ending where the string does, its first places done already
				nb, base = 1, len(b)-3-64
			}
			keywordMasks((*byte)(unsafe.Add(p, base)), nb, s.simd, &masks[0])
			if base < from {
				masks[0] &^= 1<<(from-base) - 1
			}
			for k, m := range masks[:nb] {
				for m != 0 {
					start := base + 64*k + bits.TrailingZeros64(m)
					m &= m - 1
					if inTri(s, b, start) && !candidate(s, b, start, fn) {
						return
					}
				}
			}
			from = base + 64*nb
		}
	}
	if len(b)-from < 3 {
		goto tail
	}
	// The last two bytes' classes are carried in registers: one load of class a byte, and the
	// steps still do not wait on each other (a rolling hash would).
	for i, c0, c1 := from+2, uint32(class[b[from]]), uint32(class[b[from+1]]); i < len(b); i++ {
		c2 := uint32(class[b[i]])
		h := c0<<(2*classBits) | c1<<classBits | c2
		c0, c1 = c1, c2
		if tri[h>>6&(1<<(3*classBits-6)-1)]&(1<<(h&63)) == 0 {
			continue
		}
		if !candidate(s, b, i-2, fn) {
			return
		}
	}
	// The one thing of two bytes the loop above cannot see at the end (a two-byte keyword there
	// has no token after it).
tail:
	if n := len(b); n >= 2 && b[n-2] == '\\' && b[n-1] == '/' {
		fn(n-2, -1)
	}
}

// candidate calls fn with the keywords (or the escape) starting at start, whose three bytes are in
// the trigram set; it returns false when fn did.
func candidate[T string | []byte](s *Scanner, b T, start int, fn func(pos, ki int) bool) bool {
	i := start + 2
	g := &s.groups[s.group[uint32(lower[b[start]])<<8|uint32(lower[b[start+1]])]]
	if g.escape {
		if b[start+1] == 'u' && trapU(b, start) {
			return fn(start, kiTrap)
		}
		return !(b[start+1] == '/' || b[start+1] == 'u' && hiddenByU(b, start)) || fn(start, -1)
	}
	if len(g.two) > 0 && tokenAfter(b, start+2) {
		for _, ki := range g.two {
			if !fn(start, int(ki)) {
				return false
			}
		}
	}
	c := lower[b[i]]
	if g.third[c>>6]&(1<<(c&63)) == 0 {
		return true
	}
	// Unless a keyword of three ends here, the first four bytes must be a keyword's: most
	// hits are common words' beginnings ("ent", "con", "dat").
	d := uint32(1 << 16) // the fourth byte; none: a keyword of three only
	if i+1 < len(b) {
		d = uint32(lower[b[i+1]])
	}
	if g.short[c>>6]&(1<<(c&63)) == 0 {
		if d > 0xff {
			return true
		}
		if h := quadHash(lower[b[start]], lower[b[start+1]], c, byte(d)); s.quad[h>>6&(1<<(quadBits-6)-1)]&(1<<(h&63)) == 0 {
			return true
		}
	}
	for j, at := range g.longAt {
		if byte(at) != c || at>>8 != d && at>>16 == 0 {
			continue
		}
		ki := g.long[j]
		k := s.keywords[ki].text
		if start+len(k) <= len(b) && hasFoldPrefix(b[start:], k) && !fn(start, int(ki)) {
			return false
		}
	}
	return true
}

// firstKeyword returns where the first keyword (or escape that may hide one) in b starts, -1 if
// none does.
func firstKeyword(s *Scanner, b []byte) int {
	first := -1
	forKeywords(s, b, func(p, _ int) bool {
		first = p
		return false
	})
	return first
}

// tokenRun is how many token bytes must follow a two-byte keyword.
const tokenRun = 16

func tokenAfter[T string | []byte](b T, i int) bool {
	if i+tokenRun > len(b) {
		return false
	}
	for j := i; j < i+tokenRun; j++ {
		if !tokenByte[b[j]] {
			return false
		}
	}
	return true
}

var tokenByte [256]bool

func init() {
	for c := range 256 {
		tokenByte[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_~.+/=-", byte(c)) >= 0
	}
}

// hasFoldPrefix reports whether b starts with k (lower case) ignoring ASCII case, b's first two
// bytes known to.
func hasFoldPrefix[T string | []byte](b T, k string) bool {
	for j := 2; j < len(k); j++ {
		if lower[b[j]] != k[j] {
			return false
		}
	}
	return true
}

// kiTrap is forKeywords' index at a \u escape of a letter that (?i) folds to an ASCII one
// (foldTrap): no keyword hides there, but the string's keywords are looked at otherwise (live).
const kiTrap = -2

// trapU reports whether b[i:] starts with a \u escape of ſ or the Kelvin sign (foldTrap).
func trapU[T string | []byte](b T, i int) bool {
	if i+6 > len(b) {
		return false
	}
	h := string(b[i+2 : i+6])
	return h == "017f" || h == "017F" || h == "212a" || h == "212A"
}

// hiddenByU reports whether b[i:] starts with a \u escape of a printable ASCII character (which
// may be part of a keyword). Claude Code's JSON writer writes none, nor \/: a real log almost never
// has either.
func hiddenByU[T string | []byte](b T, i int) bool {
	return i+6 <= len(b) && b[i+2] == '0' && b[i+3] == '0' && b[i+4] >= '2' && b[i+4] <= '7'
}

// Line finds the secrets in the JSON string values of one log line (object keys are not values) and
// appends them to out in line order. A line that is not JSON is scanned as far as its strings go.
//
// A value is decoded and given to the rules only when its raw bytes hold a live keyword (one a rule
// would still run at, live.go) or an escape that could hide one; a base64 blob is not looked into
// at all, and a long value seen before takes its hits from the memo. On a log with few secrets that
// first look is all the scan does.
func (s *Scanner) Line(line []byte, out []Hit) []Hit {
	return s.line(line, out, true)
}

// line is Line; resume false is the reference the tests hold it to: every string that holds a
// keyword is decoded (not only one with a live keyword, live.go) and looked through from its start
// (not from near the first live keyword in its raw bytes), and no memo.
func (s *Scanner) line(line []byte, out []Hit, resume bool) []Hit {
	var sc *strScan
	var qx *quoteIndex
	var lm *shortMasks
	var live *liveState
	// One defer, outside the loop: a defer in a loop (or too many) makes every defer of the
	// function go through the runtime's defer records, ~1 % of a `check` of generated logs.
	defer func() {
		if live != nil {
			liveStates.Put(live)
		}
		if qx != nil {
			quoteIndexes.Put(qx)
		}
		if lm != nil {
			shortMaskPool.Put(lm)
		}
		if sc != nil {
			scans.Put(sc)
		}
	}()
	if s.quotes && len(line) >= quoteMin {
		qx = quoteIndexes.Get().(*quoteIndex)
		qx.build(line)
		if s.simd != nil {
			lm = shortMaskPool.Get().(*shortMasks)
			lm.reset(line)
		}
	}
	for i := 0; i < len(line); {
		var q, end int
		var err error
		if qx != nil {
			if q = qx.next(i); q < 0 {
				break
			}
			end, err = qx.stringEnd(line, q)
		} else {
			if q = bytes.IndexByte(line[i:], '"'); q < 0 {
				break
			}
			q += i
			end, err = jsonscan.StringEnd(line, q)
		}
		bodyEnd := end - 1
		if err != nil { // cut line: its string runs to the end
			end, bodyEnd = len(line), len(line)
		}
		i = end
		k := jsonscan.SkipSpace(line, end)
		if k < len(line) && line[k] == ':' {
			continue // a key
		}
		if g := end - 2; err == nil && k < len(line) && !afterValue[line[k]] && g > q && line[g] == '{' {
			// A torn append: a record cut inside this string, the next one glued to it (`"cut te{"type":…`).
			// What closed the string is the glued record's first quote: the string is cut at its
			// `{`, and the glued record is read from there as a line of its own would be.
			bodyEnd, i = g, g
		}
		body := line[q+1 : bodyEnd]
		if blob(body) {
			continue
		}
		first := 0
		var key memoKey
		memoed := resume && len(body) >= memoMin
		if len(s.anyText) == 0 {
			switch {
			case !resume:
				first = firstKeyword(s, body)
			case memoed:
				// A long value with a keyword at all may repeat one scanned before, and takes its hits
				// (memo), live keywords or none; one without is done with the look.
				if first = firstKeyword(s, body); first < 0 {
					continue
				}
				key = s.memo.key(body)
				var ok bool
				if out, ok = s.memo.get(key, int32(q+1), out); ok {
					continue
				}
				if first = s.firstLive(body, first, &live, nil, 0); first < 0 {
					s.memo.put(key, 0, nil)
					continue
				}
			case lm != nil && len(body) < simdMin && lm.quiet(s, body, q+1):
				continue
			default:
				first = s.firstLive(body, 0, &live, lm, q+1)
			}
			if first < 0 {
				continue
			}
		} else if memoed {
			key = s.memo.key(body)
			var ok bool
			if out, ok = s.memo.get(key, int32(q+1), out); ok {
				continue
			}
		}
		// A value holding a live keyword is decoded, looked through again and run by the rules.
		n0 := len(out)
		if sc == nil {
			sc = scans.Get().(*strScan)
		}
		if !resume {
			first = 0
		}
		out = sc.scan(s, body, first, int32(q+1), out)
		if memoed {
			s.memo.put(key, int32(q+1), out[n0:])
		}
	}
	return out
}

// afterValue holds what may follow a string value in JSON (after space): a comma or a closing
// bracket; anything else means the string did not end where its quote seemed to close it.
var afterValue = [256]bool{',': true, '}': true, ']': true}

// blobLen is the length from which a string of base64 characters only is taken for encoded data
// (an image, a file), not text: keywords turn up in random base64 every few KB ("sk", "ey"), and
// gitleaks' rules would run all over it to find nothing a person wrote.
const blobLen = 1024

func blob(body []byte) bool {
	if len(body) < blobLen {
		return false
	}
	i := 0
	if quotesOK { // AVX2: 32 bytes a step (an image is megabytes of it)
		i = 32 * base64Blocks(&body[0], len(body)/32, &base64Tables)
	}
	for _, c := range body[i:] {
		if !base64Byte[c] {
			return false
		}
	}
	return true
}

var base64Byte [256]bool

// base64Tables is base64Blocks' table: a byte is base64 when the bits its low nibble's entry and its
// high nibble's entry share are not none (a bit a high nibble: 2 for + and /, 3 for digits and =,
// 4 and 5 for upper case, 6 and 7 for lower case).
var base64Tables = func() (t [96]byte) {
	bit := [16]byte{2: 1, 3: 2, 4: 4, 5: 8, 6: 16, 7: 32}
	for c := range 128 { // base64Byte's set, which init fills only after this
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=' {
			t[c&15] |= bit[c>>4]
			t[16+c&15] |= bit[c>>4]
		}
	}
	for i := range 16 {
		t[32+i], t[48+i] = bit[i], bit[i]
	}
	for i := 64; i < 96; i++ {
		t[i] = 0x0f
	}
	return t
}()

func init() {
	for c := range 256 {
		base64Byte[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
	}
}

// quoteIndexes keeps quoteIndexes from line to line.
var quoteIndexes = sync.Pool{New: func() any { return new(quoteIndex) }}

// shortMaskPool keeps shortMasks from line to line.
var shortMaskPool = sync.Pool{New: func() any { return new(shortMasks) }}

// scans keeps strScans (their per-rule slices) from line to line.
var scans = sync.Pool{New: func() any { return new(strScan) }}

// strScan holds what scanning one string value needs, reused from string to string of a line.
type strScan struct {
	on    []int   // rules whose keyword the string holds
	pos   [][]int // per rule, where its keywords are
	wins  [][2]int
	found []Hit
	ms    [][]int
	lines lineIndex
	buf   []byte // the decoded string, reused
	ends  []int  // where assignments after a keyword end (assignEnds)
}

// scan runs the rules on a JSON string body (decoded) and appends the hits, mapped to raw offsets
// (base = the body's offset in its line). The body holds no keyword before first (raw offset).
//
// The decoded text is a view of the body or of sc.buf, not a copy: nothing the rules and
// allowlists are given is kept past the call (a Hit holds offsets and the rule's id).
func (sc *strScan) scan(s *Scanner, body []byte, first int, base int32, out []Hit) []Hit {
	if len(body) == 0 {
		return sc.textHits(s, "", 0, base, nil, out)
	}
	bs := bytes.IndexByte(body, '\\')
	var dec string
	if bs >= 0 {
		sc.buf = jsonscan.AppendUnescape(sc.buf[:0], body)
		dec = unsafe.String(unsafe.SliceData(sc.buf), len(sc.buf))
	} else {
		dec = unsafe.String(&body[0], len(body))
	}
	// The raw bytes hold no keyword before first, nor an escape that could hide one; the other
	// escapes decode to bytes no keyword or token has. So the decoded text holds none before
	// first's decoded place either, but where one runs across an escape after it: the decoded
	// look starts there, less what a keyword may reach back (its length, or a two-byte
	// keyword's token run).
	from := max(0, decodedAt(body, bs, first)-s.reach)
	escaped := body
	if bs < 0 {
		escaped = nil
	}
	return sc.textHits(s, dec, from, base, escaped, out)
}

// decodedAt returns the decoded offset of the raw offset at of a JSON string body (bs: its first
// backslash, or -1), or of the escape at holds.
func decodedAt(body []byte, bs, at int) int {
	shrink := 0
	for bs >= 0 && bs < at {
		r, next, ok := jsonscan.Escape(body, bs)
		if !ok || next > at {
			return bs - shrink // inside an escape (or an invalid one, where decoding ends)
		}
		shrink += next - bs - utf8.RuneLen(r)
		bs = next + bytes.IndexByte(body[next:], '\\')
		if bs < next {
			break
		}
	}
	return at - shrink
}

// textHits finds the secrets of dec, keywords looked for from offset from, and appends them mapped
// to raw offsets (through escaped, the raw body, when it has escapes).
func (sc *strScan) textHits(s *Scanner, dec string, from int, base int32, escaped []byte, out []Hit) []Hit {
	found := sc.text(s, dec, from)
	if len(found) == 0 {
		return out
	}
	var m *offsetMap
	if escaped != nil {
		m = newOffsetMap(escaped)
	}
	for _, h := range found {
		if m != nil {
			h.Start, h.End = m.toRaw(h.Start, false), m.toRaw(h.End, true)
		}
		h.Start += base
		h.End += base
		out = append(out, h)
	}
	return out
}

// text finds the secrets of a decoded string: each rule whose keywords it holds runs on windows
// around those keywords (a rule's secret lies near its keyword; gitleaks' generic rules start at
// most 50 bytes before it), so a rule's cost follows how often its keywords occur, not the length
// of the text. The hits (offsets in dec) are ordered and never overlap: of one secret found by two
// rules, or overlapping ones, the first by position (then the longer) is kept, so redacting them all
// is well defined. The result is reused by the next call.
func (sc *strScan) text(s *Scanner, dec string, from int) []Hit {
	trap := foldTrap(dec)
	pos, on := sc.keywordsOf(s, dec, from, trap)
	defer func() {
		for _, ri := range on {
			pos[ri] = pos[ri][:0]
		}
		sc.on = on[:0]
	}()
	if len(on) == 0 && len(s.anyText) == 0 {
		return nil
	}
	found := sc.found[:0]
	sc.lines.reset(dec)
	for _, ri := range s.anyText {
		found = s.rules[ri].find(s, dec, 0, len(dec), &sc.lines, found)
	}
	slices.Sort(on) // gitleaks' rule order, so a tie goes the same way every time
	for _, ri := range on {
		r := s.rules[ri]
		if !r.compile() || s.globals() != nil {
			continue // cannot happen with the default configuration (its tests compile every rule)
		}
		if r.anch != nil && !trap {
			sc.ms = r.findAnchored(dec, pos[ri], sc.ms[:0], &sc.lines.work)
			for _, m := range sc.ms {
				found = r.keep(s, dec, m, &sc.lines, found)
			}
			continue
		}
		sc.wins = windows(sc.wins[:0], pos[ri], len(dec), r.after)
		for _, w := range sc.wins {
			found = r.find(s, dec, w[0], w[1], &sc.lines, found)
		}
	}
	kept := disjoint(found)
	sc.found = kept
	return kept
}

// generic is the rule a specific one wins over where their hits overlap (docs/spec.md §15): a
// `ghp_` token after `token=` is a github-pat, not a generic-api-key.
const generic = "generic-api-key"

// disjoint orders hits and drops overlapping ones, in place: a generic-api-key hit that overlaps a
// hit of another rule goes first; then of overlapping hits the first (then the longer) is kept, so
// redacting them all is well defined.
func disjoint(found []Hit) []Hit {
	slices.SortFunc(found, func(a, b Hit) int {
		if a.Start != b.Start {
			return int(a.Start - b.Start)
		}
		return int(b.End - a.End)
	})
	hasGeneric, hasOther := false, false
	for _, h := range found {
		if h.Rule == generic {
			hasGeneric = true
		} else {
			hasOther = true
		}
	}
	if hasGeneric && hasOther {
		// A generic hit overlaps a specific one when, of the specific hits starting before its
		// end, the furthest reaching ends after its start.
		reach := make([]int32, 0, len(found)) // per hit, the furthest end of the specific hits up to it
		far := int32(-1)
		for _, h := range found {
			if h.Rule != generic {
				far = max(far, h.End)
			}
			reach = append(reach, far)
		}
		n := 0
		for _, h := range found {
			if h.Rule == generic {
				// The last hit starting before h ends: every specific hit up to it started before.
				k, _ := slices.BinarySearchFunc(found, h.End, func(x Hit, end int32) int { return int(x.Start - end) })
				if k > 0 && reach[k-1] > h.Start {
					continue
				}
			}
			found[n] = h
			n++
		}
		found = found[:n]
	}
	kept := found[:0]
	last := int32(-1)
	for _, h := range found {
		if h.Start >= last {
			kept = append(kept, h)
			last = h.End
		}
	}
	return kept
}

// keywordsOf lists, per rule, where the keywords it runs at stand in dec (ascending), and the
// rules that have any (on, in the order found). Both are reused by the next call.
//
// A semi-generic rule is listed at a keyword only where an assignment follows it, and then a value
// of the rule's form (unless trap: dec holds a letter that (?i) folds to an ASCII one, which the
// value's byte sets leave out).
func (sc *strScan) keywordsOf(s *Scanner, dec string, from int, trap bool) ([][]int, []int) {
	if len(sc.pos) < len(s.rules) {
		sc.pos = make([][]int, len(s.rules))
	}
	pos := sc.pos[:len(s.rules)]
	on := sc.on[:0]
	forKeywords(s, dec[from:], func(p, ki int) bool {
		p += from
		if ki < 0 {
			return true // an escape's look-alike: dec is decoded
		}
		assigns := -1 // unknown yet: how many assignments follow this keyword (their ends in sc.ends)
		for _, ri := range s.keywords[ki].rules {
			if r := s.rules[ri]; r.assign {
				if assigns < 0 {
					sc.ends = assignEnds(dec, p+len(s.keywords[ki].text), sc.ends[:0])
					assigns = len(sc.ends)
				}
				if assigns == 0 || r.value != nil && !trap && !valueAfter(dec, sc.ends, r.value) {
					continue
				}
			}
			if len(pos[ri]) == 0 {
				on = append(on, ri)
			}
			pos[ri] = append(pos[ri], p)
		}
		return true
	})
	return pos, on
}

// assignTemplate is the middle of gitleaks' semi-generic rules (96 of the default ones): after the
// keyword, an assignment (`key = `, `token: `, `"secret" => `) before the secret.
const assignTemplate = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// assignEnds appends to ends where that template, checked by hand from a keyword's end i, may end:
// up to assignSlack bytes of [ \t\w.-], up to 3 of [\s'"], then = > :{1,3}= || : => ?= or ,
// (an end may be listed twice). Prose mentions "token" and "key" every few lines; most are not
// assignments, and their rules then never run. The slack is more than the template's 20: a rule's
// keyword may end before its expression's does ("passw" of passw(?:or)?d).
func assignEnds(s string, i int, ends []int) []int {
	for a := 0; a <= assignSlack && i+a <= len(s); a++ {
		if a > 0 && !wordish[s[i+a-1]] {
			break
		}
		for b := 0; b <= 3 && i+a+b < len(s); b++ {
			o := i + a + b
			switch s[o] {
			case '=', '>', ',':
				ends = append(ends, o+1)
				if s[o] == '=' && o+1 < len(s) && s[o+1] == '>' {
					ends = append(ends, o+2)
				}
			case ':':
				ends = append(ends, o+1)
				for n := 1; n <= 3 && o+n < len(s) && s[o+n-1] == ':'; n++ {
					if s[o+n] == '=' {
						ends = append(ends, o+n+1)
					}
				}
			case '|', '?':
				if o+1 < len(s) && s[o+1] == "|="[strings.IndexByte("|?", s[o])] {
					ends = append(ends, o+2)
				}
			}
			if !quoteSpace[s[o]] {
				break
			}
		}
	}
	return ends
}

// valueTemplate follows assignTemplate in the semi-generic rules: what may stand between the
// assignment and the value.
const valueTemplate = `[\x60'"\s=]{0,5}`

// valueAfter reports whether, after one of the assignment ends, up to 5 bytes of valueTemplate's
// class and then bytes of the value's form (its leads) follow.
func valueAfter(s string, ends []int, value [][]byteSet) bool {
	for _, e := range ends {
		for k := 0; k <= 5 && e+k <= len(s); k++ {
			if k > 0 && !valueSkip[s[e+k-1]] {
				break
			}
			if starts(value, s[e+k:]) {
				return true
			}
		}
	}
	return false
}

const assignSlack = 40

var wordish, quoteSpace, valueSkip [256]bool

func init() {
	for c := range 256 {
		wordish[c] = c == ' ' || c == '\t' || c == '.' || c == '-' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		quoteSpace[c] = strings.IndexByte(" \t\n\r\f\v'\"", byte(c)) >= 0
		valueSkip[c] = strings.IndexByte("`'\"\t\n\f\r =", byte(c)) >= 0
	}
}

// windows appends to ws the merged windows [p-windowBefore, p+after) around keyword positions p
// (ascending).
func windows(ws [][2]int, ps []int, n, after int) [][2]int {
	for _, p := range ps {
		a, b := max(0, p-windowBefore), min(n, p+after)
		if k := len(ws); k > 0 && a <= ws[k-1][1] {
			ws[k-1][1] = max(ws[k-1][1], b)
			continue
		}
		ws = append(ws, [2]int{a, b})
	}
	return ws
}

// find runs the rule on dec[from:to] and appends its findings (decoded offsets) after gitleaks'
// filters (keep). A match starting at a window's cut start is left out (it may begin before it:
// the window before holds it whole).
func (r *rule) find(s *Scanner, dec string, from, to int, lines *lineIndex, found []Hit) []Hit {
	if !r.compile() || s.globals() != nil {
		return found // cannot happen with the default configuration (its tests compile every rule)
	}
	text := dec[from:to]
	lines.work += len(text)
	if r.core != nil && !r.core.MatchString(text) {
		return found // the whole expression cannot match where its rest does not
	}
	lines.work += len(text)
	ms0 := r.re.FindAllStringSubmatchIndex(text, -1)
	// A match running into the window's cut end may go on past it (a long token): run the window
	// again, four times as long, until no match does or the text ends.
	for len(ms0) > 0 && ms0[len(ms0)-1][1] == len(text) && to < len(dec) {
		to = min(len(dec), from+4*(to-from))
		text = dec[from:to]
		lines.work += len(text)
		ms0 = r.re.FindAllStringSubmatchIndex(text, -1)
	}
	for _, m := range ms0 {
		if m[0] == 0 && from > 0 {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += from
			}
		}
		found = r.keep(s, dec, m, lines, found)
	}
	return found
}

// keep appends the finding of match m (submatch offsets in dec) unless one of gitleaks' filters
// drops it: secret group, entropy, ccdag's placeholders, `gitleaks:allow` on the match's line,
// allowlists.
func (r *rule) keep(s *Scanner, dec string, m []int, lines *lineIndex, found []Hit) []Hit {
	ms, me := m[0], m[1]
	for ms < me && dec[ms] == '\n' {
		ms++
	}
	for me > ms && dec[me-1] == '\n' {
		me--
	}
	if ms == me {
		return found
	}
	ss, se := ms, me
	if groups := len(m)/2 - 1; groups > 0 {
		if r.group > 0 {
			if r.group > groups || m[2*r.group] < 0 {
				return found
			}
			ss, se = m[2*r.group], m[2*r.group+1]
		} else {
			for g := 1; g <= groups; g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					ss, se = m[2*g], m[2*g+1]
					break
				}
			}
		}
	}
	ss, se = max(ss, ms), min(se, me)
	if ss >= se {
		return found
	}
	secret, match := dec[ss:se], dec[ms:me]
	lines.work += len(secret) + len(match)
	if r.entropy != 0 && shannonEntropy(secret) <= r.entropy || placeholder(r.id, secret) {
		return found
	}
	ls, le := lines.around(ms, me)
	if lines.signed(ls, le) || allowed(s.global, secret, match, lines, ls, le) || allowed(r.allow, secret, match, lines, ls, le) {
		return found
	}
	return append(found, Hit{Start: int32(ss), End: int32(se), Rule: r.id})
}

// lineIndex finds the text line(s) holding a match: what gitleaks calls the line, for
// `gitleaks:allow` and allowlists whose target is the line. The line breaks of the string and where
// `gitleaks:allow` stands are listed once, when first needed, and a line allowlist's verdict on a
// line is kept: many matches in one long line cost a search each, not a scan each (issue 30: a
// 64 KB string of `token=…` took a minute, 4 MB never ended).
type lineIndex struct {
	work   int // bytes the rules' expressions and allowlists read in the string (tests hold it linear)
	text   string
	nl     []int // line breaks
	signs  []int // where gitleaks:allow starts
	done   bool
	ruling map[lineRuling]bool
}

type lineRuling struct {
	list       *config.Allowlist
	start, end int
}

// reset starts on a new string.
func (x *lineIndex) reset(text string) {
	x.text, x.done, x.work = text, false, 0
	clear(x.ruling)
}

func (x *lineIndex) index() {
	if x.done {
		return
	}
	x.done = true
	x.nl, x.signs = x.nl[:0], x.signs[:0]
	text := x.text
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		x.nl = append(x.nl, i+j)
		i += j + 1
	}
	for i := 0; ; {
		j := strings.Index(text[i:], allowSignature)
		if j < 0 {
			break
		}
		x.signs = append(x.signs, i+j)
		i += j + 1
	}
}

// around returns the line(s) holding text[a:b] as offsets [start, end).
func (x *lineIndex) around(a, b int) (start, end int) {
	x.index()
	k, _ := slices.BinarySearch(x.nl, a) // first break at or after a
	if k > 0 {
		start = x.nl[k-1] + 1
	}
	e, _ := slices.BinarySearch(x.nl, b)
	if e == len(x.nl) {
		return start, len(x.text)
	}
	return start, x.nl[e]
}

// signed reports whether gitleaks:allow stands in text[start:end]: gitleaks then skips the
// finding (only the line's, not the string's: docs/spec.md §15).
func (x *lineIndex) signed(start, end int) bool {
	k, _ := slices.BinarySearch(x.signs, start)
	return k < len(x.signs) && x.signs[k]+len(allowSignature) <= end
}

// regexAllowed is a.RegexAllowed(text[start:end]), each line asked once.
func (x *lineIndex) regexAllowed(a *config.Allowlist, start, end int) bool {
	key := lineRuling{a, start, end}
	if ok, seen := x.ruling[key]; seen {
		return ok
	}
	ok := a.RegexAllowed(x.text[start:end])
	x.work += end - start
	if x.ruling == nil {
		x.ruling = map[lineRuling]bool{}
	}
	x.ruling[key] = ok
	return ok
}

// offsetMap maps offsets in a decoded string to offsets in its raw JSON body.
type offsetMap struct {
	dec, raw []int32 // at each escape: its decoded offset and raw offset, and after it
}

func newOffsetMap(body []byte) *offsetMap {
	m := &offsetMap{}
	d := int32(0)
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			i++
			d++
			continue
		}
		r, next, ok := jsonscan.Escape(body, i)
		if !ok {
			break
		}
		m.dec = append(m.dec, d)
		m.raw = append(m.raw, int32(i))
		d += int32(utf8.RuneLen(r))
		i = next
		m.dec = append(m.dec, -d) // negative: the end of an escape
		m.raw = append(m.raw, int32(next))
	}
	return m
}

// toRaw maps decoded offset d to a raw offset. An offset inside an escape's decoded bytes maps to the
// escape's start (a start) or past its end (an end), so a span always covers whole escapes.
func (m *offsetMap) toRaw(d int32, isEnd bool) int32 {
	// Find the last escape starting at or before d.
	lo, hi := 0, len(m.dec)/2
	for lo < hi {
		mid := (lo + hi) / 2
		if m.dec[2*mid] <= d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return d // before every escape: raw = decoded
	}
	k := lo - 1
	es, ee := m.dec[2*k], -m.dec[2*k+1]
	rs, re := m.raw[2*k], m.raw[2*k+1]
	switch {
	case d == es:
		return rs
	case d < ee:
		if isEnd {
			return re
		}
		return rs
	}
	return re + (d - ee)
}
