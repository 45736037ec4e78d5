package lsp

import (
	"context"
	"os"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// The workflow graph (docs/spec.md §4): `ccdag/workflowGraph` and the `ccdag.workflowGraph` command. It is
// built on the session's worker (the session is not safe for concurrent use), cached until the
// session changes, and reported with work done progress when the session is large. A live session
// changes many times a second and its graph is over a megabyte of JSON, so: rebuilds reuse the
// per-record work of the last build (graph.Memo), the JSON is encoded once per version, and it is
// written to the client as it is (the cache and when it is rebuilt: graphcache.go). A document that
// is not open is read from disk on a goroutine of its own.

// docRequest are the params of a request that names a document and nothing more.
type docRequest struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
}

func (p docRequest) docURI() string { return p.TextDocument.URI }

type graphParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	WorkDoneToken json.RawMessage `json:"workDoneToken"`
	// MaxNodes is the node budget of the graph (absent: graph.DefaultMaxNodes; 0 or less: none).
	// Past it the graph is collapsed (graph.Collapsed) and its "collapsed" field says how.
	MaxNodes *int `json:"maxNodes"`
	// Format "text" asks for the graph drawn as text (graph.Text): textGraph.
	Format string `json:"format"`
}

func (p graphParams) docURI() string { return p.TextDocument.URI }

// textGraph is the graph request's result for "format": "text": the drawing every editor shows
// (`ccdag graph --format text`) and, for each line that shows a node, where its record is.
type textGraph struct {
	Text  string           `json:"text"`
	Lines []graph.TextLine `json:"lines"`
}

func encodeText(g *graph.Graph) (jsonrpc.Encoded, error) {
	text, lines := graph.Text(g)
	if lines == nil {
		lines = []graph.TextLine{}
	}
	return json.Marshal(textGraph{Text: text, Lines: lines})
}

// maxNodes is the budget a request asked for.
func (p *graphParams) maxNodes() int {
	if p.MaxNodes == nil {
		return graph.DefaultMaxNodes
	}
	return max(0, *p.MaxNodes)
}

var workflowGraph = needsURI(onSession(graphOpen, graphClosed))

// graphClosed draws the graph of a log that is not open, read from disk, its secrets hidden.
func graphClosed(ctx context.Context, srv *server, p graphParams) (jsonrpc.Encoded, error) {
	s, err := loadClosed(ctx, p.TextDocument.URI, srv.hooks.maxFileBytes)
	if err != nil {
		return nil, err
	}
	g := graph.BuildDrawn(s, graph.Options{}, graph.CollapseOptions{MaxNodes: p.maxNodes()})
	if p.Format == "text" {
		b, err := encodeText(g)
		return srv.closedMask(s).Bytes(b), err
	}
	return jsonrpc.Encoded(srv.closedMask(s).Bytes(graphJSON(nil, g, g, check.New(s).Kept(srv.severities()), bareCRFiles(s, fileuri.FromPath)))), nil
}

// graphOpen (worker) returns the graph of an open session, encoded, its secrets hidden (the
// cache keeps it as built: the mask applies to each reply).
func graphOpen(ctx context.Context, ss *sess, d *document, p graphParams) (jsonrpc.Encoded, error) {
	b, err := graphEncoded(ctx, ss, d, p)
	return ss.mask().Bytes(b), err
}

// graphEncoded (worker) returns the graph of an open session, encoded, from the cache when it
// holds it.
func graphEncoded(_ context.Context, ss *sess, _ *document, p graphParams) (jsonrpc.Encoded, error) {
	maxNodes, token := p.maxNodes(), p.WorkDoneToken
	if p.Format == "text" {
		return encodeText(ss.drawn(token, maxNodes))
	}
	if maxNodes > 0 && ss.graph.small != nil && ss.graph.smallMax == maxNodes && ss.graph.smallVer == ss.session.Version {
		return ss.graph.small, nil
	}
	if _, fresh := ss.cached(); maxNodes > 0 && !fresh && ss.session.RecordCount() > maxNodes {
		// Likely over budget, and no full graph to collapse: draw it without making the nodes
		// it does not draw (a session of a million records: 5 000 nodes, not a million).
		p := ss.srv.beginProgress(token, "Building the workflow graph", sessionBytes(ss.session))
		dg := graph.BuildDrawn(ss.session, graph.Options{URI: ss.clientURI}, graph.CollapseOptions{MaxNodes: maxNodes})
		p.End("")
		if dg.Collapsed != nil {
			ss.graph.small, ss.graph.smallMax, ss.graph.smallVer = graphJSON(nil, dg, dg, ss.chk.Kept(ss.srv.severities()), bareCRFiles(ss.session, ss.clientURI)), maxNodes, ss.session.Version
			return ss.graph.small, nil
		}
		ss.setCurrent(dg) // it fits: it is the full graph
	}
	g := ss.current(token)
	if maxNodes > 0 && len(g.Nodes) > maxNodes {
		cg := graph.Collapsed(g, graph.CollapseOptions{MaxNodes: maxNodes})
		ss.graph.small, ss.graph.smallMax, ss.graph.smallVer = graphJSON(nil, g, cg, ss.chk.Kept(ss.srv.severities()), bareCRFiles(ss.session, ss.clientURI)), maxNodes, ss.session.Version
		return ss.graph.small, nil
	}
	if ss.graph.raw == nil {
		// The last version's bytes are free to reuse: every reply is written before the
		// worker's next job.
		buf := ss.graph.spare[:0]
		if len(ss.graph.spare) > cap(buf)-cap(buf)/16 {
			buf = make([]byte, 0, cap(buf)+cap(buf)/8+4096) // the graph grows with its session
		}
		ss.graph.raw = graphJSON(buf, g, g, ss.chk.Kept(ss.srv.severities()), bareCRFiles(ss.session, ss.clientURI))
	}
	return ss.graph.raw, nil
}

// drawn (worker) is the session's graph drawn within maxNodes (0: all of it).
func (ss *sess) drawn(token json.RawMessage, maxNodes int) *graph.Graph {
	if _, fresh := ss.cached(); maxNodes > 0 && !fresh && ss.session.RecordCount() > maxNodes {
		p := ss.srv.beginProgress(token, "Building the workflow graph", sessionBytes(ss.session))
		dg := graph.BuildDrawn(ss.session, graph.Options{URI: ss.clientURI}, graph.CollapseOptions{MaxNodes: maxNodes})
		p.End("")
		if dg.Collapsed != nil {
			return dg
		}
		ss.setCurrent(dg) // it fits: it is the full graph
	}
	g := ss.current(token)
	if maxNodes > 0 && len(g.Nodes) > maxNodes {
		return graph.Collapsed(g, graph.CollapseOptions{MaxNodes: maxNodes})
	}
	return g
}

// graphJSON appends the workflow graph's result to buf: drawn, the full graph g or a graph drawn
// of it with less (graph.Collapsed, graph.BuildDrawn: then g may be drawn itself), with each drawn
// node's diagnostics for the viewer's problem markers (docs/graph.md). The nodes' ranges are in
// LSP's lines (moved: the files holding a bare '\r', bareCRFiles).
func graphJSON(buf []byte, g, drawn *graph.Graph, findings []check.Finding, moved map[string]*session.File) []byte {
	return graph.AppendProblems(graph.AppendJSON(buf, lspGraph(drawn, moved)), graph.ProblemsDrawn(g, drawn, findings))
}

// lspGraph is g with its nodes' ranges in LSP's lines, where the builder counts lines at '\n' as
// `ccdag graph` prints them (docs/spec.md §3): a copy when a node's file holds a bare '\r'. The
// text drawing keeps the log's lines: the editors that show it (Neovim, Emacs) count lines so.
func lspGraph(g *graph.Graph, moved map[string]*session.File) *graph.Graph {
	if moved == nil {
		return g
	}
	nodes := slices.Clone(g.Nodes)
	for i := range nodes {
		loc := &nodes[i].Location
		if f := moved[loc.URI]; f != nil {
			loc.Range = lspRange(f, loc.Range)
		}
	}
	// What AppendJSON encodes; the indexes are the builder's.
	return &graph.Graph{Session: g.Session, Lanes: g.Lanes, Nodes: nodes, Edges: g.Edges, Collapsed: g.Collapsed}
}

// lspRange maps a range in the log's lines (UTF-16 columns) to LSP's lines.
func lspRange(f *session.File, r position.Range) position.Range {
	at := func(p position.Pos) position.Pos {
		l := min(int(p.Line), f.LineCount()-1)
		if l < 0 {
			return p
		}
		return position.At(f, l, position.ByteOffset(f.Line(l), p.Character))
	}
	return position.Range{Start: at(r.Start), End: at(r.End)}
}

// loadClosed reads the session of a log that is not open from disk (a request about it runs apart).
func loadClosed(ctx context.Context, uri string, limit int64) (*session.Session, error) {
	path, ok := uriToPath(uri)
	if !ok || !strings.HasSuffix(path, ".jsonl") {
		// docs/spec.md §5: only session logs are read, never another file a client names.
		return nil, invalidParams("document is not open and not a session log (.jsonl file): %s", uri)
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, invalidParams("document is not open and cannot be read: %s", uri)
	}
	found, err := layout.Discover(path)
	var s *session.Session
	if err == nil {
		s, err = layout.LoadFound(found, found.ReaderMax(limit))
	}
	if err != nil {
		return nil, invalidParams("cannot read the session of %s: %v", uri, err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return s, nil
}

// commandParams are workspace/executeCommand's.
type commandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken"`
}

// executeCommand runs a server command through the route of the request it stands for.
func executeCommand(srv *server, r *request, p commandParams) error {
	switch p.Command {
	case commandWorkflowGraph:
	case commandTranscript:
		return transcriptRoute(srv, r, transcriptArgs(p.Arguments))
	case commandParent:
		pp, err := parentArgs(p.Arguments)
		if err != nil {
			return err
		}
		return parentRoute(srv, r, pp)
	default:
		return invalidParams("unknown command %q (the server has %s, %s and %s)", p.Command, commandWorkflowGraph, commandTranscript, commandParent)
	}
	if len(p.Arguments) == 0 {
		return invalidParams("%s needs the document's URI as its argument", commandWorkflowGraph)
	}
	// The URI as a string, or {"uri": ...}, or {"textDocument": {"uri": ...}} (which may carry
	// "maxNodes"); a second argument {"maxNodes": N} sets the budget too.
	var uri string
	var gp graphParams
	if json.Unmarshal(p.Arguments[0], &uri) != nil {
		var o struct {
			URI string `json:"uri"`
			graphParams
		}
		if json.Unmarshal(p.Arguments[0], &o) == nil {
			uri, gp = o.URI, o.graphParams
			if uri == "" {
				uri = o.TextDocument.URI
			}
		}
	}
	if len(p.Arguments) > 1 {
		json.Unmarshal(p.Arguments[1], &gp)
	}
	gp.TextDocument.URI, gp.WorkDoneToken = uri, p.WorkDoneToken
	return workflowGraph(srv, r, gp)
}
