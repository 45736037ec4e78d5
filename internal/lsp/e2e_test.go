package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/position"
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

	// hovers: testdata/hover/basic.txt (TestHoverMarkers)

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

const (
	subMain  = "subagents/22222222-2222-4222-8222-222222222222.jsonl"
	subAgent = "subagents/22222222-2222-4222-8222-222222222222/subagents/agent-a5b6c7d8e9f0a1b2c.jsonl"
	agentID  = "a5b6c7d8e9f0a1b2c"
)

// A session with a sub-agent log in subagents/: definitions across files, both ways, with the
// agent's log open or not; hover names the agent's lane; diagnostics of both files follow edits
// to either.
func TestSubagentsCrossFile(t *testing.T) {
	_, mainURI, mainText := fixture(t, subMain)
	_, agentURI, agentText := fixture(t, subAgent)
	c := newClient(t, clientOpt{})
	c.open(mainURI, mainText, 1)
	if ds := c.diagsAt(mainURI, 1); len(ds) != 0 {
		t.Fatalf("a healthy session has diagnostics: %+v", ds)
	}
	// agentId value in the Task's result -> the sub-agent's log (read from disk: not open)
	locs := c.definition(mainURI, valuePos(t, mainText, 2, "agentId", agentID))
	if len(locs) != 1 || locs[0].URI != agentURI || locs[0].Range != (position.Range{}) {
		t.Fatalf("definition of agentId: %+v (want %s)", locs, agentURI)
	}
	// anywhere on the Task call -> the sub-agent's log
	if locs := c.definition(mainURI, valuePos(t, mainText, 1, "name", "Task")); len(locs) != 1 || locs[0].URI != agentURI {
		t.Fatalf("definition of the Task call: %+v", locs)
	}
	// open the agent's log: its first record leads back to the spawning call
	c.open(agentURI, agentText, 3)
	c.diagsAt(agentURI, 3)
	locs = c.definition(agentURI, pos{0, 0})
	if id := valuePos(t, mainText, 1, "id", "toolu_T1"); len(locs) != 1 || locs[0].URI != mainURI || locs[0].Range.Start.Line != 1 || int(locs[0].Range.Start.Character) != id.Character-1 {
		t.Fatalf("definition of the agent's first record: %+v", locs)
	}
	// hovers: testdata/hover/subagents.txt (TestHoverMarkers)
	// an edit to the agent's log that breaks a chain: its diagnostics change, and the main log's
	// diagnostics are republished too (same session)
	n := c.publications(mainURI)
	c.change(agentURI, 4, edit(rng{valuePos(t, agentText, 3, "parentUuid", "s-0003"), valuePos(t, agentText, 3, "parentUuid", "s-0003")}, "x"))
	ds := c.diagsAt(agentURI, 4)
	if got := codesAt(ds); !slices.Equal(got, []string{"3:orphan:2"}) {
		t.Errorf("agent diagnostics after the edit: %v", got)
	}
	c.await("the main log's diagnostics republished", func() bool { return len(c.diags[mainURI]) > n })
	// the graph has both lanes; the agent's file is named by the client's URI
	var g struct {
		Session struct{ Files []struct{ URI, Lane string } }
		Lanes   []struct{ ID, SubagentType string }
	}
	c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": agentURI}}, &g)
	if len(g.Lanes) != 2 || g.Lanes[1].ID != "agent-"+agentID || len(g.Session.Files) != 2 || g.Session.Files[1].URI != agentURI {
		t.Errorf("graph lanes/files: %+v", g)
	}
	// closing the agent's log gives it back its disk text: the orphan goes, the main log stays clean
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": agentURI}})
	c.await("agent diagnostics cleared", func() bool {
		ps := c.diags[agentURI]
		return ps[len(ps)-1].Version == nil
	})
	var sum summary
	c.mustCall(methodSessionSummary, map[string]any{"textDocument": map[string]any{"uri": mainURI}}, &sum)
	if sum.Files != 2 || sum.Records != 8 || sum.Problems != (problemCounts{}) {
		t.Errorf("summary after close: %+v", sum)
	}
}

// Wide characters before the value a diagnostic points at: the range lands on the value exactly,
// in UTF-16 units, and a change made after an emoji (UTF-16 columns) edits the right bytes.
func TestUTF16Ranges(t *testing.T) {
	_, uri, text := fixture(t, "utf16/33333333-3333-4333-8333-333333333333.jsonl")
	lines := strings.Split(text, "\n")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	ds := c.diagsAt(uri, 1)
	if len(ds) != 5 {
		t.Fatalf("want 5 orphans, got %+v", ds)
	}
	for _, d := range ds {
		l := int(d.Range.Start.Line)
		line := lines[l]
		var rec struct {
			Parent string `json:"parentUuid"`
		}
		json.Unmarshal([]byte(line), &rec)
		p := valuePos(t, text, l, "parentUuid", rec.Parent)
		if int(d.Range.Start.Character) != p.Character-1 || int(d.Range.End.Character) != p.Character+utf16Len(rec.Parent)+1 {
			t.Errorf("line %d: range %d-%d, value %q at %d", l, d.Range.Start.Character, d.Range.End.Character, rec.Parent, p.Character)
		}
		if d.Code != "orphan" || !strings.Contains(d.Message, rec.Parent) {
			t.Errorf("line %d: %+v", l, d)
		}
	}
	// replace "missing-emoji" by "w-root" using UTF-16 columns: the orphan of line 2 goes
	p := valuePos(t, text, 2, "parentUuid", "missing-emoji")
	c.change(uri, 2, edit(rng{p, pos{2, p.Character + len("missing-emoji")}}, "w-root"))
	ds = c.diagsAt(uri, 2)
	for _, d := range ds {
		if d.Range.Start.Line == 2 {
			t.Errorf("line 2 still has %+v", d)
		}
	}
	if len(ds) != 4 {
		t.Errorf("want 4 orphans after the fix, got %d", len(ds))
	}
	// definition from the fixed value lands on line 0
	if locs := c.definition(uri, pos{2, p.Character + 2}); len(locs) != 1 || locs[0].Range.Start.Line != 0 {
		t.Errorf("definition after the edit: %+v", locs)
	}
}
