package lsp

import (
	"slices"
	"strings"
	"testing"
)

// Issue 9's navigation cases, on fixtures named after them (testdata/graph, testdata/checks).

const graphFixtures = "../../../testdata/graph/"

// parentReply is the ccdag.parent result as the client reads it.
type parentReply struct {
	Location *location `json:"location"`
	Reason   string    `json:"reason"`
	Via      string    `json:"via"`
}

// parentOf runs the ccdag.parent command at a line.
func (c *client) parentOf(uri string, line int) parentReply {
	c.t.Helper()
	var res parentReply
	c.mustCall("workspace/executeCommand", map[string]any{"command": commandParent, "arguments": []any{tdp(uri, at(line, 0))}}, &res)
	return res
}

// Hover and diagnostic agree on a call without a result: in flight where the log ends, or the
// conversation went on.
func TestInFlightHoverAgrees(t *testing.T) {
	_, uri, text := fixture(t, "../../../testdata/checks/unmatched-tool-use-in-flight.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	want := []string{"1:unmatched-tool-use:2", "5:unmatched-tool-use:3", "8:unmatched-tool-use:3"}
	if got := codesAt(c.diagsAt(uri, 1)); !slices.Equal(got, want) {
		t.Fatalf("diagnostics %v, want %v", got, want)
	}
	for line, words := range map[int]string{1: "the conversation went on", 5: "still in flight", 8: "still in flight"} {
		id := map[int]string{1: "toolu_GONE", 5: "toolu_P2", 8: "toolu_P3"}[line]
		if h := c.hoverText(uri, valuePos(t, text, line, "id", id)); !strings.Contains(h, words) {
			t.Errorf("hover on line %d's call does not say %q:\n%s", line+1, words, h)
		}
	}
	// the answer arrives: nothing is left
	c.change(uri, 2, edit(rng{Start: at(9, 0), End: at(9, 0)}, `{"type":"user","uuid":"r2","message":{"role":"user","content":[{"tool_use_id":"toolu_P2","type":"tool_result","content":"ok"},{"tool_use_id":"toolu_P3","type":"tool_result","content":"ok"}]}}`+"\n"))
	if got := codesAt(c.diagsAt(uri, 2)); !slices.Equal(got, want[:1]) {
		t.Fatalf("after the results: %v, want %v", got, want[:1])
	}
	// a new prompt: the turn is over, the open call was abandoned
	c.change(uri, 3, edit(rng{Start: at(9, 0), End: at(10, 0)}, `{"type":"user","uuid":"p9","message":{"role":"user","content":"stop"}}`+"\n"))
	if got := codesAt(c.diagsAt(uri, 3)); !slices.Equal(got, []string{"1:unmatched-tool-use:2", "5:unmatched-tool-use:2", "8:unmatched-tool-use:2"}) {
		t.Fatalf("after a new prompt: %v", got)
	}
	if h := c.hoverText(uri, valuePos(t, text, 8, "id", "toolu_P3")); !strings.Contains(h, "the conversation went on") {
		t.Errorf("hover after a new prompt:\n%s", h)
	}
}

// A Task the person rejected whose agent ran anyway: linked by the progress record's data.agentId.
func TestRejectedTaskProgress(t *testing.T) {
	dir := graphFixtures + "rejected-task-progress/"
	_, mainURI, mainText := fixture(t, dir+"0b00000e-eeee-4eee-8eee-00000000000e.jsonl")
	_, agentURI, agentText := fixture(t, dir+"0b00000e-eeee-4eee-8eee-00000000000e/subagents/agent-a7c0ffee000000e1.jsonl")
	c := newClient(t, clientOpt{})
	c.open(mainURI, mainText, 1)
	c.open(agentURI, agentText, 1)
	c.diagsAt(agentURI, 1)
	call := valuePos(t, mainText, 1, "id", "toolu_p1")

	// F12 on the call goes to the agent's log, on its first record back to the call
	if locs := c.definition(mainURI, call); len(locs) != 1 || locs[0].URI != agentURI {
		t.Errorf("definition on the call: %+v", locs)
	}
	back := c.definition(agentURI, at(0, 1))
	if len(back) != 1 || back[0].URI != mainURI || back[0].Range.Start.Line != 1 {
		t.Errorf("definition on the agent's first record: %+v", back)
	}
	// Go to Parent: the same call; hover names it
	if p := c.parentOf(agentURI, 0); p.Location == nil || *p.Location != back[0] || p.Via != "spawn" {
		t.Errorf("ccdag.parent on the agent's first record: %+v", p)
	}
	if h := c.hoverText(agentURI, at(0, 1)); !strings.Contains(h, "Spawned by") || !strings.Contains(h, "toolu_p1") || !strings.Contains(h, "progress") || strings.Contains(h, "none (a root)") {
		t.Errorf("hover on the agent's first record:\n%s", h)
	}
	// the ids of the progress record navigate
	if locs := c.definition(mainURI, valuePos(t, mainText, 2, "parentToolUseID", "toolu_p1")); len(locs) != 1 || locs[0].Range.Start != back[0].Range.Start {
		t.Errorf("definition on parentToolUseID: %+v", locs)
	}
	if locs := c.definition(mainURI, valuePos(t, mainText, 2, "toolUseID", "agent_msg_p1")); len(locs) != 1 || locs[0].Range.Start != back[0].Range.Start {
		t.Errorf("definition on toolUseID: %+v", locs)
	}
	if locs := c.definition(mainURI, valuePos(t, mainText, 2, "agentId", "a7c0ffee000000e1")); len(locs) != 1 || locs[0].URI != agentURI {
		t.Errorf("definition on data.agentId: %+v", locs)
	}
	// References on the call find the progress record's parentToolUseID; on the agent id its data.agentId
	var refs []location
	c.mustCall("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": mainURI}, "position": call, "context": map[string]any{"includeDeclaration": false}}, &refs)
	if !slices.ContainsFunc(refs, func(l location) bool { return l.URI == mainURI && l.Range.Start.Line == 2 }) {
		t.Errorf("references of the call miss the progress record: %+v", refs)
	}
	c.mustCall("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": agentURI}, "position": valuePos(t, agentText, 0, "agentId", "a7c0ffee000000e1"), "context": map[string]any{"includeDeclaration": false}}, &refs)
	if !slices.ContainsFunc(refs, func(l location) bool { return l.URI == mainURI && l.Range.Start.Line == 2 }) {
		t.Errorf("references of the agent id miss the progress record: %+v", refs)
	}
	// F12 on agentId inside the agent's own log: the call
	if locs := c.definition(agentURI, valuePos(t, agentText, 1, "agentId", "a7c0ffee000000e1")); len(locs) != 1 || locs[0] != back[0] {
		t.Errorf("definition on agentId in the agent log: %+v", locs)
	}
}

// An Agent call tied to its log only by the prompt it gave.
func TestPromptMatchedAgent(t *testing.T) {
	dir := graphFixtures + "prompt-matched-agent/"
	_, mainURI, mainText := fixture(t, dir+"0b00000f-ffff-4fff-8fff-00000000000f.jsonl")
	_, agentURI, agentText := fixture(t, dir+"0b00000f-ffff-4fff-8fff-00000000000f/subagents/agent-a5ummar15e000001.jsonl")
	c := newClient(t, clientOpt{})
	c.open(mainURI, mainText, 1)
	c.open(agentURI, agentText, 1)
	c.diagsAt(agentURI, 1)
	if locs := c.definition(mainURI, valuePos(t, mainText, 1, "id", "toolu_m1")); len(locs) != 1 || locs[0].URI != agentURI {
		t.Errorf("definition on the call: %+v", locs)
	}
	if p := c.parentOf(agentURI, 0); p.Location == nil || p.Location.URI != mainURI || p.Location.Range.Start.Line != 1 {
		t.Errorf("ccdag.parent on the agent's first record: %+v", p)
	}
}

// A sidechain inside the main log whose root names the call's record: Go to Parent follows
// parentUuid; a root with no parent and no known call says why.
func TestParentCommand(t *testing.T) {
	_, uri, text := fixture(t, graphFixtures+"sidechain-parent-lane/0b000010-1010-4010-8010-000000000010.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	if p := c.parentOf(uri, 2); p.Location == nil || p.Location.Range.Start.Line != 1 || p.Via != "parentUuid" {
		t.Errorf("ccdag.parent on the sidechain's root: %+v", p)
	}
	if p := c.parentOf(uri, 0); p.Location != nil || !strings.Contains(p.Reason, "starts its chain") {
		t.Errorf("ccdag.parent on the session's first record: %+v", p)
	}
	var bad any
	if err := c.call("workspace/executeCommand", map[string]any{"command": commandParent}, &bad); err == nil {
		t.Error("ccdag.parent without arguments did not fail")
	}
}

// The part of a turn after a compaction is titled by the turn it continues, not "(before the first
// prompt)"; the corpus session 1b2fa935 compacts mid-turn.
func TestOutlineAfterCompaction(t *testing.T) {
	_, uri, text := fixture(t, "compaction-outline/0c0c0c0c-0000-4000-8000-00000000c0c0.jsonl")
	c := newClient(t, clientOpt{caps: map[string]any{"textDocument": map[string]any{"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}}}})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	var syms []docSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	want := []string{"Fix the parser", "⟲ compaction", "(continued) Fix the parser", "Now the tests"}
	if !slices.Equal(names, want) {
		t.Fatalf("outline %q, want %q", names, want)
	}
	if syms[2].Detail != "after compaction" {
		t.Errorf("the continued turn's detail is %q", syms[2].Detail)
	}
}
