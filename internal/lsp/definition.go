package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Definition, across the session's files: from parentUuid, logicalParentUuid, leafUuid and
// sourceToolAssistantUUID values the record they name; from a tool_use_id the tool_use block's id;
// from an agentId, or anywhere on a Task/Agent tool call, the sub-agent's log; from anywhere on a
// tool result's line (not only its tool_use_id) the call it answers; from a sub-agent log's first
// record the call that spawned it.
//
// References: from a uuid value (or a value naming one) the records whose parentUuid or
// logicalParentUuid it is; from a tool_use id (or a tool_use_id naming it) its tool_results; from
// an agentId the results that name the agent.

// targetAt is what the position of p names in f.
func targetAt(f *session.File, p positionParams) target {
	return locate(f, p.Position.line(), p.Position.char())
}

func definition(_ context.Context, ss *sess, f *session.File, p positionParams) ([]protocol.Location, error) {
	t := targetAt(f, p)
	locs := ss.define(t)
	if len(locs) == 0 {
		ss.srv.notify("window/showMessage", map[string]any{"type": 3, "message": "ccdag: " + noDefinition(t)})
		return nil, nil
	}
	return locs, nil
}

func (ss *sess) define(t target) []protocol.Location {
	s := ss.session
	var out []protocol.Location
	switch t.kind {
	case tNone:
		return nil
	case tParent, tLogicalParent, tLeaf, tSource:
		for _, d := range s.Defs(t.value) {
			out = append(out, ss.recLoc(d))
		}
		sortFirst(out, s.Lookup(t.value), ss)
	case tToolResultID, tProgressCall:
		for _, u := range s.Uses(t.value) {
			out = append(out, ss.loc(u.Rec, u.ContentBlock().IDSpan))
		}
		if len(out) == 0 && t.kind == tProgressCall && t.rec.D().ParentToolUseID != t.value {
			// an agent's message id (agent_msg_...): the call the record reports for
			for _, u := range s.Uses(t.rec.D().ParentToolUseID) {
				out = append(out, ss.loc(u.Rec, u.ContentBlock().IDSpan))
			}
		}
	case tAgentID, tResultAgentID, tProgressAgent:
		if f := t.rec.File; t.kind == tAgentID && f.Lane != "main" && f.AgentID == t.value {
			// inside the agent's own log: the call that spawned it
			if sp := s.AgentSpawn(f); sp.Call.Rec != nil {
				return []protocol.Location{ss.loc(sp.Call.Rec, sp.Call.ContentBlock().IDSpan)}
			}
		}
		out = ss.agentLog(t.value)
	case tToolUseID, tBlock:
		switch bl := &t.rec.D().Blocks[t.block]; {
		case bl.Kind == jsonl.BlockToolUse && session.IsAgentTool(bl.Name):
			out = ss.spawned(bl.ID)
		case bl.Kind == jsonl.BlockToolResult && t.kind == tBlock:
			out = ss.calls(bl.ToolUseID) // anywhere in a result: its call
		}
	case tRecord:
		// the line of a record: a Task/Agent call on it leads to its log, a result to its call
		for i := range t.rec.D().Blocks {
			switch bl := &t.rec.D().Blocks[i]; {
			case bl.Kind == jsonl.BlockToolUse && session.IsAgentTool(bl.Name):
				out = append(out, ss.spawned(bl.ID)...)
			case bl.Kind == jsonl.BlockToolResult:
				out = append(out, ss.calls(bl.ToolUseID)...)
			}
		}
	}
	if len(out) == 0 && (t.kind == tRecord || t.kind == tUUID || t.kind == tBlock) {
		out = ss.spawner(t.rec)
	}
	return out
}

// calls is where the tool_use blocks of id are (a result's call); none for "".
func (ss *sess) calls(id string) []protocol.Location {
	if id == "" {
		return nil
	}
	var out []protocol.Location
	for _, u := range ss.session.Uses(id) {
		out = append(out, ss.loc(u.Rec, u.ContentBlock().IDSpan))
	}
	return out
}

// sortFirst puts the location of first (the definition that counts) at the front.
func sortFirst(locs []protocol.Location, first *session.Rec, ss *sess) {
	if first == nil || len(locs) < 2 {
		return
	}
	want := ss.recLoc(first)
	for i, l := range locs {
		if l == want {
			locs[0], locs[i] = locs[i], locs[0]
			return
		}
	}
}

// agentLog is the start of a sub-agent's log: its own file, or, for sessions that keep
// sub-agents inside the main log, the first record carrying its agentId.
func (ss *sess) agentLog(agentID string) []protocol.Location {
	if f := ss.session.Agent(agentID); f != nil {
		return []protocol.Location{ss.fileLoc(f)}
	}
	for _, f := range ss.session.Files {
		var hit *session.Rec
		f.Recs(func(rec *session.Rec) bool {
			if rec.LineErr() == nil && rec.D().AgentID == agentID && rec.Has(jsonl.FlagSidechain) {
				hit = rec
				return false
			}
			return true
		})
		if hit != nil {
			return []protocol.Location{ss.recLoc(hit)}
		}
	}
	return nil
}

// spawned is where the sub-agents a Task/Agent call ran start: their logs, or their sidechains
// inside the main log (the session's one linkage, session.Spawned), else the logs of the agent ids
// its result or progress records name.
func (ss *sess) spawned(toolUseID string) []protocol.Location {
	var out []protocol.Location
	us := ss.session.Uses(toolUseID)
	if len(us) == 0 {
		return nil
	}
	logs, roots := ss.session.Spawned(us[0])
	for _, f := range logs {
		out = append(out, ss.fileLoc(f))
	}
	for _, rec := range roots {
		out = append(out, ss.recLoc(rec))
	}
	if len(out) == 0 {
		for _, id := range ss.session.CallAgentIDs(toolUseID) {
			out = append(out, ss.agentLog(id)...)
		}
	}
	return out
}

// spawner: on a sub-agent log's first record (or a sidechain's root in the main log), the call
// that spawned the agent.
func (ss *sess) spawner(rec *session.Rec) []protocol.Location {
	if sp := ss.session.SpawnOf(rec); sp.Call.Rec != nil {
		return []protocol.Location{ss.loc(sp.Call.Rec, sp.Call.ContentBlock().IDSpan)}
	}
	return nil
}

func references(_ context.Context, ss *sess, f *session.File, p positionParams) ([]protocol.Location, error) {
	return ss.refs(targetAt(f, p), p.Context.IncludeDeclaration), nil
}

func (ss *sess) refs(t target, decl bool) []protocol.Location {
	s := ss.session
	out := []protocol.Location{}
	switch t.kind {
	case tUUID, tParent, tLogicalParent, tLeaf, tSource:
		uuid := t.value
		def := s.Lookup(uuid)
		if decl && def != nil {
			out = append(out, ss.recLoc(def))
		}
		if def != nil {
			for _, k := range s.Children(def) {
				out = append(out, ss.loc(k, k.ParentSpan))
			}
			for _, k := range s.LogicalChildren(def) {
				out = append(out, ss.loc(k, k.D().LogicalParentSpan))
			}
		}
	case tToolUseID, tToolResultID, tProgressCall:
		if decl {
			for _, u := range s.Uses(t.value) {
				out = append(out, ss.loc(u.Rec, u.ContentBlock().IDSpan))
			}
		}
		for _, res := range s.Results(t.value) {
			out = append(out, ss.loc(res.Rec, res.ContentBlock().IDSpan))
		}
		for _, p := range s.CallProgress(t.value) {
			if p.D().ParentToolUseID == t.value {
				out = append(out, ss.loc(p, p.D().ParentToolUseIDSpan))
			}
			if session.ProgressToolUseID(p) == t.value {
				out = append(out, ss.loc(p, p.D().ToolUseIDSpan))
			}
		}
	case tAgentID, tResultAgentID, tProgressAgent:
		if decl {
			out = append(out, ss.agentLog(t.value)...)
		}
		for _, res := range s.SpawnResults(t.value) {
			if ri := res.Rec.D().Result; ri != nil {
				out = append(out, ss.loc(res.Rec, ri.AgentIDSpan))
			}
		}
		for _, p := range s.AgentProgress(t.value) {
			out = append(out, ss.loc(p, p.D().DataAgentIDSpan))
		}
	}
	return out
}
