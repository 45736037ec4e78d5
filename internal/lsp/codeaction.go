package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/repair"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Code actions (docs/spec.md §6, "In the editor"): the repairs of `ccdag fix` as WorkspaceEdits the
// person reviews and saves. A quickfix per repairable diagnostic, and source.fixAll.ccdag for the
// whole document (with the repairs of the session's other open files). The server never writes.

// kindFixAll is the fix-all kind of this server.
const kindFixAll protocol.CodeActionKind = "source.fixAll.ccdag"

// repairCache keeps a session's repairs until the session changes (editors ask on every cursor move).
type repairCache struct {
	version uint64
	valid   bool
	files   map[string]*repair.File // by path
}

// repairs (worker) returns the session's repairs by file path.
func (ss *sess) repairs() map[string]*repair.File {
	if !ss.repair.valid || ss.repair.version != ss.session.Version {
		m := map[string]*repair.File{}
		for _, rf := range repair.Session(ss.session, repair.Options{Checker: ss.chk}) {
			m[rf.Path] = rf
		}
		ss.repair = repairCache{version: ss.session.Version, valid: true, files: m}
	}
	return ss.repair.files
}

func wants(only []protocol.CodeActionKind, k protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if k == o || strings.HasPrefix(string(k), string(o)+".") {
			return true
		}
	}
	return false
}

// codeActionParams are the library's, with the document they name.
type codeActionParams struct{ protocol.CodeActionParams }

func (p codeActionParams) docURI() string { return string(p.TextDocument.URI) }

// codeActions returns the repairs of the findings in a range (quick fixes) and of a whole session
// (source.fixAll).
func codeActions(_ context.Context, ss *sess, f *session.File, p codeActionParams) ([]protocol.CodeAction, error) {
	ss.srv.mu.Lock()
	versioned := ss.srv.caps.documentChanges
	ss.srv.mu.Unlock()
	actions := []protocol.CodeAction{}
	fixes := ss.repairs()
	rf := fixes[f.Path]
	if rf != nil && wants(p.Context.Only, protocol.QuickFix) {
		first, last := lineAt(f, int64(p.Range.Start.Line)), lineAt(f, int64(p.Range.End.Line))
		for _, rp := range rf.Repairs {
			if rp.Line < first || rp.Line > last {
				continue
			}
			a := protocol.CodeAction{Title: textsafe.Printable(rp.Title), Kind: protocol.QuickFix, IsPreferred: true,
				Edit: ss.workspaceEdit(map[*session.File][]int{f: rp.Lines}, fixes, versioned)}
			for _, d := range p.Context.Diagnostics {
				if c, _ := d.Code.(string); c == string(rp.Code) && lineAt(f, int64(d.Range.Start.Line)) == rp.Line {
					a.Diagnostics = append(a.Diagnostics, d)
				}
			}
			actions = append(actions, a)
		}
	}
	actions = append(actions, ss.redactActions(f, p, versioned)...)
	if wants(p.Context.Only, kindFixAll) {
		lines := map[*session.File][]int{}
		n := 0
		for _, of := range ss.session.Files {
			orf := fixes[of.Path]
			if orf == nil || of != f && !ss.isOpen(of) {
				continue
			}
			for i, ch := range orf.Changed {
				if ch {
					lines[of] = append(lines[of], i)
				}
			}
			n += len(orf.Repairs)
		}
		if n > 0 {
			actions = append(actions, protocol.CodeAction{Title: fmt.Sprintf("Fix all ccdag findings that have a repair (%d)", n),
				Kind: kindFixAll, Edit: ss.workspaceEdit(lines, fixes, versioned)})
		}
	}
	if m := ss.mask(); !m.Empty() { // titles only: an edit is the log's own text (redactview.go)
		for i := range actions {
			actions[i].Title = m.String(actions[i].Title)
		}
	}
	return actions, nil
}

// isOpen (worker) reports whether the client has f open.
func (ss *sess) isOpen(f *session.File) bool {
	ss.srv.mu.Lock()
	defer ss.srv.mu.Unlock()
	d := ss.docs[f.Path]
	return d != nil && d.opened
}

// workspaceEdit replaces each named line of each file by what the repairs make of it: the whole
// line with its newline, so that inserted lines and removed ones are one edit each.
func (ss *sess) workspaceEdit(lines map[*session.File][]int, fixes map[string]*repair.File, versioned bool) *protocol.WorkspaceEdit {
	we := &protocol.WorkspaceEdit{}
	files := make([]*session.File, 0, len(lines))
	for f := range lines {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b *session.File) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
		rf := fixes[f.Path]
		ls := slices.Clone(lines[f])
		slices.Sort(ls)
		ls = slices.Compact(ls)
		var edits []protocol.TextEdit
		for _, i := range ls {
			if i >= len(rf.Out) || i >= f.LineCount() {
				continue
			}
			var text bytes.Buffer
			for _, l := range rf.Out[i] {
				text.Write(l)
			}
			// the line with its newline (a last line without one: up to its end)
			edits = append(edits, protocol.TextEdit{Range: fullLines(f, i, i), NewText: text.String()})
		}
		uri := protocol.DocumentURI(ss.uriOf(f))
		if versioned {
			id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}}
			ss.srv.mu.Lock()
			if d := ss.docs[f.Path]; d != nil {
				v := d.version
				id.Version = &v
			}
			ss.srv.mu.Unlock()
			we.DocumentChanges = append(we.DocumentChanges, protocol.TextDocumentEdit{TextDocument: id, Edits: edits})
		} else {
			if we.Changes == nil {
				we.Changes = map[protocol.DocumentURI][]protocol.TextEdit{}
			}
			we.Changes[uri] = edits
		}
	}
	return we
}
