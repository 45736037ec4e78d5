package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rowsHistory copies internal/catalog's testdata/rows sessions under a config folder's projects/
// (CLAUDE_CONFIG_DIR, cleanupPeriodDays 10): a1's log last written on 2026-01-01 (its deletion
// day long past), the others now.
func rowsHistory(t *testing.T) string {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 10}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const folder = "-Users-ann-Desktop-webtech"
	src := filepath.Join("..", "catalog", "testdata", "rows", folder)
	dst := filepath.Join(cfg, "projects", folder)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil || len(entries) == 0 {
		t.Fatal(err, len(entries))
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, e.Name())
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(e.Name(), "a1") {
			old := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
			os.Chtimes(p, old, old)
		}
	}
	return filepath.Join(cfg, "projects")
}

// TestSessionsQuery: `ccdag sessions --query WORDS` lists the sessions a record of which holds
// every word, as `ccdag search` finds records (not the titles: "implementing" is in a reply); an
// empty query is no filter; a query too long is a usage error.
func TestSessionsQuery(t *testing.T) {
	dir := rowsHistory(t)
	ids := func(args ...string) map[string]bool {
		t.Helper()
		out, errs, code := run(t, append(append([]string{"sessions", "--format", "json"}, args...), dir)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var doc struct{ Sessions []sessionRow }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err, out)
		}
		got := map[string]bool{}
		for _, r := range doc.Sessions {
			got[r.ID[:2]] = true
		}
		return got
	}
	if got := ids("--query", "IMPLEMENTING 4242"); len(got) != 1 || !got["a1"] {
		t.Errorf("two words in one reply: %v, want a1", got)
	}
	if got := ids("--query", "setting UP"); len(got) != 1 || !got["c3"] {
		t.Errorf("a reply's words: %v, want c3", got)
	}
	if got := ids("--query", "4242 staging"); len(got) != 0 {
		t.Errorf("words no one record holds: %v", got)
	}
	if got := ids("--query", "  "); len(got) != 4 {
		t.Errorf("a blank query: %v, want every session", got)
	}
	if out, _, _ := run(t, "sessions", "--query", "staging", dir); !strings.Contains(out, "use the magic link plan") || strings.Contains(out, "#4242") {
		t.Errorf("text:\n%s", out)
	}
	if _, errs, code := run(t, "sessions", "--query", strings.Repeat("x", 1001), dir); code != ExitUsage || !strings.Contains(errs, "--query") {
		t.Errorf("a query too long: exit %d %q", code, errs)
	}
}

// TestSessionsReadableRows: the text rows show the folder a session ran in with ~, a deletion day
// that has come as "at next start" (JSON "overdue": true), a lower-bound cost with ≥, and an empty
// session as such.
func TestSessionsReadableRows(t *testing.T) {
	dir := rowsHistory(t)
	out, errs, code := run(t, "sessions", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	line := func(id string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, id) {
				return l
			}
		}
		t.Fatalf("no row of %s:\n%s", id, out)
		return ""
	}
	if l := line("a1111111"); !strings.Contains(l, "at next start (due 2026-01-11)") || !strings.Contains(l, "~/Desktop/webtech") {
		t.Errorf("overdue row: %s", l)
	}
	fi, err := os.Stat(filepath.Join(dir, "-Users-ann-Desktop-webtech", "b2222222-2222-4222-8222-222222222222.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if l := line("b2222222"); strings.Contains(l, "at next start") || !strings.Contains(l, fi.ModTime().AddDate(0, 0, 10).Format("2006-01-02")) {
		t.Errorf("row deleted ahead: %s", l)
	}
	if l := line("c3333333"); !strings.Contains(l, "≥ $0.0012") {
		t.Errorf("lower-bound cost: %s", l)
	}
	if l := line("d4444444"); !strings.Contains(l, "(no messages)") {
		t.Errorf("empty session: %s", l)
	}

	js, _, _ := run(t, "sessions", "--format", "json", dir)
	var doc struct {
		Sessions []struct {
			ID, Project, ProjectFolder string
			Overdue, Empty             bool
			Cost                       struct{ LowerBound bool }
		}
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sessions) != 4 {
		t.Fatal(err, js)
	}
	for _, r := range doc.Sessions {
		id := r.ID[:2]
		if r.Overdue != (id == "a1") || r.Empty != (id == "d4") || r.Cost.LowerBound != (id == "c3") || r.ProjectFolder != "-Users-ann-Desktop-webtech" {
			t.Errorf("%+v", r)
		}
	}
	if !strings.Contains(js, `"overdue": true`) || !strings.Contains(js, `"lowerBound": true`) || !strings.Contains(js, `"project": "~/Desktop/webtech"`) {
		t.Errorf("json:\n%s", js)
	}
}
