package lsp

import (
	"strings"
	"testing"
)

// The resumed chain's figure: in the hover of the main log's first line, in ccdag/sessionSummary
// (the status bar's tooltip), and in the message of the orphan where the chain breaks.
func TestResumeFigure(t *testing.T) {
	_, uri, text := fixture(t, "repair/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	const fig = "resume, as Claude Code 2.1.120 will load it: 2 records, broken at line 3: 2 earlier records lost"
	if h := c.hoverText(uri, at(0, 1)); !strings.Contains(h, fig) {
		t.Errorf("first line's hover lacks the figure:\n%s", h)
	}
	if h := c.hoverText(uri, at(1, 1)); strings.Contains(h, "resume, as") {
		t.Errorf("second line's hover shows the figure:\n%s", h)
	}
	var sum summary
	c.mustCall("ccdag/sessionSummary", map[string]any{"textDocument": map[string]any{"uri": uri}}, &sum)
	if sum.ResumeText != fig || sum.Resume == nil || sum.Resume.Lost != 2 || sum.Resume.Complete {
		t.Errorf("summary: %q %+v", sum.ResumeText, sum.Resume)
	}
	found := false
	for _, d := range c.diagsAt(uri, 1) {
		if d.Code == "orphan" && strings.Contains(d.Message, "loses the 2 earlier records") {
			found = true
		}
	}
	if !found {
		t.Errorf("no chain-aware orphan message: %+v", c.diagsAt(uri, 1))
	}
}
