package lsp

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Neovim before 0.10 reloads a log that grew on disk as a didClose and a didOpen of the whole new
// text. Within closeGrace the session is kept: the reopened text is an edit (no session is read
// again) and the diagnostics are those of a fresh parse; after it, the session is forgotten.
func TestReopenWithinGraceKeepsTheSession(t *testing.T) {
	old := closeGrace
	closeGrace = 300 * time.Millisecond
	t.Cleanup(func() { closeGrace = old })
	var loads atomic.Int32
	c := newClient(t, clientOpt{hooks: hooks{stage: func(name string) {
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

	// Closed for good: forgotten once the grace period is over.
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
	c.open(uri, text, 3)
	c.diagsAt(uri, 3)
	if n := loads.Load(); n != 2 {
		t.Errorf("opened after the grace period: read %d times in all, want 2", n)
	}
}
