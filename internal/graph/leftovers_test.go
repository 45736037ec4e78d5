package graph

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ccdag/ccdag/internal/session"
)

// A build that takes the arrays earlier builds left (leftovers), or reads an array of undefined
// contents (scratch, filled with garbage here), draws what a build from fresh memory draws.
func TestLeftoversAreNotRead(t *testing.T) {
	var sessions []*session.Session
	var names []string
	for _, c := range cases(t) {
		s, _ := fixture(t, filepath.Join(fixtures, c))
		sessions, names = append(sessions, s), append(names, c)
	}
	for _, turns := range []int{120, 7} {
		sessions, names = append(sessions, genLoaded(turns)), append(names, fmt.Sprintf("generated %d turns", turns))
	}
	drawings := func(s *session.Session) [][]byte {
		out := [][]byte{AppendJSON(nil, Build(s))}
		for _, o := range []CollapseOptions{{MaxNodes: 5}, {MaxNodes: 40}, {MaxNodes: 40, MainOnly: true}, {Agents: true}} {
			out = append(out, AppendJSON(nil, BuildDrawn(s, Options{}, o)))
		}
		return out
	}
	takeLeftovers = false
	want := make([][][]byte, len(sessions))
	for i, s := range sessions {
		want[i] = drawings(s)
	}
	takeLeftovers, poisonScratch = true, true
	defer func() { poisonScratch = false }()
	big := genLoaded(400)
	for round := range 2 {
		for i, s := range sessions {
			if i%3 == 0 {
				drawings(big) // leftovers larger than the session, and dirty
			}
			for k, got := range drawings(s) {
				if !bytes.Equal(got, want[i][k]) {
					t.Fatalf("round %d, %s, drawing %d: differs from a build from fresh memory\n%s", round, names[i], k, firstDiff(indent(want[i][k]), indent(got)))
				}
			}
		}
	}
}
