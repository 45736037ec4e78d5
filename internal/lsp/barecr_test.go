package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/position"
)

// lspLineStarts splits a text by LSP's rule ("\n", "\r\n" and a bare "\r" end a line), as a client
// following the specification does; the fixtures here are ASCII, so a column is a byte.
func lspLineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		if text[i] == '\r' || text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func lspOffset(text string, line, char int) int {
	starts := lspLineStarts(text)
	if line >= len(starts) {
		return len(text)
	}
	return starts[line] + char
}

// applyLSPEdits applies non-overlapping edits by LSP's line rule, the last first.
func applyLSPEdits(text string, edits []textEdit) string {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		s, en := lspOffset(text, e.Range.Start.Line, e.Range.Start.Character), lspOffset(text, e.Range.End.Line, e.Range.End.Character)
		text = text[:s] + e.NewText + text[en:]
	}
	return text
}

// Issue 20, item 4: a bare '\r' (JSON whitespace) in the records before an orphan. The positions
// the server sends and receives count it as LSP does, so the quick fix lands on the orphan (it
// overwrote the record before it and left the orphan twice), a definition points at its target's
// value, and an edit typed after a bare '\r' lands where it was typed.
func TestBareCarriageReturnPositions(t *testing.T) {
	path, uri, text := fixture(t, "../../../testdata/checks/orphan-bare-cr.jsonl")
	const orphanParent = `"ffffffff-dead-4bad-8000-000000000000"`
	want := strings.Replace(text, orphanParent, `"00000000-0000-4000-8000-000000000004"`, 1)
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	var orphan *diagnostic
	for _, d := range c.diagsAt(uri, 1) {
		if d.Code == "orphan" {
			orphan = &d
		}
	}
	// four records with one bare '\r' each before it: the orphan's line 5 is LSP's line 9
	if orphan == nil || orphan.Range.Start != (position.Pos{Line: 8, Character: 14}) ||
		!strings.HasPrefix(text[lspOffset(text, 8, 14):], orphanParent) {
		t.Fatalf("orphan diagnostic %+v, want at 8:14 on %s", orphan, orphanParent)
	}
	var acts []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": orphan.Range,
		"context": map[string]any{"diagnostics": []any{orphan}, "only": []string{"quickfix"}}}, &acts)
	if len(acts) != 1 || len(acts[0].Diagnostics) != 1 || len(acts[0].Edit.Changes[uri]) == 0 {
		t.Fatalf("want one quick fix for the orphan: %+v", acts)
	}
	if got := applyLSPEdits(text, acts[0].Edit.Changes[uri]); got != want {
		t.Fatalf("the quick fix applied by LSP's line rule:\n%q\nwant what ccdag fix writes:\n%q", got, want)
	}
	for _, fd := range findingsOf(path, want) {
		t.Errorf("after the fix: %s %s", fd.Code, fd.Message)
	}

	// the parent of the fourth record (LSP line 6) is the third record's uuid, after its bare '\r'
	locs := c.definition(uri, at(6, 16))
	if len(locs) != 1 || locs[0].Range.Start.Line != 5 ||
		!strings.HasPrefix(text[lspOffset(text, 5, int(locs[0].Range.Start.Character)):], `"00000000-0000-4000-8000-000000000003"`) {
		t.Fatalf("definition %+v, want the third record's uuid on LSP line 5", locs)
	}

	// Everything else placed at a record's start or end: hints, lenses, folds and the outline's turns.
	// Each bare '\r' above a record moves it one LSP line down: records start on LSP lines 0, 2, 4, 6, 8.
	recordStart := func(what string, line, char int) {
		t.Helper()
		if off := lspOffset(text, line, char); char != 0 || !strings.HasPrefix(text[off:], `{"parentUuid"`) {
			t.Errorf("%s at %d:%d, not at a record's start (%q)", what, line, char, text[off:min(len(text), off+20)])
		}
	}
	var hints []struct{ Position pos }
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": at(0, 0), "end": at(20, 0)}}, &hints)
	for _, h := range hints {
		recordStart("inlay hint", h.Position.Line, h.Position.Character)
	}
	var lenses []struct{ Range struct{ Start pos } }
	c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses)
	var folds []struct{ StartLine, EndLine int }
	c.mustCall("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": uri}}, &folds)
	var syms []struct{ Range struct{ Start, End pos } }
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(hints) == 0 || len(lenses) == 0 || len(folds) == 0 || len(syms) == 0 {
		t.Fatalf("hints %d, lenses %d, folds %d, symbols %d: want some of each", len(hints), len(lenses), len(folds), len(syms))
	}
	// exactly: turns start on records 1 and 5 (LSP lines 0 and 8), the first folds to the end of
	// record 4 (LSP line 7), the last ends after the orphan's three bare '\r's and newline
	var got []string
	for _, h := range hints {
		got = append(got, fmt.Sprint("hint ", h.Position.Line))
	}
	for _, l := range lenses[len(lenses)-2:] {
		got = append(got, fmt.Sprint("lens ", l.Range.Start.Line))
	}
	for _, f := range folds {
		got = append(got, fmt.Sprint("fold ", f.StartLine, "-", f.EndLine))
	}
	for _, sy := range syms {
		got = append(got, fmt.Sprint("turn ", sy.Range.Start.Line, "-", sy.Range.End.Line))
	}
	if want := "hint 0,hint 2,hint 4,hint 6,hint 8,lens 0,lens 8,fold 0-7,fold 2-5,turn 0-8,turn 8-12"; strings.Join(got, ",") != want {
		t.Errorf("placed at %s\nwant %s", strings.Join(got, ","), want)
	}
	for _, l := range lenses {
		recordStart("code lens", l.Range.Start.Line, l.Range.Start.Character)
	}
	for _, f := range folds {
		recordStart("fold start", f.StartLine, 0)
		// a fold ends on the last LSP line of a record: the next one starts on the line after it
		recordStart("line after a fold", f.EndLine+1, 0)
	}
	for _, sy := range syms {
		recordStart("outline turn", sy.Range.Start.Line, sy.Range.Start.Character)
		if end := lspOffset(text, sy.Range.End.Line, sy.Range.End.Character); end != len(text) {
			recordStart("the end of an outline turn", sy.Range.End.Line, sy.Range.End.Character)
		}
	}

	// the resume preview's links to the log: where the chain breaks and the one record sent, the orphan
	var preview struct {
		Lines []struct{ Line int } `json:"lines"`
	}
	c.mustCall("ccdag/resumePreview", map[string]any{"textDocument": map[string]any{"uri": uri}}, &preview)
	got = got[:0]
	for _, l := range preview.Lines {
		got = append(got, fmt.Sprint(l.Line))
	}
	if strings.Join(got, ",") != "8,8" {
		t.Errorf("resume preview links to LSP lines %v, want the orphan's 8 twice", got)
	}

	// the transcript's map to the log: each entry a record's first LSP line, the orphan's among them
	var tr struct {
		Lines []struct{ Line int } `json:"lines"`
	}
	c.mustCall("ccdag/transcript", map[string]any{"textDocument": map[string]any{"uri": uri}}, &tr)
	orphanLinked := false
	for _, l := range tr.Lines {
		recordStart("transcript link", l.Line, 0)
		orphanLinked = orphanLinked || l.Line == 8
	}
	if !orphanLinked {
		t.Errorf("the transcript links no line to the orphan's LSP line 8: %+v", tr.Lines)
	}

	// the workflow graph's nodes (the VS Code viewer's jumps): each range the whole of its record
	var wg struct {
		Nodes []struct {
			UUIDs    []string                                 `json:"uuids"`
			Location struct{ Range struct{ Start, End pos } } `json:"location"`
		} `json:"nodes"`
	}
	c.mustCall("ccdag/workflowGraph", map[string]any{"textDocument": map[string]any{"uri": uri}}, &wg)
	if len(wg.Nodes) == 0 {
		t.Fatal("the workflow graph has no nodes")
	}
	for _, n := range wg.Nodes {
		r := n.Location.Range
		s, e := lspOffset(text, r.Start.Line, r.Start.Character), lspOffset(text, r.End.Line, r.End.Character)
		// within the record of its first uuid: that record whole, or a call's or result's id in it
		rs, re := strings.LastIndexByte(text[:s], '\n')+1, s+strings.IndexByte(text[s:], '\n')
		if rec := text[rs:max(rs, re)]; len(n.UUIDs) == 0 || e < s || e > re ||
			!strings.Contains(rec, `"uuid":"`+n.UUIDs[0]+`"`) || (s == rs) != (e == re) {
			t.Errorf("graph node %v at %+v covers %q, not its record or an id in it", n.UUIDs, r, text[s:max(s, e)])
		}
	}

	// an edit typed on the orphan's LSP line: the server's text becomes the client's
	end := orphan.Range.Start
	end.Character += uint32(len(orphanParent))
	c.change(uri, 2, map[string]any{"range": map[string]any{"start": orphan.Range.Start, "end": end},
		"text": `"00000000-0000-4000-8000-000000000004"`})
	if ds := c.diagsAt(uri, 2); len(ds) != 0 {
		t.Fatalf("after typing the fix by LSP's positions: %+v", ds)
	}
}
