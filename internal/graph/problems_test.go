package graph

import (
	"encoding/json"
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/session"
)

// A record whose parent is missing carries its orphan finding as its node's problem, and the
// encoded graph gains a "problems" list that still parses.
func TestProblems(t *testing.T) {
	log := hostile.Lines(
		hostile.User("u1", "", "hello"),
		hostile.Assistant("a1", "u1", "m1", "hi"),
		hostile.User("u2", "no-such-parent", "again"),
	)
	s := session.New(hostile.SessionID, "/x")
	s.AddFile(session.NewFile("/x/"+hostile.SessionID+".jsonl", log))
	g := Build(s)
	ps := Problems(g, check.New(s).All(nil))
	if len(ps) != 1 {
		t.Fatalf("problems %+v, want one", ps)
	}
	n := g.Node(ps[0].Node)
	if n == nil || n.Rec.UUID != "u2" || ps[0].Severity != "warning" || ps[0].Count != 1 || len(ps[0].Messages) != 1 {
		t.Fatalf("problem %+v on node %+v", ps[0], n)
	}
	var out struct {
		Nodes    []json.RawMessage `json:"nodes"`
		Problems []Problem         `json:"problems"`
	}
	if err := json.Unmarshal(AppendProblems(AppendJSON(nil, g), ps), &out); err != nil || len(out.Problems) != 1 || len(out.Nodes) != len(g.Nodes) {
		t.Fatalf("encoded: %v, %+v", err, out.Problems)
	}
}
