package lsp

import (
	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonrpc"
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

func (srv *server) transcript(r *request) {
	var p transcriptParams
	if !r.decode(&p) {
		return
	}
	srv.transcriptFor(r, p)
}

// transcriptCommand runs `ccdag.transcript` with arguments [uri] or [{"textDocument":{"uri"}, "allBranches"}].
func (srv *server) transcriptCommand(r *request, args []json.RawMessage) {
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
	srv.transcriptFor(r, p)
}

func (srv *server) transcriptFor(r *request, p transcriptParams) {
	uri := p.TextDocument.URI
	if uri == "" {
		r.replyErr(jsonrpc.InvalidParams, "%s needs textDocument.uri", r.method)
		return
	}
	opt := transcript.Options{AllBranches: p.AllBranches}
	d := srv.doc(uri)
	if d == nil {
		r.replyLater()
		go srv.fromDisk(r, uri, func(s *session.Session) any {
			if m := s.Main(); m != nil && m.NotJSONL() {
				return transcript.NotJSONL(m.Path, uri)
			}
			return transcript.Build(s, graph.Build(s), opt)
		})
		return
	}
	srv.withDoc(r, uri, func(ss *sess, f *session.File) {
		if f.NotJSONL() {
			r.reply(transcript.NotJSONL(f.Path, uri), nil)
			return
		}
		g := ss.current(p.WorkDoneToken)
		r.reply(ss.readingState().transcript.Build(ss.s, g, opt), nil)
	})
}
