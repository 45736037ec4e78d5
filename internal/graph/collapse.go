package graph

import (
	"fmt"
	"slices"
)

// DefaultMaxNodes is the node budget of ccdag/workflowGraph when the request names none: past it
// a graph is collapsed (a session of a million records drew 364 MB of JSON that no viewer lays out).
const DefaultMaxNodes = 5000

// Collapse says how a graph was drawn with fewer nodes than it has (docs/graph.md, "Collapsed
// graphs"). A collapsed node stands for the nodes of the full graph named by its "members" count.
type Collapse struct {
	MaxNodes int `json:"maxNodes"` // the budget asked for (0: none, only --lanes or --agents)
	Nodes    int `json:"nodes"`    // nodes of the full graph
	Edges    int `json:"edges"`    // edges of the full graph
	// What was done, in this order, until the budget was met:
	Turns     int      `json:"turns"`                  // turns drawn as one node each (0: turns kept whole)
	Lanes     int      `json:"lanes"`                  // sub-agent lanes drawn as one node each
	TurnsPer  int      `json:"turnsPerNode"`           // consecutive turns per node of a lane (1: none merged)
	LeftOut   []string `json:"lanesLeftOut,omitempty"` // lanes not drawn at all (--lanes main)
	LeftNodes int      `json:"nodesLeftOut"`           // nodes of those lanes
}

// CollapseOptions says how much to draw.
type CollapseOptions struct {
	MaxNodes int  // at most this many nodes (0: no budget)
	MainOnly bool // draw the main lane only (sub-agent lanes left out, with their spawn and return edges)
	Agents   bool // draw each sub-agent lane as one node, whatever the budget
}

// Collapsed returns g drawn with less, or g itself when it already fits. Steps, each only while
// the graph is over budget: each turn (a USER_INPUT and what follows it in its lane, along the
// flow) becomes one node; then each sub-agent lane one node; then runs of consecutive turn nodes
// of a lane one node each, as many per node as it takes. A collapsed node keeps the id, kind,
// lane and location of its first node (so a click still lands on the turn's prompt), is active
// when any of its members is, failed when any failed, and carries the count of nodes it stands
// for ("members"). Edges between members of one node disappear; edges between two collapsed
// nodes are kept once per kind. The graph's "collapsed" field says what was done.
//
// The result is for drawing: lookups by record (NodeOf, LaneOf, ...) belong to the full graph.
func Collapsed(g *Graph, o CollapseOptions) *Graph {
	n := len(g.Nodes)
	if !(o.MaxNodes > 0 && n > o.MaxNodes) && !o.MainOnly && !o.Agents {
		return g
	}
	laneOf := make([]int32, n)
	for i := range g.Nodes {
		laneOf[i] = int32(g.laneIndex[g.Nodes[i].Lane])
	}
	packed := make([]uint64, len(g.Edges))
	for k, e := range g.Edges {
		packed[k] = uint64(e.from)<<32 | uint64(e.to)<<3 | uint64(slices.Index(edgeKinds[:], e.Kind))
	}
	return collapse(&drawSource{
		g: g, n: n, laneOf: laneOf, edges: packed,
		kind:   func(i int) Kind { return g.Nodes[i].Kind },
		active: func(i int) bool { return g.Nodes[i].Active },
		failed: func(i int) bool { return g.Nodes[i].Status == "failure" },
		node:   func(i int) Node { return g.Nodes[i] },
		id:     func(i int) string { return g.Nodes[i].ID },
	}, o)
}

// drawSource is what collapse reads of a graph: a built one (Collapsed), or one whose nodes are
// made only when drawn (BuildDrawn). g has the lanes, the index and the session; its nodes may be
// absent.
type drawSource struct {
	g      *Graph
	n      int
	laneOf []int32  // lane position of each node
	edges  []uint64 // between node positions, packed from<<32 | to<<3 | kind (index in edgeKinds), sorted
	kind   func(i int) Kind
	active func(i int) bool
	failed func(i int) bool
	node   func(i int) Node // node i made whole, for a node that is drawn
	id     func(i int) string
	// ints, when set, gives the index arrays collapse works in (contents undefined), and done
	// takes them back: BuildDrawn lends the builder's dead ones.
	ints func(n int) []int32
	done func(...[]int32)
}

func (src *drawSource) array(n int) []int32 {
	if src.ints != nil {
		return src.ints(n)
	}
	return make([]int32, n)
}

func (src *drawSource) release(as ...[]int32) {
	if src.done != nil {
		src.done(as...)
	}
}

// collapse is Collapsed on a drawSource (see there).
func collapse(src *drawSource, o CollapseOptions) *Graph {
	gr := &grouping{src: src, o: o, info: &Collapse{MaxNodes: o.MaxNodes, Nodes: src.n, Edges: len(src.edges), TurnsPer: 1}}
	if o.MainOnly {
		gr.mainOnly()
	}
	// group[i]: the node standing for node i (itself to begin with).
	gr.group = src.array(src.n)
	for i := range gr.group {
		gr.group[i] = int32(i)
	}
	groups := gr.count()
	if gr.over(groups) {
		groups = gr.turns()
	}
	if o.Agents || gr.over(groups) {
		groups = gr.agentLanes()
	}
	if gr.over(groups) {
		groups = gr.runs(groups)
	}
	out := rebuild(src, gr.group, gr.keep, gr.info, groups) // groups: the heads, the nodes drawn
	src.release(gr.group)
	return out
}

// grouping is the state of collapse's steps.
type grouping struct {
	src   *drawSource
	o     CollapseOptions
	info  *Collapse
	keep  []bool  // nil: every node is kept
	group []int32 // the node standing for each node
}

func (gr *grouping) over(groups int) bool { return gr.o.MaxNodes > 0 && groups > gr.o.MaxNodes }

func (gr *grouping) kept(i int) bool { return gr.keep == nil || gr.keep[i] }

// count returns the number of groups drawn: heads of kept nodes.
func (gr *grouping) count() int {
	c := 0
	for i := range gr.group {
		if gr.group[i] == int32(i) && gr.kept(i) {
			c++
		}
	}
	return c
}

// mainOnly leaves every sub-agent lane out (--lanes main).
func (gr *grouping) mainOnly() {
	g, info := gr.src.g, gr.info
	gr.keep = make([]bool, gr.src.n)
	for i := range gr.keep {
		gr.keep[i] = g.Lanes[gr.src.laneOf[i]].ID == MainLane
		if !gr.keep[i] {
			info.LeftNodes++
		}
	}
	for _, l := range g.Lanes {
		if l.ID != MainLane {
			info.LeftOut = append(info.LeftOut, l.ID)
		}
	}
}

// turns is step 1: a node joins the turn of the first node before it in its lane that leads to
// it by a flow or tool edge; a USER_INPUT starts a turn. Nodes are in topological order, so one
// pass. It returns the groups left.
func (gr *grouping) turns() int {
	src, group, laneOf := gr.src, gr.group, gr.src.laneOf
	from := src.array(src.n)
	for i := range from {
		from[i] = -1
	}
	for _, e := range src.edges {
		a, b, kind := unpack(e)
		if (kind == Flow || kind == Tool) && laneOf[a] == laneOf[b] && a < b && (from[b] < 0 || a < from[b]) {
			from[b] = a
		}
	}
	for i := range group {
		if from[i] >= 0 && src.kind(i) != UserInput {
			group[i] = group[from[i]]
		}
	}
	src.release(from)
	groups := gr.count()
	for i := range group {
		if group[i] == int32(i) && gr.kept(i) && src.kind(i) == UserInput {
			gr.info.Turns++
		}
	}
	return groups
}

// agentLanes is step 2: each sub-agent lane's nodes join its first node. It returns the groups
// left.
func (gr *grouping) agentLanes() int {
	g, group, laneOf := gr.src.g, gr.group, gr.src.laneOf
	first := make([]int32, len(g.Lanes))
	for l := range first {
		first[l] = -1
	}
	for i := range group {
		l := laneOf[i]
		if g.Lanes[l].ID == MainLane || !gr.kept(i) {
			continue
		}
		if first[l] < 0 {
			first[l] = int32(i)
			gr.info.Lanes++
		}
		group[i] = first[l]
	}
	return gr.count()
}

// runs is step 3: runs of consecutive nodes of a lane, k per node: with L lanes holding nodes,
// sum(ceil(c_l/k)) <= groups/k + L <= MaxNodes. It returns the groups left: the heads.
func (gr *grouping) runs(groups int) int {
	g, group, laneOf, maxNodes := gr.src.g, gr.group, gr.src.laneOf, gr.o.MaxNodes
	lanes := make([]bool, len(g.Lanes))
	nl := 0
	for i := range group {
		if l := laneOf[i]; group[i] == int32(i) && gr.kept(i) && !lanes[l] {
			lanes[l] = true
			nl++
		}
	}
	if nl > maxNodes {
		groups = gr.leaveOutLanes(lanes)
		nl = maxNodes
	}
	k := groups
	if room := maxNodes - nl; room > 0 {
		k = (groups + room - 1) / room
	}
	gr.info.TurnsPer = k
	seen := make([]int32, len(g.Lanes)) // nodes of the lane's current run
	head := make([]int32, len(g.Lanes))
	groups = 0
	for i := range group {
		if group[i] != int32(i) || !gr.kept(i) {
			continue
		}
		l := laneOf[i]
		if seen[l]%int32(k) == 0 {
			head[l] = int32(i)
			groups++
		}
		seen[l]++
		group[i] = head[l]
	}
	for i := range group { // members follow their (earlier) head
		group[i] = group[group[i]]
	}
	return groups
}

// leaveOutLanes is step 4, for more lanes (those marked in lanes, holding nodes) than the budget,
// each now one node at best: the main lane and the first sub-agent lanes that fit are drawn, the
// others left out, as --lanes main leaves them. It returns the groups left.
func (gr *grouping) leaveOutLanes(lanes []bool) int {
	g, info, laneOf := gr.src.g, gr.info, gr.src.laneOf
	if gr.keep == nil {
		gr.keep = make([]bool, gr.src.n)
		for i := range gr.keep {
			gr.keep[i] = true
		}
	}
	drawn := make([]bool, len(g.Lanes))
	room := gr.o.MaxNodes
	if main, ok := g.laneIndex[MainLane]; ok && lanes[main] {
		drawn[main] = true
		room--
	}
	for l := range g.Lanes {
		switch {
		case !lanes[l] || drawn[l]:
		case room > 0:
			drawn[l] = true
			room--
		default:
			info.LeftOut = append(info.LeftOut, g.Lanes[l].ID)
		}
	}
	for i := range gr.keep {
		if gr.keep[i] && !drawn[laneOf[i]] {
			gr.keep[i] = false
			info.LeftNodes++
		}
	}
	return gr.count()
}

// rebuild makes the collapsed graph: one node per group head, edges between heads.
func rebuild(src *drawSource, group []int32, keep []bool, info *Collapse, heads int) *Graph {
	g, n := src.g, src.n
	kept := func(i int) bool { return keep == nil || keep[i] }
	// Per group head: its members (n < 2^29, as edges pack them), and whether one is active or
	// failed.
	const isActive, isFailed, members = 1 << 29, 1 << 30, 1<<29 - 1
	acc := src.array(n)
	clear(acc)
	out := &Graph{Session: g.Session, Collapsed: info, idx: g.idx, drawnAs: src.array(n), // kept
		Nodes: make([]Node, 0, heads)}
	for i := range group {
		out.drawnAs[i] = -1
		if !kept(i) {
			continue
		}
		h := group[i]
		out.drawnAs[i] = h
		acc[h]++
		if acc[h]&isActive == 0 && src.active(i) {
			acc[h] |= isActive
		}
		if acc[h]&isFailed == 0 && src.failed(i) {
			acc[h] |= isFailed
		}
	}
	pos := acc // a head's acc is read before its pos is written; others are no longer read
	usedLane := map[string]bool{}
	for i := range n {
		if group[i] != int32(i) || !kept(i) {
			pos[i] = -1
			continue
		}
		a := acc[i]
		pos[i] = int32(len(out.Nodes))
		nd := src.node(i)
		nd.enc = nil
		nd.Active = a&isActive != 0
		if m := a & members; m > 1 {
			nd.Members = int(m)
			if a&isFailed != 0 {
				nd.Status = "failure"
			}
		}
		usedLane[nd.Lane] = true
		out.Nodes = append(out.Nodes, nd)
	}
	for _, l := range g.Lanes {
		if usedLane[l.ID] {
			if l.ParentNode != "" {
				if p := nodeIndex(l.ParentNode); p >= 0 && p < n && src.id(p) == l.ParentNode {
					l.ParentNode = src.id(int(group[p]))
				}
			}
			out.Lanes = append(out.Lanes, l)
		}
	}
	out.laneIndex = make(map[string]int, len(out.Lanes))
	for k, l := range out.Lanes {
		out.laneIndex[l.ID] = k
	}
	type key struct {
		from, to int32
		kind     EdgeKind
	}
	seen := map[key]bool{}
	for _, e := range src.edges {
		from, to, kind := unpack(e)
		a, b := group[from], group[to]
		if a == b || pos[a] < 0 || pos[b] < 0 {
			continue
		}
		k := key{pos[a], pos[b], kind}
		if seen[k] {
			continue
		}
		seen[k] = true
		out.Edges = append(out.Edges, Edge{Source: src.id(int(a)), Target: src.id(int(b)), Kind: kind, from: k.from, to: k.to})
	}
	src.release(acc)
	if out.Edges == nil {
		out.Edges = []Edge{}
	}
	if out.Nodes == nil {
		out.Nodes = []Node{}
	}
	slices.Sort(info.LeftOut)
	return out
}

func unpack(e uint64) (from, to int32, kind EdgeKind) {
	return int32(e >> 32), int32(e>>3) & (1<<29 - 1), edgeKinds[e&7]
}

// Note says in words what a collapsed graph left out, for people (the CLI's stderr, a Mermaid
// comment): "" when nothing was.
func (c *Collapse) Note() string {
	if c == nil {
		return ""
	}
	s := fmt.Sprintf("the graph has %d nodes and %d edges", c.Nodes, c.Edges)
	if c.MaxNodes > 0 {
		s += fmt.Sprintf("; drawn within %d nodes", c.MaxNodes)
	}
	if c.Turns > 0 {
		s += fmt.Sprintf("; %d turns drawn as one node each", c.Turns)
	}
	if c.Lanes > 0 {
		s += fmt.Sprintf("; %d sub-agent lanes drawn as one node each", c.Lanes)
	}
	if c.TurnsPer > 1 {
		s += fmt.Sprintf("; up to %d consecutive turns per node", c.TurnsPer)
	}
	if len(c.LeftOut) > 0 {
		s += fmt.Sprintf("; %d sub-agent lanes (%d nodes) left out", len(c.LeftOut), c.LeftNodes)
	}
	return s + " (a node's \"members\" counts the nodes it stands for)"
}
