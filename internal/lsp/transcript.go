package lsp

import (
	"context"
	"slices"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/tokens"
	"github.com/ccdag/ccdag/internal/transcript"
)

// The transcript (docs/spec.md §7): `ccdag/transcript` and the `ccdag.transcript` command. Built on
// the session's worker from the session's graph (cached per version); the builder keeps the
// document up to its checkpoint, so a live session's transcript after an append renders only what
// follows. Its result shares the builder's buffer until the next build: it is replied (encoded)
// on the worker, before any other build.

const (
	methodTranscript  = "ccdag/transcript"
	commandTranscript = "ccdag.transcript"
)

// reading is what the reading features (transcript, code lens, folding, inlay hints) keep per
// session, owned by its worker.
type reading struct {
	transcript *transcript.Builder
	tokens     map[*session.File]*tokens.File
	turns      map[*session.File]*turnIndex
}

func (ss *sess) readingState() *reading {
	if ss.reading == nil {
		ss.reading = &reading{transcript: transcript.NewBuilder(), tokens: map[*session.File]*tokens.File{}}
	}
	return ss.reading
}

type transcriptParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	AllBranches   bool            `json:"allBranches"`
	WorkDoneToken json.RawMessage `json:"workDoneToken"`
}

func (p transcriptParams) docURI() string { return p.TextDocument.URI }

var transcriptRoute = needsURI(onSession(transcriptOpen, transcriptClosed))

// transcriptArgs reads `ccdag.transcript`'s arguments: [uri] or [{"textDocument":{"uri"}, "allBranches"}].
func transcriptArgs(args []json.RawMessage) transcriptParams {
	var p transcriptParams
	if len(args) > 0 {
		if json.Unmarshal(args[0], &p.TextDocument.URI) != nil {
			var o struct {
				transcriptParams
				URI string `json:"uri"`
			}
			if json.Unmarshal(args[0], &o) == nil {
				p = o.transcriptParams
				if p.TextDocument.URI == "" {
					p.TextDocument.URI = o.URI
				}
			}
		}
	}
	return p
}

// transcriptClosed renders the transcript of a log that is not open, read from disk.
func transcriptClosed(ctx context.Context, srv *server, p transcriptParams) (any, error) {
	uri := p.TextDocument.URI
	s, err := loadClosed(ctx, uri, srv.hooks.maxFileBytes)
	if err != nil {
		return nil, err
	}
	if m := s.Main(); m != nil && m.NotJSONL() {
		return transcript.NotJSONL(m.Path, uri), nil
	}
	m := srv.closedMask(s)
	return masked(m, lspLines(transcript.Build(s, graph.Build(s), transcript.Options{AllBranches: p.AllBranches, Mask: m}), s, fileuri.FromPath))
}

// transcriptOpen (worker) renders the transcript of an open session.
func transcriptOpen(_ context.Context, ss *sess, d *document, p transcriptParams) (any, error) {
	f, err := ss.file(d)
	if err != nil {
		return nil, err
	}
	if f.NotJSONL() {
		return transcript.NotJSONL(f.Path, p.TextDocument.URI), nil
	}
	g := ss.current(p.WorkDoneToken)
	m := ss.mask() // prose masked before it is escaped (Options.Mask), the whole result after
	return masked(m, lspLines(ss.readingState().transcript.Build(ss.session, g, transcript.Options{AllBranches: p.AllBranches, Mask: m}), ss.session, ss.clientURI))
}

// lspLines gives a transcript's map to the logs in LSP's lines, by which the editor opens them (a
// bare '\r' above a record moves it down); uri names a file as the graph it was built from did.
// A copy: the builder keeps its result's buffers for the next build.
func lspLines(res *transcript.Result, s *session.Session, uri func(path string) string) *transcript.Result {
	moved := bareCRFiles(s, uri)
	if moved == nil {
		return res
	}
	out := *res
	out.Lines = slices.Clone(res.Lines)
	for i, l := range out.Lines {
		if f := moved[l.URI]; f != nil {
			out.Lines[i].Line = int(position.StartLine(f, l.Line))
		}
	}
	return &out
}

// bareCRFiles are the session's files that hold a bare '\r', by the URI uri names them with; nil
// when none does (then LSP's lines are the log's).
func bareCRFiles(s *session.Session, uri func(path string) string) map[string]*session.File {
	var moved map[string]*session.File
	for _, f := range s.Files {
		if len(f.BareCRs()) > 0 {
			if moved == nil {
				moved = map[string]*session.File{}
			}
			moved[uri(f.Path)] = f
		}
	}
	return moved
}
