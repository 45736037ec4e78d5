// Package transcript renders a session as a Markdown document a person can read (docs/spec.md §7):
// a title and summary, one heading per user turn with the prompt quoted, the assistant's text,
// thinking folded, each tool call on one line with its result shortened, sub-agent runs nested
// under their call, compactions and abandoned branches marked, and every heading and call linked
// to its log line. A line map says which transcript line comes from which log line.
//
// It reads the session through its workflow graph (one classifier, one notion of turns, lanes and
// branches for graph, outline and transcript). All log text is untrusted: it goes into inline code
// spans or fenced blocks (mdsafe), never into Markdown or HTML of its own.
//
// A Builder keeps the document from one build to the next: a record never changes once parsed, so
// after an append that only extends the session it renders from its checkpoint (the last prompt or
// assistant message of the main lane) on, and the header; the rest stays where it is.
package transcript

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/mdsafe"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/tokens"
)

// Limits on how much of one piece of log text the transcript shows (a pasted prompt can be 2 MB).
const (
	promptMax   = 16 << 10
	textMax     = 64 << 10
	thinkingMax = 16 << 10
	resultLines = 3
	resultBytes = 600
)

// Line maps a transcript line to the log line it comes from (both 0-based). Lines between two
// entries belong to the earlier one.
type Line struct {
	Transcript int    `json:"transcript"`
	URI        string `json:"uri"`
	Line       int    `json:"line"`
}

// Result is the answer of `ccdag/transcript`. A Builder's result shares the builder's buffers: it
// is valid until the builder's next Build (the language server encodes it before that).
type Result struct {
	Markdown string `json:"markdown"`
	Lines    []Line `json:"lines"`
}

// Options adjust a build.
type Options struct {
	AllBranches bool // also render abandoned branches (marked); by default they are one line each
	// Mask, when not nil, hides the session's secrets from prose (prompts, replies, thinking)
	// before it is escaped: the escapes (`ghp\_…`) cut a secret into pieces, and a mask run on the
	// escaped text would leave the pieces shorter than 8 bytes (the caller masks the result too,
	// for what is not prose). A build keeps what the last one rendered only under the same mask
	// (the same pointer: a caller gives the same one while what it hides is the same).
	Mask *secrets.Mask
}

// Builder renders transcripts of one session. After an append that extends the session (its
// files only grew at their ends, and what they grew by comes after the last prompt or assistant
// message of the main lane: the checkpoint), a build keeps the document up to the checkpoint and
// renders only the rest: the header (written in room kept before the body), the checkpoint's
// node and what follows it. Anything else (an edit, a new branch, a result or a sub-agent record
// under an earlier call, a sub-agent log whose call is not in the session, other options) is a
// full build.
type Builder struct {
	tokens map[*session.File]*tokens.File
	buf    []byte // [room | header | body]: Markdown is buf[start:]
	start  int
	lines  []Line
	hdr    asm                       // the header, written before it is placed
	st     *state                    // what the next build may keep; nil: it is a full build
	full   bool                      // the last build was a full one
	tail   int                       // nodes the last build walked
	Stats  func(full bool, tail int) // for benchmarks and tests, nil otherwise
}

// state is what an incremental build needs of the last one: the files as they were, and a
// checkpoint: the last prompt or assistant message of the main lane.
type state struct {
	s        *session.Session
	opt      Options
	room     int // the body starts at buf[room]
	hdrLines int
	hdrMarks int
	files    map[*session.File]fileMark
	k        int          // the checkpoint's node: its index in g.Nodes
	kRec     *session.Rec // its record and kind
	kKind    graph.Kind
	body     int               // len(buf) before its heading
	nlines   int               // len(lines) before it
	n        int               // transcript lines before it
	turn     int               // turns before it
	head     headState         // the header's figures over g.Nodes[:k]
	lanes    map[string]string // lanes spawned before it (their titles)
}

type fileMark struct {
	lines    int
	last     *session.Rec
	rewrites uint64
	recs     int // records before the last line
}

// NewBuilder returns a builder for one session. Builds that share it are serialised by the caller.
func NewBuilder() *Builder {
	return &Builder{tokens: map[*session.File]*tokens.File{}}
}

// Build renders the transcript of s from its graph g (built from s as it is now).
func Build(s *session.Session, g *graph.Graph, opt Options) *Result {
	return NewBuilder().Build(s, g, opt)
}

// Build renders the transcript, keeping what the last build rendered up to its checkpoint when the
// session only grew after it.
func (b *Builder) Build(s *session.Session, g *graph.Graph, opt Options) *Result {
	b.full = b.st == nil || !b.incremental(s, g, opt)
	if b.full {
		b.fullBuild(s, g, opt)
	}
	if b.Stats != nil {
		b.Stats(b.full, b.tail)
	}
	return &Result{Markdown: unsafe.String(&b.buf[b.start], len(b.buf)-b.start), Lines: b.lines}
}

// lastCheckpoint returns the index of the last node of the main lane where an incremental build
// may start rendering again, or -1: an active prompt or assistant message (what comes before it
// is done: the calls before it have their results, the sub-agents they spawned have ended).
func lastCheckpoint(g *graph.Graph, from int) int {
	for i := len(g.Nodes) - 1; i >= from; i-- {
		if n := &g.Nodes[i]; checkpointNode(n) {
			return i
		}
	}
	return -1
}

func checkpointNode(n *graph.Node) bool {
	return (n.Kind == graph.UserInput || n.Kind == graph.Thought) && n.Lane == graph.MainLane && n.Active && n.Rec != nil
}

// nodeIndex returns the index of the node with this id in g, or -1.
func nodeIndex(g *graph.Graph, id string) int {
	if id == "" {
		return -1
	}
	return g.Index(g.Node(id))
}

func (b *Builder) fullBuild(s *session.Session, g *graph.Graph, opt Options) {
	k := lastCheckpoint(g, 0)
	var head, headK headState
	parents := map[string]int{}
	parentOf := func(lane string) int {
		p, ok := parents[lane]
		if !ok {
			p = -1
			if l := g.Lane(lane); l != nil {
				p = nodeIndex(g, l.ParentNode)
			}
			parents[lane] = p
		}
		return p
	}
	ok := k >= 0
	for i := range g.Nodes {
		if i == k {
			headK = head.clone()
		}
		n := &g.Nodes[i]
		head.add(n)
		if i < k && n.Lane != graph.MainLane && parentOf(n.Lane) >= k {
			ok = false // a sub-agent's node before its call: not kept
		}
	}
	marks := make(map[*session.File]fileMark, len(s.Files))
	records := 0
	for _, f := range s.Files {
		m := mark(f, fileMark{})
		marks[f] = m
		records += m.count(f)
	}
	b.header(s, g, &head, records)
	room := len(b.hdr.buf) + 512
	need := room + max(len(b.buf)-b.start, len(g.Nodes)*448) + 64<<10
	if cap(b.buf) < need || cap(b.buf) > 2*need {
		b.buf = make([]byte, room, need)
	}
	b.buf = b.buf[:room]
	b.lines = append(b.lines[:0], b.hdr.lines...)
	if cap(b.lines) > 4*len(g.Nodes)+1024 {
		b.lines = slices.Clip(b.lines)
	}
	out := &asm{buf: b.buf, n: b.hdr.n, lines: b.lines}
	r := newRun(g, opt, out, 0, k)
	r.lane(graph.MainLane, "")
	// Lanes no call spawned (an agent log whose call is not in the session) follow at the end.
	for i := range g.Lanes {
		l := &g.Lanes[i]
		if l.ID != graph.MainLane && !r.done[l.ID] && (l.ParentNode == "" || g.Node(l.ParentNode) == nil) {
			out.text("")
			// The heading leads to the log's first record, as a spawned agent's does (else an
			// editor's jump from it lands on the line marked before: the main log's).
			loc := ""
			if nodes := r.lanes[l.ID]; len(nodes) > 0 && nodes[0].Rec != nil {
				loc = " · " + link(nodes[0].Location.URI, nodes[0].Rec.Line)
				out.mark(nodes[0].Location.URI, nodes[0].Rec.Line)
			}
			// No call's result names it: a call the user rejected may have started it, so the
			// heading does not say that there is no call.
			out.text("## ↳ sub-agent " + mdsafe.Code(laneTitle(l)) + " (no call in the session names it)" + loc)
			r.lane(l.ID, "")
			ok = false
		}
	}
	b.buf, b.lines = out.buf, out.lines
	b.start = room - len(b.hdr.buf)
	copy(b.buf[b.start:], b.hdr.buf)
	b.tail = len(g.Nodes)
	b.st = nil
	if !ok || r.cp == nil {
		return
	}
	st := &state{s: s, opt: opt, room: room, hdrLines: b.hdr.n, hdrMarks: len(b.hdr.lines), k: k, kRec: g.Nodes[k].Rec, kKind: g.Nodes[k].Kind,
		body: r.cp.body, nlines: r.cp.nlines, n: r.cp.n, turn: r.cp.turn, head: headK, lanes: map[string]string{}}
	for i := range g.Lanes {
		if l := &g.Lanes[i]; l.ID != graph.MainLane {
			if p := nodeIndex(g, l.ParentNode); p >= 0 && p < k {
				st.lanes[l.ID] = laneTitle(l)
			}
		}
	}
	st.files = marks
	b.st = st
}

// mark returns the mark of f as it is now, given its mark m from before it grew (the zero mark:
// count from the start).
func mark(f *session.File, m fileMark) fileMark {
	n := f.LineCount()
	from := max(0, m.lines-1)
	recs := m.recs
	for i := from; i < n-1; i++ {
		if f.Rec(i) != nil {
			recs++
		}
	}
	var last *session.Rec
	if n > 0 {
		last = f.Rec(n - 1)
	}
	return fileMark{lines: n, last: last, rewrites: f.Rewrites(), recs: recs}
}

// count returns the file's records as session.File.RecordCount counts them, from its mark.
func (m fileMark) count(f *session.File) int {
	n := m.recs
	if m.last != nil && !m.last.Incomplete() {
		n++
	}
	return n
}

// incremental renders the transcript keeping the document up to the last build's checkpoint, or
// reports that it cannot (then nothing was changed that a full build does not write again).
func (b *Builder) incremental(s *session.Session, g *graph.Graph, opt Options) bool {
	st := b.st
	if st.s != s || st.opt != opt || st.k >= len(g.Nodes) {
		return false
	}
	if kn := &g.Nodes[st.k]; kn.Rec != st.kRec || kn.Kind != st.kKind || !checkpointNode(kn) {
		return false
	}
	// The files only grew, and every record they grew by made nodes at or after the checkpoint.
	known, records := 0, 0
	marks := make(map[*session.File]fileMark, len(s.Files))
	for _, f := range s.Files {
		from := 0
		m, ok := st.files[f]
		if ok {
			known++
			if f.Rewrites() != m.rewrites || f.LineCount() < m.lines {
				return false
			}
			from = m.lines
			if m.lines > 0 && f.Rec(m.lines-1) != m.last {
				from--
			}
		}
		for i := from; i < f.LineCount(); i++ {
			if rec := f.Rec(i); rec != nil {
				for _, n := range g.NodesOf(rec) {
					if g.Index(n) < st.k {
						return false
					}
				}
			}
		}
		m = mark(f, m)
		marks[f] = m
		records += m.count(f)
	}
	if known != len(st.files) {
		return false
	}
	// Sub-agents: those spawned before the checkpoint are the same (and have no new node), the
	// others hang from a call after it.
	for i := range g.Lanes {
		l := &g.Lanes[i]
		if l.ID == graph.MainLane {
			continue
		}
		p := nodeIndex(g, l.ParentNode)
		title, before := st.lanes[l.ID]
		switch {
		case p < 0:
			return false
		case p < st.k && (!before || title != laneTitle(l)):
			return false
		case p >= st.k && before:
			return false
		}
	}
	head := st.head.clone()
	k := lastCheckpoint(g, st.k)
	var headK headState
	for i := st.k; i < len(g.Nodes); i++ {
		if i == k {
			headK = head.clone()
		}
		n := &g.Nodes[i]
		head.add(n)
		if n.Lane != graph.MainLane {
			if _, before := st.lanes[n.Lane]; before {
				return false
			}
		}
	}
	b.header(s, g, &head, records)
	if b.hdr.n != st.hdrLines || len(b.hdr.lines) != st.hdrMarks || len(b.hdr.buf) > st.room {
		return false
	}
	out := &asm{buf: b.buf[:st.body], n: st.n, lines: append(b.lines[:0], b.hdr.lines...)[:st.nlines]}
	r := newRun(g, opt, out, st.k, k)
	r.turn = st.turn
	// A result after the checkpoint whose call is before it is rendered under that call.
	for i := st.k; i < len(g.Nodes); i++ {
		n := &g.Nodes[i]
		if n.Kind != graph.Observation || r.answered[i-st.k] || n.ToolUseID == "" {
			continue
		}
		for _, u := range s.Uses(n.ToolUseID) {
			if a := g.BlockNode(u.Rec, u.Block); a != nil && g.Index(a) < st.k {
				return false
			}
		}
	}
	r.lane(graph.MainLane, "")
	b.buf, b.lines = out.buf, out.lines
	b.start = st.room - len(b.hdr.buf)
	copy(b.buf[b.start:], b.hdr.buf)
	b.tail = len(g.Nodes) - st.k
	if k > st.k && r.cp != nil {
		for i := range g.Lanes {
			if l := &g.Lanes[i]; l.ID != graph.MainLane {
				if p := nodeIndex(g, l.ParentNode); p >= st.k && p < k {
					st.lanes[l.ID] = laneTitle(l)
				}
			}
		}
		for i := st.k; i < k; i++ {
			if n := &g.Nodes[i]; n.Lane != graph.MainLane && nodeIndex(g, g.Lane(n.Lane).ParentNode) >= k {
				b.st = nil // a sub-agent's node before its call
				return true
			}
		}
		st.k, st.kRec, st.kKind, st.head = k, g.Nodes[k].Rec, g.Nodes[k].Kind, headK
		st.body, st.nlines, st.n, st.turn = r.cp.body, r.cp.nlines, r.cp.n, r.cp.turn
	}
	st.files = marks
	return true
}

// headState is what the header counts over the graph's nodes.
type headState struct {
	title  string
	person bool // the title is a prompt the person wrote (not a slash command)
	turns  int
	models []string
}

func (h *headState) clone() headState {
	c := *h
	c.models = slices.Clone(h.models)
	return c
}

func (h *headState) add(n *graph.Node) {
	if n.Lane == graph.MainLane && n.Kind == graph.UserInput {
		h.turns++
		if h.title == "" || !h.person && classify.User(n.Rec) == classify.Person {
			h.title, h.person = n.Label, classify.User(n.Rec) == classify.Person
		}
	}
	if n.Model != "" && n.Model != "<synthetic>" && !slices.Contains(h.models, n.Model) {
		h.models = append(h.models, n.Model)
	}
}

// asm assembles the document and its line map.
type asm struct {
	buf   []byte
	n     int // lines written
	lines []Line
}

func (a *asm) text(s string) {
	a.buf = append(a.buf, s...)
	a.buf = append(a.buf, '\n')
	a.n++
}

func (a *asm) mark(uri string, line int) {
	a.lines = append(a.lines, Line{Transcript: a.n, URI: uri, Line: line})
}

// nested writes lines with the nesting prefix.
type nested struct {
	a      *asm
	prefix string
	mask   *secrets.Mask // Options.Mask
}

func (x *nested) line(s string) {
	x.a.buf = append(x.a.buf, x.prefix...)
	x.a.buf = append(x.a.buf, s...)
	x.a.buf = append(x.a.buf, '\n')
	x.a.n++
}

// fenced writes s as a fenced code block.
func (x *nested) fenced(s string) {
	var n int
	x.a.buf, n = mdsafe.AppendFenced(x.a.buf, x.prefix, s)
	x.a.n += n
}

// prose writes s as Markdown text (mdsafe.Text: every punctuation character escaped, so no link,
// HTML, heading or fence can start), each line led by the prefix: prose reads as prose, not as a
// grey code box, and says nothing but what the log says. Its secrets are masked before it is
// escaped (Options.Mask), while each is still whole.
func (x *nested) prose(s string) {
	t := mdsafe.Text(proseBreaks.Replace(strings.TrimRight(x.mask.String(s), "\n")))
	x.a.buf = append(x.a.buf, x.prefix...)
	for {
		i := strings.IndexByte(t, '\n')
		if i < 0 {
			break
		}
		x.a.buf = append(x.a.buf, t[:i+1]...)
		x.a.buf = append(x.a.buf, x.prefix...)
		x.a.n++
		t = t[i+1:]
	}
	x.a.buf = append(x.a.buf, t...)
	x.a.buf = append(x.a.buf, '\n')
	x.a.n++
}

// proseBreaks: the line breaks a fenced block keeps (AppendFenced) are line breaks in prose too,
// and a tab is four spaces (Printable would show it as an escape).
var proseBreaks = strings.NewReplacer("\u2028", "\n", "\u2029", "\n", "\u0085", "\n", "\t", "    ")

func (x *nested) ref(uri string, line int) { x.a.mark(uri, line) }

// link is a Markdown link to a log line; the destination is ccdag's own (a file URI, escaped).
func link(uri string, line int) string {
	return "[L" + strconv.Itoa(line+1) + "](<" + escapeURI(uri) + "#L" + strconv.Itoa(line+1) + ">)"
}

func escapeURI(u string) string {
	if !strings.ContainsAny(u, "<>() \n\r\\") {
		return u
	}
	r := strings.NewReplacer("<", "%3C", ">", "%3E", "(", "%28", ")", "%29", " ", "%20", "\n", "%0A", "\r", "%0D", "\\", "%5C")
	return r.Replace(u)
}

// run renders the nodes from index from on: lanes, the sub-agents calls spawned and the results
// that answer calls, all from g.Nodes[from:] and the edges leaving them.
type run struct {
	g        *graph.Graph
	opt      Options
	out      *asm
	from, k  int                      // the first node, the checkpoint's
	lanes    map[string][]*graph.Node // nodes by lane
	spawned  map[int][]*graph.Lane    // sub-agent lanes by the index of their call
	results  map[int][]int            // results by the index of their call
	answered []bool                   // by index - from: a result of a call
	done     map[string]bool
	turn     int
	cp       *checkpoint
}

type checkpoint struct{ body, nlines, n, turn int }

func newRun(g *graph.Graph, opt Options, out *asm, from, k int) *run {
	r := &run{g: g, opt: opt, out: out, from: from, k: k, lanes: map[string][]*graph.Node{},
		spawned: map[int][]*graph.Lane{}, results: map[int][]int{}, answered: make([]bool, len(g.Nodes)-from),
		done: map[string]bool{}}
	for i := from; i < len(g.Nodes); i++ {
		n := &g.Nodes[i]
		r.lanes[n.Lane] = append(r.lanes[n.Lane], n)
	}
	for i := range g.Lanes {
		if l := &g.Lanes[i]; l.ParentNode != "" {
			if p := nodeIndex(g, l.ParentNode); p >= from {
				r.spawned[p] = append(r.spawned[p], l)
			}
		}
	}
	// Edges are sorted by their source's index: those leaving nodes from on are the last ones.
	e0, _ := slices.BinarySearchFunc(g.Edges, from, func(e graph.Edge, from int) int {
		return cmp.Compare(nodeIndex(g, e.Source), from)
	})
	for k := e0; k < len(g.Edges); k++ {
		if e := &g.Edges[k]; e.Kind == graph.Tool {
			a, o := nodeIndex(g, e.Source), nodeIndex(g, e.Target)
			if a >= from && o >= from {
				r.results[a] = append(r.results[a], o)
				r.answered[o-from] = true
			}
		}
	}
	return r
}

// lane renders one lane's nodes, sub-agent lanes nested under the calls that spawned them.
func (r *run) lane(id, prefix string) {
	if r.done[id] {
		return
	}
	r.done[id] = true
	skipped := 0
	var skipFrom *graph.Node
	flush := func() {
		if skipped > 0 {
			r.out.mark(skipFrom.Location.URI, skipFrom.Rec.Line)
			r.out.text(prefix + "- ⎇ *abandoned branch* from " + link(skipFrom.Location.URI, skipFrom.Rec.Line) +
				" (" + strconv.Itoa(skipped) + " steps not shown; `--all-branches` shows them)")
			skipped = 0
		}
	}
	wasActive := true
	for _, n := range r.lanes[id] {
		if n.Rec == nil {
			continue
		}
		i := r.g.Index(n)
		if n.Kind == graph.Observation && r.answered[i-r.from] {
			continue // rendered under its call
		}
		if !n.Active && !r.opt.AllBranches {
			if skipped == 0 {
				skipFrom = n
			}
			skipped++
			continue
		}
		flush()
		if i == r.k && id == graph.MainLane {
			r.cp = &checkpoint{body: len(r.out.buf), nlines: len(r.out.lines), n: r.out.n, turn: r.turn}
		}
		if !n.Active && wasActive {
			r.out.mark(n.Location.URI, n.Rec.Line)
			r.out.text(prefix + "- ⎇ **abandoned branch** from " + link(n.Location.URI, n.Rec.Line) + ":")
		}
		wasActive = n.Active
		r.node(n, prefix)
		if n.Kind == graph.Action {
			for _, l := range r.spawned[i] {
				r.agent(l, prefix+"  ")
			}
			for _, o := range r.results[i] {
				r.node(&r.g.Nodes[o], prefix+"  ")
			}
		}
	}
	flush()
}

func (r *run) agent(l *graph.Lane, prefix string) {
	nodes := r.lanes[l.ID]
	loc := ""
	if len(nodes) > 0 && nodes[0].Rec != nil {
		loc = " · " + link(nodes[0].Location.URI, nodes[0].Rec.Line)
		r.out.mark(nodes[0].Location.URI, nodes[0].Rec.Line)
	}
	r.out.text(prefix + "> **↳ sub-agent** " + mdsafe.Code(laneTitle(l)) + loc)
	r.out.text(prefix + ">")
	r.lane(l.ID, prefix+"> ")
	r.out.text(prefix + ">")
	r.out.text(prefix + "> **↲ end of sub-agent** " + mdsafe.Code(laneTitle(l)))
}

func laneTitle(l *graph.Lane) string {
	if l.SubagentType != "" && l.SubagentType != l.Label {
		return l.SubagentType + ": " + l.Label
	}
	return l.Label
}

// node renders one node.
func (r *run) node(n *graph.Node, prefix string) {
	if n.Kind == graph.UserInput && n.Lane == graph.MainLane {
		r.turn++
	}
	x := &nested{a: r.out, prefix: prefix, mask: r.opt.Mask}
	uri, line := n.Location.URI, n.Rec.Line
	abandoned := ""
	if !n.Active {
		abandoned = " *(abandoned)*"
	}
	switch n.Kind {
	case graph.UserInput:
		x.line("")
		x.ref(uri, line)
		prompt := classify.Prompt(n.Rec, promptMax)
		if n.Lane == graph.MainLane {
			x.line("## Turn " + strconv.Itoa(r.turn) + " · " + mdsafe.Code(mdsafe.Shorten(n.Label, 60)) + " · " + link(uri, line) + abandoned)
		} else {
			x.line("**Prompt** · " + link(uri, line))
		}
		if prompt == "" {
			prompt = promptText(n.Rec)
		}
		x.line("")
		quote(x, prompt, promptMax)
		x.line("")
	case graph.Thought:
		for _, rec := range n.Records() {
			if rec.Has(jsonl.FlagContentString) && rec.D().ContentSpan.Valid() {
				x.ref(uri, rec.Line)
				block(x, text(rec.Bytes(rec.D().ContentSpan), textMax))
			}
			for k := range rec.D().Blocks {
				blk := &rec.D().Blocks[k]
				if !blk.BodySpan.Valid() {
					continue
				}
				switch blk.Kind {
				case jsonl.BlockText:
					x.ref(uri, rec.Line)
					block(x, text(rec.Bytes(blk.BodySpan), textMax))
				case jsonl.BlockThinking:
					t := text(rec.Bytes(blk.BodySpan), thinkingMax)
					if strings.TrimSpace(t) == "" {
						continue // an empty (or redacted) thinking block says nothing
					}
					x.ref(uri, rec.Line)
					x.line("<details><summary>thinking (L" + strconv.Itoa(rec.Line+1) + ")</summary>")
					x.line("")
					x.prose(t)
					x.line("")
					x.line("</details>")
					x.line("")
				}
			}
		}
	case graph.Action:
		x.ref(uri, line)
		x.line("- ▸ " + mdsafe.Code(n.Label) + " · " + link(uri, line) + abandoned)
	case graph.Observation:
		x.ref(uri, line)
		mark := "✓"
		if n.Status == "failure" {
			mark = "✗ **error**"
		}
		if n.DurationMs != nil {
			mark += " " + Duration(*n.DurationMs)
		}
		head, rest := resultPreview(n.Rec, n.Block)
		more := ""
		if rest > 0 {
			more = " · " + Size(rest) + " more not shown"
		}
		x.line("- " + mark + " · " + link(uri, line) + more)
		if head != "" {
			x.prefix += "  "
			x.fenced(head)
			x.prefix = prefix
		}
	case graph.System:
		x.ref(uri, line)
		if isCompaction(n.Rec) {
			x.line("")
			x.line("---")
			x.line("")
			x.line("### ⟲ Compaction · " + link(uri, line) + abandoned)
			x.line("")
			x.line(mdsafe.Code(n.Label))
			x.line("")
		} else {
			mark := "⚙"
			if n.Status == "failure" {
				mark = "✗"
			}
			x.line("- " + mark + " " + mdsafe.Code(n.Label) + " · " + link(uri, line) + abandoned)
		}
	}
}

func isCompaction(r *session.Rec) bool {
	return r.Type == "system" && (r.D().Subtype == "compact_boundary" || r.D().LogicalParent != "")
}

// quote writes a prompt as quoted Markdown text (escaped: it reads as typed, nothing more).
func quote(x *nested, s string, max int) {
	p := x.prefix
	x.prefix += "> "
	x.prose(classify.Cut(s, max))
	x.prefix = p
}

// block writes a reply's text as a paragraph of Markdown text (escaped), nothing when blank.
func block(x *nested, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	x.line("")
	x.prose(s)
	x.line("")
}

// promptText is what a user record says: its string content, or its text blocks ("[image]" for
// images).
func promptText(r *session.Rec) string {
	if r.Has(jsonl.FlagContentString) && r.D().ContentSpan.Valid() {
		return text(r.Bytes(r.D().ContentSpan), promptMax)
	}
	var parts []string
	for k := range r.D().Blocks {
		blk := &r.D().Blocks[k]
		switch {
		case blk.Kind == jsonl.BlockText && blk.BodySpan.Valid():
			parts = append(parts, text(r.Bytes(blk.BodySpan), promptMax))
		case blk.Kind == jsonl.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n\n")
}

// text decodes a JSON string value (quotes included), at most max bytes of it, saying how much
// was left out. Invalid UTF-8 is left as it is: everything text gives goes through mdsafe (prose
// or a fenced block), which writes each invalid byte as U+FFFD.
func text(raw []byte, max int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if len(body) <= max {
		return jsonscan.Unescape(body)
	}
	// Do not cut an escape in half.
	k := max
	for j := k - 1; j >= 0 && j >= k-6; j-- {
		if body[j] == '\\' {
			k = j
			break
		}
	}
	return classify.Cut(jsonscan.Unescape(body[:k]), max) + "\n… (" + Size(len(body)-k) + " more)"
}

// resultPreview returns a tool result's first lines, and the size of the rest (in the log's bytes).
func resultPreview(r *session.Rec, block int) (head string, rest int) {
	if block < 0 || block >= len(r.D().Blocks) || !r.D().Blocks[block].BodySpan.Valid() {
		return "", 0
	}
	raw := r.Bytes(r.D().Blocks[block].BodySpan)
	if len(raw) > 0 && raw[0] == '[' {
		raw = firstText(raw)
		if raw == nil {
			return "[image or other content]", 0
		}
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", 0
	}
	body := raw[1 : len(raw)-1]
	s := text(raw, resultBytes*2)
	s, _, _ = strings.Cut(s, "\n… (")
	s = strings.TrimRight(s, "\n")
	for i, k := 0, 0; i < len(s); i++ {
		if s[i] == '\n' {
			if k++; k == resultLines {
				s = s[:i]
				break
			}
		}
	}
	head = classify.Cut(s, resultBytes)
	shown := len(head) // decoded bytes; the rest is measured in the log's (escaped) bytes
	if shown < len(body) {
		rest = len(body) - min(len(body), rawLen(body, shown))
	}
	return head, rest
}

// rawLen returns how many escaped bytes of body decode to n bytes (an approximation that errs on
// the long side: escapes count double).
func rawLen(body []byte, n int) int {
	i, got := 0, 0
	for i < len(body) && got < n {
		if body[i] == '\\' && i+1 < len(body) {
			if body[i+1] == 'u' {
				i += 6
				got += 3
				continue
			}
			i += 2
			got++
			continue
		}
		i++
		got++
	}
	return min(i, len(body))
}

// firstText returns the first "text" string of a content array, or nil.
func firstText(raw []byte) []byte {
	var found []byte
	jsonscan.ArrayElems(raw, 0, func(start int) (int, error) {
		end, err := jsonscan.ValueEnd(raw, start)
		if err != nil || found != nil || raw[jsonscan.SkipSpace(raw, start)] != '{' {
			return end, err
		}
		jsonscan.ObjectFields(raw, start, func(key []byte, v int) (int, error) {
			e, err := jsonscan.ValueEnd(raw, v)
			if err == nil && string(key) == "text" {
				vs := jsonscan.SkipSpace(raw, v)
				if raw[vs] == '"' {
					found = raw[vs:e]
				}
			}
			return e, err
		})
		return end, nil
	})
	return found
}

// Duration writes milliseconds as "120 ms", "3.4 s", "2 min 5 s".
func Duration(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
	case ms < 3_600_000:
		return strconv.FormatInt(ms/60_000, 10) + " min " + strconv.FormatInt(ms%60_000/1000, 10) + " s"
	}
	return strconv.FormatInt(ms/3_600_000, 10) + " h " + strconv.FormatInt(ms%3_600_000/60_000, 10) + " min"
}

// Size writes a byte count as "950 B", "2.1 KB", "3.4 MB".
func Size(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// NotJSONL is the whole transcript of a file that is not JSON Lines (docs/spec.md §2 not-jsonl):
// a message saying so, nothing from its content.
func NotJSONL(path, uri string) *Result {
	return &Result{
		Markdown: "# Not a session log\n\n" + mdsafe.Code(filepath.Base(path)) +
			" is not JSON Lines (none of its first lines is a JSON object): it has no transcript.\n",
		Lines: []Line{{Transcript: 0, URI: uri, Line: 0}},
	}
}
