package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/catalog/catalogtest"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// streamedRows returns the batches of rows sent on a partial result token, by their uris.
func streamedRows(c *client, token string) [][]string {
	var out [][]string
	for _, n := range c.notes {
		if n.method != "$/progress" {
			continue
		}
		var p struct {
			Token json.RawMessage
			Value struct {
				Sessions []struct{ URI string }
			}
		}
		json.Unmarshal(n.params, &p)
		if string(p.Token) != `"`+token+`"` {
			continue
		}
		var batch []string
		for _, r := range p.Value.Sessions {
			batch = append(batch, r.URI)
		}
		out = append(out, batch)
	}
	return out
}

type listedRow struct{ URI, Title, End string }

// TestSessionsStreamed: with a partialResultToken, ccdag/sessions sends every row once, in
// batches on that token, the cached rows first in one batch, and answers the whole list sorted;
// a second server answers unchanged sessions from the cache (one read again after it grew), a
// server started with --no-cache reads every log.
func TestSessionsStreamed(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	root := t.TempDir()
	var logs []string
	for i := range 70 { // more than one batch
		p := filepath.Join(root, fmt.Sprintf("p%d", i%3), fmt.Sprintf("s-%02d.jsonl", i))
		writeLog(t, p, fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"s-%02d","timestamp":"2026-01-01T10:%02d:00Z","message":{"role":"user","content":"prompt %d"}}`, i, i, i%60, i))
		logs = append(logs, p)
	}
	var lastReport string // the last work done report of the last list
	list := func(o clientOpt, token string) ([]listedRow, [][]string) {
		t.Helper()
		c := newClient(t, o)
		var out struct{ Sessions []listedRow }
		c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(root)}, "partialResultToken": token, "workDoneToken": "w-" + token}, &out)
		var batches [][]string
		c.await("every row streamed", func() bool {
			batches = streamedRows(c, token)
			n := 0
			for _, b := range batches {
				n += len(b)
			}
			return n >= len(out.Sessions)
		})
		lastReport = ""
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, n := range c.notes {
			var p struct {
				Token string
				Value struct{ Kind, Message string }
			}
			if n.method == "$/progress" && json.Unmarshal(n.params, &p) == nil && p.Token == "w-"+token && p.Value.Kind == "report" {
				lastReport = p.Value.Message
			}
		}
		var all []string
		for i, b := range batches {
			if len(b) == 0 || i > 0 && len(b) > batchRows { // the first: every cached row at once
				t.Errorf("a batch of %d rows", len(b))
			}
			all = append(all, b...)
		}
		var final []string
		for _, r := range out.Sessions {
			final = append(final, r.URI)
		}
		if !slices.IsSortedFunc(out.Sessions, func(a, b listedRow) int { return strings.Compare(b.End, a.End) }) {
			t.Error("the answer is not sorted newest first")
		}
		slices.Sort(all)
		sorted := slices.Clone(final)
		slices.Sort(sorted)
		if !slices.Equal(all, sorted) || len(final) != len(logs) {
			t.Errorf("streamed %d rows, answered %d, %d sessions", len(all), len(final), len(logs))
		}
		return out.Sessions, batches
	}

	cold, _ := list(clientOpt{hooks: hooks{progressBytes: 1}}, "p1")
	if cold[0].Title != "prompt 59" { // 10:59, the newest
		t.Errorf("not newest first: %+v", cold[0])
	}
	if lastReport == "" || !strings.HasSuffix(lastReport, " of 70 sessions") {
		t.Errorf("work done progress said %q, want N of 70 sessions", lastReport)
	}
	catalogtest.MarkTitles(t, "CACHED")
	appendLog(t, logs[5], `{"type":"user","uuid":"more","parentUuid":"u5","sessionId":"s-05","message":{"role":"user","content":"more"}}`+"\n")
	warm, batches := list(clientOpt{}, "p2")
	for _, r := range warm {
		grown := r.URI == pathToURI(logs[5])
		if strings.HasPrefix(r.Title, "CACHED ") == grown {
			t.Errorf("row %s %q: cached %v, want %v", r.URI, r.Title, !grown, !grown)
		}
	}
	if len(batches) != 2 || len(batches[0]) != len(logs)-1 || batches[1][0] != pathToURI(logs[5]) {
		t.Errorf("want the cached rows in one batch, then the grown one: %v", batches)
	}
	fresh, _ := list(clientOpt{opts: Options{NoCache: true}}, "p3")
	for _, r := range fresh {
		if strings.HasPrefix(r.Title, "CACHED ") {
			t.Errorf("--no-cache answered from the cache: %+v", r)
		}
	}
}

// Issue 31, item 12: in a window on an ordinary repository, Ctrl+T finds the prompts of the
// history the session browser lists — the config folder's, $CLAUDE_CONFIG_DIR honoured.
func TestWorkspaceSymbolsOfTheBrowsersHistory(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "claude-config")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	log := filepath.Join(cfg, "projects", "-home-dev-app", "s1.jsonl")
	writeLog(t, log, prompt("u1", "Fix the Gizmo parser"))
	repo := t.TempDir() // no .claude folder in it
	c := newClient(t, clientOpt{root: repo, hooks: hooks{wsPoll: 20 * time.Millisecond}})
	var out struct{ Sessions []listedRow }
	c.mustCall(methodSessions, map[string]any{}, &out)
	if len(out.Sessions) != 1 || out.Sessions[0].URI != pathToURI(log) {
		t.Fatalf("the browser lists %+v", out.Sessions)
	}
	var syms []wsSymbol
	eventually(t, "the browser's session in workspace symbols", func() bool {
		syms = c.workspaceSymbols("gizmo")
		return len(syms) == 1
	})
	if syms[0].Location.URI != pathToURI(log) {
		t.Errorf("symbol in %s, want %s", syms[0].Location.URI, pathToURI(log))
	}
}

// The server reads a grown log again as `ccdag sessions` does (catalog's scans.go): its row is what
// a server without the cache answers, counting the old secret and the appended one, and the cache
// keeps the scan of the grown log up to its new end.
func TestSessionsGrownLogScanKept(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	root := t.TempDir()
	p := filepath.Join(root, "p", "s-1.jsonl")
	keys := secretstest.Plants(401)
	rec := func(i int, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"s-1","timestamp":"2026-01-01T10:%02d:00Z","message":{"role":"user","content":"%s"}}`, i, i, text)
	}
	writeLog(t, p, rec(1, "AWS_ACCESS_KEY_ID="+keys[0].Secret), rec(2, "plain"))
	type row struct {
		URI     string
		Secrets int
		Records int
	}
	list := func(o clientOpt) row {
		t.Helper()
		c := newClient(t, o)
		var out struct{ Sessions []row }
		c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(root)}}, &out)
		if len(out.Sessions) != 1 {
			t.Fatalf("rows %+v", out.Sessions)
		}
		return out.Sessions[0]
	}
	// kept is the length of p the cache keeps the scan of.
	kept := func() int {
		t.Helper()
		c := catalogtest.OpenCache(t)
		defer c.Close()
		got, _ := c.Extras([]string{p})
		var e struct{ Logs []struct{ Len int } }
		json.Unmarshal(got[p].Data, &e)
		if len(e.Logs) != 1 {
			t.Fatalf("kept scans: %s", got[p].Data)
		}
		return e.Logs[0].Len
	}
	if r := list(clientOpt{}); r.Secrets != 1 || kept() != fileSize(t, p) {
		t.Fatalf("cold: %+v, scan kept up to %d of %d bytes", r, kept(), fileSize(t, p))
	}
	appendLog(t, p, rec(3, "GITHUB_TOKEN="+keys[1].Secret)+"\n")
	got, want := list(clientOpt{}), list(clientOpt{opts: Options{NoCache: true}})
	if got != want || got.Secrets != 2 || got.Records != 3 {
		t.Errorf("grown: %+v, want %+v (2 secrets, 3 records)", got, want)
	}
	if kept() != fileSize(t, p) {
		t.Errorf("the scan is kept up to %d of %d bytes", kept(), fileSize(t, p))
	}
}

func fileSize(t *testing.T, p string) int {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Size())
}

// A session with a log past the server's file-size limit is answered as with --no-cache whatever
// the history cache holds: a `ccdag sessions` (no limit; here a server with the default one) cached
// its row, and the cached row passed the limit — a main log past it is listed under errors, a
// session whose sub-agent log is past it is read without that log. Neither row is stored, so the
// listing without the limit stays whole.
func TestSessionsPastTheLimitNotFromTheCache(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	bigLog(t, filepath.Join(proj, "b1.jsonl"), "bigmarker", 2<<20)
	sid := "c2c20000-0000-0000-0000-000000000002"
	writeLog(t, filepath.Join(proj, sid+".jsonl"),
		fmt.Sprintf(`{"type":"user","uuid":"m1","sessionId":%q,"timestamp":"2025-08-12T13:11:40.000Z","message":{"role":"user","content":"go"}}`, sid),
		fmt.Sprintf(`{"type":"assistant","uuid":"m2","parentUuid":"m1","sessionId":%q,"timestamp":"2025-08-12T13:11:41.000Z","message":{"id":"x","role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Task","input":{"description":"d","prompt":"p","subagent_type":"Explore"}}]}}`, sid),
		fmt.Sprintf(`{"type":"user","uuid":"m3","parentUuid":"m2","sessionId":%q,"timestamp":"2025-08-12T13:11:49.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"ok"}]},"toolUseResult":{"status":"completed","agentId":"a1"}}`, sid))
	bigLog(t, filepath.Join(proj, sid, "subagents", "agent-a1.jsonl"), "agentmarker", 2<<20)
	bigLog(t, filepath.Join(proj, "d3.jsonl"), "smallmarker", 10_000)

	list := func(o clientOpt) string {
		t.Helper()
		c := newClient(t, o)
		var out json.RawMessage
		c.mustCall(methodSessions, map[string]any{"folders": []string{pathToURI(root)}}, &out)
		return string(out)
	}
	limit := hooks{maxFileBytes: 1 << 20}
	whole := list(clientOpt{}) // cached: every row
	if strings.Contains(whole, `"errors"`) {
		t.Fatalf("without the limit: %s", whole)
	}
	cold := list(clientOpt{hooks: limit, opts: Options{NoCache: true}})
	if !strings.Contains(cold, "larger than the limit of 1 MB") || strings.Count(cold, `"id"`) != 2 {
		t.Fatalf("--no-cache under the limit: want 2 rows and the big log in errors: %s", cold)
	}
	if warm := list(clientOpt{hooks: limit}); warm != cold {
		t.Errorf("under the limit, the cache answered otherwise than --no-cache:\n%s\nwant\n%s", warm, cold)
	}
	if again := list(clientOpt{}); again != whole {
		t.Errorf("a row read under the limit was stored:\n%s\nwant\n%s", again, whole)
	}
}
