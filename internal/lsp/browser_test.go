package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionsRequest: ccdag/sessions lists the workspace's sessions with the rows of `ccdag
// sessions --format json` plus uri, newest first, with progress; named folders replace the
// default; a change under the folders is announced with ccdag/sessionsChanged.
func TestSessionsRequest(t *testing.T) {
	ws := t.TempDir()
	proj := filepath.Join(ws, ".claude", "projects", "-home-dev-app")
	older := filepath.Join(proj, "s-old.jsonl")
	writeLog(t, older, `{"type":"user","uuid":"o1","sessionId":"s-old","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"Fix the widget parser"}}`)
	newer := filepath.Join(proj, "s-new.jsonl")
	writeLog(t, newer,
		`{"type":"user","uuid":"n1","sessionId":"s-new","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"Widget parser again"}}`,
		`{"type":"assistant","uuid":"n2","parentUuid":"n1","sessionId":"s-new","timestamp":"2026-02-01T10:00:05Z","message":{"id":"m1","model":"claude-opus-4-5-20251101","stop_reason":"end_turn","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":200,"cache_creation_input_tokens":1000,"cache_read_input_tokens":50000}}}`)

	// The day Claude Code deletes each (docs/spec.md §11): the log's modification + cleanupPeriodDays.
	cfg := filepath.Join(ws, ".claude")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 10}`), 0o600); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2026, 2, 1, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(newer, mod, mod); err != nil {
		t.Fatal(err)
	}

	c := newClient(t, clientOpt{skip: true, hooks: hooks{wsPoll: 20 * time.Millisecond, progressBytes: 1}})
	var res json.RawMessage
	c.mustCall("initialize", map[string]any{"processId": nil, "rootUri": pathToURI(ws),
		"workspaceFolders": []map[string]any{{"uri": pathToURI(ws), "name": "ws"}},
		"capabilities":     map[string]any{"window": map[string]any{"workDoneProgress": true}}}, &res)
	c.notify("initialized", map[string]any{})

	type row struct {
		ID, URI, Title, Project string
		Tokens                  struct{ Output int64 }
		Cost                    struct {
			USD              float64
			Priced, Unpriced int64
		}
		Resume  *struct{ Complete bool }
		Deletes string
	}
	var out struct {
		Sessions []row
	}
	c.mustCall(methodSessions, map[string]any{"workDoneToken": "t1"}, &out)
	if len(out.Sessions) != 2 {
		t.Fatalf("%d sessions, want 2: %+v", len(out.Sessions), out)
	}
	s := out.Sessions[0]
	if s.ID != "s-new" || s.Title != "Widget parser again" || s.URI != pathToURI(newer) || s.Project != "-home-dev-app" ||
		s.Tokens.Output != 200 || s.Cost.USD != 0.0363 || s.Cost.Priced != 1 || s.Resume == nil || !s.Resume.Complete || s.Deletes != "2026-02-11" {
		t.Errorf("newest: %+v", s)
	}
	if out.Sessions[1].ID != "s-old" {
		t.Errorf("older: %+v", out.Sessions[1])
	}
	c.await("progress with the request's token", func() bool {
		for _, n := range c.notes {
			if n.method == "$/progress" && strings.Contains(string(n.params), `"t1"`) && strings.Contains(string(n.params), `"kind":"end"`) {
				return true
			}
		}
		return false
	})

	// Named folders: another tree, and bad ones are told apart.
	other := t.TempDir()
	writeLog(t, filepath.Join(other, "p", "s-x.jsonl"), `{"type":"user","uuid":"x1","sessionId":"s-x","message":{"role":"user","content":"elsewhere"}}`)
	c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(other)}}, &out)
	if len(out.Sessions) != 1 || out.Sessions[0].ID != "s-x" || out.Sessions[0].Deletes != "" { // not under the config folder: never swept
		t.Errorf("folders: %+v", out.Sessions)
	}
	if err := c.call(methodSessions, map[string]any{"folders": []string{"http://x/"}}, nil); err == nil {
		t.Error("a folder that is not a file URI was accepted")
	}

	// A log that grows is announced (once the index has read it as it was).
	eventually(t, "the index holds the log", func() bool { return c.srv.wsym.File(older) != nil })
	appendLog(t, older, `{"type":"user","uuid":"o2","parentUuid":"o1","sessionId":"s-old","message":{"role":"user","content":"more"}}`+"\n")
	future := time.Now().Add(time.Minute)
	if err := os.Chtimes(older, future, future); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			for _, n := range c.notes {
				t.Log(n.method)
			}
		}
	}()
	c.await("ccdag/sessionsChanged", func() bool {
		for _, n := range c.notes {
			if n.method == notifySessionsChanged {
				return true
			}
		}
		return false
	})
}
