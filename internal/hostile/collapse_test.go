package hostile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/layout"
)

// bigSession writes a main log of 1 500 turns (6 000 nodes) that spawns three sub-agents of 50
// turns each, and returns the main log's path.
func bigSession(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sub := filepath.Join(dir, SessionID, "subagents")
	os.MkdirAll(sub, 0o755)
	log, last := Turns("m", "", 1500, 0)
	var recs []string
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("a%d", i)
		recs = append(recs,
			User("p"+id, last, "spawn "+id),
			ToolUse("c"+id, "p"+id, "mc"+id, "toolu_"+id, "Task", `{"prompt":"go","subagent_type":"Explore"}`),
			ToolResult("r"+id, "c"+id, "toolu_"+id, "done", id))
		last = "r" + id
		agent, _ := Turns(id, "", 50, 0)
		os.WriteFile(filepath.Join(sub, "agent-"+id+".jsonl"), agent, 0o644)
	}
	main := filepath.Join(dir, SessionID+".jsonl")
	os.WriteFile(main, append(log, Lines(recs...)...), 0o644)
	return main
}

// checkCollapsed holds a collapsed graph to what it promises: within budget, every node of the
// full graph counted once, every node and edge endpoint one of the full graph's nodes.
func checkCollapsed(t *testing.T, full, c *graph.Graph, budget, leftOut int) {
	t.Helper()
	if c.Collapsed == nil {
		t.Fatal("no \"collapsed\" field")
	}
	if budget > 0 && len(c.Nodes) > budget {
		t.Errorf("%d nodes, over the budget of %d", len(c.Nodes), budget)
	}
	total, ids := 0, map[string]bool{}
	for _, n := range c.Nodes {
		total += max(1, n.Members)
		ids[n.ID] = true
		f := full.Node(n.ID)
		if f == nil || f.Kind != n.Kind || f.Lane != n.Lane || f.Location != n.Location {
			t.Fatalf("node %s is not the full graph's node of that id", n.ID)
		}
	}
	if total+leftOut != len(full.Nodes) || c.Collapsed.Nodes != len(full.Nodes) || c.Collapsed.Edges != len(full.Edges) {
		t.Errorf("members add up to %d (+%d left out), the full graph has %d nodes; collapsed says %+v", total, leftOut, len(full.Nodes), c.Collapsed)
	}
	for _, e := range c.Edges {
		if !ids[e.Source] || !ids[e.Target] || e.Source == e.Target {
			t.Fatalf("edge %+v names a node that is not drawn", e)
		}
	}
}

// Issue 14 item 8 and issue 9 item 12: a big session's graph drawn within a node budget, or with
// sub-agent lanes collapsed or left out (graph.Collapsed, the building block of the server's
// maxNodes and of ccdag graph --max-nodes / --lanes).
func TestCollapsedGraphs(t *testing.T) {
	s, err := layout.Load(bigSession(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	full := graph.Build(s)
	if len(full.Nodes) <= graph.DefaultMaxNodes || len(full.Lanes) != 4 {
		t.Fatalf("the test session has %d nodes and %d lanes", len(full.Nodes), len(full.Lanes))
	}
	if graph.Collapsed(full, graph.CollapseOptions{MaxNodes: len(full.Nodes)}) != full {
		t.Error("a graph within its budget was changed")
	}

	c := graph.Collapsed(full, graph.CollapseOptions{MaxNodes: graph.DefaultMaxNodes})
	checkCollapsed(t, full, c, graph.DefaultMaxNodes, 0)
	if c.Collapsed.Turns != 1503+150 || c.Collapsed.Lanes != 0 || c.Collapsed.TurnsPer != 1 {
		t.Errorf("turns alone fit 5 000: %+v", c.Collapsed)
	}
	if len(c.Lanes) != 4 {
		t.Errorf("%d lanes drawn", len(c.Lanes))
	}

	c = graph.Collapsed(full, graph.CollapseOptions{MaxNodes: 300})
	checkCollapsed(t, full, c, 300, 0)
	if c.Collapsed.Lanes != 3 || c.Collapsed.TurnsPer < 2 {
		t.Errorf("300 nodes: %+v", c.Collapsed)
	}
	for _, e := range c.Edges {
		if e.Kind == graph.Spawn {
			goto spawned
		}
	}
	t.Error("no spawn edge left to a collapsed sub-agent lane")
spawned:

	// More lanes than the budget: each lane is one node at best, so the main lane and the first
	// sub-agent lanes that fit are drawn and the rest left out (the budget held, 7 nodes were drawn
	// for 1 main lane and 6 sub-agents with --max-nodes 1 to 5). What BuildDrawn draws is the same.
	for budget := 1; budget <= 4; budget++ {
		c = graph.Collapsed(full, graph.CollapseOptions{MaxNodes: budget})
		left := strings.Join([]string{"agent-a1", "agent-a2", "agent-a3"}[budget-1:], ",")
		checkCollapsed(t, full, c, budget, 200*(4-budget))
		if len(c.Nodes) != budget || c.Nodes[0].Lane != graph.MainLane || strings.Join(c.Collapsed.LeftOut, ",") != left {
			t.Errorf("%d nodes: drew %d, the first of lane %s; left out %v (want %q)", budget, len(c.Nodes), c.Nodes[0].Lane, c.Collapsed.LeftOut, left)
		}
		if !strings.Contains(c.Collapsed.Note(), fmt.Sprintf("drawn within %d nodes", budget)) || (budget < 4) != strings.Contains(c.Collapsed.Note(), "left out") {
			t.Errorf("note: %s", c.Collapsed.Note())
		}
		drawn := graph.BuildDrawn(s, graph.Options{}, graph.CollapseOptions{MaxNodes: budget})
		if a, b := graph.AppendJSON(nil, drawn), graph.AppendJSON(nil, c); string(a) != string(b) {
			t.Errorf("%d nodes: BuildDrawn draws %s\nCollapsed draws %s", budget, a, b)
		}
	}

	c = graph.Collapsed(full, graph.CollapseOptions{MainOnly: true})
	checkCollapsed(t, full, c, 0, 600)
	for _, n := range c.Nodes {
		if n.Lane != graph.MainLane {
			t.Fatalf("--lanes main drew %s of lane %s", n.ID, n.Lane)
		}
	}
	if strings.Join(c.Collapsed.LeftOut, ",") != "agent-a1,agent-a2,agent-a3" || c.Collapsed.LeftNodes != 600 || len(c.Nodes) != len(full.Nodes)-600 {
		t.Errorf("--lanes main: %+v, %d nodes", c.Collapsed, len(c.Nodes))
	}

	c = graph.Collapsed(full, graph.CollapseOptions{Agents: true})
	checkCollapsed(t, full, c, 0, 0)
	perLane := map[string]int{}
	for _, n := range c.Nodes {
		perLane[n.Lane]++
	}
	if perLane["agent-a1"] != 1 || perLane["agent-a3"] != 1 || perLane["main"] != len(full.Nodes)-600 {
		t.Errorf("--lanes collapsed: nodes per lane %v", perLane)
	}
	if !strings.Contains(c.Collapsed.Note(), "3 sub-agent lanes drawn as one node each") {
		t.Errorf("note: %s", c.Collapsed.Note())
	}
}

// ccdag graph draws less on request and says what it left out; a Mermaid diagram over Mermaid's
// default limits (50 000 characters, 500 edges) is said so on stderr.
func TestGraphCommandDrawsLess(t *testing.T) {
	bin := buildBinary(t)
	main := bigSession(t)
	run := func(args ...string) (string, string) {
		cmd := exec.Command(bin, append([]string{"graph"}, args...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("graph %v: %v %s", args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	_, stderr := run("--format", "mermaid", main)
	if !strings.Contains(stderr, "over Mermaid's default limits") {
		t.Errorf("no warning for a %s", stderr)
	}
	out, stderr := run("--format", "mermaid", "--max-nodes", "100", main)
	if strings.Contains(stderr, "over Mermaid's") || !strings.Contains(stderr, "drawn within 100 nodes") || len(out) > 50000 {
		t.Errorf("--max-nodes 100: stderr %q, %d bytes", stderr, len(out))
	}
	out, stderr = run("--lanes", "main", main)
	if strings.Contains(out, `"lane":"agent-a1","label"`) || !strings.Contains(out, `"lanesLeftOut":["agent-a1","agent-a2","agent-a3"]`) || !strings.Contains(stderr, "left out") {
		t.Errorf("--lanes main: %s", stderr)
	}
	if out, _ = run(main); strings.Contains(out, `"collapsed"`) {
		t.Error("ccdag graph without options collapsed the graph")
	}
}
