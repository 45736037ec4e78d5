// Package graph builds the workflow graph of a session (docs/spec.md §4): the records of the main log and
// its sub-agent logs turned into USER_INPUT, THOUGHT, ACTION, OBSERVATION and SYSTEM nodes, linked
// by flow, tool, spawn, return and compact edges, laid out in lanes (main and one per sub-agent),
// with nodes on abandoned branches marked inactive. The JSON encoding of a Graph is exactly the
// result of `ccdag/workflowGraph` and `ccdag graph --format json`; WriteDOT and WriteMermaid render
// it for Graphviz and Mermaid. docs/graph.md records the decisions the SPEC leaves open.
//
// Build never recurses over the chain (chains can be a million records deep) and terminates on
// parent cycles. A Graph is immutable once built and safe for concurrent readers.
package graph

import (
	"sync"

	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// Kind is a node's workflow kind.
type Kind string

const (
	UserInput   Kind = "USER_INPUT"
	Thought     Kind = "THOUGHT"
	Action      Kind = "ACTION"
	Observation Kind = "OBSERVATION"
	System      Kind = "SYSTEM"
)

// EdgeKind is an edge's kind.
type EdgeKind string

const (
	Flow    EdgeKind = "flow"
	Tool    EdgeKind = "tool"
	Spawn   EdgeKind = "spawn"
	Return  EdgeKind = "return"
	Compact EdgeKind = "compact"
)

// MainLane is the id of the main conversation's lane.
const MainLane = "main"

// Graph is the workflow graph of one session. Its JSON encoding is docs/spec.md §4's.
type Graph struct {
	Session SessionInfo `json:"session"`
	Lanes   []Lane      `json:"lanes"`
	Nodes   []Node      `json:"nodes"`
	Edges   []Edge      `json:"edges"`
	// Collapsed is set on a graph drawn with less than all of it (Collapsed, CollapseOptions).
	Collapsed *Collapse `json:"collapsed,omitempty"`

	idx       *index
	drawnAs   []int32 // a collapsed graph: the full graph's node i is drawn as its node drawnAs[i] (-1: left out)
	adjOnce   sync.Once
	out, in   [][]int32 // edge indices per node, built on first use
	laneIndex map[string]int
}

// SessionInfo names the session and its files.
type SessionInfo struct {
	ID    string     `json:"id"`
	Files []FileInfo `json:"files"`
}

// FileInfo is one log of the session and the lane its records belong to ("main" for the main log,
// also when it keeps sub-agents inside itself).
type FileInfo struct {
	URI  string `json:"uri"`
	Lane string `json:"lane"`
}

// Lane is the main conversation or one sub-agent.
type Lane struct {
	ID           string `json:"id"`
	Label        string `json:"label"`
	AgentID      string `json:"agentId,omitempty"`
	SubagentType string `json:"subagentType,omitempty"`
	ParentNode   string `json:"parentNode,omitempty"` // the ACTION node that spawned the sub-agent
	Depth        int    `json:"depth,omitempty"`      // 0 for main, 1 for agents main spawned, ...

	// File is the sub-agent's own log, nil for main and for sub-agents kept inside the main log.
	File *session.File `json:"-"`
}

// Location is where a node is in its file: the record's line, or the tool_use `id` value for an
// ACTION and the tool_result `tool_use_id` value for an OBSERVATION. Columns are UTF-16 units.
type Location struct {
	URI   string         `json:"uri"`
	Range position.Range `json:"range"`
}

// Node is one step of the workflow.
type Node struct {
	ID           string   `json:"id"`
	Kind         Kind     `json:"kind"`
	Lane         string   `json:"lane"`
	Label        string   `json:"label"`
	Active       bool     `json:"active"`
	UUIDs        []string `json:"uuids,omitempty"`
	Location     Location `json:"location"`
	Timestamp    string   `json:"timestamp,omitempty"`
	ToolName     string   `json:"toolName,omitempty"`
	ToolUseID    string   `json:"toolUseId,omitempty"`
	Status       string   `json:"status,omitempty"` // "success" or "failure"
	Model        string   `json:"model,omitempty"`
	InputTokens  int64    `json:"inputTokens,omitempty"` // input + cache read + cache creation
	OutputTokens int64    `json:"outputTokens,omitempty"`
	DurationMs   *int64   `json:"durationMs,omitempty"`
	// Members is, in a collapsed graph, how many nodes of the full graph this one stands for
	// (omitted for a node standing for itself only).
	Members int `json:"members,omitempty"`

	// Rec is the record the node comes from (the first one, for a THOUGHT made of several lines
	// or a compaction joined by its summary); Block is the content block of an ACTION or an
	// OBSERVATION, -1 otherwise.
	Rec   *session.Rec `json:"-"`
	Block int          `json:"-"`
	more  []*session.Rec
	enc   []byte // the node's JSON when a memo had it (see AppendJSON), nil otherwise
}

// Records returns every record the node was made from, in session order.
func (n *Node) Records() []*session.Rec {
	if n.Rec == nil {
		return nil
	}
	return append([]*session.Rec{n.Rec}, n.more...)
}

// Edge links two nodes by id.
type Edge struct {
	Source string   `json:"source"`
	Target string   `json:"target"`
	Kind   EdgeKind `json:"kind"`

	from, to int32
}

// Options adjust Build.
type Options struct {
	// URI turns a file path into the URI used in locations and session.files; nil gives
	// file:// URIs of the absolute path (what go.lsp.dev/uri.File gives). A language server
	// passes the URIs its client used for open documents.
	URI func(path string) string
	// Memo, when set, keeps per-record work from one build of the session to the next.
	Memo *Memo
}

// Build returns the workflow graph of s. It reads s and never changes it.
func Build(s *session.Session) *Graph { return BuildWith(s, Options{}) }

// BuildWith is Build with options.
func BuildWith(s *session.Session, opt Options) *Graph {
	b := newBuilder(s, opt)
	if opt.Memo != nil {
		opt.Memo.lock()
		defer opt.Memo.end()
	}
	return b.build()
}

// BuildDrawn returns what Collapsed(BuildWith(s, opt), o) returns, without making the nodes it does
// not draw: a session of a million records draws 5 000 nodes, and making the million first was
// most of ccdag/workflowGraph's time and memory. A graph that fits is the full graph (Collapsed
// nil). opt.Memo is not used. ProblemsDrawn(g, g, fs) places findings on its nodes.
func BuildDrawn(s *session.Session, opt Options, o CollapseOptions) *Graph {
	opt.Memo = nil
	b := newBuilder(s, opt)
	b.prepare()
	if !(o.MaxNodes > 0 && len(b.nodes) > o.MaxNodes) && !o.MainOnly && !o.Agents {
		g := b.finish()
		b.leave(nil)
		return g
	}
	g := &Graph{idx: b.x}
	order := b.arrange(g)
	g.Session = b.sessionInfo()
	laneOf := b.spare.ints(len(order))
	for pos, k := range order {
		laneOf[pos] = b.rs[b.nodes[k].rec].lane
	}
	edges := b.posPacked()
	defer b.leave(edges, laneOf, order)
	return collapse(&drawSource{
		g: g, n: len(order), laneOf: laneOf, edges: edges, ints: b.spare.ints, done: b.spare.done,
		kind:   func(i int) Kind { return b.nodes[order[i]].kind.Kind() },
		active: func(i int) bool { return b.rs[b.nodes[order[i]].rec].active },
		failed: func(i int) bool { return b.fails(order[i]) },
		node: func(i int) Node {
			var nd Node
			b.node(&nd, order[i], int32(i), nodeID(i), g.Lanes)
			return nd
		},
		id: nodeID,
	}, o)
}

// NodeOf returns the node a record made (the THOUGHT for a line of an assistant message's text,
// the first ACTION or OBSERVATION for a line with several blocks), or nil when the record made no
// node (progress, snapshots, ...; LaneOf and Active still answer for those) or is not in the
// session the graph was built from.
func (g *Graph) NodeOf(r *session.Rec) *Node {
	if k := g.idx.nodePos(r); k >= 0 {
		return &g.Nodes[k]
	}
	return nil
}

// nodePos is the position of NodeOf(r) in the full graph's nodes, -1 for none.
func (x *index) nodePos(r *session.Rec) int {
	st := x.state(r)
	switch {
	case st == nil:
		return -1
	case st.shared >= 0 && (st.n == 0 || st.sharedFirst):
		return int(x.perm[st.shared])
	case st.n > 0:
		return int(x.perm[st.first])
	case st.shared >= 0:
		return int(x.perm[st.shared])
	}
	return -1
}

// NodesOf returns every node a record made or takes part in, in node order.
func (g *Graph) NodesOf(r *session.Rec) []*Node {
	st := g.idx.state(r)
	if st == nil {
		return nil
	}
	var out []*Node
	if st.shared >= 0 {
		out = append(out, &g.Nodes[g.idx.perm[st.shared]])
	}
	for i := st.first; i < st.first+int32(st.n); i++ {
		out = append(out, &g.Nodes[g.idx.perm[i]])
	}
	if len(out) > 1 {
		sortNodes(g, out)
	}
	return out
}

// BlockNode returns the ACTION of a tool_use block or the OBSERVATION of a tool_result block of r
// (block is the index in r.Blocks), or nil.
func (g *Graph) BlockNode(r *session.Rec, block int) *Node {
	st := g.idx.state(r)
	if st == nil {
		return nil
	}
	for i := st.first; i < st.first+int32(st.n); i++ {
		n := &g.Nodes[g.idx.perm[i]]
		if n.Block == block {
			return n
		}
	}
	return nil
}

// LaneOf returns the lane of any record of the session (also of records that made no node), or
// nil when r is not in the graph's session.
func (g *Graph) LaneOf(r *session.Rec) *Lane {
	st := g.idx.state(r)
	if st == nil {
		return nil
	}
	return &g.Lanes[st.lane]
}

// Active reports whether r lies on the active branch (false for records of an abandoned branch,
// and for records not in the graph's session).
func (g *Graph) Active(r *session.Rec) bool {
	st := g.idx.state(r)
	return st != nil && st.active
}

// Forked reports whether r is a real fork point: a record whose children start two or more
// different conversation turns (a rewind or an edited prompt).
func (g *Graph) Forked(r *session.Rec) bool {
	st := g.idx.state(r)
	return st != nil && st.fork
}

// Node returns the node with this id ("n12"), or nil.
func (g *Graph) Node(id string) *Node {
	i := nodeIndex(id)
	if i < 0 || i >= len(g.Nodes) {
		return nil
	}
	return &g.Nodes[i]
}

// Index returns the position of n in g.Nodes, or -1.
func (g *Graph) Index(n *Node) int {
	if n == nil {
		return -1
	}
	i := nodeIndex(n.ID)
	if i < 0 || i >= len(g.Nodes) || &g.Nodes[i] != n {
		return -1
	}
	return i
}

// Lane returns the lane with this id, or nil.
func (g *Graph) Lane(id string) *Lane {
	if i, ok := g.laneIndex[id]; ok {
		return &g.Lanes[i]
	}
	return nil
}

// Out returns the edges leaving n; In the edges reaching it.
func (g *Graph) Out(n *Node) []*Edge { return g.adj(n, true) }

// In returns the edges reaching n.
func (g *Graph) In(n *Node) []*Edge { return g.adj(n, false) }

func (g *Graph) adj(n *Node, out bool) []*Edge {
	i := g.Index(n)
	if i < 0 {
		return nil
	}
	g.adjOnce.Do(func() {
		g.out = make([][]int32, len(g.Nodes))
		g.in = make([][]int32, len(g.Nodes))
		for k := range g.Edges {
			e := &g.Edges[k]
			g.out[e.from] = append(g.out[e.from], int32(k))
			g.in[e.to] = append(g.in[e.to], int32(k))
		}
	})
	list := g.in[i]
	if out {
		list = g.out[i]
	}
	es := make([]*Edge, len(list))
	for k, e := range list {
		es[k] = &g.Edges[e]
	}
	return es
}

// Results returns the OBSERVATIONs answering an ACTION; Action the ACTION an OBSERVATION answers.
func (g *Graph) Results(action *Node) []*Node {
	var out []*Node
	for _, e := range g.Out(action) {
		if e.Kind == Tool {
			out = append(out, &g.Nodes[e.to])
		}
	}
	return out
}

// Action returns the ACTION an OBSERVATION answers, or nil.
func (g *Graph) Action(obs *Node) *Node {
	for _, e := range g.In(obs) {
		if e.Kind == Tool {
			return &g.Nodes[e.from]
		}
	}
	return nil
}

func nodeIndex(id string) int {
	if len(id) < 2 || id[0] != 'n' || len(id) > 11 {
		return -1
	}
	v := 0
	for _, c := range id[1:] {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int(c-'0')
	}
	return v - 1
}

func sortNodes(g *Graph, ns []*Node) {
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && nodeIndex(ns[j].ID) < nodeIndex(ns[j-1].ID); j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
}
