package secrets

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// A string is decoded and looked through by the rules only when one of its keywords is live: when,
// judged on the decoded bytes at the keyword, one of its rules would still run there. On genuine
// logs two in three strings holding a keyword hold none live: "sk" before a token ("task_…",
// "skills…") that is not twilio's 32 hex digits, "s." of vault's tokens, "ext_" of authress', "token"
// and "key" in prose with no assignment after them. Such a string cost a decoding of all of it and
// a second look for keywords; now it costs the look at its raw bytes only.
//
// live answers what keywordsOf and findAnchored would decide at the keyword, on a decoded window
// taken from the raw bytes at the keyword (decoding is left to right, so the window is the decoded
// string's own bytes from there), and says live wherever it cannot tell: an escape before a keyword
// whose rule wants a word boundary, a rule it has no test for. A fold trap (foldTrap) in the string
// makes the keywords that only its absence kills live: its \u escapes are seen by the same look
// (kiTrap), its letters looked for when no keyword is live otherwise.
// TestLiveIsNeverWrong holds it to decoding every string with a keyword on strings made to trip it,
// TestLineResumesExactly on every corpus line.

// liveWindow is how many decoded bytes past a keyword's end assignEnds and valueAfter read at
// most: 40 of slack, 3 of quotes and space, an assignment of up to 4, 5 before the value, and a
// value's leads (needMax).
const liveWindow = assignSlack + 3 + 4 + 5 + needMax + 4

// liveState is what live keeps for one string: its decoded window, reused.
type liveState struct {
	win  []byte
	ends []int
}

// Whether a keyword is live: not (dead), only if a fold trap is in the string (then the rules that
// run anchored run on windows, and the semi-generic ones take any value), or live.
const (
	dead = iota
	ifTrap
	alive
)

// firstLive returns where the first live keyword (or escape that may hide one) of a string's raw
// body starts, -1 if none does. *stp is taken from a pool at the first keyword, for the caller to
// put back.
// The look starts at from (no keyword nor escape before it); a short string of a long line is
// looked at through the line's masks (lm, at: the body's offset).
func (s *Scanner) firstLive(body []byte, from int, stp **liveState, lm *shortMasks, at int) int {
	first, pending, trap := -1, -1, false
	fn := func(p, ki int) bool {
		switch {
		case ki == kiTrap:
			trap = true
			first = pending
			return pending < 0
		case ki < 0:
			first = p
		default:
			if *stp == nil {
				*stp = liveStates.Get().(*liveState)
			}
			switch s.live(body, p, ki, *stp) {
			case dead:
				return true
			case ifTrap:
				if pending < 0 {
					pending = p
				}
				if !trap {
					return true
				}
			}
			first = p
		}
		if pending >= 0 {
			first = pending
		}
		return false
	}
	switch {
	case from > 0:
		forKeywords(s, body[from:], func(p, ki int) bool { return fn(from+p, ki) })
	case lm == nil || len(body) >= simdMin || !lm.forKeywords(s, body, at, fn):
		forKeywords(s, body, fn)
	}
	if first < 0 && pending >= 0 && foldTrap(unsafe.String(unsafe.SliceData(body), len(body))) {
		first = pending // the letters written as they are (their \u escapes were seen: kiTrap)
	}
	return first
}

var liveStates = sync.Pool{New: func() any { return new(liveState) }}

// live says whether a rule of keyword ki may run at p, the keyword's raw place in body (dead,
// ifTrap or alive).
func (s *Scanner) live(body []byte, p, ki int, st *liveState) int {
	// A keyword found inside an escape (`\token` is a tab and "oken") is not one: whatever is said
	// of it is harmless.
	k := &s.keywords[ki]
	n := len(k.text)
	raw := body[p:]
	// The bytes from p hold no backslash as far as the tests read: they are the decoded bytes.
	plain := bytes.IndexByte(raw[:min(len(raw), n+liveWindow)], '\\') < 0
	var win string
	if plain {
		win = unsafe.String(unsafe.SliceData(raw), len(raw))
	}
	verdict := dead
	for _, ri := range k.rules {
		r := s.rules[ri]
		if !r.assign && !r.keywordAnchored() {
			return alive // a rule run on windows wherever its keywords are
		}
		if win == "" {
			win = st.window(body, p, n)
		}
		v := alive
		if r.assign {
			st.ends = assignEnds(win, n, st.ends[:0])
			if len(st.ends) == 0 {
				continue
			}
			if r.value != nil && !valueAfter(win, st.ends, r.value) {
				v = ifTrap
			}
			if !r.keywordAnchored() {
				verdict = max(verdict, v)
				if v == alive {
					return alive
				}
				continue
			}
		}
		// Anchored (findAnchored): with a fold trap in the string it runs on windows.
		a := r.anch
		if a.word && p > 0 {
			if prev, known := decodedBefore(body, p); !known {
				return alive
			} else if wordByte[prev] {
				verdict = max(verdict, ifTrap)
				continue
			}
		}
		if a.need != nil && !starts(a.need, win) {
			v = ifTrap
		}
		if v == alive {
			return alive
		}
		verdict = max(verdict, v)
	}
	return verdict
}

// keywordAnchored reports whether the rule, compiled, runs anchored at its keywords (anchor.go).
func (r *rule) keywordAnchored() bool {
	return r.compile() && r.anch != nil
}

// window returns the decoded string from raw place p on, at least n+liveWindow bytes of it (or to
// its end).
func (st *liveState) window(body []byte, p, n int) string {
	want := n + liveWindow
	raw := body[p:]
	if len(raw) > want+16 { // a few escapes: the first take is enough
		st.win = jsonscan.AppendUnescape(st.win[:0], raw[:want+16])
		if len(st.win) >= want {
			return unsafe.String(unsafe.SliceData(st.win), len(st.win))
		}
		// Escapes of up to 6 bytes (12 a surrogate pair) for each decoded byte.
		raw = raw[:min(len(raw), 6*want+12)]
	}
	st.win = jsonscan.AppendUnescape(st.win[:0], raw)
	return unsafe.String(unsafe.SliceData(st.win), len(st.win))
}

// literalAt reports whether body[i] stands for itself in the decoded string, not as part of an
// escape. An escape holding i starts with a backslash at most 5 bytes before it; the first of a
// run of backslashes starts an escape (no escape holds a backslash but as its first byte), so the
// run's length says whether the last one does.
func literalAt(body []byte, i int) bool {
	for j := i; j >= 0 && j >= i-5; j-- {
		if body[j] != '\\' {
			continue
		}
		k := j
		for k > 0 && body[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 1 {
			return j < i // the second of `\\`
		}
		n := 2
		if j+1 < len(body) && body[j+1] == 'u' {
			n = 6
		}
		return i >= j+n
	}
	return true
}

// decodedBefore returns the decoded byte before raw place p (p > 0, literal), and whether it is
// known: a literal byte, or what a one-character escape stands for; not a \u escape's.
func decodedBefore(body []byte, p int) (byte, bool) {
	if literalAt(body, p-1) {
		return body[p-1], true
	}
	if p >= 2 && body[p-2] == '\\' && literalAtEscape(body, p-2) {
		if c := simpleEscape[body[p-1]]; c != 0 {
			return c, true
		}
	}
	return 0, false
}

// literalAtEscape reports whether the backslash at i starts an escape (an even run of backslashes
// before it).
func literalAtEscape(body []byte, i int) bool {
	k := i
	for k > 0 && body[k-1] == '\\' {
		k--
	}
	return (i-k)%2 == 0
}

// simpleEscape maps the character after a backslash to what it stands for (0: not a one-character
// escape), as jsonscan.Escape decodes it.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}
