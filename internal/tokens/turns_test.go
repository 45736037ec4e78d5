package tokens

import (
	"testing"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// turnBounds are the main log's turns as the code lens draws them: from each prompt a person typed
// to the line before the next.
func turnBounds(f *session.File) (starts, ends []int) {
	for i := 0; i < f.LineCount(); i++ {
		r := f.Rec(i)
		if r == nil || r.LineErr() != nil || r.Type != "user" || r.Has(jsonl.FlagSidechain) || !classify.User(r).Typed() {
			continue
		}
		if len(starts) > 0 {
			ends = append(ends, i)
		}
		starts = append(starts, i)
	}
	if len(starts) > 0 {
		ends = append(ends, f.LineCount())
	}
	return starts, ends
}

// TestTurnsAddUp: on every real session the turns' figures, the lines outside them and the
// unlinked sub-agent logs add up to the session's; in the 2.0.64 session every sub-agent log is
// tied to the turn that spawned it.
func TestTurnsAddUp(t *testing.T) {
	for _, p := range testcorpus.Files(t, "that a session's turn figures add up to its total") {
		s, err := layout.Load(p, nil)
		if err != nil || s.Main() == nil {
			continue
		}
		starts, ends := turnBounds(s.Main())
		sp := Turns(s, nil, starts, ends)
		sum := sp.Outside.Add(sp.Unlinked)
		agents := sp.Loose
		for _, tu := range sp.Turns {
			sum = sum.Add(tu.Total)
			agents += tu.Agents
		}
		tot := Session(s, nil)
		if sum != tot.Total {
			t.Errorf("%s: turns add up to %+v, the session is %+v", p, sum, tot.Total)
		}
		if agents != len(tot.Agents) {
			t.Errorf("%s: %d sub-agent logs placed, %d in the session", p, agents, len(tot.Agents))
		}
	}
	p := testcorpus.Path(t, "CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl", "turn figures with sub-agents")
	s, err := layout.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	starts, ends := turnBounds(s.Main())
	sp := Turns(s, nil, starts, ends)
	if sp.Loose != 0 {
		t.Errorf("%d sub-agent logs not tied to a turn", sp.Loose)
	}
	with := 0
	for _, tu := range sp.Turns {
		if tu.Agents > 0 {
			with++
			if tu.Total.Output <= tu.Own.Output || tu.String() == tu.Own.String() {
				t.Errorf("a turn with %d sub-agents: %s vs own %s", tu.Agents, tu.String(), tu.Own.String())
			}
		}
	}
	if with == 0 {
		t.Error("no turn includes a sub-agent")
	}
}
