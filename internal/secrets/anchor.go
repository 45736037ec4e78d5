package secrets

import (
	stdregexp "regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A rule whose every match starts at one of its keywords (after gitleaks' `(?i)[\w.-]{0,50}?` name
// prefix, for the semi-generic rules) need not have its expression run over the text: its body,
// anchored, runs at each keyword found (forKeywords), and the prefix is walked back by hand. That is
// exactly what the whole expression finds (leftmost-first, next match from the last one's end), at a
// cost of the bytes each attempt reads, a few dozen where no assignment and value follow, instead of
// Go's regexp carrying up to 50 threads over every byte of a window (issue 30: 70 % of `check`'s CPU
// on genuine logs). TestAnchoredIsWholeExpression holds the two to the same hits.

// anchored is a rule's body compiled to match only at the start of its input.
type anchored struct {
	re     *stdregexp.Regexp
	prefix bool        // the name prefix [\w.-]{0,50}? comes before the body
	word   bool        // the body starts with \b (its keywords start with word bytes)
	need   [][]byteSet // the bytes every match starts with, one list per alternative (leads)
}

// byteSet is a set of bytes, a bit each.
type byteSet [4]uint64

func (b *byteSet) add(c byte)      { b[c>>6] |= 1 << (c & 63) }
func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

// anchor returns the anchored form of a rule's expression, or nil when its matches may start
// elsewhere than at its keywords (then the expression runs on windows, find).
func anchor(expr string, keywords []string) *anchored {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil
	}
	a := &anchored{}
	subs := re.Sub
	if p := subs[0]; p.Op == syntax.OpRepeat && p.Min == 0 && p.Max == 50 && p.Flags&syntax.NonGreedy != 0 && p.Sub[0].Op == syntax.OpCharClass && sameRunes(p.Sub[0].Rune, namePrefixClass) {
		a.prefix = true
		subs = subs[1:]
	}
	if subs[0].Op == syntax.OpWordBoundary {
		a.word = true
		subs = subs[1:]
	}
	if len(subs) == 0 {
		return nil
	}
	// Every match's first bytes must be one of the rule's keywords: of three bytes or more, or of
	// two where every match starts with tokenRun token bytes after them (forKeywords reports a
	// two-byte keyword only there).
	body := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs, Flags: re.Flags}
	pre, _ := prefixes(body, 64)
	if len(pre) == 0 {
		return nil
	}
	lead, _ := tokenLead(body)
	for _, p := range pre {
		ok := false
		for _, k := range keywords {
			k = strings.ToLower(k)
			if (len(k) >= 3 || len(k) == 2 && lead >= 2+tokenRun) && strings.HasPrefix(p, k) {
				ok = true
				break
			}
		}
		if !ok || a.word && !wordByte[p[0]] {
			return nil
		}
	}
	c, err := stdregexp.Compile(`^(?:` + body.String() + `)`)
	if err != nil || c.NumSubexp() != len(re.CapNames())-1 {
		return nil
	}
	a.re = c
	if need, _ := leads(body, needMax); needed(need) {
		a.need = need
	}
	return a
}

// needMax bounds leads: the bytes of one alternative, and the alternatives.
const needMax = 64

// needed reports whether need says more than a rule's keywords do: every alternative is longer
// than any keyword but the longest few.
func needed(need [][]byteSet) bool {
	for _, alt := range need {
		if len(alt) < 4 {
			return false
		}
	}
	return len(need) > 0
}

// leads returns sequences of byte sets one of which every match of re starts with (a byte of the
// first set, then of the second...), and whether they are all of re (each match is one of them
// whole, so what follows re may be added). It is what the rule needs before its expression runs:
// Go's backtracker costs ~0.4 µs an attempt to find that no token of 32 hex digits follows `sk`.
// The letters that (?i) folds to from outside ASCII (ſ, K) are left out: findAnchored never runs
// on a string holding one (foldTrap).
func leads(re *syntax.Regexp, limit int) (alts [][]byteSet, complete bool) {
	none := [][]byteSet{nil}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return none, true // reads no byte
	case syntax.OpLiteral:
		var seq []byteSet
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf || len(seq) == limit {
				return [][]byteSet{seq}, false
			}
			var b byteSet
			c := byte(r)
			b.add(c)
			if re.Flags&syntax.FoldCase != 0 {
				b.add(lower[c])
				if 'a' <= c && c <= 'z' {
					b.add(c - 'a' + 'A')
				}
			}
			seq = append(seq, b)
		}
		return [][]byteSet{seq}, true
	case syntax.OpCharClass:
		var b byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			switch {
			case hi < utf8.RuneSelf:
				for r := lo; r <= hi; r++ {
					b.add(byte(r))
				}
			case lo == hi && (lo == '\u017f' || lo == '\u212a'):
			default:
				return none, false // a byte of a longer character: not one byte a position
			}
		}
		return [][]byteSet{{b}}, true
	case syntax.OpCapture:
		return leads(re.Sub[0], limit)
	case syntax.OpPlus:
		alts, _ := leads(re.Sub[0], limit)
		return alts, false
	case syntax.OpRepeat:
		if re.Min == 0 {
			return none, false
		}
		sub, c := leads(re.Sub[0], limit)
		if len(sub) != 1 || !c {
			return sub, false
		}
		var seq []byteSet
		for range re.Min {
			if len(seq)+len(sub[0]) > limit {
				return [][]byteSet{seq}, false
			}
			seq = append(seq, sub[0]...)
		}
		return [][]byteSet{seq}, re.Min == re.Max
	case syntax.OpAlternate:
		complete = true
		for _, sub := range re.Sub {
			s, c := leads(sub, limit)
			alts = append(alts, s...)
			complete = complete && c
			if len(alts) > limit {
				return none, false
			}
		}
		return alts, complete
	case syntax.OpConcat:
		alts = none
		for _, sub := range re.Sub {
			s, c := leads(sub, limit)
			if len(alts)*len(s) > limit {
				return alts, false
			}
			var next [][]byteSet
			for _, a := range alts {
				for _, b := range s {
					if len(a)+len(b) > limit {
						b = b[:limit-len(a)]
						c = false
					}
					next = append(next, append(a[:len(a):len(a)], b...))
				}
			}
			alts = next
			if !c {
				return alts, false
			}
		}
		return alts, true
	}
	return none, false
}

// starts reports whether text starts with one of need's sequences.
func starts(need [][]byteSet, text string) bool {
	for _, alt := range need {
		if len(alt) > len(text) {
			continue
		}
		i := 0
		for i < len(alt) && alt[i].has(text[i]) {
			i++
		}
		if i == len(alt) {
			return true
		}
	}
	return false
}

// namePrefixClass is (?i)[\w.-]: ASCII word bytes, '.', '-', and the two non-ASCII letters that
// fold to ASCII ones (U+017F ſ to s, U+212A Kelvin sign to k).
var namePrefixClass = func() []rune {
	re, err := syntax.Parse(`(?i)[\w.-]`, syntax.Perl)
	if err != nil || re.Op != syntax.OpCharClass {
		panic("secrets: the name prefix class")
	}
	return re.Rune
}()

func sameRunes(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func inClass(r rune, ranges []rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// foldTrap reports whether s holds a letter that (?i) folds to an ASCII one (ſ, K): a keyword so
// written is not found by forKeywords' ASCII look, and an anchored run would not start there.
func foldTrap(s string) bool {
	return strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")
}

// prefixes returns, lower case, a set of strings one of which starts every match of re (complete:
// the set is re's whole language), at most limit of them; nil when there is none to say.
func prefixes(re *syntax.Regexp, limit int) (set []string, complete bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return []string{""}, false
			}
			b.WriteByte(lower[byte(r)])
		}
		return []string{b.String()}, true
	case syntax.OpCharClass:
		var out []string
		seen := map[byte]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf || int(re.Rune[i+1]-re.Rune[i]) >= 8 {
				return []string{""}, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if c := lower[byte(r)]; !seen[c] {
					seen[c] = true
					out = append(out, string(c))
				}
			}
		}
		return out, len(out) > 0 && len(out) <= limit
	case syntax.OpCapture:
		return prefixes(re.Sub[0], limit)
	case syntax.OpQuest:
		s, c := prefixes(re.Sub[0], limit)
		return append([]string{""}, s...), c
	case syntax.OpAlternate:
		var out []string
		all := true
		for _, sub := range re.Sub {
			s, c := prefixes(sub, limit)
			out = append(out, s...)
			all = all && c
			if len(out) > limit {
				return []string{""}, false
			}
		}
		return out, all
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			s, c := prefixes(sub, limit)
			if len(out)*len(s) > limit {
				return out, false
			}
			var next []string
			for _, a := range out {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			out = next
			if !c {
				return out, false
			}
		}
		return out, true
	}
	return []string{""}, false
}

// tokenLead returns how many token bytes (tokenByte) every match of re starts with at least, and
// whether a match is made of token bytes only. The letters that fold to ASCII ones (ſ, K) count as
// token bytes: a string holding one never takes the anchored path (foldTrap).
func tokenLead(re *syntax.Regexp) (n int, whole bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		for i, r := range re.Rune {
			if !tokenRune(r) {
				return i, false
			}
		}
		return len(re.Rune), true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if !tokenRune(r) {
					return 0, false
				}
			}
		}
		return 1, len(re.Rune) > 0
	case syntax.OpCapture:
		return tokenLead(re.Sub[0])
	case syntax.OpQuest, syntax.OpStar:
		_, w := tokenLead(re.Sub[0])
		return 0, w
	case syntax.OpPlus:
		return tokenLead(re.Sub[0])
	case syntax.OpRepeat:
		n, w := tokenLead(re.Sub[0])
		if !w {
			if re.Min == 0 {
				return 0, false
			}
			return n, false
		}
		return re.Min * n, true
	case syntax.OpConcat:
		total := 0
		for _, sub := range re.Sub {
			n, w := tokenLead(sub)
			total += n
			if !w {
				return total, false
			}
		}
		return total, true
	case syntax.OpAlternate:
		least, all := -1, true
		for _, sub := range re.Sub {
			n, w := tokenLead(sub)
			if least < 0 || n < least {
				least = n
			}
			all = all && w
		}
		return max(least, 0), all
	}
	return 0, false
}

func tokenRune(r rune) bool {
	return r < utf8.RuneSelf && tokenByte[r] || r == '\u017f' || r == '\u212a'
}

var wordByte [256]bool

func init() {
	for c := range 256 {
		wordByte[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
	}
}

// findAnchored appends to ms what r.re.FindAllStringSubmatchIndex finds in dec, given every
// position of the rule's keywords (ascending): each attempt reads from its keyword up to r.after
// bytes, four times as far while a match runs into that cut (as find grows a window); work counts
// the bytes given to the expression.
func (r *rule) findAnchored(dec string, ps []int, ms [][]int, work *int) [][]int {
	a := r.anch
	at, last := 0, -1
	for _, q := range ps {
		if q < at || q == last {
			continue
		}
		last = q
		if a.word && q > 0 && wordByte[dec[q-1]] {
			continue
		}
		end := min(len(dec), q+r.after)
		if a.need != nil && !starts(a.need, dec[q:end]) {
			continue // the expression cannot match there
		}
		*work += end - q
		m := a.re.FindStringSubmatchIndex(dec[q:end])
		for m != nil && q+m[1] == end && end < len(dec) {
			end = min(len(dec), q+4*(end-q))
			*work += end - q
			m = a.re.FindStringSubmatchIndex(dec[q:end])
		}
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += q
			}
		}
		if a.prefix {
			m[0] = namePrefixStart(dec, at, q)
		}
		ms = append(ms, m)
		at = m[1]
	}
	return ms
}

// namePrefixStart is where (?i)[\w.-]{0,50}? before a body matched at q starts when the search
// starts at lo: as far back as 50 characters of the class go.
func namePrefixStart(dec string, lo, q int) int {
	i := q
	for n := 0; n < 50 && i > lo; n++ {
		r, size := utf8.DecodeLastRuneInString(dec[lo:i])
		if r == utf8.RuneError && size <= 1 || !inClass(r, namePrefixClass) {
			break
		}
		i -= size
	}
	return i
}
