package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Neovim before 0.10 reloads a log that grew on disk as a didClose and a didOpen of the whole new
// text. Within closeGrace the session is kept: the reopened text is an edit (no session is read
// again) and the diagnostics are those of a fresh parse. The grace is an hour here, so the reopen is
// within it however slow the machine (a 300 ms one failed on a loaded machine, and tests that set
// the package's grace raced with other tests' servers).
func TestReopenWithinGraceKeepsTheSession(t *testing.T) {
	var loads atomic.Int32
	c := newClient(t, clientOpt{hooks: hooks{closeGrace: time.Hour, stage: func(name string) {
		if name == "parsed and indexed" {
			loads.Add(1)
		}
	}}})
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)

	// The reload: closed, then opened with a line more (a record whose parent does not exist).
	grown := text + `{"type":"user","uuid":"9f0e7c2a-0000-4000-8000-000000000001","parentUuid":"9f0e7c2a-0000-4000-8000-00000000dead","sessionId":"11111111-1111-4111-8111-111111111111","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"more"}}` + "\n"
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.open(uri, grown, 2)
	got := wireDiags(c.diagsAt(uri, 2))
	if want := freshDiags(uri, []byte(grown)); !slices.Equal(got, want) {
		t.Fatalf("reopened with more text: diagnostics differ from a fresh parse:\n got  %q\n want %q", got, want)
	}
	if !slices.ContainsFunc(got, func(d string) bool { return strings.Contains(d, "9f0e7c2a-0000-4000-8000-00000000dead") }) {
		t.Errorf("the appended orphan is not reported: %q", got)
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the session was read %d times; the reopen within the grace period should reuse it", n)
	}
}

// After closeGrace a closed session is forgotten, and opening its log again reads it anew.
func TestClosedPastGraceIsForgotten(t *testing.T) {
	var loads atomic.Int32
	c := newClient(t, clientOpt{hooks: hooks{closeGrace: 10 * time.Millisecond, stage: func(name string) {
		if name == "parsed and indexed" {
			loads.Add(1)
		}
	}}})
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) { // no event says it
		c.srv.mu.Lock()
		n := len(c.srv.sessions)
		c.srv.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions kept after the grace period", n)
		}
	}
	c.open(uri, text, 2)
	c.diagsAt(uri, 2)
	if n := loads.Load(); n != 2 {
		t.Errorf("opened after the grace period: read %d times in all, want 2", n)
	}
}

// A reopen looks at the session's folders: a sub-agent log written while the document was closed
// (the reload of a live session) is found, as after an edit.
func TestReopenFindsANewSubagentLog(t *testing.T) {
	src := filepath.Join("testdata", "subagents")
	id := "22222222-2222-4222-8222-222222222222"
	dir := t.TempDir()
	main := filepath.Join(dir, id+".jsonl")
	text, err := os.ReadFile(filepath.Join(src, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, text, 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, clientOpt{})
	uri := pathToURI(main)
	c.open(uri, string(text), 1)
	hasMissing := func(v int32) bool {
		return slices.ContainsFunc(c.diagsAt(uri, v), func(d diagnostic) bool { return d.Code == "missing-agent-file" })
	}
	if !hasMissing(1) {
		t.Fatal("no missing-agent-file before the agent log exists")
	}
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	agents := filepath.Join(dir, id, "subagents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent-a5b6c7d8e9f0a1b2c.jsonl", "agent-a5b6c7d8e9f0a1b2c.meta.json"} {
		b, err := os.ReadFile(filepath.Join(src, id, "subagents", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(agents, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.open(uri, string(text), 2)
	c.await("missing-agent-file gone after the reopen", func() bool {
		ps := c.diags[uri]
		if len(ps) == 0 {
			return false
		}
		last := ps[len(ps)-1]
		if last.Version == nil || *last.Version != 2 {
			return false
		}
		for _, d := range last.Diagnostics {
			if d.Code == "missing-agent-file" {
				return false
			}
		}
		return true
	})
}
