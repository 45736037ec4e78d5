package lsp

import (
	"context"
	"fmt"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/describe"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Go to Parent, one server command for every editor (`ccdag.parent`): the record at a position's
// parent — the record its parentUuid names, else (a compaction) its logicalParentUuid's, else (a
// sub-agent's first record, in its own log or inside the main log) the Task/Agent call that
// spawned it. The result says where, or why there is nowhere to go:
//
//	{"location": Location}  or  {"location": null, "reason": "this record starts its chain ..."}

const commandParent = "ccdag.parent"

type parentResult struct {
	Location *protocol.Location `json:"location"`
	Reason   string             `json:"reason,omitempty"`
	// How the parent was found: "parentUuid", "logicalParentUuid" or "spawn".
	Via string `json:"via,omitempty"`
}

var parentRoute = onDoc(parent)

// parentArgs reads `ccdag.parent`'s arguments: [{"textDocument":{"uri"},"position":{...}}].
func parentArgs(args []json.RawMessage) (positionParams, error) {
	var p positionParams
	if len(args) == 0 || json.Unmarshal(args[0], &p) != nil || p.TextDocument.URI == "" {
		return p, invalidParams("%s needs {textDocument: {uri}, position: {line, character}} as its argument", commandParent)
	}
	return p, nil
}

func parent(_ context.Context, ss *sess, f *session.File, p positionParams) (parentResult, error) {
	return ss.parentOf(f, lineAt(f, p.Position.line())), nil
}

func (ss *sess) parentOf(f *session.File, line int) parentResult {
	rec := f.Rec(line)
	switch {
	case rec == nil:
		return parentResult{Reason: "there is no record on this line"}
	case rec.LineErr() != nil:
		return parentResult{Reason: "this line is not a record: " + rec.LineErr().Message}
	}
	s := ss.session
	if rec.Parent != "" {
		if p := s.Lookup(rec.Parent); p != nil {
			l := ss.recLoc(p)
			return parentResult{Location: &l, Via: "parentUuid"}
		}
	}
	if rec.D().LogicalParent != "" {
		if p := s.Lookup(rec.D().LogicalParent); p != nil {
			l := ss.recLoc(p)
			return parentResult{Location: &l, Via: "logicalParentUuid"}
		}
	}
	if sp := s.SpawnOf(rec); sp.Call.Rec != nil {
		l := ss.loc(sp.Call.Rec, sp.Call.ContentBlock().IDSpan)
		return parentResult{Location: &l, Via: "spawn"}
	}
	switch {
	case rec.Parent != "":
		return parentResult{Reason: fmt.Sprintf("its parent %s is not in this session (main log and sub-agent logs)", rec.Parent)}
	case rec.D().LogicalParent != "":
		return parentResult{Reason: fmt.Sprintf("it continues from %s, which is not in this session", rec.D().LogicalParent)}
	case f.Lane != "main" && describe.FirstRec(f) == rec, s.SidechainRoot(rec):
		return parentResult{Reason: "no Task/Agent call of this session is known to have spawned this sub-agent"}
	case rec.Has(jsonl.FlagParentNull):
		return parentResult{Reason: "this record starts its chain (its parentUuid is null)"}
	}
	return parentResult{Reason: "this record has no parentUuid"}
}
