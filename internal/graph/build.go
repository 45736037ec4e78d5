package graph

import (
	"net/url"
	"path/filepath"
	"slices"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// recClass says what a record contributes to the graph.
type recClass uint8

const (
	cNone      recClass = iota // makes no node; edges pass through it
	cUser                      // USER_INPUT
	cSystem                    // SYSTEM
	cSummary                   // a compaction's summary: joins its boundary's SYSTEM node
	cAssistant                 // THOUGHT and/or ACTIONs of its message group
	cResults                   // one OBSERVATION per tool_result block
)

// recState is what the builder (and later the lookups) know about one record. Node indices are
// creation indices; index.perm maps them to positions in Graph.Nodes.
type recState struct {
	rec         *session.Rec
	parent      int32 // tree parent (-1: a root, an unresolved parent, or a broken cycle)
	group       int32 // message group of an assistant record
	shared      int32 // the THOUGHT (or joined compaction node) the record takes part in, -1
	first       int32 // own nodes: [first, first+n)
	n           int32
	lane        int32
	class       recClass
	sharedFirst bool // the shared node's blocks come before the record's own nodes
	turn        bool // a person's prompt or slash command: starts a conversation turn
	apiError    bool
	active      bool
	fork        bool
}

type fileIndex struct {
	no      int
	lineIdx []int32 // record index per line, -1 for blank lines
	start   int32   // first record index of the file
	end     int32
}

// index maps records to their state; it stays with the Graph for lookups.
type index struct {
	files map[*session.File]*fileIndex
	rs    []recState
	perm  []int32 // creation index -> position in Graph.Nodes
}

func (x *index) state(r *session.Rec) *recState {
	if x == nil || r == nil {
		return nil
	}
	fi := x.files[r.File]
	if fi == nil || r.Line < 0 || r.Line >= len(fi.lineIdx) {
		return nil
	}
	i := fi.lineIdx[r.Line]
	if i < 0 || x.rs[i].rec != r {
		return nil
	}
	return &x.rs[i]
}

// nodeB is a node under construction.
type nodeB struct {
	kind   Kind
	rec    int32 // primary record
	block  int32 // content block of an ACTION / OBSERVATION, -1 otherwise
	more   []int32
	group  int32 // THOUGHT/ACTION: its message group; OBSERVATION: its ACTION's group; else -1
	action int32 // OBSERVATION: its ACTION, -1 when unmatched
}

type group struct {
	thought int32
	actions []int32
	obs     []int32 // OBSERVATIONs of the group's ACTIONs
	entry   []int32 // nodes the message follows (flow sources into it)
	usage   int32   // record whose usage counts for the message (-1: none)
	model   string
}

type laneB struct {
	Lane
	file   *session.File
	root   int32 // sidechain lanes: the root record
	action int32 // spawning ACTION node, -1
	first  int32 // first node-making record, -1
	last   int32 // last node-making record (active preferred), -1
	lastIn bool  // last is active
}

type builder struct {
	kept    int // the first records, the last build's all of them (see records); 0 without a memo
	exitBuf []int32
	s       *session.Session
	opt     Options
	x       *index
	rs      []recState
	files   []*fileIndex
	cols    position.Mapper // many calls or results on one line: the line is mapped once

	childStart []int32
	childList  []int32
	order      []int32 // tree order: every record after its parent
	nna        []int32 // nearest node-making ancestor-or-self

	groups []group
	nodes  []nodeB
	edges  []uint64
	lanes  []laneB
	rank   []int32 // reading order of the records (see ranks)
	uuids  []string
	uris   map[*session.File]string
}

func newBuilder(s *session.Session, opt Options) *builder {
	b := &builder{s: s, opt: opt, x: &index{files: map[*session.File]*fileIndex{}}, uris: map[*session.File]string{}}
	if b.opt.URI == nil {
		b.opt.URI = FileURI
	}
	return b
}

// FileURI returns the file:// URI of a path, as go.lsp.dev/uri.File writes it.
func FileURI(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func (b *builder) build() *Graph {
	b.records()
	b.tree()
	b.classify()
	b.makeNodes()
	b.linkTools()
	b.flowEdges()
	b.compactEdges()
	b.activeBranches()
	b.makeLanes()
	g := b.finish()
	if m := b.opt.Memo; m != nil {
		// Only now: a build that panicked leaves no record list, so the next one reuses nothing.
		m.recs = m.recs[:0]
		for i := range b.rs {
			m.recs = append(m.recs, b.rs[i].rec)
		}
	}
	return g
}

// records gives every record of the session an index, in session order (file order, then line).
func (b *builder) records() {
	n := 0
	for _, f := range b.s.Files {
		n += f.RecordCount()
	}
	b.rs = make([]recState, 0, n)
	for no, f := range b.s.Files {
		fi := &fileIndex{no: no, lineIdx: make([]int32, f.LineCount()), start: int32(len(b.rs))}
		for i := range fi.lineIdx {
			fi.lineIdx[i] = -1
		}
		f.Recs(func(r *session.Rec) bool {
			fi.lineIdx[r.Line] = int32(len(b.rs))
			b.rs = append(b.rs, recState{rec: r, parent: -1, group: -1, shared: -1, first: -1})
			return true
		})
		fi.end = int32(len(b.rs))
		b.x.files[f] = fi
		b.files = append(b.files, fi)
	}
	b.x.rs = b.rs
	// A session that only grew (the last build's records, all of them, unchanged and first): the
	// memo's work on them stands, as far as each step checks.
	if m := b.opt.Memo; m != nil {
		if prev := m.recs; len(prev) > 0 && len(prev) <= len(b.rs) {
			b.kept = len(prev)
			for i, r := range prev {
				if b.rs[i].rec != r {
					b.kept = 0
					break
				}
			}
		}
		m.recs = m.recs[:0] // until this build is done
	}
}

func (b *builder) idxOf(r *session.Rec) int32 {
	fi := b.x.files[r.File]
	if fi == nil || r.Line < 0 || r.Line >= len(fi.lineIdx) {
		return -1
	}
	return fi.lineIdx[r.Line]
}

func (b *builder) fileOf(i int32) *fileIndex {
	// Files are few; a binary search over their record ranges.
	fs := b.files
	lo, hi := 0, len(fs)
	for lo < hi {
		m := (lo + hi) / 2
		if fs[m].end <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return fs[lo]
}

// tree resolves parents, builds the children lists (in session order) and a parents-first order,
// breaking every parent cycle at its earliest record so that nothing after this loops.
func (b *builder) tree() {
	n := len(b.rs)
	count := make([]int32, n+1)
	from := 0
	var saved *[]int32
	if m := b.opt.Memo; m != nil {
		saved = &m.parents
		if b.kept > 0 && len(m.parents) == b.kept && !b.newDefsReparent() {
			// The old records' parents are what they were: reuse their resolution.
			from = b.kept
			for i, p := range m.parents[:from] {
				if p >= 0 {
					b.rs[i].parent = p
					count[p+1]++
				}
			}
		}
	}
	for i := from; i < n; i++ {
		r := b.rs[i].rec
		if r.Err != nil || r.Parent == "" {
			continue
		}
		// In a chain the parent is the line before (and its uuid string is shared with r's
		// parentUuid, so the comparison is a pointer check): no map lookup.
		if i > 0 {
			if prev := b.rs[i-1].rec; prev.File == r.File && prev.UUID == r.Parent && b.s.DefinedOnce(prev) {
				b.rs[i].parent = int32(i - 1)
				count[i]++
				continue
			}
		}
		if p := b.s.Parent(r); p != nil {
			if pi := b.idxOf(p); pi >= 0 && pi != int32(i) {
				b.rs[i].parent = pi
				count[pi+1]++
			}
		}
	}
	if saved != nil {
		// The parents as resolved, before any cycle is cut below.
		*saved = (*saved)[:min(from, len(*saved))]
		for i := from; i < n; i++ {
			*saved = append(*saved, b.rs[i].parent)
		}
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	b.childStart = count
	b.childList = make([]int32, count[n])
	fill := slices.Clone(count[:n])
	for i := range b.rs {
		if p := b.rs[i].parent; p >= 0 {
			b.childList[fill[p]] = int32(i)
			fill[p]++
		}
	}

	b.order = make([]int32, 0, n)
	reached := make([]bool, n)
	bfs := func(root int32) {
		head := len(b.order)
		reached[root] = true
		b.order = append(b.order, root)
		for ; head < len(b.order); head++ {
			for _, c := range b.children(b.order[head]) {
				if !reached[c] {
					reached[c] = true
					b.order = append(b.order, c)
				}
			}
		}
	}
	for i := range b.rs {
		if b.rs[i].parent < 0 && !reached[i] {
			bfs(int32(i))
		}
	}
	if len(b.order) == n {
		return
	}
	// What is left hangs off parent cycles. Walk up to the cycle, cut it at its earliest record.
	stamp := make([]int32, n)
	for i := range b.rs {
		if reached[i] {
			continue
		}
		j := int32(i)
		for stamp[j] != int32(i)+1 {
			stamp[j] = int32(i) + 1
			j = b.rs[j].parent
		}
		m := j
		for k := b.rs[j].parent; k != j; k = b.rs[k].parent {
			m = min(m, k)
		}
		b.rs[m].parent = -1
		bfs(m)
	}
}

// newDefsReparent reports whether a record after the kept ones is the first to define a uuid that
// a kept record names as its parent: that record, an orphan so far, now has one.
func (b *builder) newDefsReparent() bool {
	for i := b.kept; i < len(b.rs); i++ {
		r := b.rs[i].rec
		if r.Err != nil || r.UUID == "" || b.s.Lookup(r.UUID) != r {
			continue
		}
		for _, c := range b.s.Children(r) {
			if ci := b.idxOf(c); ci >= 0 && ci < int32(b.kept) {
				return true
			}
		}
	}
	return false
}

func (b *builder) children(i int32) []int32 {
	return b.childList[b.childStart[i]:b.childStart[i+1]]
}

// gkey names a message group: its file, and its message id ('m') or request id ('r').
type gkey struct {
	file int
	kind byte
	id   string
}

// classify decides what each record makes, groups assistant lines into messages, and finds each
// record's nearest node-making ancestor-or-self.
func (b *builder) classify() {
	// Message groups by id, per file; consecutive lines of one message (the usual layout) skip
	// the lookup. With a memo, the records the last build saw, unchanged and in the same places
	// (a session that only grew), keep what it made of them: only the new ones are read.
	var groups map[gkey]int32
	last, lastG := gkey{file: -1}, int32(-1)
	from := 0
	var cs *classState
	if m := b.opt.Memo; m != nil {
		cs = &m.cls
		if b.kept > 0 && len(cs.info) == b.kept && cs.table != nil {
			from = b.kept
			for i, in := range cs.info {
				st := &b.rs[i]
				st.class, st.turn, st.apiError, st.group = in.class, in.turn, in.apiError, in.group
			}
			b.groups = make([]group, len(cs.groups), max(len(b.rs)/4+16, len(cs.groups)+16))
			for k, h := range cs.groups {
				b.groups[k] = group{thought: -1, usage: h.usage, model: h.model}
			}
			groups, last, lastG = cs.table, cs.last, cs.lastG
		} else {
			cs.info = make([]classInfo, 0, len(b.rs))
		}
	}
	if from == 0 {
		groups = make(map[gkey]int32, len(b.rs)/8)
		b.groups = make([]group, 0, len(b.rs)/4+16)
	}
	for i := from; i < len(b.rs); i++ {
		b.classifyOne(int32(i), groups, &last, &lastG)
	}
	if cs != nil {
		for i := from; i < len(b.rs); i++ {
			st := &b.rs[i]
			cs.info = append(cs.info, classInfo{class: st.class, turn: st.turn, apiError: st.apiError, group: st.group})
		}
		cs.groups = cs.groups[:0]
		for k := range b.groups {
			cs.groups = append(cs.groups, groupHead{usage: b.groups[k].usage, model: b.groups[k].model})
		}
		cs.table, cs.last, cs.lastG = groups, last, lastG
	}
	b.nna = make([]int32, len(b.rs))
	for _, i := range b.order {
		switch {
		case b.rs[i].class != cNone:
			b.nna[i] = i
		case b.rs[i].parent >= 0:
			b.nna[i] = b.nna[b.rs[i].parent]
		default:
			b.nna[i] = -1
		}
	}
}

// classifyOne classifies record i (see classify).
func (b *builder) classifyOne(i int32, groups map[gkey]int32, last *gkey, lastG *int32) {
	st := &b.rs[i]
	r := st.rec
	if r.Err != nil {
		return
	}
	switch r.Type {
	case "user":
		st.class, st.turn = b.classifyUser(r)
	case "system":
		st.class = cSystem
	case "assistant":
		hasUse := false
		for k := range r.Blocks {
			hasUse = hasUse || r.Blocks[k].Kind == jsonl.BlockToolUse
		}
		if r.Has(jsonl.FlagAPIError) && !hasUse {
			st.class, st.apiError = cSystem, true
			return
		}
		st.class = cAssistant
		key := gkey{file: b.fileOf(i).no}
		switch {
		case r.MessageID != "":
			key.kind, key.id = 'm', r.MessageID
		case r.RequestID != "":
			key.kind, key.id = 'r', r.RequestID
		}
		var g int32
		switch {
		case key.kind == 0: // no id: the record alone
			g = int32(len(b.groups))
			b.groups = append(b.groups, group{thought: -1, usage: -1})
		case key == *last:
			g = *lastG
		default:
			var ok bool
			if g, ok = groups[key]; !ok {
				g = int32(len(b.groups))
				groups[key] = g
				b.groups = append(b.groups, group{thought: -1, usage: -1})
			}
			*last, *lastG = key, g
		}
		st.group = g
		gr := &b.groups[g]
		if r.HasUsage && (gr.usage < 0 || r.Usage.Total() >= b.rs[gr.usage].rec.Usage.Total()) {
			gr.usage = i
		}
		if gr.model == "" && r.Model != "" && r.Model != "<synthetic>" {
			gr.model = check.Printable(r.Model) // log text in a field the viewer shows: escaped as labels are cleaned
		}
	}
}

// pa is the nearest node-making strict ancestor of i: where flow into i comes from.
func (b *builder) pa(i int32) int32 {
	if p := b.rs[i].parent; p >= 0 {
		return b.nna[p]
	}
	return -1
}

// classifyUser: the one classifier (internal/classify) decides; what a person typed (a prompt, a
// slash command, a shell command) starts a turn.
func (b *builder) classifyUser(r *session.Rec) (recClass, bool) {
	switch who := classify.User(r); {
	case who == classify.ToolResults:
		return cResults, false
	case who == classify.CompactSummary:
		return cSummary, false
	case who.Typed():
		return cUser, true
	}
	return cSystem, false
}

func (b *builder) newNode(n nodeB) int32 {
	b.nodes = append(b.nodes, n)
	return int32(len(b.nodes) - 1)
}

// makeNodes creates the nodes, in session order (a compaction summary joins its boundary's node).
func (b *builder) makeNodes() {
	b.nodes = make([]nodeB, 0, len(b.rs))
	var summaries []int32
	for i := range b.rs {
		st := &b.rs[i]
		r := st.rec
		own := func(kind Kind, block int32, grp int32) {
			k := b.newNode(nodeB{kind: kind, rec: int32(i), block: block, group: grp, action: -1})
			if st.n == 0 {
				st.first = k
			}
			st.n++
		}
		switch st.class {
		case cUser:
			own(UserInput, -1, -1)
		case cSystem:
			own(System, -1, -1)
		case cSummary:
			summaries = append(summaries, int32(i))
		case cResults:
			for k := range r.Blocks {
				if r.Blocks[k].Kind == jsonl.BlockToolResult {
					own(Observation, int32(k), -1)
				}
			}
		case cAssistant:
			g := &b.groups[st.group]
			thought := func() {
				if st.shared >= 0 {
					return
				}
				if g.thought < 0 {
					g.thought = b.newNode(nodeB{kind: Thought, rec: int32(i), block: -1, group: st.group, action: -1})
				} else {
					b.nodes[g.thought].more = append(b.nodes[g.thought].more, int32(i))
				}
				st.shared = g.thought
				st.sharedFirst = st.n == 0
			}
			for k := range r.Blocks {
				switch r.Blocks[k].Kind {
				case jsonl.BlockText, jsonl.BlockThinking:
					thought()
				case jsonl.BlockToolUse:
					own(Action, int32(k), st.group)
					g.actions = append(g.actions, st.first+st.n-1)
				}
			}
			if st.n == 0 {
				thought() // a line with no text, thinking or tool call still stands for its message
			}
		}
	}
	for _, i := range summaries {
		st := &b.rs[i]
		if p := b.pa(i); p >= 0 && isCompaction(b.rs[p].rec) && b.rs[p].n > 0 {
			st.shared = b.rs[p].first
			b.nodes[st.shared].more = append(b.nodes[st.shared].more, i)
			continue
		}
		st.class = cSystem
		st.first = b.newNode(nodeB{kind: System, rec: i, block: -1, group: -1, action: -1})
		st.n = 1
	}
}

func isCompaction(r *session.Rec) bool {
	return r.Type == "system" && (r.Subtype == "compact_boundary" || r.LogicalParent != "")
}

// blockNode returns the creation index of the node record i made for block k, or -1.
func (b *builder) blockNode(i int32, k int32) int32 {
	st := &b.rs[i]
	for n := st.first; n >= 0 && n < st.first+st.n; n++ {
		if b.nodes[n].block == k {
			return n
		}
	}
	return -1
}

// useNode returns the ACTION of the first tool_use block with this id, or -1.
func (b *builder) useNode(id string) int32 {
	var best session.ToolRef
	for _, t := range b.s.Uses(id) {
		if best.Rec == nil || session.Before(t.Rec, best.Rec) {
			best = t
		}
	}
	if best.Rec == nil {
		return -1
	}
	i := b.idxOf(best.Rec)
	if i < 0 {
		return -1
	}
	return b.blockNode(i, int32(best.Block))
}

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
		if n.kind != Observation {
			continue
		}
		blk := &b.rs[n.rec].rec.Blocks[n.block]
		if blk.ToolUseID == "" {
			continue
		}
		a := b.useNode(blk.ToolUseID)
		if a < 0 || b.nodes[a].kind != Action {
			continue
		}
		n.action, n.group = a, b.nodes[a].group
		if n.group >= 0 {
			g := &b.groups[n.group]
			g.obs = append(g.obs, int32(k))
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
		if g := b.resultGroup(p); g >= 0 && len(b.groups[g].obs) > 0 {
			return b.groups[g].obs
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
		p := b.pa(i)
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
				if !slices.Contains(g.entry, src) {
					g.entry = append(g.entry, src)
				}
			}
		case cResults:
			srcs := b.exits(p)
			for n := st.first; n < st.first+st.n; n++ {
				if b.nodes[n].action >= 0 && b.sameMessage(p, b.nodes[n].group) {
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
		if g.thought >= 0 {
			for _, src := range g.entry {
				b.edge(src, g.thought, edgeFlow)
			}
			for _, a := range g.actions {
				b.edge(g.thought, a, edgeFlow)
			}
			continue
		}
		for _, src := range g.entry {
			for _, a := range g.actions {
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
		if r.Err != nil || r.LogicalParent == "" || st.class == cNone {
			continue
		}
		lp := b.s.Lookup(r.LogicalParent)
		if lp == nil {
			continue
		}
		li := b.idxOf(lp)
		if li < 0 || b.nna[li] < 0 {
			continue
		}
		b.edge(b.lastNode(b.nna[li]), b.primary(int32(i)), edgeCompact)
	}
}

// activeBranches finds the real forks and marks the records of abandoned branches inactive.
func (b *builder) activeBranches() {
	n := len(b.rs)
	// turnKey: a person's prompt is its own turn; an assistant line that starts its message along
	// the chain starts the message's turn. 0: the record starts no turn.
	turnKey := func(i int32) int64 {
		st := &b.rs[i]
		switch {
		case st.turn:
			return int64(i) + 1
		case st.class == cAssistant:
			if p := b.pa(i); p < 0 || !b.sameMessage(p, st.group) {
				return -int64(st.group) - 1
			}
		}
		return 0
	}
	// ft: the turn a record's subtree starts with (its own, else its first child's that has one).
	ft := make([]int64, n)
	for k := len(b.order) - 1; k >= 0; k-- {
		i := b.order[k]
		if t := turnKey(i); t != 0 {
			ft[i] = t
			continue
		}
		for _, c := range b.children(i) {
			if ft[c] != 0 && !b.rs[c].apiError {
				ft[i] = ft[c]
				break
			}
		}
	}
	ownTurn := func(p int32) int64 {
		if b.rs[p].class == cAssistant {
			return -int64(b.rs[p].group) - 1
		}
		return 0
	}
	// eligible: a child that starts a turn of its own at p (API-error retries, other files'
	// records, the continuation of p's own message and a sub-agent kept in the main log starting
	// at its call's record are structure).
	eligible := func(p, c int32) bool {
		return ft[c] != 0 && ft[c] != ownTurn(p) && !b.rs[c].apiError && b.fileOf(c) == b.fileOf(p) &&
			b.rs[c].rec.Has(jsonl.FlagSidechain) == b.rs[p].rec.Has(jsonl.FlagSidechain)
	}
	forkFiles := map[*fileIndex]bool{}
	for i := range b.rs {
		kids := b.children(int32(i))
		if len(kids) < 2 {
			continue
		}
		var seen int64
		for _, c := range kids {
			if !eligible(int32(i), c) {
				continue
			}
			if seen == 0 {
				seen = ft[c]
			} else if ft[c] != seen {
				b.rs[i].fork = true
				forkFiles[b.fileOf(int32(i))] = true
				break
			}
		}
	}
	winner := map[int32]int32{}
	if len(forkFiles) > 0 {
		// The child of a fork that stays active is the one whose subtree holds the latest record
		// of the fork's file: walk up from the file's records, latest first; the first eligible
		// child to reach the fork wins.
		stamp := make([]int32, n)
		for _, fi := range b.files {
			if !forkFiles[fi] {
				continue
			}
			mark := int32(fi.no) + 1
			for i := fi.end - 1; i >= fi.start; i-- {
				if stamp[i] == mark {
					continue
				}
				stamp[i] = mark
				for c, j := i, b.rs[i].parent; j >= 0; c, j = j, b.rs[j].parent {
					if b.rs[j].fork && eligible(j, c) {
						if _, ok := winner[j]; !ok && b.fileOf(j) == fi {
							winner[j] = c
						}
					}
					if stamp[j] == mark {
						break
					}
					stamp[j] = mark
				}
			}
		}
	}
	for _, i := range b.order {
		st := &b.rs[i]
		p := st.parent
		if p < 0 {
			st.active = true
			continue
		}
		st.active = b.rs[p].active
		if w, ok := winner[p]; ok && st.active && eligible(p, i) && ft[i] != ft[w] {
			st.active = false
		}
	}
}
