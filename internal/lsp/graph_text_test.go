package lsp

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/layout"
)

// The graph request's "format": "text" is `ccdag graph --format text`'s drawing (graph.Text), with
// each node line's location, for an open document and for one read from disk.
func TestWorkflowGraphText(t *testing.T) {
	path, mainURI, mainText := fixture(t, subMain)
	_, agentURI, _ := fixture(t, subAgent)
	s, err := layout.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := graph.Text(graph.BuildDrawn(s, graph.Options{}, graph.CollapseOptions{MaxNodes: graph.DefaultMaxNodes}))
	c := newClient(t, clientOpt{})
	var closed textGraph
	c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": mainURI}, "format": "text"}, &closed)
	c.open(mainURI, mainText, 1)
	c.diagsAt(mainURI, 1)
	var open textGraph
	c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": mainURI}, "format": "text"}, &open)
	for name, got := range map[string]textGraph{"open": open, "closed": closed} {
		if got.Text != want {
			t.Errorf("%s: text\n%s\nwant\n%s", name, got.Text, want)
		}
		lines := strings.Split(got.Text, "\n")
		uris := map[string]int{}
		for _, l := range got.Lines {
			uris[l.Location.URI]++
			if !strings.Contains(lines[l.Row], "[") {
				t.Errorf("%s: row %d is not a node: %q", name, l.Row, lines[l.Row])
			}
		}
		if len(got.Lines) != 8 || uris[mainURI] != 4 || uris[agentURI] != 4 {
			t.Errorf("%s: %d node lines, by URI %v", name, len(got.Lines), uris)
		}
	}
	var cmd textGraph
	c.mustCall("workspace/executeCommand", map[string]any{"command": commandWorkflowGraph,
		"arguments": []any{map[string]any{"textDocument": map[string]any{"uri": mainURI}, "format": "text"}}}, &cmd)
	if cmd.Text != want {
		t.Errorf("the command's text differs:\n%s", cmd.Text)
	}
}
