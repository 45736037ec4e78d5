package lsp

import (
	"context"
	"net/url"

	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

// *Preview Resume* (docs/spec.md §13): `ccdag/resumePreview` {textDocument} answers what `claude
// --resume` sends of the session, as text linked line by line to the main log (the same text as
// `ccdag resume`), and the figures (`resume`, null when Claude Code cannot resume it: then the
// text says why).
const methodResumePreview = "ccdag/resumePreview"

type resumePreview struct {
	resume.Preview
	Resume *resume.Result `json:"resume"`
}

func previewOf(s *session.Session, res *resume.Result, uri string) resumePreview {
	m := s.Main()
	switch {
	case m == nil:
		return resumePreview{Preview: resume.Preview{Text: "Claude Code cannot resume this session: its main log is not here (only sub-agent logs).\n", Lines: []resume.PreviewLine{}}}
	case m.NotJSONL():
		return resumePreview{Preview: resume.Preview{Text: "Claude Code cannot resume this file: it is not a session log (not JSON Lines).\n", Lines: []resume.PreviewLine{}}}
	case res == nil:
		return resumePreview{Preview: resume.Preview{Text: "Claude Code cannot resume this log: it holds no user or assistant record to resume.\n", Lines: []resume.PreviewLine{}}}
	}
	p := resume.Render(m, res, uri)
	if p.Lines == nil {
		p.Lines = []resume.PreviewLine{}
	}
	for i := range p.Lines { // the editor opens them by LSP's lines (a bare '\r' above moves them)
		p.Lines[i].Line = int(position.StartLine(m, p.Lines[i].Line))
	}
	return resumePreview{Preview: p, Resume: res}
}

// resumePreviewOpen (worker) previews an open session's resume from its cached chain.
func resumePreviewOpen(_ context.Context, ss *sess, _ *document, _ docRequest) (any, error) {
	uri := ""
	if m := ss.session.Main(); m != nil {
		uri = ss.uriOf(m)
	}
	return masked(ss.mask(), previewOf(ss.session, ss.resumed(), uri))
}

// resumePreviewClosed previews the resume of a log that is not open, read from disk.
func resumePreviewClosed(ctx context.Context, srv *server, p docRequest) (any, error) {
	s, err := loadClosed(ctx, p.docURI(), srv.hooks.maxFileBytes)
	if err != nil {
		return nil, err
	}
	uri := ""
	if m := s.Main(); m != nil {
		uri = (&url.URL{Scheme: "file", Path: m.Path}).String()
	}
	return masked(srv.closedMask(s), previewOf(s, resume.ComputeWith(s, srv.claudeVersion()), uri))
}
