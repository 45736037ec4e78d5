package wsymbol

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
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

// TestRankFileNamedExactly: a query naming a file ranks the calls on a file of that very name
// above calls on files merely holding it (roadmap.py before objective_render_roadmap.py), from
// an older log too, even when newer logs hold more than the limit of the others; every symbol's
// container carries its session's day (of its first prompt).
func TestRankFileNamedExactly(t *testing.T) {
	const cwd = "/Users/me/repo"
	read := func(uuid, path string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","cwd":"` + cwd + `","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + uuid + `","name":"Read","input":{"file_path":"` + cwd + `/` + path + `"}}]}}`
	}
	prompt := func(uuid, ts, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","timestamp":"` + ts + `","message":{"role":"user","content":"` + text + `"}}`
	}
	newer := []string{prompt("n0", "2026-02-10T12:00:00Z", "render the objective roadmap.py")}
	for i := 0; i < 4; i++ {
		newer = append(newer, read("n"+strconv.Itoa(i+1), "src/objective_render_roadmap.py"), read("m"+strconv.Itoa(i+1), "src/v"+strconv.Itoa(i)+"/objective_render_roadmap.py"))
	}
	older := []string{prompt("o0", "2026-01-05T12:00:00Z", "fix the roadmap"), read("o1", "src/erk/core/metadata/roadmap.py")}
	x := &Index{files: map[string]*File{}}
	for i, lines := range [][]string{newer, older} {
		f := &File{path: "/h/.claude/projects/-Users-me-repo/s" + strconv.Itoa(i) + ".jsonl", container: "-Users-me-repo", mod: time.Date(2026, 2, 10-i, 0, 0, 0, 0, time.UTC)}
		f.add([]byte(strings.Join(lines, "\n") + "\n"))
		x.files[f.path] = f
	}
	day := func(ts string) string {
		tm, _ := time.Parse(time.RFC3339, ts)
		return tm.Local().Format("2006-01-02")
	}
	got := x.Query("roadmap.py", 3)
	if len(got) != 3 {
		t.Fatalf("%d symbols: %+v", len(got), got)
	}
	if got[0].Name != "Read src/erk/core/metadata/roadmap.py" || got[0].Container != "-Users-me-repo · fix the roadmap · "+day("2026-01-05T12:00:00Z")+" · L2" {
		t.Errorf("first: %+v, want the call on roadmap.py itself, from the older log, with its day", got[0])
	}
	for _, s := range got[1:] {
		if s.Kind != ToolCall || !strings.Contains(s.Name, "objective_render_roadmap.py") || !strings.Contains(s.Container, " · "+day("2026-02-10T12:00:00Z")+" · L") {
			t.Errorf("then: %+v, want the calls on files holding the name, newest log first", s)
		}
	}
	// The path's folders in the query: still the file named so.
	if got := x.Query("metadata/roadmap.py", 1); len(got) != 1 || got[0].Name != "Read src/erk/core/metadata/roadmap.py" {
		t.Errorf("metadata/roadmap.py: %+v", got)
	}
}

// TestSymbolNamesHideSecretsTheirCutLeavesWhole (docs/spec.md §15): a prompt's symbol is made of
// its first 600 bytes and a Bash call's of its command's first 1 024; a secret across either end
// no longer matches its rule there, yet none of its 8 bytes show (whitespace squashed, it would
// stand within the 80 shown).
func TestSymbolNamesHideSecretsTheirCutLeavesWhole(t *testing.T) {
	ps := secretstest.Plants(41)
	token := ps[1].Secret // github-pat
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	root := filepath.Join(t.TempDir(), "projects")
	log := filepath.Join(root, "p", "s.jsonl")
	lines := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":` + esc("thanks"+strings.Repeat("\n", 570)+" "+token+" done") + `}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + esc("echo"+strings.Repeat(" ", 1000)+"GH_TOKEN="+token) + `}}]}}
`
	os.MkdirAll(filepath.Dir(log), 0o755)
	if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(all(built(t, []string{root}, nil)), "\n")
	if !strings.Contains(got, "thanks") || !strings.Contains(got, "Bash echo") {
		t.Fatalf("symbols:\n%s", got)
	}
	if leak := secretstest.Leak(got, ps); leak != "" {
		t.Errorf("a symbol shows %q:\n%s", leak, got)
	}
}
