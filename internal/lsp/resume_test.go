package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/resume"
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

// TestResumePreviewVerdictFirst (issue 32 item 6): the preview's first line is the verdict, with
// the loader it holds for; a chain that starts at a compaction says so and what stands for the
// lines before it; the sentences wrap (VS Code cut the version line at its right edge, Emacs hid
// "lost" past the window's).
func TestResumePreviewVerdictFirst(t *testing.T) {
	preview := func(c *client, uri string) []string {
		t.Helper()
		var got struct {
			Text string `json:"text"`
		}
		c.mustCall("ccdag/resumePreview", map[string]any{"textDocument": map[string]any{"uri": uri}}, &got)
		lines := strings.Split(got.Text, "\n")
		for _, l := range lines {
			record := strings.HasPrefix(l, "   ") // one line a record: "  <line>  <kind> <summary>"
			if !record && !strings.HasPrefix(l, "log: ") && utf8.RuneCountInString(l) > resume.TextWidth {
				t.Errorf("a line of %d characters: %q", utf8.RuneCountInString(l), l)
			}
		}
		return lines
	}
	_, uri, text := fixture(t, "repair/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	lines := preview(c, uri)
	if want := "Resume loses 2 records, as Claude Code 2.1.120 will load it (this log's own version): 2 before the"; lines[0] != want {
		t.Errorf("first line %q, want the verdict %q", lines[0], want)
	}

	const (
		sid = `"sessionId":"s","version":"2.1.120","timestamp":"2026-01-01T00:00:0`
	)
	log := strings.Join([]string{
		`{"type":"user","uuid":"u1","parentUuid":null,` + sid + `1.000Z","message":{"role":"user","content":"first"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1",` + sid + `2.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1",` + sid + `3.000Z","message":{"role":"user","content":"second"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2",` + sid + `4.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a2",` + sid + `5.000Z","content":"Conversation compacted"}`,
		`{"type":"user","uuid":"s1","parentUuid":"b","isCompactSummary":true,` + sid + `6.000Z","message":{"role":"user","content":"summary of it all"}}`,
		`{"type":"user","uuid":"u3","parentUuid":"s1",` + sid + `7.000Z","message":{"role":"user","content":"third"}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"u3",` + sid + `8.000Z","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"done"}]}}`,
	}, "\n") + "\n"
	curi := pathToURI(filepath.Join(t.TempDir(), "s.jsonl"))
	c.open(curi, log, 1)
	lines = preview(c, curi)
	all := strings.Join(lines, " ")
	if !strings.HasPrefix(lines[0], "Resume loses nothing, as Claude Code 2.1.120 will load it") {
		t.Errorf("first line %q, want the verdict", lines[0])
	}
	if !strings.Contains(all, "4 records sent of 4 on the chain, from the compaction at line 5; the 4 lines before it are sent as its summary.") ||
		strings.Contains(all, "the whole history back to its start") {
		t.Errorf("a chain from a compaction:\n%s", strings.Join(lines, "\n"))
	}
}
