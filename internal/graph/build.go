package graph

import (
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"weak"

	"github.com/ccdag/ccdag/internal/fileuri"
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

// recFlags are facts of a record's line that several stages test: read once, with the record.
type recFlags uint8

const (
	fBad       recFlags = 1 << iota // not a record (LineErr)
	fSidechain                      // isSidechain, as the line says it (also on a bad line)
	fLogical                        // a record with a logicalParentUuid
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
	flags       recFlags // what the record's line says, read once (records)
	sharedFirst bool     // the shared node's blocks come before the record's own nodes
	usage       bool     // an assistant line with usage or a model: it may give them to its message
	turn        bool     // a person's prompt or slash command: starts a conversation turn
	apiError    bool
	active      bool
	fork        bool
}

type fileIndex struct {
	no      int
	lineIdx []int32 // record index per line, -1 for blank lines; nil when every line is a record
	start   int32   // first record index of the file
	end     int32
}

// rec returns the index of the record of line l, -1 for none.
func (fi *fileIndex) rec(l int) int32 {
	switch {
	case l < 0:
		return -1
	case fi.lineIdx == nil:
		if l < int(fi.end-fi.start) {
			return fi.start + int32(l)
		}
		return -1
	case l < len(fi.lineIdx):
		return fi.lineIdx[l]
	}
	return -1
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
	if fi == nil {
		return nil
	}
	i := fi.rec(r.Line)
	if i < 0 || x.rs[i].rec != r {
		return nil
	}
	return &x.rs[i]
}

// nodeDraft is a node under construction: 20 bytes, a million of them for a 1 M-record chain.
type nodeDraft struct {
	rec   int32 // primary record
	block int32 // content block of an ACTION / OBSERVATION, -1 otherwise
	group int32 // THOUGHT/ACTION: its message group; OBSERVATION: its ACTION's group; else -1
	// aux is an OBSERVATION's ACTION (-1 when unmatched); for a THOUGHT or a SYSTEM node, 1 + the
	// index in builder.more of its other records (-1 for none). One field for both: 4 MB a
	// million nodes.
	aux  int32
	kind nodeKind
}

// action is an OBSERVATION's ACTION, -1 when unmatched or not an OBSERVATION.
func (n *nodeDraft) action() int32 {
	if n.kind == kObservation {
		return n.aux
	}
	return -1
}

// nodeKind is a Kind in a byte.
type nodeKind uint8

const (
	kUserInput nodeKind = iota
	kThought
	kAction
	kObservation
	kSystem
)

var kindName = [...]Kind{UserInput, Thought, Action, Observation, System}

// Kind is the node kind's name.
func (k nodeKind) Kind() Kind { return kindName[k] }

// group is a message: the lines of an assistant message and what it links. 20 bytes: a chain of
// a million records has 500 000.
type group struct {
	thought int32
	usage   int32 // record whose usage counts for the message (-1: none)
	entry   int32 // the first node the message follows (flow source into it), -1; others in lists
	lists   int32 // index in builder.lists, -1 until the group has a list
	model   int32 // 1 + index in builder.models, 0: none
}

// groupLists are a message group's lists, apart so that a message with one entry and no tool
// call (a chain of half a million of them) holds none.
type groupLists struct {
	actions []int32
	obs     []int32 // OBSERVATIONs of the group's ACTIONs
	entry   []int32 // nodes the message follows after group.entry
}

type laneDraft struct {
	Lane
	file   *session.File
	root   int32 // sidechain lanes: the root record
	action int32 // spawning ACTION node, -1
	first  int32 // first node-making record, -1
	last   int32 // last node-making record (active preferred), -1
	lastIn bool  // last is active
}

type builder struct {
	kept       int // the first records, the last build's all of them (see records); 0 without a memo
	exitBuf    []int32
	s          *session.Session
	opt        Options
	x          *index
	rs         []recState
	files      []*fileIndex
	assistants int             // records of type "assistant"
	cols       position.Mapper // many calls or results on one line: the line is mapped once

	childStart   []int32
	childList    []int32
	order        []int32 // tree order: every record after its parent
	nodeAncestor []int32 // nearest node-making ancestor-or-self

	groups []group
	lists  []groupLists
	models []string         // the groups' models, escaped (textsafe.Printable)
	model  map[string]int32 // index in models
	nodes  []nodeDraft
	more   [][]int32 // nodeDraft.more: the records after a node's first
	edges  []uint64
	lanes  []laneDraft
	rank   []int32 // reading order of the records (see ranks)
	uuids  []string
	uris   map[*session.File]string
	spare  *scratch
}

// scratch keeps the arrays a stage is done with for later stages, and what a build is done with
// for the next build (leftovers): each array of a 1 M-record build is 4-20 MB of fresh memory,
// and a page fault costs ~12-19 us on the reference VM (1 ms a megabyte), as much as the work done
// in the array. A server asked again for a large session's graph (another budget, a grown log)
// made 120 MB anew each time.
type scratch struct {
	mu     sync.Mutex // tree and the classification take arrays side by side
	free   [][]int32
	words  [][]uint64
	nodes  []nodeDraft
	groups []group
}

// leftovers holds the scratch of the last finished build, weakly: the next build takes it unless
// the collector ran between (a sync.Pool keeps an item per processor, and a build on the other
// core found none half the time).
var leftovers struct {
	mu sync.Mutex
	w  weak.Pointer[scratch]
}

// takeScratch returns the leftovers, or a new scratch.
func takeScratch() *scratch {
	leftovers.mu.Lock()
	sp := leftovers.w.Value()
	leftovers.w = weak.Pointer[scratch]{}
	leftovers.mu.Unlock()
	if sp == nil || !takeLeftovers {
		return &scratch{}
	}
	return sp
}

// Tests set these: builds take no leftovers (a reference to compare with), arrays of undefined
// contents come filled with garbage (a read before a write shows).
var (
	takeLeftovers = true
	poisonScratch = false
)

// ints returns an array of n, its contents undefined.
func (s *scratch) ints(n int) []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := -1
	for k, a := range s.free {
		if cap(a) >= n && (best < 0 || cap(a) < cap(s.free[best])) {
			best = k
		}
	}
	var a []int32
	if best < 0 {
		a = make([]int32, n)
	} else {
		a = s.free[best][:n]
		s.free = slices.Delete(s.free, best, best+1)
	}
	if poisonScratch {
		for i := range a {
			a[i] = -0x5a5a5a5b
		}
	}
	return a
}

// zeros returns an array of n zeros.
func (s *scratch) zeros(n int) []int32 {
	a := s.ints(n)
	clear(a)
	return a
}

// done gives back arrays no stage reads again.
func (s *scratch) done(as ...[]int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range as {
		if cap(a) > 0 {
			s.free = append(s.free, a[:0])
		}
	}
}

// uint64s returns an array of n, its contents undefined (an empty one with room for n: [:0]).
func (s *scratch) uint64s(n int) []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := -1
	for k, a := range s.words {
		if cap(a) >= n && (best < 0 || cap(a) < cap(s.words[best])) {
			best = k
		}
	}
	var a []uint64
	if best < 0 {
		a = make([]uint64, n)
	} else {
		a = s.words[best][:n]
		s.words = slices.Delete(s.words, best, best+1)
	}
	if poisonScratch {
		for i := range a {
			a[i] = 0xa5a5a5a5a5a5a5a5
		}
	}
	return a
}

func (s *scratch) doneWords(as ...[]uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range as {
		if cap(a) > 0 {
			s.words = append(s.words, a[:0])
		}
	}
}

// nodeDrafts returns an empty array with room for n node drafts; groupArray one for n groups.
func (s *scratch) nodeDrafts(n int) []nodeDraft {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.nodes; cap(a) >= n {
		s.nodes = nil
		return a[:0]
	}
	return make([]nodeDraft, 0, n)
}

func (s *scratch) groupArray(n int) []group {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.groups; cap(a) >= n {
		s.groups = nil
		return a[:0]
	}
	return make([]group, 0, n)
}

// leave gives what the build is done with (its drafts, groups, edges and the dead arrays given) to
// the next build. Nothing of b but its index and its lanes is read after.
func (b *builder) leave(words []uint64, ints ...[]int32) {
	sp := b.spare
	b.spare = nil
	sp.done(ints...)
	sp.doneWords(words, b.edges)
	if cap(b.nodes) > cap(sp.nodes) {
		sp.nodes = b.nodes[:0]
	}
	if cap(b.groups) > cap(sp.groups) {
		sp.groups = b.groups[:0]
	}
	b.nodes, b.groups, b.edges = nil, nil, nil
	leftovers.mu.Lock()
	leftovers.w = weak.Make(sp)
	leftovers.mu.Unlock()
}

func newBuilder(s *session.Session, opt Options) *builder {
	b := &builder{s: s, opt: opt, x: &index{files: map[*session.File]*fileIndex{}}, uris: map[*session.File]string{}}
	if b.opt.URI == nil {
		b.opt.URI = fileuri.FromPath
	}
	b.spare = takeScratch()
	return b
}

func (b *builder) build() *Graph {
	b.prepare()
	g := b.finish()
	b.leave(nil)
	if m := b.opt.Memo; m != nil {
		// Only now: a build that panicked leaves no record list, so the next one reuses nothing.
		m.recs = m.recs[:0]
		for i := range b.rs {
			m.recs = append(m.recs, b.rs[i].rec)
		}
	}
	return g
}

// prepare makes the nodes, edges and lanes; finish (or BuildDrawn) orders and draws them.
func (b *builder) prepare() {
	b.records()
	// The tree (parents, children, order) and the classification (kinds, message groups) read
	// the records apart: on two cores, side by side.
	parallel(b.tree, b.classifyRecords)
	b.ancestors()
	b.makeNodes()
	// About one flow edge a node, and a tool edge an answered call: sized once, not grown by doubling.
	b.edges = b.spare.uint64s(len(b.nodes) + len(b.nodes)/2 + 16)[:0]
	b.linkTools()
	b.flowEdges()
	b.compactEdges()
	b.activeBranches()
	b.makeLanes()
	b.spare.done(b.childStart, b.childList, b.order, b.nodeAncestor)
	b.childStart, b.childList, b.order, b.nodeAncestor = nil, nil, nil, nil
}

// records gives every record of the session an index, in session order (file order, then line).
func (b *builder) records() {
	// Counted as they are appended (an incomplete last line too): a 40 MB array grown once by
	// doubling costs as much as the pass.
	n := 0
	counts := make([]int, len(b.s.Files))
	for no, f := range b.s.Files {
		f.Recs(func(*session.Rec) bool { counts[no]++; return true })
		n += counts[no]
	}
	b.rs = make([]recState, 0, n)
	for no, f := range b.s.Files {
		fi := &fileIndex{no: no, start: int32(len(b.rs))}
		if counts[no] != f.LineCount() { // blank lines: an index per line
			fi.lineIdx = make([]int32, f.LineCount())
			for i := range fi.lineIdx {
				fi.lineIdx[i] = -1
			}
		}
		f.Recs(func(r *session.Rec) bool {
			if r.Type == "assistant" {
				b.assistants++
			}
			if fi.lineIdx != nil {
				fi.lineIdx[r.Line] = int32(len(b.rs))
			}
			b.rs = append(b.rs, recState{rec: r, parent: -1, group: -1, shared: -1, first: -1, flags: flagsOf(r)})
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

// listsOf returns group g's lists, made on first use.
func (b *builder) listsOf(g int32) *groupLists {
	gr := &b.groups[g]
	if gr.lists < 0 {
		gr.lists = int32(len(b.lists))
		b.lists = append(b.lists, groupLists{})
	}
	return &b.lists[gr.lists]
}

// actions returns the ACTION nodes of group g; obs the OBSERVATIONs of them.
func (b *builder) actions(g int32) []int32 {
	if l := b.groups[g].lists; l >= 0 {
		return b.lists[l].actions
	}
	return nil
}

func (b *builder) obs(g int32) []int32 {
	if l := b.groups[g].lists; l >= 0 {
		return b.lists[l].obs
	}
	return nil
}

// moreOf returns the records of node k after its first.
func (b *builder) moreOf(k int32) []int32 {
	if n := &b.nodes[k]; (n.kind == kThought || n.kind == kSystem) && n.aux > 0 {
		return b.more[n.aux-1]
	}
	return nil
}

// addMore adds record i to the records of node k, a THOUGHT or a SYSTEM node.
func (b *builder) addMore(k, i int32) {
	n := &b.nodes[k]
	if n.aux <= 0 {
		b.more = append(b.more, nil)
		n.aux = int32(len(b.more))
	}
	b.more[n.aux-1] = append(b.more[n.aux-1], i)
}

// modelIndex returns the index of an escaped model name in b.models, plus one.
func (b *builder) modelIndex(m string) int32 {
	k, ok := b.model[m]
	if !ok {
		if b.model == nil {
			b.model = map[string]int32{}
		}
		b.models = append(b.models, m)
		k = int32(len(b.models))
		b.model[m] = k
	}
	return k
}

// modelOf returns group g's model, escaped, "" for none.
func (b *builder) modelOf(g *group) string {
	if g.model > 0 {
		return b.models[g.model-1]
	}
	return ""
}

// parallel runs f on another goroutine and g on this one, and returns when both are done. A
// panic in f is raised again here (with f's stack in its value), as one in g is.
func parallel(f, g func()) {
	done := make(chan any, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Sprintf("%v\n%s", p, debug.Stack())
				return
			}
			done <- nil
		}()
		f()
	}()
	defer func() {
		if p := <-done; p != nil {
			panic(p)
		}
	}()
	g()
}

func flagsOf(r *session.Rec) recFlags {
	var f recFlags
	if r.Has(jsonl.FlagSidechain) {
		f |= fSidechain
	}
	if r.LineErr() != nil {
		return f | fBad
	}
	if r.D().LogicalParent != "" {
		f |= fLogical
	}
	return f
}

func (b *builder) idxOf(r *session.Rec) int32 {
	fi := b.x.files[r.File]
	if fi == nil {
		return -1
	}
	return fi.rec(r.Line)
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
