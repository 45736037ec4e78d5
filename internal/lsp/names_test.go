package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/textsafe"
)

// Code action titles, outline names and workspace symbols (names and their project folder) carry
// text from the log and from folder names: like hover and diagnostics they show bidi overrides and
// control characters as escapes, never raw (issue 20: "Insert an error result for
// Unanswered\u202egnp.exe…" reached the editor's lists as it was).
func TestListsShowNoBidiOrControls(t *testing.T) {
	const evil = "Unanswered\u202egnp.exe\x1b[31m\nline\u2066x\u2069"
	ws := t.TempDir()
	proj := filepath.Join(ws, ".claude", "projects", "-home-"+evil)
	main := filepath.Join(proj, "s1.jsonl")
	text := strings.Join([]string{
		prompt("u1", "Find "+evil),
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"thinking ` + jsonEsc(evil) + `"},{"type":"tool_use","id":"t1","name":"` + jsonEsc(evil) + `","input":{"command":"` + jsonEsc(evil) + `"}}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"next"}}`,
	}, "\n") + "\n"
	writeLog(t, main, strings.TrimSuffix(text, "\n"))
	old := time.Now().Add(-time.Hour)
	os.Chtimes(main, old, old)

	c := newClient(t, clientOpt{skip: true, hooks: hooks{wsPoll: 20 * time.Millisecond}})
	c.initWorkspace(ws)
	syms := c.workspaceSymbols("gnp")
	uri := string(pathToURI(main))
	c.open(uri, text, 1)
	diags := c.diagsAt(uri, 1)
	var outline, acts any
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &outline)
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 3, "character": 0}},
		"context": map[string]any{"diagnostics": diags}}, &acts)
	seen := 0
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "edit" || k == "uri" || k == "location" || k == "diagnostics" {
					continue // edits are the log's own text; URIs are percent-encoded
				}
				walk(where+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(where, x)
			}
		case string:
			if strings.Contains(v, "gnp") || strings.Contains(v, "home") {
				seen++
			}
			if textsafe.Printable(v) != v {
				t.Errorf("%s: raw %q", where, v)
			}
		}
	}
	b, _ := json.Marshal(syms)
	var ws2 any
	json.Unmarshal(b, &ws2)
	walk("workspace/symbol", ws2)
	walk("documentSymbol", outline)
	walk("codeAction", acts)
	if len(syms) == 0 || seen < 4 {
		t.Errorf("only %d names from the log seen: %v %v %v", seen, ws2, outline, acts)
	}
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
