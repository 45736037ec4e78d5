package graph

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// nodeKey orders nodes by where they are in the session (record rank, then content block).
func (b *builder) nodeKey(k int32) uint64 {
	n := &b.nodes[k]
	r := n.rec
	if b.rank != nil {
		r = b.rank[r]
	}
	return uint64(r)<<24 | uint64(min(n.block+1, 1<<24-1))
}

// ranks orders the records for reading: the main log line by line, and each other log right
// after the record it hangs from (a sub-agent's log after the call that spawned it, a log whose
// first record's parent is in another file after that parent). Logs that hang from nothing come
// after, in session order.
func (b *builder) ranks() {
	anchor := make([]int32, len(b.files))
	for k := range anchor {
		anchor[k] = -1
	}
	for k := range b.lanes {
		if ln := &b.lanes[k]; ln.file != nil && ln.action >= 0 {
			fi := b.x.files[ln.file]
			if a := b.nodes[ln.action].rec; b.fileOf(a) != fi {
				anchor[fi.no] = a
			}
		}
	}
	for _, fi := range b.files {
		if anchor[fi.no] >= 0 || fi.no == 0 {
			continue
		}
		for i := fi.start; i < fi.end; i++ {
			if p := b.rs[i].parent; p >= 0 && b.fileOf(p) != fi {
				anchor[fi.no] = p
				break
			}
		}
	}
	hanging := map[int32][]int{}
	for no, a := range anchor {
		if a >= 0 {
			hanging[a] = append(hanging[a], no)
		}
	}
	if len(hanging) == 0 {
		// Every log after the one before: the reading order is the session order (rank nil).
		return
	}
	b.rank = b.spare.ints(len(b.rs))
	emitted := make([]bool, len(b.files))
	next := int32(0)
	type cursor struct{ i, end int32 }
	var stack []cursor
	emit := func(no int) {
		emitted[no] = true
		stack = append(stack[:0], cursor{b.files[no].start, b.files[no].end})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i >= top.end {
				stack = stack[:len(stack)-1]
				continue
			}
			i := top.i
			top.i++
			b.rank[i] = next
			next++
			for _, g := range hanging[i] {
				if !emitted[g] {
					emitted[g] = true
					stack = append(stack, cursor{b.files[g].start, b.files[g].end})
				}
			}
		}
	}
	for no := range b.files {
		if !emitted[no] && anchor[no] < 0 {
			emit(no)
		}
	}
	for no := range b.files {
		if !emitted[no] {
			emit(no)
		}
	}
}

// topo returns the nodes in topological order of the edges: among the nodes ready at each step the
// earliest in the session goes first. A cycle (only possible in broken logs) is entered at its
// earliest node, so the order covers every node and the sort ends.
func (b *builder) topo() []int32 {
	n := len(b.nodes)
	outStart := b.spare.zeros(n + 1)
	indeg := b.spare.zeros(n)
	defer b.spare.done(outStart, indeg)
	for _, e := range b.edges {
		outStart[int32(e>>32)+1]++
		indeg[int32(e>>3)&(1<<29-1)]++
	}
	for i := 1; i <= n; i++ {
		outStart[i] += outStart[i-1]
	}
	// b.edges is sorted by source: the edges of node u are b.edges[outStart[u]:outStart[u+1]].

	h := nodeHeap{key: b.nodeKey}
	for k := range n {
		if indeg[k] == 0 {
			h.push(int32(k))
		}
	}
	var byKey []int32 // nodes in session order, to enter cycles at their earliest node (made at the first)
	done := make([]bool, n)
	order := b.spare.ints(n)[:0]
	next := 0
	for len(order) < n {
		if len(h.a) == 0 {
			if byKey == nil {
				byKey = make([]int32, n)
				for k := range byKey {
					byKey[k] = int32(k)
				}
				if cmp := func(x, y int32) int { return cmp.Compare(b.nodeKey(x), b.nodeKey(y)) }; !slices.IsSortedFunc(byKey, cmp) {
					slices.SortFunc(byKey, cmp)
				}
			}
			for done[byKey[next]] {
				next++
			}
			u := byKey[next]
			indeg[u] = 0
			h.push(u)
		}
		u := h.pop()
		if done[u] {
			continue
		}
		done[u] = true
		order = append(order, u)
		for _, e := range b.edges[outStart[u]:outStart[u+1]] {
			v := int32(e>>3) & (1<<29 - 1)
			if done[v] {
				continue
			}
			indeg[v]--
			if indeg[v] == 0 {
				h.push(v)
			}
		}
	}
	return order
}

// nodeHeap is a binary min-heap of node indices by key.
type nodeHeap struct {
	a   []int32
	key func(int32) uint64
}

func (h *nodeHeap) push(v int32) {
	h.a = append(h.a, v)
	k := h.key(v)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.key(h.a[p]) <= k {
			break
		}
		h.a[i] = h.a[p]
		i = p
	}
	h.a[i] = v
}

func (h *nodeHeap) pop() int32 {
	top := h.a[0]
	last := h.a[len(h.a)-1]
	h.a = h.a[:len(h.a)-1]
	if len(h.a) == 0 {
		return top
	}
	k := h.key(last)
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h.a) {
			break
		}
		if c+1 < len(h.a) && h.key(h.a[c+1]) < h.key(h.a[c]) {
			c++
		}
		if h.key(h.a[c]) >= k {
			break
		}
		h.a[i] = h.a[c]
		i = c
	}
	h.a[i] = last
	return top
}

func (b *builder) uri(f *session.File) string {
	u, ok := b.uris[f]
	if !ok {
		u = b.opt.URI(f.Path)
		if m := b.opt.Memo; m != nil {
			// The same string as last time when it did not change: nodes then compare their
			// locations by pointer.
			if old, ok := m.uris[f]; ok && old == u {
				u = old
			}
			m.uris[f] = u
		}
		b.uris[f] = u
	}
	return u
}

func (b *builder) finish() *Graph {
	g := &Graph{idx: b.x}
	order := b.arrange(g)

	g.Nodes = make([]Node, len(b.nodes))
	if b.opt.Memo != nil {
		b.opt.Memo.begin(len(b.nodes))
	}
	ids := nodeIDs(len(b.nodes))
	nuuids := 0
	for k := range b.nodes {
		nuuids += 1 + len(b.moreOf(int32(k)))
	}
	if b.opt.Memo == nil {
		b.uuids = make([]string, 0, nuuids)
	}
	for pos, k := range order {
		b.node(&g.Nodes[pos], k, int32(pos), ids[pos], g.Lanes)
	}
	g.Edges = b.posEdges()
	for k := range g.Edges {
		e := &g.Edges[k]
		e.Source, e.Target = g.Nodes[e.from].ID, g.Nodes[e.to].ID
	}
	g.Session = b.sessionInfo()
	b.spare.done(order)
	return g
}

// arrange puts the nodes in their order and the lanes in theirs: it returns the nodes' creation
// indices by position (b.x.perm is the inverse), sets g.Lanes (each sub-agent lane's ParentNode
// named) and g.laneIndex, and renumbers each record's lane to its position in g.Lanes. What is
// left to draw a node at a position is b.node.
func (b *builder) arrange(g *Graph) []int32 {
	if !slices.IsSorted(b.edges) {
		slices.Sort(b.edges)
	}
	b.edges = slices.Compact(b.edges)

	b.ranks()
	order := b.topo()
	perm := b.spare.ints(len(b.nodes)) // kept by the index, never given back
	for pos, k := range order {
		perm[k] = int32(pos)
	}
	b.x.perm = perm

	// Lanes: main first, then by their first node.
	laneFirst := make([]int32, len(b.lanes))
	for k := range b.lanes {
		laneFirst[k] = int32(len(b.nodes)) + int32(k)
		if f := b.lanes[k].first; f >= 0 {
			laneFirst[k] = perm[b.primary(f)]
		}
	}
	laneOrder := make([]int32, len(b.lanes))
	for k := range laneOrder {
		laneOrder[k] = int32(k)
	}
	slices.SortStableFunc(laneOrder[1:], func(x, y int32) int { return int(laneFirst[x] - laneFirst[y]) })
	lanePos := make([]int32, len(b.lanes))
	g.Lanes = make([]Lane, len(b.lanes))
	g.laneIndex = make(map[string]int, len(b.lanes))
	for pos, k := range laneOrder {
		lanePos[k] = int32(pos)
		g.Lanes[pos] = b.lanes[k].Lane
		g.laneIndex[b.lanes[k].ID] = pos
		if a := b.lanes[k].action; a >= 0 {
			g.Lanes[pos].ParentNode = nodeID(int(perm[a]))
		}
	}
	if !slices.IsSorted(laneOrder) { // the lanes moved: a pass over the records
		for i := range b.rs {
			b.rs[i].lane = lanePos[b.rs[i].lane]
		}
	}
	if b.rank != nil {
		b.spare.done(b.rank)
		b.rank = nil
	}
	return order
}

// posEdges returns the edges between node positions (b.x.perm), sorted by source, target and
// kind, without the nodes' ids.
func (b *builder) posEdges() []Edge {
	packed := b.posPacked()
	defer b.spare.doneWords(packed)
	es := make([]Edge, len(packed))
	for k, e := range packed {
		es[k] = Edge{from: int32(e >> 32), to: int32(e>>3) & (1<<29 - 1), Kind: edgeKinds[e&7]}
	}
	return es
}

// posPacked is posEdges packed as b.edges is, positions for creation indices (the kind's bits are
// its rank, so the order is posEdges'): 8 bytes an edge where an Edge is 56, and sorted without a
// comparison function. It is made in b.edges, which no one reads after.
func (b *builder) posPacked() []uint64 {
	perm := b.x.perm
	packed := b.edges
	b.edges = nil
	for k, e := range packed {
		packed[k] = uint64(perm[int32(e>>32)])<<32 | uint64(perm[int32(e>>3)&(1<<29-1)])<<3 | e&7
	}
	if !slices.IsSorted(packed) {
		slices.Sort(packed)
	}
	return packed
}

func (b *builder) sessionInfo() SessionInfo {
	si := SessionInfo{ID: textsafe.Printable(b.s.ID), Files: make([]FileInfo, 0, len(b.s.Files))}
	for _, f := range b.s.Files {
		lane := f.Lane
		if lane == "" {
			lane = MainLane
		}
		si.Files = append(si.Files, FileInfo{URI: b.uri(f), Lane: textsafe.Printable(lane)})
	}
	return si
}

// nodeID is the id of the node at position pos of a full graph (nodeIDs' pos-th).
func nodeID(pos int) string { return "n" + strconv.Itoa(pos+1) }

// nodeIDs returns "n1" ... "nN", sharing one string's bytes.
func nodeIDs(n int) []string {
	var buf []byte
	ends := make([]int, n)
	for i := range n {
		buf = append(buf, 'n')
		buf = strconv.AppendInt(buf, int64(i+1), 10)
		ends[i] = len(buf)
	}
	all := string(buf)
	ids := make([]string, n)
	start := 0
	for i, e := range ends {
		ids[i] = all[start:e]
		start = e
	}
	return ids
}

// timestamp decodes a record's timestamp (escape-free in practice: one copy, no decoding).
func timestamp(r *session.Rec, line []byte) string {
	sp := r.TimestampSpan
	if !sp.Valid() || int(sp.End) > len(line) || sp.End-sp.Start < 2 {
		return ""
	}
	raw := line[sp.Start+1 : sp.End-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return r.Timestamp(line)
	}
	return string(raw)
}

// node materialises node k. What comes from the node's own records (label, timestamp, uuids, tool
// ids, columns) is made once per record with a memo; what depends on the rest of the session (id,
// lane, branch, line, model and usage of the message, the answered call's name) every time. With
// a memo, a node equal to its last build keeps its JSON.
func (b *builder) node(n *Node, k, pos int32, id string, lanes []Lane) {
	nb := &b.nodes[k]
	st := &b.rs[nb.rec]
	r := st.rec
	var blk *jsonl.Block
	if nb.block >= 0 {
		blk = &r.D().Blocks[nb.block]
	}
	memo := b.opt.Memo
	var local memoEntry
	me, hit := &local, false
	kind := nb.kind.Kind()
	if memo != nil {
		me, hit = memo.entry(k, r, nb.block, kind)
		if more := b.moreOf(k); hit && (me.recs != nil || len(more) > 0) && !b.sameRecs(me.recs, r, more) {
			*me, hit = memoEntry{key: me.key, kind: kind, gen: me.gen}, false
		}
	}
	if !hit {
		b.static(me, nb, b.moreOf(k), r, blk)
	}
	st0 := &me.static
	n.Kind, n.Label, n.Timestamp, n.UUIDs = kind, st0.label, st0.timestamp, st0.uuids
	n.ToolName, n.ToolUseID, n.Status = st0.toolName, st0.toolUseID, st0.status
	n.Location.Range.Start.Character, n.Location.Range.End.Character = st0.c0, st0.c1
	n.ID = id
	n.Lane = lanes[st.lane].ID
	n.Active = st.active
	n.Rec = r
	n.Block = int(nb.block)
	if len(me.recs) > 1 {
		n.more = me.recs[1:len(me.recs):len(me.recs)]
	}
	n.Location.URI = b.uri(r.File)
	n.Location.Range.Start.Line, n.Location.Range.End.Line = uint32(r.Line), uint32(r.Line)

	var grp *group
	if nb.group >= 0 {
		grp = &b.groups[nb.group]
	}
	usage := func() {
		if grp == nil || grp.usage < 0 {
			return
		}
		u := b.rs[grp.usage].rec.D().Usage
		n.InputTokens = u.Input + u.CacheRead + u.CacheCreation
		n.OutputTokens = u.Output
	}
	switch nb.kind {
	case kSystem:
		if b.fails(k) {
			n.Status = "failure"
		}
	case kThought:
		n.Model = b.modelOf(grp)
		usage()
	case kAction:
		n.Model = b.modelOf(grp)
		if as := b.actions(nb.group); grp.thought < 0 && len(as) > 0 && as[0] == k {
			usage() // a message of tool calls only: its first call carries its usage
		}
	case kObservation:
		if a := nb.action(); a >= 0 {
			ab := &b.nodes[a]
			n.ToolName = textsafe.Printable(b.rs[ab.rec].rec.D().Blocks[ab.block].Name)
		}
		if r.D().Result != nil && r.D().Result.DurationMs >= 0 && st.n == 1 {
			d := r.D().Result.DurationMs
			n.DurationMs = &d
		}
	}
	if memo != nil {
		if d := dynamicOf(n, pos); me.enc == nil || d != me.dyn {
			me.dyn = d
			me.enc = appendNode(me.enc[:0:0], n)
		}
		n.enc = me.enc
	}
}

// fails reports whether node k failed: an OBSERVATION of an error result, an API error.
func (b *builder) fails(k int32) bool {
	nb := &b.nodes[k]
	st := &b.rs[nb.rec]
	switch nb.kind {
	case kSystem:
		return st.apiError || st.rec.Type == "system" && st.rec.D().Subtype == "api_error"
	case kObservation:
		return nb.block >= 0 && st.rec.D().Blocks[nb.block].IsError
	}
	return false
}

// sameRecs reports whether the records of a node made of several (a THOUGHT, a compaction joined by
// its summary) are still those the memo entry was made from.
func (b *builder) sameRecs(recs []*session.Rec, r *session.Rec, more []int32) bool {
	if len(recs) != 1+len(more) || recs[0] != r {
		return false
	}
	for i, m := range more {
		if recs[1+i] != b.rs[m].rec {
			return false
		}
	}
	return true
}

// static fills me with what node nb takes from its own records.
func (b *builder) static(me *memoEntry, nb *nodeDraft, more []int32, r *session.Rec, blk *jsonl.Block) {
	line := r.LineBytes()
	recs := []*session.Rec{r}
	for _, m := range more {
		recs = append(recs, b.rs[m].rec)
	}
	n := &me.static
	*n = staticFields{}
	// Fields taken from the log as they are (ids, names, times) are shown by the viewer: control
	// characters and bidirectional overrides in them are written as visible escapes (textsafe.Printable).
	n.timestamp = textsafe.Printable(timestamp(r, line))
	var uuids []string
	if b.opt.Memo == nil {
		if need := 1 + len(more); cap(b.uuids)-len(b.uuids) < need {
			// finish sizes one array for the whole graph; BuildDrawn, drawing a few nodes, not
			b.uuids = make([]string, 0, max(need, 1024))
		}
		uuids = b.uuids[len(b.uuids):]
	}
	for _, x := range recs {
		if x.UUID != "" {
			uuids = append(uuids, textsafe.Printable(x.UUID))
		}
	}
	if len(uuids) > 0 {
		n.uuids = uuids[:len(uuids):len(uuids)]
		if b.opt.Memo == nil {
			b.uuids = b.uuids[:len(b.uuids)+len(uuids)]
		}
	}
	n.c1 = r.LineUTF16Len()
	if blk != nil && blk.IDSpan.Valid() {
		rg := b.cols.SpanRange(r.Line, line, int(blk.IDSpan.Start), int(blk.IDSpan.End))
		n.c0, n.c1 = rg.Start.Character, rg.End.Character
	}
	n.label = b.label(nb.kind.Kind(), r, blk, recs)
	switch nb.kind {
	case kAction:
		n.toolName, n.toolUseID = textsafe.Printable(blk.Name), textsafe.Printable(blk.ID)
	case kObservation:
		n.toolUseID = textsafe.Printable(blk.ToolUseID)
		n.status = "success"
		if blk.IsError {
			n.status = "failure"
		}
	}
	if nb.kind == kThought || len(recs) > 1 {
		me.recs = recs
	}
	me.done, me.enc = true, nil
}

// label computes a node's label from its records' bytes.
func (b *builder) label(k Kind, r *session.Rec, blk *jsonl.Block, recs []*session.Rec) string {
	switch k {
	case UserInput:
		if l := userLabel(r); l != "" {
			return l
		}
		return "(empty prompt)"
	case System:
		return systemLabel(r)
	case Thought:
		return thoughtLabel(recs)
	case Action:
		return actionLabel(r, blk)
	case Observation:
		return resultLabel(r, blk)
	}
	return ""
}
