package lsp

import (
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// A definition that finds nothing says why, once, as window/showMessage (gd and M-. showed
// nothing); one that finds its target says nothing.
func TestDefinitionSaysWhyNot(t *testing.T) {
	_, uri, text := fixture(t, "subagents/22222222-2222-4222-8222-222222222222.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	said := func() []string { // c.mu held
		var out []string
		for _, n := range c.notes {
			if n.method == "window/showMessage" {
				var m struct{ Message string }
				json.Unmarshal(n.params, &m)
				out = append(out, m.Message)
			}
		}
		return out
	}
	messages := func() []string {
		c.mu.Lock()
		defer c.mu.Unlock()
		return said()
	}
	var locs []map[string]any
	// a parentUuid that names a record: found, no message
	c.mustCall("textDocument/definition", tdp(uri, valuePos(t, text, 1, "parentUuid", "u-0001")), &locs)
	if len(locs) != 1 {
		t.Fatalf("definition of a parentUuid: %v", locs)
	}
	cases := []struct {
		p    pos
		want string
	}{
		{at(0, 0), "ccdag: no definition: no parentUuid, tool_use_id or agentId at the cursor"},
		{valuePos(t, text, 0, "uuid", "u-0001"), "ccdag: no definition: this is the record's own uuid (its children: find references)"},
		{at(40, 0), "ccdag: no definition: the cursor is on no record"},
	}
	for i, k := range cases {
		locs = nil
		c.mustCall("textDocument/definition", tdp(uri, k.p), &locs)
		if len(locs) != 0 {
			t.Errorf("%v: found %v", k.p, locs)
		}
		c.await("the reason", func() bool { return len(said()) > i })
		if got := messages()[i]; got != k.want {
			t.Errorf("%v: said %q, want %q", k.p, got, k.want)
		}
	}
	if all := messages(); len(all) != len(cases) {
		t.Errorf("messages %q, want one per definition that found nothing", all)
	}
	if strings.Contains(strings.Join(messages(), ""), "\n") {
		t.Errorf("a message of more than one line")
	}
}

// An id from the log is repeated only when it is short and plain.
func TestShownID(t *testing.T) {
	for in, want := range map[string]string{"u-0001": "u-0001", "toolu_01AB": "toolu_01AB", "": "at the cursor",
		"[x](http://e)": "at the cursor", strings.Repeat("a", 65): "at the cursor"} {
		if got := shownID(in); got != want {
			t.Errorf("shownID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDefinitionFromAResultLine (issue 31 item 13): go-to-definition anywhere on a tool result's line
// — its start, its content — reaches the call, as on its tool_use_id (and as from an Agent call's
// line to the sub-agent's log); a result whose call is missing says so.
func TestDefinitionFromAResultLine(t *testing.T) {
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	lines := strings.Split(text, "\n")
	res := lineOf(t, text, `"tool_use_id":"toolu_R1"`)
	call := lineOf(t, text, `"id":"toolu_R1"`)
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	onID := c.definition(uri, valuePos(t, text, res, "tool_use_id", "toolu_R1"))
	if len(onID) != 1 || int(onID[0].Range.Start.Line) != call {
		t.Fatalf("definition on the tool_use_id: %+v, want line %d", onID, call+1)
	}
	content := strings.Index(lines[res], `"content":"`) + len(`"content":"`) + 3
	for _, p := range []pos{at(res, 0), at(res, 1), at(res, content), at(res, utf16Len(lines[res])-1)} {
		if got := c.definition(uri, p); len(got) != 1 || got[0] != onID[0] {
			t.Errorf("definition at %v: %+v, want the call %+v", p, got, onID[0])
		}
	}

	// A result whose call is in no log: nothing, and the reason names the id.
	orphan := strings.Replace(lines[res], "toolu_R1", "toolu_ZZ", 1)
	c.change(uri, 2, edit(rng{at(res, 0), at(res, utf16Len(lines[res]))}, orphan))
	c.diagsAt(uri, 2)
	if got := c.definition(uri, at(res, 0)); len(got) != 0 {
		t.Errorf("a result without its call: %+v", got)
	}
	c.await("the reason", func() bool {
		for _, n := range c.notes {
			if n.method == "window/showMessage" && strings.Contains(string(n.params), "no tool call of this session has the id toolu_ZZ") {
				return true
			}
		}
		return false
	})
}
