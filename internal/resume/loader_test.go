package resume

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ccdag/ccdag/internal/testutil"
)

func TestMain(m *testing.M) {
	done := testutil.NoClaudeHere()
	code := m.Run()
	done()
	os.Exit(code)
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

// TestVersionIsARecordsOwn (docs/spec.md §15): the newest version under a config folder is read
// from records' own "version" fields only. An MCP tool's input holding "version":"999.0.1" once
// made a 2.1.19 history load "as Claude Code 999.0.1 will load it"; a version field holding a
// terminal escape is no version.
func TestVersionIsARecordsOwn(t *testing.T) {
	cfg := t.TempDir()
	writeLog(t, filepath.Join(cfg, "projects", "p", "a.jsonl"),
		`{"type":"user","uuid":"u1","version":"2.1.19","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"u2","parentUuid":"u1","version":"2.1.19","message":{"content":[{"type":"tool_use","id":"t","name":"mcp__pkg__publish","input":{"name":"x","version":"999.0.1"}}]}}`,
		`{"type":"user","uuid":"u3","parentUuid":"u2","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"{\"version\":\"998.0.0\"}"}]},"toolUseResult":{"version":"997.0.0"}}`,
		"{\"type\":\"user\",\"uuid\":\"u4\",\"version\":\"3.0.0\x1b[2J\"}",
		`{"type":"user","uuid":"u5","version":"2.1.5\u001b[2J"}`,
		`{"type":"user","uuid":"u6","version":"2.1.3"}`)
	if v := NewestVersion(cfg); v != "2.1.19" {
		t.Errorf("newest version %q, want the records' own 2.1.19", v)
	}
	for line, want := range map[string]string{
		`{"version":"2.1.19"}`:                              "2.1.19",
		`{"a":{"version":"9.9.9"}}`:                         "",
		`{"version":"9.9.9","version":"2.1.1"}`:             "2.1.1",
		`{"version":"1.0.3-beta.1"}`:                        "1.0.3-beta.1",
		`{"version":"2.1"}`:                                 "",
		`{"version":"v2.1.1"}`:                              "",
		"{\"version\":\"2.1.1 \x1b]0;x\x07\"}":              "",
		`{"version":"2.1.1111111111111111111111111111111"}`: "",
	} {
		if got := RecordVersion([]byte(line)); got != want {
			t.Errorf("RecordVersion(%q) = %q, want %q", line, got, want)
		}
	}
}

// fakeClaude puts a `claude` on PATH (alone) that prints out and counts its runs in a file.
func fakeClaude(t *testing.T, out string) (count func() int) {
	t.Helper()
	bin := t.TempDir()
	runs := filepath.Join(bin, "runs")
	script := "#!/bin/sh\necho run >> " + runs + "\nprintf '%s\\n' '" + out + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "run")
	}
}

// TestLoaderOutsideAConfigFolder (docs/spec.md §15): a log outside any config folder is judged by
// the installed Claude Code (asked once per binary), else the newest version under the default
// config folder, else its own version; a log inside one, by that folder's logs as before.
func TestLoaderOutsideAConfigFolder(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for a fake claude")
	}
	log := filepath.Join(t.TempDir(), "archive", "s.jsonl") // not CONFIG/projects/<p>/
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	writeLog(t, filepath.Join(cfg, "projects", "p", "a.jsonl"), `{"type":"user","uuid":"u1","version":"2.1.200"}`)

	runs := fakeClaude(t, "2.1.330 (Claude Code)")
	for range 3 {
		if l := LoaderOf(log, "2.1.19", ""); l != (Loader{"2.1.330", FromInstalled}) {
			t.Fatalf("with claude on PATH: %+v", l)
		}
	}
	if n := runs(); n != 1 {
		t.Errorf("claude --version ran %d times, want once per binary", n)
	}
	if l := LoaderOf(log, "2.1.19", "2.1.50"); l != (Loader{"2.1.50", FromSetting}) {
		t.Errorf("a setting wins: %+v", l)
	}
	inside := filepath.Join(cfg, "projects", "p", "s.jsonl")
	if l := LoaderOf(inside, "2.1.19", ""); l != (Loader{"2.1.200", FromNewest}) {
		t.Errorf("inside the config folder: %+v", l)
	}

	fakeClaude(t, "\x1b[2J not a version")
	if l := LoaderOf(log, "2.1.19", ""); l != (Loader{"2.1.200", FromDefaultConfig}) {
		t.Errorf("claude answering no version: %+v, want the default config folder's newest", l)
	}
	t.Setenv("PATH", t.TempDir())
	if l := LoaderOf(log, "2.1.19", ""); l != (Loader{"2.1.200", FromDefaultConfig}) {
		t.Errorf("no claude: %+v", l)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	if l := LoaderOf(log, "2.1.19", ""); l != (Loader{"2.1.19", FromLog}) {
		t.Errorf("no claude, an empty default config folder: %+v", l)
	}
}

// TestNewestVersionReadOnce: callers asking for a config folder's newest version at once (check's
// workers do) wait for the first one's reading instead of reading every log again.
func TestNewestVersionReadOnce(t *testing.T) {
	config := t.TempDir()
	for _, p := range []string{"a", "b"} {
		dir := filepath.Join(config, "projects", p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p+".jsonl"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	calls := 0
	second := make(chan string, 1)
	other := make(chan struct{}, 2) // the second caller waits, or reads (the defect)
	waitingHook = func() { other <- struct{}{} }
	defer func() { waitingHook = nil }()
	tail := func(path, root string) string {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			go func() {
				second <- NewestVersionWith(config, nil, eachLog(func(string, string) string { other <- struct{}{}; return "9.9.9" }))
			}()
			<-other
		}
		return "2.1.7"
	}
	if v := NewestVersionWith(config, nil, eachLog(tail)); v != "2.1.7" {
		t.Fatalf("newest version %q, want 2.1.7", v)
	}
	if v := <-second; v != "2.1.7" {
		t.Fatalf("the second caller got %q, want the first one's 2.1.7 (it read the logs again)", v)
	}
	if calls != 2 {
		t.Fatalf("%d reads of a log, want 2 (one each)", calls)
	}
}

// eachLog answers NewestVersionWith's versions with tail, a log at a time.
func eachLog(tail func(path, root string) string) func([]Log) []string {
	return func(logs []Log) []string {
		vs := make([]string, len(logs))
		for i, l := range logs {
			vs[i] = tail(l.Path, l.Dir)
		}
		return vs
	}
}
