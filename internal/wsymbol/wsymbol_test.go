package wsymbol

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// The index through the server (workspace/symbol): internal/lsp's TestWorkspaceSymbols.

func TestWorkspaceRoots(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	os.MkdirAll(filepath.Join(projects, "p"), 0o755)
	// The config folder, named otherwise than .claude (issue 31, item 12).
	cfg := filepath.Join(t.TempDir(), "claude-config")
	history := filepath.Join(cfg, "projects")
	os.MkdirAll(filepath.Join(history, "q"), 0o755)
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	for _, c := range []struct{ params, want string }{
		{`{"rootUri":"` + fileuri.FromPath(home) + `"}`, projects},
		{`{"rootPath":"` + filepath.Join(home, ".claude") + `"}`, projects},
		{`{"workspaceFolders":[{"uri":"` + fileuri.FromPath(filepath.Join(projects, "p")) + `"}]}`, filepath.Join(projects, "p")},
		// a window on an ordinary repository, or on none: the history the browser lists
		{`{"workspaceFolders":[{"uri":"` + fileuri.FromPath(t.TempDir()) + `"}]}`, history},
		{`{"rootUri":null}`, history},
		{`not json`, history},
		// the config folder and what is under its projects folder
		{`{"rootUri":"` + fileuri.FromPath(cfg) + `"}`, history},
		{`{"rootUri":"` + fileuri.FromPath(filepath.Join(history, "q")) + `"}`, filepath.Join(history, "q")},
	} {
		if got := strings.Join(Roots([]byte(c.params)), ","); got != c.want {
			t.Errorf("%s: %q, want %q", c.params, got, c.want)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(cfg, "absent"))
	if got := Roots([]byte(`{"rootUri":null}`)); len(got) != 0 {
		t.Errorf("no history: %q", got)
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
		var filtered, all File
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

// TestFoldAndRank: one symbol per distinct (kind, name) of a log (the first), tool calls named as
// their graph label (a path relative to the cwd, never raw JSON), a query naming a path ranks the
// calls on it first, and the container says project · title · line.
func TestFoldAndRank(t *testing.T) {
	cwd := "/Users/me/repo"
	prompt := func(uuid, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"s1","message":{"role":"user","content":"` + text + `"}}`
	}
	lines := []string{prompt("u1", "Plan the roadmap.py work")}
	for i := 0; i < 5; i++ {
		lines = append(lines, `{"type":"assistant","uuid":"t`+strconv.Itoa(i)+`","cwd":"`+cwd+`","message":{"role":"assistant","content":[{"type":"tool_use","id":"w`+strconv.Itoa(i)+`","name":"TodoWrite","input":{"todos":[{"content":"Phase 1: roadmap.py","status":"pending"}]}}]}}`)
	}
	lines = append(lines,
		`{"type":"assistant","uuid":"r1","cwd":"`+cwd+`","message":{"role":"assistant","content":[{"type":"tool_use","id":"x1","name":"Read","input":{"file_path":"`+cwd+`/src/erk/core/metadata/roadmap.py"}}]}}`,
		prompt("u2", "What does roadmap.py say"))
	f := &File{path: "/h/.claude/projects/-Users-me-repo/s.jsonl", container: "-Users-me-repo"}
	f.add([]byte(strings.Join(lines, "\n") + "\n"))
	x := &Index{files: map[string]*File{f.path: f}}
	var got []string
	for _, s := range x.Query("roadmap.py", 50) {
		got = append(got, strconv.Itoa(int(s.Kind))+" "+s.Name+" | "+s.Container)
	}
	want := []string{
		strconv.Itoa(int(ToolCall)) + " Read src/erk/core/metadata/roadmap.py | -Users-me-repo · Plan the roadmap.py work · L7",
		strconv.Itoa(int(Turn)) + " Plan the roadmap.py work | -Users-me-repo · Plan the roadmap.py work · L1",
		strconv.Itoa(int(Turn)) + " What does roadmap.py say | -Users-me-repo · Plan the roadmap.py work · L8",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("roadmap.py:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	todos := x.Query("todowrite", 50)
	if len(todos) != 1 || todos[0].Name != "TodoWrite 1 todos" || todos[0].Line != 1 {
		t.Errorf("five identical TodoWrite calls: %+v", todos)
	}
}
