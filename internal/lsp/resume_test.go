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

// ccdag/resumePreview: the text `ccdag resume` prints, each record's line linked to the log, for an
// open document and for one read from disk.
func TestResumePreview(t *testing.T) {
	_, uri, text := fixture(t, "repair/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
	c := newClient(t, clientOpt{})
	for _, open := range []bool{false, true} {
		if open {
			c.open(uri, text, 1)
		}
		var got struct {
			Text  string `json:"text"`
			Lines []struct {
				Preview int    `json:"preview"`
				URI     string `json:"uri"`
				Line    int    `json:"line"`
			} `json:"lines"`
			Resume *struct {
				Lost int `json:"lost"`
			} `json:"resume"`
		}
		c.mustCall("ccdag/resumePreview", map[string]any{"textDocument": map[string]any{"uri": uri}}, &got)
		if !strings.Contains(got.Text, "as Claude Code 2.1.120 will load it") || !strings.Contains(got.Text, "the chain breaks at line 3") || got.Resume == nil || got.Resume.Lost != 2 {
			t.Errorf("open %v: %+v", open, got)
		}
		lines := strings.Split(got.Text, "\n")
		linked := false
		for _, l := range got.Lines {
			if l.Preview < len(lines) && strings.Contains(lines[l.Preview], "the chain breaks at line 3") && l.Line == 2 && strings.HasSuffix(l.URI, ".jsonl") {
				linked = true
			}
		}
		if !linked {
			t.Errorf("open %v: the break is not linked to line 3: %+v", open, got.Lines)
		}
	}
}

// ccdag.claudeVersion: the loader named in initializationOptions, then changed by a pushed setting,
// is the one the hover and the findings on the chain speak of.
func TestClaudeVersionSetting(t *testing.T) {
	_, uri, text := fixture(t, "repair/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
	c := newClient(t, clientOpt{init: map[string]any{"claudeVersion": "2.1.19"}})
	c.open(uri, text, 1)
	// 2.1.19 bridges nothing and starts at the newest leaf: the figure is its own.
	if h := c.hoverText(uri, at(0, 1)); !strings.Contains(h, "resume, as Claude Code 2.1.19 will load it") {
		t.Errorf("hover with claudeVersion 2.1.19:\n%s", h)
	}
	n := c.publications(uri)
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag": map[string]any{"claudeVersion": "2.1.328"}}})
	c.await("republished as 2.1.328 loads it", func() bool {
		ps := c.diags[uri]
		if len(ps) <= n {
			return false
		}
		for _, d := range ps[len(ps)-1].Diagnostics {
			if strings.Contains(d.Message, "as Claude Code 2.1.328 will load it") {
				return true
			}
		}
		return false
	})
	if h := c.hoverText(uri, at(0, 1)); !strings.Contains(h, "resume, as Claude Code 2.1.328 will load it") {
		t.Errorf("hover after the setting changed:\n%s", h)
	}
}

func TestParseClaudeVersion(t *testing.T) {
	for raw, want := range map[string]string{`{"claudeVersion":"2.1.328"}`: "2.1.328", `{"ccdag":{"claudeVersion":"2.1.20"}}`: "2.1.20",
		`{"ccdag.claudeVersion":""}`: "", `{"severity":{}}`: "-", `{"claudeVersion":"latest"}`: "error", `{"claudeVersion":3}`: "error"} {
		v, ok, err := parseClaudeVersion([]byte(raw))
		got := v
		switch {
		case err != nil:
			got = "error"
		case !ok:
			got = "-"
		}
		if got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}
