package graph_test

import (
	"os"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/session"
)

func TestProbe(t *testing.T) {
	p := os.Getenv("PROBE")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	s := session.New("x", "/tmp")
	s.AddFile(session.NewFile(p, data))
	t0 := time.Now()
	g := graph.BuildWith(s, graph.Options{})
	t1 := time.Now()
	cg := graph.Collapsed(g, graph.CollapseOptions{MaxNodes: graph.DefaultMaxNodes})
	t2 := time.Now()
	t.Logf("build %v (%d nodes), collapse %v (%d nodes)", t1.Sub(t0), len(g.Nodes), t2.Sub(t1), len(cg.Nodes))
}
