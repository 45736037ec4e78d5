package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

// Diagnostics are pushed for every open document of a session after any change to the session,
// with the document's version and a non-nil list (empty when clean), and cleared on close. The
// library's PublishDiagnosticsParams drops version 0 (omitempty on a uint32) and sends a nil list
// as null, so the wire types are our own.

// publishDiagnosticsParams is local: protocol.PublishDiagnosticsParams drops version 0 (Version is
// a uint32 with omitempty), which Neovim sends.
type publishDiagnosticsParams struct {
	URI         string                `json:"uri"`
	Version     *int32                `json:"version,omitempty"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// maxPerCode is how many findings of one code per file reach the editor; past it, one more
// finding says how many were left out (a crafted file can hold millions: an editor is not a list
// of them, and `ccdag check` gives them all). The Checker keeps no more than that
// (check.MaxPerCode, session.MaxLineErrors) and says how many more itself: this is a second guard.
const maxPerCode = 1000

// diagnostics (worker) converts the findings of one file.
func (ss *sess) diagnostics(f *session.File, sev check.Severities) []protocol.Diagnostic {
	fs := ss.chk.File(f, sev)
	resume.Annotate(fs, ss.resumed) // what a finding on the resumed chain costs (computed only then)
	out := make([]protocol.Diagnostic, 0, min(len(fs), 4*maxPerCode))
	var m position.Mapper
	perCode := map[check.Code]int{}
	var over []check.Finding // the first finding of each code left out
	for _, fd := range fs {
		if fd.More == 0 { // a finding standing for more is the Checker's own cap saying so
			perCode[fd.Code]++
		}
		if n := perCode[fd.Code]; n > maxPerCode {
			if n == maxPerCode+1 {
				over = append(over, fd)
			}
			continue
		}
		d := protocol.Diagnostic{
			Range:    mappedRange(&m, f, fd.Line, fd.Span.Start, fd.Span.End),
			Severity: protocol.DiagnosticSeverity(fd.Severity),
			Code:     string(fd.Code),
			Source:   "ccdag",
			Message:  fd.Message,
		}
		for _, rel := range fd.Related {
			if rel.File == nil {
				continue
			}
			d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: protocol.DocumentURI(ss.uriOf(rel.File)), Range: mappedRange(&m, rel.File, rel.Line, rel.Span.Start, rel.Span.End)},
				Message:  rel.Message,
			})
		}
		out = append(out, d)
	}
	for _, fd := range over {
		out = append(out, protocol.Diagnostic{
			Range:    mappedRange(&m, f, fd.Line, fd.Span.Start, fd.Span.End),
			Severity: protocol.DiagnosticSeverity(fd.Severity),
			Code:     string(fd.Code),
			Source:   "ccdag",
			Message: fmt.Sprintf("%d more %s findings in this file, from here on, are not shown (the first %d are); `ccdag check` lists them all",
				perCode[fd.Code]-maxPerCode, fd.Code, maxPerCode),
		})
	}
	return out
}

// publishAll (worker) sends the diagnostics of every open document of the session.
func (ss *sess) publishAll() {
	srv := ss.srv
	srv.mu.Lock()
	docs := make([]*document, 0, len(ss.docs))
	pending := map[*document]bool{}
	for _, d := range ss.docs {
		docs = append(docs, d)
		pending[d] = d.pending
	}
	sev := srv.sev
	srv.mu.Unlock()
	for _, d := range docs {
		if !d.opened {
			continue // its open job is still queued: it publishes then
		}
		f := ss.session.File(d.path)
		if f == nil {
			continue
		}
		var v *int32 // read from disk for ccdag/willOpen (pending): no version of the client's yet
		if !pending[d] {
			v = new(int32)
			*v = d.version
		}
		srv.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: d.uri, Version: v, Diagnostics: ss.diagnostics(f, sev)})
		if srv.hooks.afterPublish != nil {
			srv.hooks.afterPublish(d.uri)
		}
	}
}
