package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// What the cursor is on: an id value of a record, a content block, or just the record's line.

type targetKind uint8

const (
	tNone          targetKind = iota
	tRecord                   // the line of a record, on no value below
	tUUID                     // "uuid"
	tParent                   // "parentUuid"
	tLogicalParent            // "logicalParentUuid"
	tLeaf                     // "leafUuid"
	tSource                   // "sourceToolAssistantUUID"
	tAgentID                  // the record's "agentId"
	tResultAgentID            // toolUseResult "agentId"
	tToolUseID                // a tool_use block's "id"
	tToolResultID             // a tool_result block's "tool_use_id"
	tProgressCall             // a progress record's "parentToolUseID" or "toolUseID": names a call
	tProgressAgent            // a progress record's "data.agentId": names a sub-agent
	tBlock                    // elsewhere inside a content block
)

type target struct {
	kind  targetKind
	rec   *session.Rec
	block int        // content block, -1 when none
	span  jsonl.Span // the value (or block) under the cursor, line-relative
	value string     // the id named
}

// names reports whether the target is a value naming another record (or block, or log).
func (t target) names() bool {
	switch t.kind {
	case tParent, tLogicalParent, tLeaf, tSource, tAgentID, tResultAgentID, tToolResultID, tProgressCall, tProgressAgent:
		return true
	}
	return false
}

// covers reports whether column col is within span sp (its closing quote included).
func covers(sp jsonl.Span, col int32) bool { return sp.Valid() && sp.Start <= col && col <= sp.End }

// locate finds what the LSP position (line, character) of f is on.
func locate(f *session.File, line, char int64) target {
	if line < 0 || lineAt(f, line) >= f.LineCount() {
		return target{}
	}
	off := position.Offset(f, line, char)
	l := f.LineOf(off)
	rec := f.Rec(l)
	if rec == nil {
		return target{}
	}
	col := int32(off - f.LineStart(l))
	t := target{kind: tRecord, rec: rec, block: -1}
	if rec.LineErr() != nil {
		return t
	}
	ids := []struct {
		k  targetKind
		sp jsonl.Span
		v  string
	}{
		{tUUID, rec.UUIDSpan, rec.UUID},
		{tParent, rec.ParentSpan, rec.Parent},
		{tLogicalParent, rec.D().LogicalParentSpan, rec.D().LogicalParent},
		{tLeaf, rec.D().LeafSpan, rec.D().Leaf},
		{tSource, rec.D().SourceSpan, rec.D().SourceToolAssistant},
		{tAgentID, rec.D().AgentIDSpan, rec.D().AgentID},
		{tProgressCall, rec.D().ParentToolUseIDSpan, rec.D().ParentToolUseID},
		{tProgressCall, rec.D().ToolUseIDSpan, progressToolUseID(rec, col)},
		{tProgressAgent, rec.D().DataAgentIDSpan, rec.D().DataAgentID},
	}
	if rec.D().Result != nil {
		ids = append(ids, struct {
			k  targetKind
			sp jsonl.Span
			v  string
		}{tResultAgentID, rec.D().Result.AgentIDSpan, rec.D().Result.AgentID})
	}
	for _, c := range ids {
		if c.v != "" && covers(c.sp, col) {
			t.kind, t.span, t.value = c.k, c.sp, c.v
			return t
		}
	}
	for i := range rec.D().Blocks {
		b := &rec.D().Blocks[i]
		switch {
		case b.Kind == jsonl.BlockToolUse && b.ID != "" && covers(b.IDSpan, col):
			t.kind, t.block, t.span, t.value = tToolUseID, i, b.IDSpan, b.ID
			return t
		case b.Kind == jsonl.BlockToolResult && b.ToolUseID != "" && covers(b.IDSpan, col):
			t.kind, t.block, t.span, t.value = tToolResultID, i, b.IDSpan, b.ToolUseID
			return t
		}
	}
	for i := range rec.D().Blocks {
		if covers(rec.D().Blocks[i].Span, col) {
			t.kind, t.block, t.span = tBlock, i, rec.D().Blocks[i].Span
			return t
		}
	}
	return t
}

// progressToolUseID decodes a progress record's toolUseID when the cursor is on it.
func progressToolUseID(rec *session.Rec, col int32) string {
	if !covers(rec.D().ToolUseIDSpan, col) {
		return ""
	}
	return session.ProgressToolUseID(rec)
}

// recLoc is where a record is: its uuid value, or its line.
func (ss *sess) recLoc(rec *session.Rec) protocol.Location {
	if rec.LineErr() == nil && rec.UUIDSpan.Valid() {
		return ss.loc(rec, rec.UUIDSpan)
	}
	return ss.loc(rec, jsonl.Span{})
}
