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

// In a collapsed graph a turn's node shows the findings of every member, not only of its first
// node (the prompt): here two calls of the first turn went unanswered while the turn went on.
func TestProblemsDrawnOnCollapsedTurns(t *testing.T) {
	log := hostile.Lines(
		hostile.User("u1", "", "first"),
		hostile.ToolUse("a1", "u1", "m1", "toolu_1", "Bash", `{"command":"ls"}`),
		hostile.ToolUse("a2", "a1", "m2", "toolu_2", "Read", `{"file_path":"/x"}`),
		hostile.Assistant("a3", "a2", "m3", "went on without them"),
		hostile.User("u2", "a3", "second"),
		hostile.Assistant("a4", "u2", "m4", "ok"),
		hostile.User("u3", "a4", "third"),
		hostile.Assistant("a5", "u3", "m5", "ok"),
	)
	s := session.New(hostile.SessionID, "/x")
	s.AddFile(session.NewFile("/x/"+hostile.SessionID+".jsonl", log))
	g := Build(s)
	fs := check.New(s).All(nil)
	full := Problems(g, fs)
	if len(full) != 2 {
		t.Fatalf("full graph: problems %+v, want the two unanswered calls", full)
	}
	c := Collapsed(g, CollapseOptions{MaxNodes: 3})
	if c == g || len(c.Nodes) != 3 {
		t.Fatalf("collapsed to %d nodes, want 3 turns", len(c.Nodes))
	}
	ps := ProblemsDrawn(g, c, fs)
	if len(ps) != 1 || ps[0].Node != c.Nodes[0].ID || ps[0].Count != 2 || len(ps[0].Messages) != 2 || ps[0].Severity != "warning" {
		t.Fatalf("collapsed: problems %+v, want both findings on the first turn's node %s", ps, c.Nodes[0].ID)
	}
}
