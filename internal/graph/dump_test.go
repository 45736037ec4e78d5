package graph

import (
	"fmt"
	"os"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
)

// TestDump prints the graph of $GRAPH_DUMP (a session file), one node per line: a debugging aid.
func TestDump(t *testing.T) {
	p := os.Getenv("GRAPH_DUMP")
	if p == "" {
		t.Skip("set GRAPH_DUMP=path/to/session.jsonl to print its graph")
	}
	s, err := layout.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := Build(s)
	for _, l := range g.Lanes {
		fmt.Printf("lane %s %q agent=%s type=%s parent=%s depth=%d\n", l.ID, l.Label, l.AgentID, l.SubagentType, l.ParentNode, l.Depth)
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		var in []string
		for _, e := range g.In(n) {
			in = append(in, fmt.Sprintf("%s<%s", e.Source, e.Kind))
		}
		act := ""
		if !n.Active {
			act = " INACTIVE"
		}
		fmt.Printf("%-5s L%-4d %-11s %-16s %v%s %q\n", n.ID, n.Rec.Line+1, n.Kind, n.Lane, in, act, n.Label)
	}
}
