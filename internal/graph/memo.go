package graph

import (
	"sync"

	"github.com/ccdag/ccdag/internal/session"
)

// Memo carries work from one Build of a session to the next: what each node takes from its own
// records (label, timestamp, uuids, tool ids, UTF-16 columns) and its JSON with the fields that
// depend on the rest of the session, and, when the session only grew, what the classification of
// records made of the old ones. A record never changes once parsed (an edited line becomes a new
// *session.Rec), so a pointer names content: a session that grew by a few records rebuilds its
// graph reading only those. The language server rebuilds a live session's graph after every
// append. Entries of records no longer in the session are dropped as builds go by. A Memo serves
// one session; builds that share it are serialised.
type Memo struct {
	mu   sync.Mutex
	m    map[memoKey]*memoEntry
	gen  uint32
	used int
	// The entries of the last build by node creation index, and this build's: nodes are created
	// in session order, so after an append most are where they were and found without hashing.
	prev, next []*memoEntry
	uris       map[*session.File]string // the URI strings of the last build
	// The last build's records in build order (empty while a build runs), the parents it resolved
	// for them (index into recs, -1 for none), and what classify made of them: a build whose
	// first records are all of these (a session that only grew) reuses what still holds.
	recs    []*session.Rec
	parents []int32
	cls     classState
}

// classState is what classify made of the records of the last build (see classify).
type classState struct {
	info   []classInfo
	groups []groupHead // the message groups after classify
	table  *groupTable
	last   lastGroup
}

type classInfo struct {
	class          recClass
	turn, apiError bool
	usage          bool
	group          int32
}

type groupHead struct {
	usage int32
	model string
}

type memoKey struct {
	rec   *session.Rec
	block int32
}

type memoEntry struct {
	key  memoKey
	kind Kind
	gen  uint32
	done bool // static is made
	// static holds what the node takes from its own records.
	static staticFields
	// recs are a THOUGHT's records (all lines of its message), which static was made from.
	recs []*session.Rec
	// The fields set per build as they were when enc, the node's JSON, was made: a node whose
	// fields did not change is not encoded again.
	dyn dynamic
	enc []byte
}

// staticFields are what a node takes from its own records: label, timestamp, uuids, tool name and
// id, a result's status, and its range's columns (c0, c1).
type staticFields struct {
	label, timestamp, toolName, toolUseID, status string
	uuids                                         []string
	c0, c1                                        uint32
}

// dynamic holds the fields of a node that depend on the rest of the session.
type dynamic struct {
	pos                       int32 // the node's position, that is its id
	active                    bool
	lane, model, toolName     string
	status                    string
	location                  Location
	inputTokens, outputTokens int64
	durationMs                int64 // -1: none
}

func dynamicOf(n *Node, pos int32) dynamic {
	d := dynamic{pos: pos, active: n.Active, lane: n.Lane, model: n.Model, toolName: n.ToolName, status: n.Status,
		location: n.Location, inputTokens: n.InputTokens, outputTokens: n.OutputTokens, durationMs: -1}
	if n.DurationMs != nil {
		d.durationMs = *n.DurationMs
	}
	return d
}

// NewMemo returns an empty memo.
func NewMemo() *Memo {
	return &Memo{m: map[memoKey]*memoEntry{}, uris: map[*session.File]string{}}
}

func (m *Memo) lock() { m.mu.Lock() }

// begin starts a build of a graph of this many nodes.
func (m *Memo) begin(nodes int) {
	m.gen++
	m.used = 0
	m.next = make([]*memoEntry, nodes)
}

// end drops the entries the build did not use once they outnumber the used ones.
func (m *Memo) end() {
	if len(m.m) > 2*m.used+1024 {
		for k, e := range m.m {
			if e.gen != m.gen {
				delete(m.m, k)
			}
		}
	}
	m.prev, m.next = m.next, nil
	if len(m.uris) > 64 {
		clear(m.uris) // files closed or replaced over time
	}
	m.mu.Unlock()
}

// entry returns the entry of node k, made from (rec, block), of kind kind, marked as used by this
// build, and whether it held anything (a new or reset entry is empty).
func (m *Memo) entry(k int32, rec *session.Rec, block int32, kind Kind) (*memoEntry, bool) {
	key := memoKey{rec, block}
	var e *memoEntry
	if int(k) < len(m.prev) && m.prev[k] != nil && m.prev[k].key == key {
		e = m.prev[k]
	} else if e = m.m[key]; e == nil {
		e = &memoEntry{key: key, kind: kind}
		m.m[key] = e
	}
	if e.kind != kind {
		*e = memoEntry{key: key, kind: kind}
	}
	e.gen = m.gen
	m.used++
	if int(k) < len(m.next) {
		m.next[k] = e
	}
	return e, e.done
}

// Len returns the number of entries (for tests).
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
