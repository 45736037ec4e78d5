package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type wsSymbol struct {
	Name          string
	Kind          int
	ContainerName string
	Location      location
}

func (c *client) workspaceSymbols(q string) []wsSymbol {
	c.t.Helper()
	var out []wsSymbol
	c.mustCall("workspace/symbol", map[string]any{"query": q}, &out)
	return out
}

func writeLog(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendLog(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(text)
	f.Close()
}

func prompt(uuid, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":"s1","message":{"role":"user","content":%q}}`, uuid, text)
}

func TestWorkspaceSymbols(t *testing.T) {
	ws := t.TempDir()
	proj := filepath.Join(ws, ".claude", "projects", "-home-dev-app")
	main := filepath.Join(proj, "s1.jsonl")
	writeLog(t, main,
		prompt("u1", "Fix the Widget parser"),
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/src/widget.go"}}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Task","input":{"description":"look for callers","prompt":"Find every caller of the widget parser","subagent_type":"Explore"}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package widget // SECRET body text"}]}}`,
		`{"type":"user","uuid":"m","isMeta":true,"message":{"role":"user","content":"<local-command-stdout>widget injected</local-command-stdout>"}}`)
	agent := filepath.Join(proj, "s1", "subagents", "agent-x1.jsonl")
	writeLog(t, agent, `{"type":"user","uuid":"g1","sessionId":"s1","isSidechain":true,"message":{"role":"user","content":"Find every caller of the widget parser"}}`)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(agent, old, old)
	outside := filepath.Join(t.TempDir(), "other.jsonl")
	writeLog(t, outside, prompt("o1", "widget outside the workspace"))
	os.Symlink(outside, filepath.Join(proj, "link.jsonl"))

	c := newClient(t, clientOpt{skip: true, hooks: hooks{wsPoll: 20 * time.Millisecond}})
	if res := c.initWorkspace(ws); !strings.Contains(string(res), `"workspaceSymbolProvider":true`) {
		t.Errorf("capability not announced: %s", res)
	}

	got := c.workspaceSymbols("WIDGET")
	var names []string
	for _, s := range got {
		names = append(names, fmt.Sprintf("%s|%d|%s|%d", s.Name, s.Kind, filepath.Base(string(s.Location.URI)), s.Location.Range.Start.Line))
	}
	want := []string{
		"Fix the Widget parser|24|s1.jsonl|0",
		"Read /src/widget.go|12|s1.jsonl|1",
		"Find every caller of the widget parser|24|agent-x1.jsonl|0", // the older log after
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("widget:\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if len(got) > 0 && got[0].ContainerName != "-home-dev-app · Fix the Widget parser · L1" {
		t.Errorf("container %q", got[0].ContainerName)
	}
	if s := c.workspaceSymbols("explore callers"); len(s) != 1 || s[0].Name != "⇒ Explore: look for callers" || s[0].Kind != 2 || s[0].Location.Range.Start.Line != 2 {
		t.Errorf("spawn: %+v", s)
	}
	if s := c.workspaceSymbols("secret"); len(s) != 0 {
		t.Errorf("log text beyond names is indexed: %+v", s)
	}
	if s := c.workspaceSymbols(""); len(s) != 4 {
		t.Errorf("empty query: %d symbols", len(s))
	}

	// An append is read from where the index stopped: the new prompt appears with its line.
	before := c.srv.wsym.File(main)
	appendLog(t, main, prompt("u2", "Now the gadget encoder")+"\n"+prompt("u3", "half a line"))
	eventually(t, "the appended prompt", func() bool { return len(c.srv.wsym.Query("gadget", 10)) == 1 })
	if s := c.workspaceSymbols("gadget"); s[0].Location.Range.Start.Line != 5 {
		t.Errorf("appended prompt at line %d, want 5", s[0].Location.Range.Start.Line)
	}
	after := c.srv.wsym.File(main)
	if after.Lines() != 6 || after.Len() != before.Len()+1 {
		t.Errorf("after the append: %d lines, %d symbols", after.Lines(), after.Len())
	}
	if s := c.workspaceSymbols("half"); len(s) != 0 {
		t.Errorf("a partial last line was indexed: %+v", s)
	}
	appendLog(t, main, "\n")
	eventually(t, "the completed line", func() bool { return len(c.srv.wsym.Query("half", 10)) == 1 })

	// A log rewritten shorter is read again; one removed leaves the index.
	writeLog(t, main, prompt("z1", "Rewritten"))
	eventually(t, "the rewritten log", func() bool {
		return len(c.srv.wsym.Query("rewritten", 10)) == 1 && len(c.srv.wsym.Query("gadget", 10)) == 0
	})
	os.Remove(agent)
	eventually(t, "the removed log", func() bool { return len(c.srv.wsym.Query("caller", 10)) == 0 })
}

// eventually waits for cond, which the server makes true on its own (no notification says so).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// bigLog writes a log of at least n bytes whose prompts hold marker.
func bigLog(t *testing.T, path, marker string, n int) {
	t.Helper()
	var lines []string
	for size, i := 0, 0; size < n; i++ {
		l := prompt(fmt.Sprintf("u%d", i), fmt.Sprintf("%s %d %s", marker, i, strings.Repeat("x", 900)))
		lines = append(lines, l)
		size += len(l) + 1
	}
	writeLog(t, path, lines...)
}

// Workspace symbols read no log past the server's file-size limit (docs/spec.md §15), as no other
// read of the server does: neither a main log nor a sub-agent log of 2 MB under a 1 MB limit gives
// a symbol, and a log that grows past the limit loses the symbols it had.
func TestWorkspaceSymbolsReadNoLogPastTheLimit(t *testing.T) {
	ws := t.TempDir()
	proj := filepath.Join(ws, ".claude", "projects", "proj")
	bigLog(t, filepath.Join(proj, "b1.jsonl"), "bigmarker", 2<<20)
	bigLog(t, filepath.Join(proj, "c2", "subagents", "agent-a1.jsonl"), "agentmarker", 2<<20)
	small := filepath.Join(proj, "d3.jsonl")
	bigLog(t, small, "smallmarker", 10_000)

	c := newClient(t, clientOpt{skip: true, hooks: hooks{wsPoll: 20 * time.Millisecond, maxFileBytes: 1 << 20}})
	c.initWorkspace(ws)
	if n := len(c.workspaceSymbols("smallmarker")); n == 0 {
		t.Fatal("no symbol of the log under the limit")
	}
	for _, m := range []string{"bigmarker", "agentmarker"} {
		if s := c.workspaceSymbols(m); len(s) != 0 {
			t.Errorf("%q: %d symbols of a log past the limit (%s)", m, len(s), s[0].Location.URI)
		}
	}
	// Grown past the limit: its symbols go.
	appendLog(t, small, strings.Repeat(prompt("g", "grown "+strings.Repeat("y", 900))+"\n", 1200))
	eventually(t, "the grown log's symbols to go", func() bool { return len(c.srv.wsym.Query("smallmarker", 10)) == 0 })
}

// initWorkspace initializes c (made with skip) on the workspace folder ws with progress reports,
// returns the initialize result, and waits until the first workspace-symbol index is built.
func (c *client) initWorkspace(ws string) json.RawMessage {
	c.t.Helper()
	var res json.RawMessage
	c.mustCall("initialize", map[string]any{"processId": nil, "rootUri": pathToURI(ws),
		"workspaceFolders": []map[string]any{{"uri": pathToURI(ws), "name": "ws"}},
		"capabilities":     map[string]any{"window": map[string]any{"workDoneProgress": true}}}, &res)
	c.notify("initialized", map[string]any{})
	// The first build reports progress, begin to end.
	c.await("indexing progress ends", func() bool {
		for _, n := range c.notes {
			if n.method == "$/progress" && strings.Contains(string(n.params), `"kind":"end"`) {
				return true
			}
		}
		return false
	})
	return res
}
