package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionsQuery: ccdag/sessions with a query answers the sessions one record of which holds
// every word, wherever in the session (a tool result of a sub-agent's log included), not only in
// titles: the browsers' filter found 0 of 82 sessions for "magic link" though 218 records held it.
// A blank query lists all; a bad one is InvalidParams.
func TestSessionsQuery(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "-Users-ann-app")
	const cwd = `"cwd":"/Users/ann/app",`
	writeLog(t, filepath.Join(proj, "s-hit.jsonl"),
		`{"type":"user","uuid":"h1","sessionId":"s-hit",`+cwd+`"timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"Fix the login"}}`,
		`{"type":"assistant","uuid":"h2","parentUuid":"h1","sessionId":"s-hit",`+cwd+`"timestamp":"2026-02-01T10:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"look","prompt":"look at auth"}}]}}`)
	writeLog(t, filepath.Join(proj, "s-hit", "subagents", "agent-a1.jsonl"),
		`{"type":"user","uuid":"g1","sessionId":"s-hit","isSidechain":true,"message":{"role":"user","content":"look at auth"}}`,
		`{"type":"user","uuid":"g2","parentUuid":"g1","sessionId":"s-hit","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"sendMagicLink(email): the Magic Link mailer"}]}}`)
	writeLog(t, filepath.Join(proj, "s-apart.jsonl"), // both words, in two records
		`{"type":"user","uuid":"p1","sessionId":"s-apart","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"magic"}}`,
		`{"type":"user","uuid":"p2","parentUuid":"p1","sessionId":"s-apart","message":{"role":"user","content":"link"}}`)
	writeLog(t, filepath.Join(proj, "s-title.jsonl"), // no record holds "magic link", the title neither
		`{"type":"user","uuid":"t1","sessionId":"s-title","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":"hello"}}`)

	c := newClient(t, clientOpt{skip: true})
	var res json.RawMessage
	c.mustCall("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, &res)
	c.notify("initialized", map[string]any{})
	type row struct {
		ID, Project, ProjectFolder, Title string
	}
	list := func(query string) []row {
		t.Helper()
		var out struct{ Sessions []row }
		c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(dir)}, "query": query}, &out)
		return out.Sessions
	}
	got := list("magic LINK")
	if len(got) != 1 || got[0].ID != "s-hit" || got[0].Title != "Fix the login" ||
		got[0].Project != "~/app" || got[0].ProjectFolder != "-Users-ann-app" {
		t.Errorf("query: %+v, want s-hit alone", got)
	}
	if got := list(" "); len(got) != 3 {
		t.Errorf("blank query: %+v, want the 3 sessions", got)
	}
	err := c.call(methodSessions, map[string]any{"folders": []string{pathToURI(dir)}, "query": strings.Repeat("q", 1001)}, nil)
	if err == nil || !strings.Contains(err.Error(), "query") {
		t.Errorf("a query over 1 000 bytes: %v", err)
	}
}

// TestSessionsRowFields: the row fields the browsers show (docs/lsp.md): overdue when the deletion
// day has come, empty for a session without a message, the cost's lower bound.
func TestSessionsRowFields(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 10}`), 0o600); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(cfg, "projects", "-home-dev-app")
	old := filepath.Join(proj, "s-old.jsonl")
	writeLog(t, old,
		`{"type":"user","uuid":"o1","sessionId":"s-old","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"o2","parentUuid":"o1","sessionId":"s-old","timestamp":"2026-01-01T10:00:05Z","message":{"id":"m1","model":"claude-opus-4-5-20251101","role":"assistant","content":[{"type":"text","text":"h"}],"usage":{"input_tokens":10,"output_tokens":1}}}`)
	mod := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(old, mod, mod); err != nil {
		t.Fatal(err)
	}
	writeLog(t, filepath.Join(proj, "s-empty.jsonl"),
		`{"type":"file-history-snapshot","messageId":"x","snapshot":{"messageId":"x","trackedFileBackups":{},"timestamp":"2026-02-04T10:00:00Z"},"isSnapshotUpdate":false}`)

	c := newClient(t, clientOpt{skip: true})
	var res json.RawMessage
	c.mustCall("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, &res)
	c.notify("initialized", map[string]any{})
	var out struct {
		Sessions []struct {
			ID, Deletes    string
			Overdue, Empty bool
			Cost           struct{ LowerBound bool }
		}
	}
	c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(filepath.Join(cfg, "projects"))}}, &out)
	if len(out.Sessions) != 2 {
		t.Fatalf("%+v", out)
	}
	for _, s := range out.Sessions {
		switch s.ID {
		case "s-old": // deleted on 2026-01-11, long past; its one message's output a placeholder
			if !s.Overdue || s.Deletes != "2026-01-11" || s.Empty || !s.Cost.LowerBound {
				t.Errorf("%+v", s)
			}
		case "s-empty": // written now: deleted ten days from now
			if s.Overdue || s.Deletes == "" || !s.Empty || s.Cost.LowerBound {
				t.Errorf("%+v", s)
			}
		default:
			t.Errorf("%+v", s)
		}
	}
}
