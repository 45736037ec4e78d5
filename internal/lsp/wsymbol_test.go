package lsp

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/testcorpus"
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
	var res json.RawMessage
	c.mustCall("initialize", map[string]any{"processId": nil, "rootUri": pathToURI(ws),
		"workspaceFolders": []map[string]any{{"uri": pathToURI(ws), "name": "ws"}},
		"capabilities":     map[string]any{"window": map[string]any{"workDoneProgress": true}}}, &res)
	if !strings.Contains(string(res), `"workspaceSymbolProvider":true`) {
		t.Errorf("capability not announced: %s", res)
	}
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
	before := c.srv.wsym.file(main)
	appendLog(t, main, prompt("u2", "Now the gadget encoder")+"\n"+prompt("u3", "half a line"))
	eventually(t, "the appended prompt", func() bool { return len(c.srv.wsym.query("gadget", 10)) == 1 })
	if s := c.workspaceSymbols("gadget"); s[0].Location.Range.Start.Line != 5 {
		t.Errorf("appended prompt at line %d, want 5", s[0].Location.Range.Start.Line)
	}
	after := c.srv.wsym.file(main)
	if after.lines != 6 || len(after.syms) != len(before.syms)+1 {
		t.Errorf("after the append: %d lines, %d symbols", after.lines, len(after.syms))
	}
	if s := c.workspaceSymbols("half"); len(s) != 0 {
		t.Errorf("a partial last line was indexed: %+v", s)
	}
	appendLog(t, main, "\n")
	eventually(t, "the completed line", func() bool { return len(c.srv.wsym.query("half", 10)) == 1 })

	// A log rewritten shorter is read again; one removed leaves the index.
	writeLog(t, main, prompt("z1", "Rewritten"))
	eventually(t, "the rewritten log", func() bool {
		return len(c.srv.wsym.query("rewritten", 10)) == 1 && len(c.srv.wsym.query("gadget", 10)) == 0
	})
	os.Remove(agent)
	eventually(t, "the removed log", func() bool { return len(c.srv.wsym.query("caller", 10)) == 0 })
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

func TestWorkspaceRoots(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	os.MkdirAll(filepath.Join(projects, "p"), 0o755)
	for _, c := range []struct{ params, want string }{
		{`{"rootUri":"` + pathToURI(home) + `"}`, projects},
		{`{"rootPath":"` + filepath.Join(home, ".claude") + `"}`, projects},
		{`{"workspaceFolders":[{"uri":"` + pathToURI(filepath.Join(projects, "p")) + `"}]}`, filepath.Join(projects, "p")},
		{`{"workspaceFolders":[{"uri":"` + pathToURI(t.TempDir()) + `"}]}`, ""},
		{`{"rootUri":null}`, ""},
	} {
		if got := strings.Join(workspaceRoots([]byte(c.params)), ","); got != c.want {
			t.Errorf("%s: %q, want %q", c.params, got, c.want)
		}
	}
}

// symbolLines only leaves out lines that make no symbol: indexing every log of the corpus, the
// repository's test logs and a generated session with it gives the symbols indexing every line gives.
func TestSymbolLinesDropNoSymbol(t *testing.T) {
	var paths []string
	paths = append(paths, testcorpus.Files(t, "symbolLines against indexing every line")...)
	filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
		return nil
	})
	texts := map[string][]byte{"generated": gen.Session(4<<20, 7)}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			texts[p] = b
		}
	}
	total := 0
	for name, data := range texts {
		var filtered, all wsFile
		filtered.add(data)
		all.addLines(data, func(b []byte) []byte { return b })
		if !slices.Equal(filtered.syms, all.syms) || string(filtered.names) != string(all.names) {
			t.Errorf("%s: %d symbols with symbolLines, %d from every line", name, len(filtered.syms), len(all.syms))
		}
		total += len(all.syms)
	}
	if total < 1000 {
		t.Fatalf("only %d symbols in %d logs: the test compares too little", total, len(texts))
	}
	t.Logf("%d logs, %d symbols", len(texts), total)
}

// TestWorkspaceSymbolsFoldAndRank: one symbol per distinct (kind, name) of a log (the first), tool
// calls named as their graph label (a path relative to the cwd, never raw JSON), a query naming a
// path ranks the calls on it first, and the container says project · title · line.
func TestWorkspaceSymbolsFoldAndRank(t *testing.T) {
	cwd := "/Users/me/repo"
	todo := `{"type":"assistant","uuid":"t%d","cwd":"` + cwd + `","message":{"role":"assistant","content":[{"type":"tool_use","id":"w%d","name":"TodoWrite","input":{"todos":[{"content":"Phase 1: roadmap.py","status":"pending"}]}}]}}`
	lines := []string{prompt("u1", "Plan the roadmap.py work")}
	for i := 0; i < 5; i++ {
		lines = append(lines, fmt.Sprintf(todo, i, i))
	}
	lines = append(lines,
		`{"type":"assistant","uuid":"r1","cwd":"`+cwd+`","message":{"role":"assistant","content":[{"type":"tool_use","id":"x1","name":"Read","input":{"file_path":"`+cwd+`/src/erk/core/metadata/roadmap.py"}}]}}`,
		prompt("u2", "What does roadmap.py say"))
	f := &wsFile{path: "/h/.claude/projects/-Users-me-repo/s.jsonl", container: "-Users-me-repo"}
	f.add([]byte(strings.Join(lines, "\n") + "\n"))
	x := &wsIndex{files: map[string]*wsFile{f.path: f}}
	var got []string
	for _, s := range x.query("roadmap.py", 50) {
		got = append(got, fmt.Sprintf("%d %s | %s", int(s.Kind), s.Name, s.ContainerName))
	}
	want := []string{
		"12 Read src/erk/core/metadata/roadmap.py | -Users-me-repo · Plan the roadmap.py work · L7",
		"24 Plan the roadmap.py work | -Users-me-repo · Plan the roadmap.py work · L1",
		"24 What does roadmap.py say | -Users-me-repo · Plan the roadmap.py work · L8",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("roadmap.py:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	todos := x.query("todowrite", 50)
	if len(todos) != 1 || todos[0].Name != "TodoWrite 1 todos" || todos[0].Location.Range.Start.Line != 1 {
		t.Errorf("five identical TodoWrite calls: %+v", todos)
	}
}
