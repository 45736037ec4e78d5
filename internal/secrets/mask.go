package secrets

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// Mask hides the secrets already found in a session from what is shown of it (docs/spec.md §15):
// every run of 8 bytes or more of the text that is also a part of one of the secrets becomes its
// placeholder. It works on the text as it is finally shown — cut ("…"), escaped for Markdown or
// JSON, put together with other text — where the scan's rules, which need a whole secret and its
// context, no longer match: a part of a secret is hidden wherever it ends up.
//
// What is hidden is at least what the rule asks: no 8 bytes of a secret stay. A secret's bytes
// that JSON escapes (quote, backslash, controls, and <, >, & which some encoders escape) cut it
// into pieces; a piece shorter than 8 bytes is not looked for.
type Mask struct {
	grams  map[uint64]int32 // 8 bytes of a piece (little-endian) → the rule's index
	filter [1 << 10]uint64  // a bit per hash of a gram: most windows are turned away without the map
	rules  []string
}

// NewMask returns an empty mask; Add fills it.
func NewMask() *Mask { return &Mask{grams: map[uint64]int32{}} }

// Empty reports whether the mask hides nothing (no secret added, or m is nil).
func (m *Mask) Empty() bool { return m == nil || len(m.grams) == 0 }

// Equal reports whether m and o hide the same (an empty or nil mask hides nothing): a caller keeps
// what it masked with m when a new mask is equal to it.
func (m *Mask) Equal(o *Mask) bool {
	if m.Empty() || o.Empty() {
		return m.Empty() == o.Empty()
	}
	return slices.Equal(m.rules, o.rules) && maps.Equal(m.grams, o.grams)
}

// Add adds one secret, as the text that shows it (decoded).
func (m *Mask) Add(secret, rule string) {
	ri := int32(-1)
	for i, r := range m.rules {
		if r == rule {
			ri = int32(i)
		}
	}
	if ri < 0 {
		ri = int32(len(m.rules))
		m.rules = append(m.rules, rule)
	}
	start := 0
	for i := 0; i <= len(secret); i++ {
		if i < len(secret) && !cuts(secret[i]) {
			continue
		}
		piece := secret[start:i]
		for k := 0; k+8 <= len(piece); k++ {
			g := binary.LittleEndian.Uint64([]byte(piece[k : k+8]))
			if _, ok := m.grams[g]; !ok {
				m.grams[g] = ri
				h := gramHash(g)
				m.filter[h>>6] |= 1 << (h & 63)
			}
		}
		start = i + 1
	}
}

// AddLine adds the secrets the scan found in a log line (hits from Line): each as the log writes
// it (JSON-escaped) and as it reads (decoded).
func (m *Mask) AddLine(line []byte, hits []Hit) {
	for _, h := range hits {
		if h.Start < 0 || h.End > int32(len(line)) || h.Start >= h.End {
			continue
		}
		raw := line[h.Start:h.End]
		m.Add(string(raw), h.Rule)
		m.Add(jsonscan.Unescape(raw), h.Rule)
	}
}

// cuts reports whether c is a byte JSON (or an encoder escaping HTML) may write otherwise: it cuts
// a secret into the pieces looked for.
func cuts(c byte) bool {
	return c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0x7f
}

func gramHash(g uint64) uint64 { return (g * 0x9E3779B97F4A7C15) >> 48 & (1<<16 - 1) }

// Bytes returns b with every run of secret parts replaced by the placeholder of the first secret
// it holds a part of; b itself when nothing is hidden. A placeholder holds nothing JSON escapes,
// so the text of a JSON document stays JSON.
func (m *Mask) Bytes(b []byte) []byte {
	if m.Empty() || len(b) < 8 {
		return b
	}
	var out []byte
	copied := 0  // b[:copied] is in out
	runEnd := -1 // end of the run being hidden, -1 when none
	runStart, rule := 0, int32(0)
	flush := func() {
		out = append(out, b[copied:runStart]...)
		out = append(out, Placeholder(m.rules[rule])...)
		copied = runEnd
		runEnd = -1
	}
	for i := 0; i+8 <= len(b); i++ {
		g := binary.LittleEndian.Uint64(b[i:])
		h := gramHash(g)
		if m.filter[h>>6]&(1<<(h&63)) == 0 {
			if runEnd >= 0 && i >= runEnd {
				flush()
			}
			continue
		}
		ri, ok := m.grams[g]
		if !ok {
			if runEnd >= 0 && i >= runEnd {
				flush()
			}
			continue
		}
		switch {
		case runEnd >= 0 && i <= runEnd: // overlaps or touches the run: it grows
			runEnd = i + 8
		default:
			if runEnd >= 0 {
				flush()
			}
			if out == nil {
				out = make([]byte, 0, len(b))
			}
			runStart, runEnd, rule = i, i+8, ri
		}
	}
	if runEnd >= 0 {
		flush()
	}
	if out == nil {
		return b
	}
	return append(out, b[copied:]...)
}

// String is Bytes for a string.
func (m *Mask) String(s string) string {
	if m.Empty() || len(s) < 8 {
		return s
	}
	b := m.Bytes([]byte(s))
	if len(b) == len(s) && string(b) == s {
		return s
	}
	return string(b)
}
