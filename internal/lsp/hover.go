package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/describe"
	"github.com/ccdag/ccdag/internal/session"
)

// Hover on any record: its workflow kind, lane, parent and children (with line numbers), branch,
// tool name and input, the linked result's status and duration, model and token usage, timestamp,
// sidechain depth and a short preview of the content. On an id value: the record it names. Kinds,
// lanes and branches come from the workflow graph (hoverGraph, graphcache.go): for sessions up to
// graphSyncBytes it is at most hoverGraphAge old for records it knows and rebuilt for the others;
// larger sessions use the last graph built, and records it does not know are classified from the
// record alone.

type positionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position wirePos `json:"position"`
	Context  struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

func (p positionParams) docURI() string { return p.TextDocument.URI }

// hover describes the record, or the id value, at a position.
func hover(_ context.Context, ss *sess, f *session.File, p positionParams) (*protocol.Hover, error) {
	t := targetAt(f, p)
	if t.kind == tNone {
		return nil, nil
	}
	h := ss.mask().String(ss.hoverText(t)) // redactview.go
	ss.srv.mu.Lock()
	md := ss.srv.caps.hoverMarkdown
	ss.srv.mu.Unlock()
	res := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: h}}
	if !md {
		res.Contents = protocol.MarkupContent{Kind: protocol.PlainText, Value: plain(h)}
	}
	rg := lineRange(f, t.rec.Line)
	if t.span.Valid() {
		rg = spanRange(f, t.rec.Line, t.span.Start, t.span.End)
	}
	res.Range = &rg
	return res, nil
}

// plain strips the markdown of a hover for clients that only show plain text.
func plain(md string) string {
	strip := strings.NewReplacer("**", "", "`", "", "```text", "", "\\", "")
	return strip.Replace(md)
}

func (ss *sess) hoverText(t target) string {
	d := describe.Describer{Session: ss.session, Graph: ss.hoverGraph(t.rec), URI: ss.uriOf}
	var b strings.Builder
	if t.names() {
		d.Reference(&b, t.ref())
		return b.String()
	}
	d.Record(&b, t.rec, t.block)
	b.WriteString(ss.resumeHover(t.rec))
	b.WriteString(ss.retentionHover(t.rec))
	return b.String()
}

// ref is the id value a target names, for its description.
func (t target) ref() describe.Ref {
	r := describe.Ref{Value: t.value, In: t.rec, Kind: describe.RefRecord}
	r.Field = map[targetKind]string{tParent: "parentUuid", tLogicalParent: "logicalParentUuid", tLeaf: "leafUuid",
		tSource: "sourceToolAssistantUUID", tAgentID: "agentId", tResultAgentID: "agentId", tToolResultID: "tool_use_id",
		tProgressAgent: "data.agentId", tProgressCall: "toolUseID"}[t.kind]
	switch t.kind {
	case tAgentID, tResultAgentID, tProgressAgent:
		r.Kind = describe.RefAgent
	case tToolResultID:
		r.Kind = describe.RefAnswer
	case tProgressCall:
		r.Kind = describe.RefReport
		if t.span == t.rec.D().ParentToolUseIDSpan {
			r.Field = "parentToolUseID"
		}
	}
	return r
}
