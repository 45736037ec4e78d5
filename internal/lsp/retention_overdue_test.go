package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDeletionOverdue: a main log whose deletion day has come says on line 1's hover and in its
// lens that Claude Code deletes it at its next start, with the day it was due, not a past day as
// if it were ahead.
func TestDeletionOverdue(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 10}`), 0o644)
	text := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"
	dir := filepath.Join(cfg, "projects", "p")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(text), 0o644)
	mod := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
	os.Chtimes(path, mod, mod)
	uri := pathToURI(path)
	cl := newClient(t, clientOpt{})
	cl.open(uri, text, 1)
	cl.diagsAt(uri, 1)
	const want = "deletes this session at its next start (due since 2026-01-11"
	if h := cl.hoverText(uri, pos{Line: 0, Character: 2}); !strings.Contains(h, want) {
		t.Errorf("hover %q", h)
	}
	var lenses []lensWire
	cl.mustCall("textDocument/codeLens", docParams(uri), &lenses)
	warned := false
	for _, l := range lenses {
		warned = warned || strings.HasPrefix(l.Command.Title, "⚠ Claude Code "+want)
	}
	if !warned {
		t.Errorf("lenses %+v", lenses)
	}
}
