package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Document highlight (docs/spec.md §7): every occurrence in the document of the id under the
// cursor, the defining one as Write and the others as Read. A uuid is defined by its record's
// "uuid" and named by children's parentUuid / logicalParentUuid; a tool id is defined by the
// tool_use "id" and named by tool_result "tool_use_id"s; an agent id is defined by the sub-agent
// call's result (toolUseResult.agentId) and named by the agent's records. Through the session's
// index: the cost is the occurrences, not the file.

func documentHighlight(_ context.Context, ss *sess, f *session.File, p positionParams) ([]protocol.DocumentHighlight, error) {
	t := targetAt(f, p)
	out := []protocol.DocumentHighlight{}
	if f.NotJSONL() {
		return out, nil
	}
	add := func(rec *session.Rec, sp jsonl.Span, kind protocol.DocumentHighlightKind) {
		if rec.File == f && sp.Valid() {
			out = append(out, protocol.DocumentHighlight{Range: spanRange(f, rec.Line, sp.Start, sp.End), Kind: kind})
		}
	}
	s := ss.session
	switch t.kind {
	case tUUID, tParent, tLogicalParent, tLeaf, tSource:
		for _, def := range s.Defs(t.value) {
			add(def, def.UUIDSpan, protocol.DocumentHighlightKindWrite)
			for _, k := range s.Children(def) {
				add(k, k.ParentSpan, protocol.DocumentHighlightKindRead)
			}
			for _, k := range s.LogicalChildren(def) {
				add(k, k.D().LogicalParentSpan, protocol.DocumentHighlightKindRead)
			}
		}
		if t.kind != tUUID && t.kind != tParent && t.kind != tLogicalParent {
			add(t.rec, t.span, protocol.DocumentHighlightKindRead) // a leafUuid or source names it too
		}
		if len(out) == 0 {
			add(t.rec, t.span, protocol.DocumentHighlightKindRead) // names nothing in the session
		}
	case tToolUseID, tToolResultID:
		for _, u := range s.Uses(t.value) {
			add(u.Rec, u.ContentBlock().IDSpan, protocol.DocumentHighlightKindWrite)
		}
		for _, res := range s.Results(t.value) {
			add(res.Rec, res.ContentBlock().IDSpan, protocol.DocumentHighlightKindRead)
		}
	case tAgentID, tResultAgentID:
		for _, res := range s.SpawnResults(t.value) {
			if ri := res.Rec.D().Result; ri != nil {
				add(res.Rec, ri.AgentIDSpan, protocol.DocumentHighlightKindWrite)
			}
		}
		if t.kind == tAgentID {
			add(t.rec, t.span, protocol.DocumentHighlightKindRead)
		}
	}
	return out, nil
}
