package lsp

import (
	"time"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/session"
)

// The cache of a session's workflow graph and when it is built (its policy, in one place): on the
// session's worker, after an open for a session up to graphSyncBytes (warmGraph), when a request
// asks for it and the session changed since, and for a hover under the rules of hoverGraph. The
// graph requests (graph.go) keep its encodings here too.

// graphSyncBytes is the size up to which a session's graph is kept current for hovers;
// hoverGraphAge how old the last graph may be for a hover on a record it knows.
const (
	graphSyncBytes = 16 << 20
	hoverGraphAge  = time.Second
)

type graphCache struct {
	g        *graph.Graph
	version  uint64
	valid    bool
	raw      []byte // g encoded, once asked for: clients poll the graph of unchanged sessions
	small    []byte // the session drawn within smallMax nodes and encoded, once asked for
	smallMax int
	smallVer uint64      // the session's version small was drawn from
	spare    []byte      // the last encoding made, whose buffer the next one reuses
	memo     *graph.Memo // per-record work kept across builds of this session
	built    time.Time
}

func (c *graphCache) invalidate() { c.valid = false }

// dropEncoded forgets the encoded graphs (the graph stays): they are made again when asked for.
func (c *graphCache) dropEncoded() {
	if c.raw != nil {
		c.spare = c.raw
	}
	c.raw, c.small = nil, nil
}

// current (worker) returns the graph of the session as it is now, building it when needed
// (reporting progress on token, or on a token of the server's when the session is large).
func (ss *sess) current(token json.RawMessage) *graph.Graph { return ss.currentWith(token, true) }

func (ss *sess) currentWith(token json.RawMessage, report bool) *graph.Graph {
	if ss.graph.valid && ss.graph.version == ss.session.Version && ss.graph.g != nil {
		return ss.graph.g
	}
	if h := ss.srv.hooks.beforeGraph; h != nil {
		h()
	}
	p := &progress{}
	if report {
		p = ss.srv.beginProgress(token, "Building the workflow graph", sessionBytes(ss.session))
	}
	if ss.graph.memo == nil && ss.graph.g != nil {
		// A second build: the session changes, and the memo (about a third of the session's
		// size) pays for itself from the next one. Sessions built once never hold one.
		ss.graph.memo = graph.NewMemo()
	}
	g := graph.BuildWith(ss.session, graph.Options{URI: ss.clientURI, Memo: ss.graph.memo})
	p.End("")
	ss.setCurrent(g)
	return g
}

// setCurrent (worker) keeps g as the graph of the session as it is now.
func (ss *sess) setCurrent(g *graph.Graph) {
	spare := ss.graph.raw
	if spare == nil {
		spare = ss.graph.spare // rebuilt without being encoded (a hover): keep the older buffer
	}
	ss.graph = graphCache{g: g, version: ss.session.Version, valid: true, built: time.Now(), memo: ss.graph.memo, spare: spare,
		small: ss.graph.small, smallMax: ss.graph.smallMax, smallVer: ss.graph.smallVer}
}

// cached (worker) returns the last graph built, current or not (nil when none): records that did
// not change since keep their nodes in it.
func (ss *sess) cached() (*graph.Graph, bool) {
	return ss.graph.g, ss.graph.g != nil && ss.graph.valid && ss.graph.version == ss.session.Version
}

func sessionBytes(s *session.Session) int64 {
	var n int64
	for _, f := range s.Files {
		n += int64(len(f.Text()))
	}
	return n
}

// warmGraph (worker) queues a build of a small session's workflow graph behind its diagnostics:
// the first hover and the first graph request then find it made (hovers describe records by it).
func (ss *sess) warmGraph() {
	ss.do(nil, func() {
		if ss.session == nil || sessionBytes(ss.session) > graphSyncBytes {
			return
		}
		ss.currentWith(nil, false) // unasked for: no progress
	})
}

// hoverGraph (worker) returns the graph to describe record rec with: the current one when it is
// built; else the last one built when it knows rec and, for a small session, is under hoverGraphAge
// old (a live session's older records keep their node, kind and lane; a hover on a session that
// grows 50 times a second must not pay for a graph each time); else, for a small session, a new
// one (a rebuild reuses the last one's per-record work); else the last one, or nil.
func (ss *sess) hoverGraph(rec *session.Rec) *graph.Graph {
	g, fresh := ss.cached()
	if fresh {
		return g
	}
	small := sessionBytes(ss.session) <= graphSyncBytes
	if g != nil && g.LaneOf(rec) != nil && (!small || time.Since(ss.graph.built) < hoverGraphAge) {
		return g
	}
	if small {
		return ss.current(nil)
	}
	return g
}
