package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Definition, across the session's files: from parentUuid, logicalParentUuid, leafUuid and
// sourceToolAssistantUUID values the record they name; from a tool_use_id the tool_use block's id;
// from an agentId, or anywhere on a Task/Agent tool call, the sub-agent's log; from a sub-agent
// log's first record the call that spawned it.
//
// References: from a uuid value (or a value naming one) the records whose parentUuid or
// logicalParentUuid it is; from a tool_use id (or a tool_use_id naming it) its tool_results; from
// an agentId the results that name the agent.

func (srv *server) definition(r *request) {
	var p positionParams
	if !r.decode(&p) {
		return
	}
	srv.withDoc(r, p.TextDocument.URI, func(ss *sess, f *session.File) {
		t := locate(f, p.Position.line(), p.Position.char())
		locs := ss.define(t)
		if len(locs) == 0 {
			r.reply(nil, nil)
			return
		}
		r.reply(locs, nil)
	})
}

func (ss *sess) define(t target) []protocol.Location {
	s := ss.s
	var out []protocol.Location
	switch t.kind {
	case tNone:
		return nil
	case tParent, tLogicalParent, tLeaf, tSource:
		for _, d := range s.Defs(t.value) {
			out = append(out, ss.recLoc(d))
		}
		sortFirst(out, s.Lookup(t.value), ss)
	case tToolResultID:
		for _, u := range s.Uses(t.value) {
			out = append(out, ss.loc(u.Rec, u.B().IDSpan))
		}
	case tAgentID, tResultAgentID:
		out = ss.agentLog(t.value)
	case tToolUseID, tBlock:
		if bl := &t.rec.Blocks[t.block]; bl.Kind == jsonl.BlockToolUse && isAgentTool(bl.Name) {
			out = ss.spawned(bl.ID)
		}
	case tRecord:
		// the line of a record: a Task/Agent call on it leads to its log
		for i := range t.rec.Blocks {
			if bl := &t.rec.Blocks[i]; bl.Kind == jsonl.BlockToolUse && isAgentTool(bl.Name) {
				out = append(out, ss.spawned(bl.ID)...)
			}
		}
	}
	if len(out) == 0 && (t.kind == tRecord || t.kind == tUUID || t.kind == tBlock) {
		out = ss.spawner(t.rec)
	}
	return out
}

func isAgentTool(name string) bool { return name == "Task" || name == "Agent" }

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
	if f := ss.s.Agent(agentID); f != nil {
		return []protocol.Location{ss.fileLoc(f)}
	}
	for _, f := range ss.s.Files {
		var hit *session.Rec
		f.Recs(func(r *session.Rec) bool {
			if r.Err == nil && r.AgentID == agentID && r.Has(jsonl.FlagSidechain) {
				hit = r
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

// spawned is the log of the sub-agent a Task/Agent call ran: named by its result's agentId, or by
// an agent's meta.json (also while the agent still runs and the call has no result yet).
func (ss *sess) spawned(toolUseID string) []protocol.Location {
	var out []protocol.Location
	seen := map[string]bool{}
	for _, t := range ss.s.Results(toolUseID) {
		if ri := t.Rec.Result; ri != nil && ri.AgentID != "" && !seen[ri.AgentID] {
			seen[ri.AgentID] = true
			out = append(out, ss.agentLog(ri.AgentID)...)
		}
	}
	if len(out) == 0 {
		for _, f := range ss.s.Files {
			if f.Meta != nil && f.Meta.ToolUseID == toolUseID {
				out = append(out, ss.fileLoc(f))
			}
		}
	}
	return out
}

// spawner: on a sub-agent log's first record, the call that spawned the agent.
func (ss *sess) spawner(r *session.Rec) []protocol.Location {
	f := r.File
	if f.Lane == "main" || firstRec(f) != r {
		return nil
	}
	var ids []string
	if f.AgentID != "" {
		for _, t := range ss.s.SpawnResults(f.AgentID) {
			ids = append(ids, t.B().ToolUseID)
		}
	}
	if f.Meta != nil && f.Meta.ToolUseID != "" {
		ids = append(ids, f.Meta.ToolUseID)
	}
	var out []protocol.Location
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		for _, u := range ss.s.Uses(id) {
			out = append(out, ss.loc(u.Rec, u.B().IDSpan))
		}
	}
	return out
}

func (srv *server) references(r *request) {
	var p positionParams
	if !r.decode(&p) {
		return
	}
	srv.withDoc(r, p.TextDocument.URI, func(ss *sess, f *session.File) {
		t := locate(f, p.Position.line(), p.Position.char())
		r.reply(ss.refs(t, p.Context.IncludeDeclaration), nil)
	})
}

func (ss *sess) refs(t target, decl bool) []protocol.Location {
	s := ss.s
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
				out = append(out, ss.loc(k, k.LogicalParentSpan))
			}
		}
	case tToolUseID, tToolResultID:
		if decl {
			for _, u := range s.Uses(t.value) {
				out = append(out, ss.loc(u.Rec, u.B().IDSpan))
			}
		}
		for _, res := range s.Results(t.value) {
			out = append(out, ss.loc(res.Rec, res.B().IDSpan))
		}
	case tAgentID, tResultAgentID:
		if decl {
			out = append(out, ss.agentLog(t.value)...)
		}
		for _, res := range s.SpawnResults(t.value) {
			if ri := res.Rec.Result; ri != nil {
				out = append(out, ss.loc(res.Rec, ri.AgentIDSpan))
			}
		}
	}
	return out
}
