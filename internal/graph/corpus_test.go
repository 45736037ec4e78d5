package graph

import (
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// abandonedBranches counts the maximal runs of inactive nodes: each inactive node whose records'
// parent chain reaches an active record (or a root) first starts one.
func abandonedBranches(g *Graph) int {
	n := 0
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if nd.Active {
			continue
		}
		starts := true
		for _, e := range g.In(nd) {
			if !g.Nodes[e.from].Active {
				starts = false
			}
		}
		if starts {
			n++
		}
	}
	return n
}

// checkInvariants holds every graph to the rules that do not depend on the session's content.
func checkInvariants(t *testing.T, name string, s *session.Session, g *Graph) {
	t.Helper()
	uses, results := 0, 0
	for _, f := range s.Files {
		f.Recs(func(r *session.Rec) bool {
			if r.LineErr() != nil {
				return true
			}
			for k := range r.D().Blocks {
				switch {
				case r.Type == "assistant" && r.D().Blocks[k].Kind == jsonl.BlockToolUse:
					uses++
				case r.Type == "user" && r.D().Blocks[k].Kind == jsonl.BlockToolResult:
					results++
				}
			}
			return true
		})
	}
	count := map[Kind]int{}
	ids := map[string]int{}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		count[n.Kind]++
		ids[n.ID] = i
		if n.Label == "" || strings.ContainsAny(n.Label, "\n\r") {
			t.Errorf("%s: node %s has label %q", name, n.ID, n.Label)
		}
		if g.Lane(n.Lane) == nil {
			t.Errorf("%s: node %s is in lane %q, which is not listed", name, n.ID, n.Lane)
		}
		if !strings.HasPrefix(n.Location.URI, "file://") {
			t.Errorf("%s: node %s location %q", name, n.ID, n.Location.URI)
		}
	}
	if count[Action] != uses {
		t.Errorf("%s: %d ACTION nodes for %d tool_use blocks", name, count[Action], uses)
	}
	if count[Observation] != results {
		t.Errorf("%s: %d OBSERVATION nodes for %d tool_result blocks", name, count[Observation], results)
	}
	for _, e := range g.Edges {
		si, ok1 := ids[e.Source]
		ti, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			t.Errorf("%s: edge %v names a missing node", name, e)
			continue
		}
		if si >= ti {
			t.Errorf("%s: edge %s -> %s (%s) goes against the node order", name, e.Source, e.Target, e.Kind)
		}
		if e.Kind == Tool {
			src, dst := &g.Nodes[si], &g.Nodes[ti]
			if src.Kind != Action || dst.Kind != Observation || src.ToolUseID != dst.ToolUseID || src.ToolUseID == "" {
				t.Errorf("%s: tool edge %s -> %s joins %s %q and %s %q", name, e.Source, e.Target, src.Kind, src.ToolUseID, dst.Kind, dst.ToolUseID)
			}
		}
	}
	agentFiles, agentLanes := 0, 0
	for _, f := range s.Files {
		if f.Lane != MainLane {
			agentFiles++
		}
	}
	for _, l := range g.Lanes {
		if l.AgentID != "" {
			agentLanes++
		}
	}
	if agentFiles != agentLanes {
		t.Errorf("%s: %d sub-agent logs but %d agent lanes", name, agentFiles, agentLanes)
	}
	// Every record answers the lookups; NodeOf agrees with the nodes' own records.
	for i := range g.Nodes {
		n := &g.Nodes[i]
		for _, r := range n.Records() {
			found := false
			for _, m := range g.NodesOf(r) {
				found = found || m == n
			}
			if !found {
				t.Errorf("%s: NodesOf(line %d) misses %s", name, r.Line+1, n.ID)
			}
		}
	}
	for _, f := range s.Files {
		f.Recs(func(r *session.Rec) bool {
			if g.LaneOf(r) == nil {
				t.Errorf("%s: no lane for %s line %d", name, f.Path, r.Line+1)
				return false
			}
			return true
		})
	}
	if b, err := json.Marshal(g); err != nil || !json.Valid(b) {
		t.Errorf("%s: JSON: %v", name, err)
	}
}

func TestCorpus(t *testing.T) {
	wantBranches := map[string]int{"sample.jsonl": 1}
	for _, p := range testcorpus.Files(t, "the graph invariants on every real session (one node per tool block, tool edges, lanes, order, labels) and its abandoned branches") {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s.Main() != nil && s.Main().Path != mustAbs(p) {
			continue // an agent log: its session is checked through the main log
		}
		name := filepath.Base(p)
		g := Build(s)
		checkInvariants(t, name, s, g)
		if got, want := abandonedBranches(g), wantBranches[name]; got != want {
			t.Errorf("%s: %d abandoned branches, want %d", name, got, want)
		}
		forks := 0
		for _, f := range s.Files {
			f.Recs(func(r *session.Rec) bool {
				if g.Forked(r) {
					forks++
				}
				return true
			})
		}
		if want := min(wantBranches[name], 1); forks != want {
			t.Errorf("%s: %d real forks, want %d", name, forks, want)
		}
		t.Logf("%s: %d nodes, %d edges, %d lanes", name, len(g.Nodes), len(g.Edges), len(g.Lanes))
	}
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}
