package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSessionsDeletes: ccdag/sessions rows carry the day Claude Code deletes each session, as
// `ccdag sessions` does: cleanupPeriodDays after the newest log's modification, for logs under the
// config folder's projects/ only ("" for an archive elsewhere).
func TestSessionsDeletes(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 10}`), 0o600); err != nil {
		t.Fatal(err)
	}
	swept := filepath.Join(cfg, "projects", "-home-dev-app", "s-swept.jsonl")
	writeLog(t, swept, `{"type":"user","uuid":"a1","sessionId":"s-swept","message":{"role":"user","content":"hello"}}`)
	mod := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(swept, mod, mod); err != nil {
		t.Fatal(err)
	}
	archive := t.TempDir()
	writeLog(t, filepath.Join(archive, "p", "s-kept.jsonl"), `{"type":"user","uuid":"b1","sessionId":"s-kept","message":{"role":"user","content":"kept"}}`)

	c := newClient(t, clientOpt{skip: true})
	var res json.RawMessage
	c.mustCall("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, &res)
	c.notify("initialized", map[string]any{})
	var out struct {
		Sessions []struct{ ID, Deletes string }
	}
	c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(filepath.Join(cfg, "projects")), pathToURI(archive)}}, &out)
	got := map[string]string{}
	for _, s := range out.Sessions {
		got[s.ID] = s.Deletes
	}
	if len(got) != 2 || got["s-swept"] != "2026-03-11" || got["s-kept"] != "" {
		t.Errorf("deletes: %+v, want s-swept 2026-03-11 and s-kept \"\"", got)
	}
}
