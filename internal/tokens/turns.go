package tokens

import (
	"sort"

	"github.com/ccdag/ccdag/internal/session"
)

// Turn is one turn's figures: the messages on its lines of the main log (in-file sidechains, the
// sub-agents of 1.0.x, lie on those lines) plus the logs of the sub-agents its calls spawned,
// theirs included (a sub-agent's own sub-agents count for the turn that spawned the first).
type Turn struct {
	Own    Count // the turn's lines of the main log
	Agents int   // sub-agent logs added
	Total  Count // Own plus those logs
}

// String says what the figures include: "1.2k out · 3.7M in+cache · $4.21 (incl. 3 sub-agents)".
func (t Turn) String() string { return t.Total.String() + inclAgents(t.Agents) }

// Split is a session's figures by the turns of its main log, so that they add up: the turns,
// the main log's lines outside every turn, and the sub-agent logs tied to no call of the main
// log together make the session's Total.
type Split struct {
	Turns    []Turn
	Outside  Count // main-log lines in no turn (before the first prompt)
	Unlinked Count // sub-agent logs whose spawning call was not found
	Loose    int   // how many such logs
}

// Turns splits s by turns of its main log, each [starts[i], ends[i]) in lines, sorted and
// disjoint. idx is reused as in Session.
func Turns(s *session.Session, idx map[*session.File]*File, starts, ends []int) Split {
	main := s.Main()
	sp := Split{Turns: make([]Turn, len(starts))}
	if main == nil {
		return sp
	}
	fileIdx := func(f *session.File) *File {
		if idx == nil {
			return NewFile(f)
		}
		fi := idx[f]
		if fi == nil {
			fi = &File{}
			idx[f] = fi
		}
		fi.Update(f)
		return fi
	}
	mi := fileIdx(main)
	covered := Count{}
	for i := range starts {
		c := mi.Range(starts[i], ends[i])
		sp.Turns[i] = Turn{Own: c, Total: c}
		covered = covered.Add(c)
	}
	sp.Outside = mi.Total().sub(covered)
	// The turn whose lines hold a main-log line (-1: none).
	turnOf := func(line int) int {
		k := sort.SearchInts(starts, line+1) - 1
		if k >= 0 && line < ends[k] {
			return k
		}
		return -1
	}
	for _, f := range s.Files {
		if f == main {
			continue
		}
		c := fileIdx(f).Total()
		k := -2 // not tied to the main log
		seen := map[*session.File]bool{}
		for g := f; g != nil && !seen[g]; {
			seen[g] = true
			call := s.AgentSpawn(g).Call.Rec
			if call == nil || call.File == nil {
				break
			}
			if call.File == main {
				k = turnOf(call.Line)
				break
			}
			g = call.File // spawned by another sub-agent: that one's call decides
		}
		switch {
		case k >= 0:
			sp.Turns[k].Agents++
			sp.Turns[k].Total = sp.Turns[k].Total.Add(c)
		case k == -1: // spawned from the main log outside every turn
			sp.Outside = sp.Outside.Add(c)
		default:
			sp.Unlinked = sp.Unlinked.Add(c)
			sp.Loose++
		}
	}
	return sp
}

func inclAgents(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (incl. 1 sub-agent)"
	}
	return " (incl. " + itoa(n) + " sub-agents)"
}
