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
