package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Quick fixes for `secret` findings (docs/spec.md §11): *Redact* replaces one secret inside its JSON
// string by [REDACTED:<rule>], *Redact all in file* every secret of the file. Edits the person
// reviews and saves, like the repairs; the titles name the rule, never the secret.

// redactEdits returns the edits replacing the secrets of lines [first, last] of f (all of them when
// last < 0), and the hit each edit replaces.
func redactEdits(f *session.File, first, last int) ([]protocol.TextEdit, []secrets.Hit) {
	if last < 0 || last >= f.LineCount() {
		last = f.LineCount() - 1
	}
	var edits []protocol.TextEdit
	var hits []secrets.Hit
	sc := secrets.Default()
	var buf []secrets.Hit
	for i := max(first, 0); i <= last; i++ {
		line := f.Line(i)
		buf = sc.Line(line, buf[:0])
		for _, h := range buf {
			edits = append(edits, protocol.TextEdit{
				Range:   toRange(position.RangeIn(f, i, int(h.Start), int(h.End))),
				NewText: secrets.Placeholder(h.Rule),
			})
			hits = append(hits, h)
		}
	}
	return edits, hits
}

// redactActions are the secret quick fixes for a code action request on f.
func (ss *sess) redactActions(f *session.File, p codeActionParams, versioned bool) []protocol.CodeAction {
	if !wants(p.Context.Only, protocol.QuickFix) {
		return nil
	}
	var diags []protocol.Diagnostic
	for _, d := range p.Context.Diagnostics {
		if c, _ := d.Code.(string); c == string(check.Secret) {
			diags = append(diags, d)
		}
	}
	if len(diags) == 0 {
		return nil // asked where no secret is: scanning costs, and there is nothing to offer
	}
	var actions []protocol.CodeAction
	edits, hits := redactEdits(f, lineAt(f, int64(p.Range.Start.Line)), lineAt(f, int64(p.Range.End.Line)))
	for k, e := range edits {
		a := protocol.CodeAction{Title: redactTitle(f, e.Range.Start, hits[k]), Kind: protocol.QuickFix, IsPreferred: true,
			Edit: ss.textEdit(f, []protocol.TextEdit{e}, versioned)}
		for _, d := range diags {
			if d.Range.Start == e.Range.Start {
				a.Diagnostics = append(a.Diagnostics, d)
			}
		}
		actions = append(actions, a)
	}
	if all, _ := redactEdits(f, 0, -1); len(all) > 0 {
		actions = append(actions, protocol.CodeAction{Title: fmt.Sprintf("Redact all secrets in file (%d)", len(all)), Kind: protocol.QuickFix,
			Edit: ss.textEdit(f, all, versioned)})
	}
	return actions
}

// redactTitle tells one secret's quick fix from the others of its line (six look-alike "Redact this
// secret (generic-api-key)" for one line): the rule, where the secret starts (1-based line and
// column, as editors show them), and its first characters masked — at most 4, and at most a quarter
// of it, so never the 8 characters docs/spec.md §15 forbids: "Redact this secret (generic-api-key,
// line 3 col 41: sk-p…)".
func redactTitle(f *session.File, at protocol.Position, h secrets.Hit) string {
	line := f.Line(lineAt(f, int64(at.Line)))
	return fmt.Sprintf("Redact this secret (%s, line %d col %d: %s)", h.Rule, at.Line+1, at.Character+1, maskedPrefix(string(line[h.Start:h.End])))
}

// maskedPrefix is the start of a secret as a title may show it: at most 4 characters and a quarter
// of the secret, then "…", escaped (textsafe).
func maskedPrefix(secret string) string {
	r := []rune(secret)
	n := min(4, len(r)/4)
	return textsafe.Printable(string(r[:n])) + "…"
}

// textEdit is a WorkspaceEdit of edits to f, versioned when the client takes document changes.
func (ss *sess) textEdit(f *session.File, edits []protocol.TextEdit, versioned bool) *protocol.WorkspaceEdit {
	uri := protocol.DocumentURI(ss.uriOf(f))
	if !versioned {
		return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{uri: edits}}
	}
	id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}}
	ss.srv.mu.Lock()
	if d := ss.docs[f.Path]; d != nil {
		v := d.version
		id.Version = &v
	}
	ss.srv.mu.Unlock()
	return &protocol.WorkspaceEdit{DocumentChanges: []protocol.TextDocumentEdit{{TextDocument: id, Edits: edits}}}
}
