package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func codesAt(ds []diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d:%s:%d", d.Range.Start.Line, d.Code, d.Severity))
	}
	slices.Sort(out)
	return out
}

func TestBasicSession(t *testing.T) {
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	ds := c.diagsAt(uri, 1)
	want := []string{"5:orphan:2", "6:unmatched-tool-use:3"}
	if got := codesAt(ds); !slices.Equal(got, want) {
		t.Fatalf("diagnostics %v, want %v", got, want)
	}
	orphan := ds[0]
	if orphan.Code != "orphan" {
		orphan = ds[1]
	}
	// the range covers the parentUuid value, quotes included
	p := valuePos(t, text, 5, "parentUuid", "no-such-parent-0000")
	if orphan.Range.Start.Character != uint32(p.Character-1) || orphan.Range.End.Character != uint32(p.Character+len("no-such-parent-0000")+1) {
		t.Errorf("orphan range %+v, value at %d", orphan.Range, p.Character)
	}
	if orphan.Source != "ccdag" || !strings.Contains(orphan.Message, "no-such-parent-0000") {
		t.Errorf("orphan: %+v", orphan)
	}

	// hover on a tool call: kind, tool, input, result, parent, model, tokens
	h := c.hoverText(uri, valuePos(t, text, 2, "name", "Read"))
	for _, w := range []string{"Action", "`Read`", "file_path", "success", "line 4", "Parent", "line 2", "claude-opus-4-6", "42 out", "Lane", "Branch"} {
		if !strings.Contains(h, w) {
			t.Errorf("hover on the Read call lacks %q:\n%s", w, h)
		}
	}
	// hover on a parentUuid value: the record it names
	h = c.hoverText(uri, valuePos(t, text, 4, "parentUuid", "r-0001"))
	if !strings.Contains(h, "line 4") || !strings.Contains(h, "Observation") {
		t.Errorf("hover on parentUuid:\n%s", h)
	}
	h = c.hoverText(uri, valuePos(t, text, 5, "parentUuid", "no-such-parent-0000"))
	if !strings.Contains(h, "no record of this session") {
		t.Errorf("hover on a dangling parentUuid:\n%s", h)
	}

	// definition: parentUuid -> the parent's uuid value; tool_use_id -> the tool_use id
	locs := c.definition(uri, valuePos(t, text, 3, "parentUuid", "a-0002"))
	if len(locs) != 1 || locs[0].URI != uri || locs[0].Range.Start.Line != 2 {
		t.Fatalf("definition of parentUuid: %+v", locs)
	}
	if u := valuePos(t, text, 2, "uuid", "a-0002"); int(locs[0].Range.Start.Character) != u.Character-1 {
		t.Errorf("definition lands at %+v, uuid value at %d", locs[0].Range, u.Character)
	}
	locs = c.definition(uri, valuePos(t, text, 3, "tool_use_id", "toolu_R1"))
	if id := valuePos(t, text, 2, "id", "toolu_R1"); len(locs) != 1 || locs[0].Range.Start.Line != 2 || int(locs[0].Range.Start.Character) != id.Character-1 {
		t.Fatalf("definition of tool_use_id: %+v", locs)
	}
	if locs := c.definition(uri, valuePos(t, text, 5, "parentUuid", "no-such-parent-0000")); len(locs) != 0 {
		t.Errorf("definition of a dangling parent: %+v", locs)
	}

	// references: from a uuid the children; from a tool_use id its results
	var refs []location
	c.mustCall("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": valuePos(t, text, 1, "uuid", "a-0001"), "context": map[string]any{"includeDeclaration": false}}, &refs)
	if len(refs) != 1 || refs[0].Range.Start.Line != 2 {
		t.Errorf("references of a-0001: %+v", refs)
	}
	c.mustCall("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": valuePos(t, text, 2, "id", "toolu_R1"), "context": map[string]any{"includeDeclaration": true}}, &refs)
	if len(refs) != 2 || refs[0].Range.Start.Line != 2 || refs[1].Range.Start.Line != 3 {
		t.Errorf("references of toolu_R1: %+v", refs)
	}

	// document symbols: two turns, the first with a thought, a tool call, a thought
	var syms []docSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 2 || len(syms[0].Children) != 3 || syms[0].Children[1].Kind != symFunction || syms[1].Name != "and this one?" {
		b, _ := json.MarshalIndent(syms, "", " ")
		t.Errorf("symbols:\n%s", b)
	}

	// the graph
	var g struct {
		Session struct {
			ID    string `json:"id"`
			Files []struct{ URI, Lane string }
		}
		Nodes []struct{ ID, Kind string }
		Edges []struct{ Source, Target, Kind string }
	}
	c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": uri}}, &g)
	if g.Session.ID != "11111111-1111-4111-8111-111111111111" || len(g.Session.Files) != 1 || g.Session.Files[0].URI != uri || len(g.Nodes) < 6 {
		t.Errorf("graph: %+v", g)
	}
	var g2 json.RawMessage
	var g1 json.RawMessage
	c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": uri}}, &g1)
	c.mustCall("workspace/executeCommand", map[string]any{"command": commandWorkflowGraph, "arguments": []string{uri}}, &g2)
	if string(g1) != string(g2) {
		t.Errorf("the command's graph differs from the request's")
	}

	var sum summary
	c.mustCall(methodSessionSummary, map[string]any{"textDocument": map[string]any{"uri": uri}}, &sum)
	if sum.Files != 1 || sum.Records != 7 || sum.Problems.Warning != 1 || sum.Problems.Information != 1 || sum.SessionID != "11111111-1111-4111-8111-111111111111" {
		t.Errorf("summary: %+v", sum)
	}

	// close: cleared
	n := c.publications(uri)
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.await("diagnostics cleared", func() bool {
		ps := c.diags[uri]
		return len(ps) > n && ps[len(ps)-1].Version == nil && len(ps[len(ps)-1].Diagnostics) == 0
	})
}
