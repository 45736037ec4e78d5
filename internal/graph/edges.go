package graph

import "slices"

// The edges stage: tool calls to their results, flow along the chain, compactions.

const (
	edgeFlow uint64 = iota
	edgeTool
	edgeSpawn
	edgeReturn
	edgeCompact
)

var edgeKinds = [...]EdgeKind{Flow, Tool, Spawn, Return, Compact}

func (b *builder) edge(from, to int32, kind uint64) {
	if from < 0 || to < 0 || from == to {
		return
	}
	b.edges = append(b.edges, uint64(from)<<32|uint64(to)<<3|kind)
}

// linkTools joins each OBSERVATION to its ACTION (tool edges) and to the ACTION's message group.
func (b *builder) linkTools() {
	for k := range b.nodes {
		n := &b.nodes[k]
		if n.kind != kObservation {
			continue
		}
		blk := &b.rs[n.rec].rec.D().Blocks[n.block]
		if blk.ToolUseID == "" {
			continue
		}
		a := b.useNode(blk.ToolUseID)
		if a < 0 || b.nodes[a].kind != kAction {
			continue
		}
		n.aux, n.group = a, b.nodes[a].group
		if n.group >= 0 {
			l := b.listsOf(n.group)
			l.obs = append(l.obs, int32(k))
		}
		b.edge(a, int32(k), edgeTool)
	}
}

// resultGroup is the message group whose tool calls a results record answers, or -1.
func (b *builder) resultGroup(i int32) int32 {
	st := &b.rs[i]
	for n := st.first; n >= 0 && n < st.first+st.n; n++ {
		if g := b.nodes[n].group; g >= 0 {
			return g
		}
	}
	return -1
}

// exits returns the nodes a flow edge from record p starts at: after tool results, every result
// of the same message's calls (the join); after an assistant line, its tool calls or its thought.
// The slice is valid until the next call.
func (b *builder) exits(p int32) []int32 {
	st := &b.rs[p]
	if st.class == cResults {
		if g := b.resultGroup(p); g >= 0 {
			if obs := b.obs(g); len(obs) > 0 {
				return obs
			}
		}
	}
	b.exitBuf = b.exitBuf[:0]
	if st.n > 0 {
		for k := range st.n {
			b.exitBuf = append(b.exitBuf, st.first+k)
		}
		return b.exitBuf
	}
	if st.shared >= 0 {
		return append(b.exitBuf, st.shared)
	}
	return nil
}

// sameMessage reports whether record p belongs to message group g: one of its lines, or a tool
// result answering one of its calls.
func (b *builder) sameMessage(p int32, g int32) bool {
	switch b.rs[p].class {
	case cAssistant:
		return b.rs[p].group == g
	case cResults:
		return b.resultGroup(p) == g
	}
	return false
}

// flowEdges links each node-making record to its nearest node-making ancestor.
func (b *builder) flowEdges() {
	for i := range b.rs {
		i := int32(i)
		st := &b.rs[i]
		if st.class == cNone {
			continue
		}
		p := b.flowFrom(i)
		if p < 0 {
			continue
		}
		switch st.class {
		case cAssistant:
			if b.sameMessage(p, st.group) {
				continue
			}
			g := &b.groups[st.group]
			for _, src := range b.exits(p) {
				switch {
				case g.entry < 0:
					g.entry = src
				case g.entry != src:
					if l := b.listsOf(st.group); !slices.Contains(l.entry, src) {
						l.entry = append(l.entry, src)
					}
				}
			}
		case cResults:
			srcs := b.exits(p)
			for n := st.first; n < st.first+st.n; n++ {
				if b.nodes[n].action() >= 0 && b.sameMessage(p, b.nodes[n].group) {
					continue // the tool edge is its way in
				}
				for _, src := range srcs {
					b.edge(src, n, edgeFlow)
				}
			}
		case cSummary:
			if st.n == 0 {
				continue // joined its boundary
			}
			fallthrough
		default:
			if st.n == 0 {
				continue
			}
			for _, src := range b.exits(p) {
				b.edge(src, st.first, edgeFlow)
			}
		}
	}
	for k := range b.groups {
		g := &b.groups[k]
		if g.entry < 0 && g.lists < 0 {
			continue
		}
		var entry, actions []int32
		if g.lists >= 0 {
			entry, actions = b.lists[g.lists].entry, b.lists[g.lists].actions
		}
		if g.thought >= 0 {
			if g.entry >= 0 {
				b.edge(g.entry, g.thought, edgeFlow)
			}
			for _, src := range entry {
				b.edge(src, g.thought, edgeFlow)
			}
			for _, a := range actions {
				b.edge(g.thought, a, edgeFlow)
			}
			continue
		}
		for _, a := range actions {
			if g.entry >= 0 {
				b.edge(g.entry, a, edgeFlow)
			}
			for _, src := range entry {
				b.edge(src, a, edgeFlow)
			}
		}
	}
}

// primary is the node that stands for record i (its first own node, or its shared one).
func (b *builder) primary(i int32) int32 {
	st := &b.rs[i]
	if st.shared >= 0 && (st.n == 0 || st.sharedFirst) {
		return st.shared
	}
	if st.n > 0 {
		return st.first
	}
	return st.shared
}

// lastNode is the node that ends record i (its last own node, or its shared one).
func (b *builder) lastNode(i int32) int32 {
	st := &b.rs[i]
	if st.n > 0 {
		return st.first + st.n - 1
	}
	return st.shared
}

// compactEdges link the record a compaction's logicalParentUuid names to the compaction's node.
func (b *builder) compactEdges() {
	for i := range b.rs {
		st := &b.rs[i]
		r := st.rec
		if st.flags&fLogical == 0 || st.class == cNone {
			continue
		}
		lp := b.s.Lookup(r.D().LogicalParent)
		if lp == nil {
			continue
		}
		li := b.idxOf(lp)
		if li < 0 || b.nodeAncestor[li] < 0 {
			continue
		}
		b.edge(b.lastNode(b.nodeAncestor[li]), b.primary(int32(i)), edgeCompact)
	}
}
