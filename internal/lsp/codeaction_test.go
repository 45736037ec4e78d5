package lsp

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/session"
)

// Client-side shapes of a code action (tests decode into their own types).
type textEdit struct {
	Range struct {
		Start pos `json:"start"`
		End   pos `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

type codeAction struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind"`
	Diagnostics []diagnostic `json:"diagnostics"`
	Edit        struct {
		Changes         map[string][]textEdit `json:"changes"`
		DocumentChanges []struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits []textEdit `json:"edits"`
		} `json:"documentChanges"`
	} `json:"edit"`
}

// applyEdits applies whole-line edits (UTF-16 columns are 0 or the end of an ASCII line here).
func applyEdits(t *testing.T, text string, edits []textEdit) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	offset := func(p pos) int {
		o := 0
		for i := 0; i < p.Line && i < len(lines); i++ {
			o += len(lines[i])
		}
		return o + p.Character
	}
	// From the last edit back, so earlier offsets hold.
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		s, en := offset(e.Range.Start), offset(e.Range.End)
		text = text[:s] + e.NewText + text[en:]
	}
	return text
}

func findingsOf(path, text string) []check.Finding {
	s := session.New("x", "")
	s.AddFile(session.NewFile(path, []byte(text)))
	return check.New(s).All(nil)
}

func TestCodeActionQuickFix(t *testing.T) {
	path, uri, text := fixture(t, "repair/5e3c1d2a-0b4f-4c7e-9a21-3f5d7c9e1b2a.jsonl")
	c := newClient(t, clientOpt{caps: map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{"documentChanges": true}}}})
	c.open(uri, text, 3)
	var diags []diagnostic
	for _, d := range c.diagsAt(uri, 3) {
		if d.Code == "unmatched-tool-use" {
			diags = append(diags, d)
		}
	}
	if len(diags) != 1 {
		t.Fatalf("diagnostics %+v", diags)
	}
	var acts []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": diags[0].Range,
		"context": map[string]any{"diagnostics": diags}}, &acts)
	var qf *codeAction
	for i := range acts {
		if acts[i].Kind == "quickfix" {
			qf = &acts[i]
		}
	}
	if qf == nil || !strings.Contains(qf.Title, "Insert an error result") || len(qf.Diagnostics) != 1 {
		t.Fatalf("no quick fix for the diagnostic: %+v", acts)
	}
	dc := qf.Edit.DocumentChanges
	if len(dc) != 1 || dc[0].TextDocument.URI != uri || dc[0].TextDocument.Version == nil || *dc[0].TextDocument.Version != 3 || qf.Edit.Changes != nil {
		t.Fatalf("want one versioned document edit: %+v", qf.Edit)
	}
	fixed := applyEdits(t, text, dc[0].Edits)
	for _, fd := range findingsOf(path, fixed) {
		t.Errorf("after the quick fix: %s %s", fd.Code, fd.Message)
	}
	// The server wrote nothing; once the edit is in the document, nothing is left to fix.
	c.change(uri, 4, map[string]any{"text": fixed})
	c.diagsAt(uri, 4)
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": diags[0].Range,
		"context": map[string]any{"diagnostics": []any{}}}, &acts)
	if len(acts) != 0 {
		t.Errorf("actions after the fix: %+v", acts)
	}
}

func TestCodeActionFixAll(t *testing.T) {
	path, uri, text := fixture(t, "repair/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	var acts []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": at(0, 0), "end": at(0, 0)},
		"context": map[string]any{"diagnostics": []any{}, "only": []string{"source"}}}, &acts)
	if len(acts) != 1 || acts[0].Kind != "source.fixAll.ccdag" {
		t.Fatalf("want one fix-all action: %+v", acts)
	}
	edits := acts[0].Edit.Changes[uri]
	if len(edits) == 0 || acts[0].Edit.DocumentChanges != nil {
		t.Fatalf("want plain changes (no documentChanges capability): %+v", acts[0].Edit)
	}
	fixed := applyEdits(t, text, edits)
	for _, fd := range findingsOf(path, fixed) {
		t.Errorf("after fix-all: %s %s", fd.Code, fd.Message)
	}
}
