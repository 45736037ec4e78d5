package session

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cyclesByLookup is Cycles as it was written first: a map of every record's state and every
// parent through the uuid map. Cycles is held to it.
func cyclesByLookup(s *Session) map[*Rec]bool {
	state := map[*Rec]uint8{}
	onCycle := map[*Rec]bool{}
	var path []*Rec
	for _, f := range s.Files {
		f.Recs(func(start *Rec) bool {
			path = path[:0]
			r := start
			for r != nil && state[r] == 0 {
				state[r] = 1
				path = append(path, r)
				r = s.Parent(r)
			}
			if r != nil && state[r] == 1 {
				for _, c := range path[slices.Index(path, r):] {
					onCycle[c] = true
				}
			}
			for _, p := range path {
				state[p] = 2
			}
			return true
		})
	}
	return onCycle
}

// Random sessions of a main log and sub-agent logs whose records name parents at random: the line
// before (a chain), another line before or after (forks, forward references, cycles), a uuid
// defined twice, one no record defines, blank and broken lines. Cycles finds what the plain walk
// finds, after each of a few edits too.
func TestCyclesIsTheWalkByLookup(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 30))
	cycles := 0
	for round := range 60 {
		s := New("s", "/x")
		for k := range 1 + r.IntN(3) {
			n := 5 + r.IntN(60)
			uuid := func(i int) string { return fmt.Sprintf("u%d", r.IntN(3)*1000+i) }
			var b strings.Builder
			for i := range n {
				parent := ""
				switch r.IntN(6) {
				case 0, 1, 2:
					parent = fmt.Sprintf("u%d", i-1)
				case 3:
					parent = fmt.Sprintf("u%d", r.IntN(n))
				case 4:
					parent = "nowhere"
				}
				id := fmt.Sprintf("u%d", i)
				if r.IntN(15) == 0 {
					id = uuid(r.IntN(n)) // defined twice, maybe in another file
				}
				switch r.IntN(25) {
				case 0:
					b.WriteString("\n")
					continue
				case 1:
					b.WriteString("{not json\n")
					continue
				}
				fmt.Fprintf(&b, `{"type":"user","uuid":%q,"parentUuid":%q,"sessionId":"s","message":{"role":"user","content":"x"}}`+"\n", id, parent)
			}
			path := "/x/s.jsonl"
			if k > 0 {
				path = fmt.Sprintf("/x/s/subagents/agent-a%d.jsonl", k)
			}
			f := NewFile(path, []byte(b.String()))
			if k > 0 {
				f.Lane, f.AgentID = fmt.Sprintf("agent-a%d", k), fmt.Sprintf("a%d", k)
			}
			s.AddFile(f)
		}
		for edit := range 4 {
			want, got := cyclesByLookup(s), s.Cycles()
			if !maps.Equal(want, got) {
				t.Fatalf("round %d edit %d: Cycles finds %d records on cycles, the plain walk %d", round, edit, len(got), len(want))
			}
			cycles += len(want)
			f := s.Files[r.IntN(len(s.Files))]
			line := r.IntN(f.LineCount())
			start := f.LineStart(line)
			s.Edit(f, start, start, []byte(fmt.Sprintf(`{"type":"user","uuid":"u%d","parentUuid":"u%d","sessionId":"s","message":{"role":"user","content":"e"}}`+"\n", r.IntN(60), r.IntN(60))))
			s.TakeChanges()
		}
	}
	if cycles < 20 {
		t.Errorf("only %d records on cycles in all rounds: the comparison compared little", cycles)
	}
}
