package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/gen"
)

type hintWire struct {
	Position pos    `json:"position"`
	Label    string `json:"label"`
}

type lensWire struct {
	Range   rng `json:"range"`
	Command struct {
		Title     string `json:"title"`
		Command   string `json:"command"`
		Arguments []any  `json:"arguments"`
	} `json:"command"`
}

type foldWire struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

type highlightWire struct {
	Range rng `json:"range"`
	Kind  int `json:"kind"`
}

type transcriptWire struct {
	Markdown string `json:"markdown"`
	Lines    []struct {
		Transcript int    `json:"transcript"`
		URI        string `json:"uri"`
		Line       int    `json:"line"`
	} `json:"lines"`
}

func docParams(uri string) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}}
}

func TestReadingFeatures(t *testing.T) {
	_, uri, text := fixture(t, "subagents/22222222-2222-4222-8222-222222222222.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)

	var hints []hintWire
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{at(0, 0), at(100, 0)}}, &hints)
	var got []string
	for _, h := range hints {
		if h.Position.Character != 0 {
			t.Errorf("hint %q not at the start of its line", h.Label)
		}
		got = append(got, fmt.Sprintf("%d:%s", h.Position.Line, h.Label))
	}
	if want := "0:user 1:↳ agent Explore 2:✓ 1.2 s 3:text"; strings.Join(got, " ") != want {
		t.Errorf("inlay hints %q, want %q", strings.Join(got, " "), want)
	}
	// A range costs the range: only its lines get hints.
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{at(2, 0), at(2, 5)}}, &hints)
	if len(hints) != 1 || hints[0].Position.Line != 2 {
		t.Errorf("range [2,2]: %+v", hints)
	}

	var lenses []lensWire
	c.mustCall("textDocument/codeLens", docParams(uri), &lenses)
	var titles []string
	cmds := map[string]bool{}
	for _, l := range lenses {
		titles = append(titles, fmt.Sprintf("%d:%s", l.Range.Start.Line, l.Command.Title))
		cmds[l.Command.Command] = true
	}
	all := strings.Join(titles, " | ")
	for _, want := range []string{"0:session: 1 turn · ≥ 168 out · 4.0k in+cache · ≥ $0.0063 (incl. 1 sub-agent)", "0:Show Workflow Graph", "0:Open Transcript", "0:1 tool call · 1 sub-agent · ≥ 168 out · 4.0k in+cache · ≥ $0.0063 (incl. 1 sub-agent) · "} { // the turn with its sub-agent: the session's figures; priced on placeholder output counts, the cost is a lower bound too
		if !strings.Contains(all, want) {
			t.Errorf("code lenses %q lack %q", all, want)
		}
	}
	if !cmds["ccdag.showWorkflowGraph"] || !cmds["ccdag.openTranscript"] {
		t.Errorf("lens commands %v", cmds)
	}

	var folds []foldWire
	c.mustCall("textDocument/foldingRange", docParams(uri), &folds)
	if fmt.Sprint(folds) != "[{0 3} {1 2}]" {
		t.Errorf("folding ranges %+v, want the turn 0-3 and its step 1-2 (the Agent call and its result)", folds)
	}

	var hl []highlightWire
	c.mustCall("textDocument/documentHighlight", tdp(uri, valuePos(t, text, 1, "id", "toolu_T1")), &hl)
	if len(hl) != 2 || hl[0].Range.Start.Line != 1 || hl[0].Kind != 3 || hl[1].Range.Start.Line != 2 || hl[1].Kind != 2 {
		t.Errorf("highlights of the tool id: %+v, want a Write on line 1 and a Read on line 2", hl)
	}
	c.mustCall("textDocument/documentHighlight", tdp(uri, valuePos(t, text, 1, "parentUuid", "u-0001")), &hl)
	if len(hl) != 2 || hl[0].Kind != 3 || hl[0].Range.Start.Line != 0 || hl[1].Kind != 2 || hl[1].Range.Start.Line != 1 {
		t.Errorf("highlights of a uuid: %+v", hl)
	}

	var tr transcriptWire
	c.mustCall("ccdag/transcript", map[string]any{"textDocument": map[string]any{"uri": uri}, "allBranches": false}, &tr)
	if !strings.Contains(tr.Markdown, "## Turn 1") || !strings.Contains(tr.Markdown, "**↳ sub-agent** `Explore`") || len(tr.Lines) < 5 {
		t.Fatalf("transcript:\n%s\n%+v", tr.Markdown, tr.Lines)
	}
	var viaCmd transcriptWire
	c.mustCall("workspace/executeCommand", map[string]any{"command": "ccdag.transcript", "arguments": []any{uri}}, &viaCmd)
	if viaCmd.Markdown != tr.Markdown {
		t.Errorf("the command's transcript differs from the request's")
	}

	// The log grows by a turn: transcript, lenses and folding follow.
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	add := `{"parentUuid":"a-0004","type":"user","message":{"role":"user","content":"And now?"},"uuid":"u-0009","timestamp":"2026-03-01T10:01:00.000Z","sessionId":"22222222-2222-4222-8222-222222222222"}` + "\n"
	c.change(uri, 2, edit(rng{at(len(lines), 0), at(len(lines), 0)}, add))
	c.diagsAt(uri, 2)
	c.mustCall("ccdag/transcript", docParams(uri), &tr)
	if !strings.Contains(tr.Markdown, "## Turn 2 · `And now?`") {
		t.Errorf("the transcript did not follow the append:\n%s", tr.Markdown)
	}
	c.mustCall("textDocument/foldingRange", docParams(uri), &folds)
	c.mustCall("textDocument/codeLens", docParams(uri), &lenses)
	if fmt.Sprint(folds) != "[{0 3} {1 2}]" || !strings.Contains(lenses[0].Command.Title, "2 turns") {
		t.Errorf("after the append: folds %+v, lenses %+v", folds, lenses)
	}
}

// A file that is not JSON Lines gets no hints, no folding, no highlights, and one lens and a
// transcript saying it is not a session log.
func TestReadingNotJSONL(t *testing.T) {
	uri := "file:///tmp/ccdag-not-jsonl/x.jsonl"
	c := newClient(t, clientOpt{})
	c.open(uri, strings.Repeat("\x00\x01binary junk <script>\n", 20), 1)
	c.diagsAt(uri, 1)
	var hints []hintWire
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{at(0, 0), at(100, 0)}}, &hints)
	var folds []foldWire
	c.mustCall("textDocument/foldingRange", docParams(uri), &folds)
	var hl []highlightWire
	c.mustCall("textDocument/documentHighlight", tdp(uri, at(0, 3)), &hl)
	var lenses []lensWire
	c.mustCall("textDocument/codeLens", docParams(uri), &lenses)
	var tr transcriptWire
	c.mustCall("ccdag/transcript", docParams(uri), &tr)
	if len(hints) != 0 || len(folds) != 0 || len(hl) != 0 {
		t.Errorf("a not-jsonl file got hints %v, folds %v, highlights %v", hints, folds, hl)
	}
	if len(lenses) != 1 || !strings.Contains(lenses[0].Command.Title, "not a session log") {
		t.Errorf("lenses %+v", lenses)
	}
	if !strings.HasPrefix(tr.Markdown, "# Not a session log") || strings.Contains(tr.Markdown, "<script") {
		t.Errorf("transcript %q", tr.Markdown)
	}
}

// The lenses kept from one request to the next (each turn's encoded once) are those a fresh
// server gives for the same text, after appends that extend the last turn and add new ones.
func TestLensesFollowAppends(t *testing.T) {
	w := gen.New(gen.Options{Seed: 3})
	for i := 0; i < 6; i++ {
		w.Turn()
	}
	text := string(w.Take())
	uri := "file:///tmp/ccdag-lens-append/s.jsonl"
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	var kept []lensWire
	c.mustCall("textDocument/codeLens", docParams(uri), &kept)
	for v := int32(2); v < 8; v++ {
		var add string
		if v%3 == 0 {
			w.Turn()
			add = string(w.Take())
		} else {
			add = string(w.Record())
		}
		n := strings.Count(text, "\n")
		c.change(uri, v, edit(rng{at(n, 0), at(n, 0)}, add))
		c.diagsAt(uri, v)
		text += add
		c.mustCall("textDocument/codeLens", docParams(uri), &kept)

		fresh := newClient(t, clientOpt{})
		fresh.open(uri, text, 1)
		fresh.diagsAt(uri, 1)
		var want []lensWire
		fresh.mustCall("textDocument/codeLens", docParams(uri), &want)
		if fmt.Sprint(kept) != fmt.Sprint(want) {
			t.Fatalf("version %d: kept lenses\n%v\nfresh\n%v", v, kept, want)
		}
	}
	if len(kept) < 3+8 {
		t.Fatalf("%d lenses", len(kept))
	}
}

// TestInlayHintKeepsTheFileName (issue 32 item 5): a long path in an inlay hint is cut in its
// middle by whole folders, as the graph's labels are (pathlabel), so the file name stays; it was
// cut at its end ("▸ Read packages/erk-shared/src/erk_shared/gatew…").
func TestInlayHintKeepsTheFileName(t *testing.T) {
	const file = "real_github_api_client.py"
	long := "/home/dev/erk/packages/erk-shared/src/erk_shared/gateway/github/" + file
	text := `{"type":"user","uuid":"u1","parentUuid":null,"cwd":"/home/dev/erk","sessionId":"s","message":{"role":"user","content":"read it"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","cwd":"/home/dev/erk","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"` + long + `"}}]}}` + "\n" +
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","cwd":"/home/dev/erk","sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/home/dev/erk/src/a.py"}}]}}` + "\n"
	uri := pathToURI(filepath.Join(t.TempDir(), "s.jsonl"))
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	var hints []hintWire
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{at(0, 0), at(3, 0)}}, &hints)
	got := map[int]string{}
	for _, h := range hints {
		got[h.Position.Line] = h.Label
	}
	l := got[1]
	if !strings.HasPrefix(l, "▸ Read packages/") || !strings.HasSuffix(l, "/"+file) || !strings.Contains(l, "…") || utf8.RuneCountInString(l) > hintMax {
		t.Errorf("hint of a long path %q: want it cut in the middle, the file name kept, at most %d characters", l, hintMax)
	}
	if got[2] != "▸ Read src/a.py" {
		t.Errorf("hint of a short path %q, want it whole", got[2])
	}
}
