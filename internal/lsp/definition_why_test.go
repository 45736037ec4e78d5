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
