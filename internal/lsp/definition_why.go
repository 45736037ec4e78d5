package lsp

import (
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Why a definition request found nothing, said once here for every editor (window/showMessage):
// Neovim's gd and Emacs' M-. otherwise say nothing at all.

// noDefinition is the reason, one short line, for a target define found nothing for.
func noDefinition(t target) string {
	id := shownID(t.value)
	switch t.kind {
	case tNone:
		return "no definition: the cursor is on no record"
	case tParent, tLogicalParent, tLeaf, tSource:
		return "no definition: no record of this session has the uuid " + id + " (its parent is not in the logs)"
	case tToolResultID, tProgressCall:
		return "no definition: no tool call of this session has the id " + id
	case tAgentID, tResultAgentID, tProgressAgent:
		return "no definition: the log of sub-agent " + id + " is not in the session's folder"
	case tToolUseID, tBlock:
		if t.block < 0 || t.block >= len(t.rec.D().Blocks) {
			break
		}
		if bl := &t.rec.D().Blocks[t.block]; bl.Kind == jsonl.BlockToolUse && session.IsAgentTool(bl.Name) {
			return "no definition: the sub-agent this call started has no log in the session's folder"
		}
		if t.kind == tToolUseID {
			return "no definition: this is the tool call itself (its results: find references)"
		}
		if bl := &t.rec.D().Blocks[t.block]; bl.Kind == jsonl.BlockToolResult && bl.ToolUseID != "" {
			return "no definition: no tool call of this session has the id " + shownID(bl.ToolUseID)
		}
	case tUUID:
		return "no definition: this is the record's own uuid (its children: find references)"
	case tRecord:
		for i := range t.rec.D().Blocks {
			if bl := &t.rec.D().Blocks[i]; bl.Kind == jsonl.BlockToolResult && bl.ToolUseID != "" {
				return "no definition: no tool call of this session has the id " + shownID(bl.ToolUseID)
			}
		}
	}
	return "no definition: no parentUuid, tool_use_id or agentId at the cursor"
}

// shownID is an id as the message may show it: ids are short and plain; anything else from the
// log is not repeated.
func shownID(v string) string {
	if v == "" || len(v) > 64 {
		return "at the cursor"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "at the cursor"
		}
	}
	return v
}
