package lsp

import (
	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// Diagnostics are pushed for every open document of a session after any change to the session,
// with the document's version and a non-nil list (empty when clean), and cleared on close. The
// library's PublishDiagnosticsParams drops version 0 (omitempty on a uint32) and sends a nil list
// as null, so the wire types are our own.

type publishParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type location struct {
	URI   string         `json:"uri"`
	Range position.Range `json:"range"`
}

type relatedInfo struct {
	Location location `json:"location"`
	Message  string   `json:"message"`
}

type diagnostic struct {
	Range              position.Range `json:"range"`
	Severity           int            `json:"severity"`
	Code               string         `json:"code"`
	Source             string         `json:"source"`
	Message            string         `json:"message"`
	RelatedInformation []relatedInfo  `json:"relatedInformation,omitempty"`
}

// spanRange returns the range of a line-relative span of line l of f; a zero span is the line.
func spanRange(f *session.File, l int, start, end int32) position.Range {
	if l < 0 || l >= f.LineCount() {
		p := position.FromOffset(f, len(f.Text()))
		return position.Range{Start: p, End: p}
	}
	line := f.Line(l)
	if start == 0 && end == 0 {
		end = int32(len(line))
	}
	return position.SpanRange(l, line, int(start), int(end))
}

// diagnostics (worker) converts the findings of one file.
func (ss *sess) diagnostics(f *session.File, sev check.Severities) []diagnostic {
	fs := ss.chk.File(f, sev)
	out := make([]diagnostic, 0, len(fs))
	for _, fd := range fs {
		d := diagnostic{
			Range:    spanRange(f, fd.Line, fd.Span.Start, fd.Span.End),
			Severity: int(fd.Severity),
			Code:     string(fd.Code),
			Source:   "ccdag",
			Message:  fd.Message,
		}
		for _, rel := range fd.Related {
			if rel.File == nil {
				continue
			}
			d.RelatedInformation = append(d.RelatedInformation, relatedInfo{
				Location: location{URI: ss.uriOf(rel.File), Range: spanRange(rel.File, rel.Line, rel.Span.Start, rel.Span.End)},
				Message:  rel.Message,
			})
		}
		out = append(out, d)
	}
	return out
}

// publishAll (worker) sends the diagnostics of every open document of the session.
func (ss *sess) publishAll() {
	srv := ss.srv
	srv.mu.Lock()
	docs := make([]*document, 0, len(ss.docs))
	for _, d := range ss.docs {
		docs = append(docs, d)
	}
	sev := srv.sev
	srv.mu.Unlock()
	for _, d := range docs {
		if !d.opened {
			continue // its open job is still queued: it publishes then
		}
		f := ss.s.File(d.path)
		if f == nil {
			continue
		}
		v := d.version
		srv.notify("textDocument/publishDiagnostics", publishParams{URI: d.uri, Version: &v, Diagnostics: ss.diagnostics(f, sev)})
		if srv.hooks.afterPublish != nil {
			srv.hooks.afterPublish(d.uri)
		}
	}
}
