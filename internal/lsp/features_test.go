package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func severityOf(ds []diagnostic, code string) int {
	for _, d := range ds {
		if d.Code == code {
			return d.Severity
		}
	}
	return 0
}

func TestSeveritySettings(t *testing.T) {
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c := newClient(t, clientOpt{
		init: map[string]any{"severity": map[string]any{"orphan": "error", "unmatched-tool-use": "off", "no-such-code": "error"}},
		caps: map[string]any{"workspace": map[string]any{"configuration": true}},
	})
	c.open(uri, text, 1)
	ds := c.diagsAt(uri, 1)
	if len(ds) != 1 || severityOf(ds, "orphan") != 1 {
		t.Fatalf("initializationOptions not applied: %+v", ds)
	}
	// The graph's problem markers follow the settings too, full and drawn within a budget.
	problemSeverity := func(params map[string]any) string {
		var g struct {
			Problems []struct {
				Severity string
				Messages []string
			} `json:"problems"`
		}
		params["textDocument"] = map[string]any{"uri": uri}
		c.mustCall("ccdag/workflowGraph", params, &g)
		for _, p := range g.Problems {
			if slices.ContainsFunc(p.Messages, func(m string) bool { return strings.HasPrefix(m, "orphan:") }) {
				return p.Severity
			}
		}
		t.Fatalf("no node's problems hold the orphan: %+v", g.Problems)
		return ""
	}
	if full, drawn := problemSeverity(map[string]any{}), problemSeverity(map[string]any{"maxNodes": 1}); full != "error" || drawn != "error" {
		t.Fatalf("graph problems before: %s, %s", full, drawn)
	}
	// pushed settings (VS Code, Neovim): republished at the same version
	n := c.publications(uri)
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag": map[string]any{"severity": map[string]any{"orphan": "hint"}}}})
	c.await("republished with orphan as a hint", func() bool {
		ps := c.diags[uri]
		return len(ps) > n && severityOf(ps[len(ps)-1].Diagnostics, "orphan") == 4 && severityOf(ps[len(ps)-1].Diagnostics, "unmatched-tool-use") == 3
	})
	// Drawn as one node, the orphan's node also holds the unmatched call, now information.
	if full, drawn := problemSeverity(map[string]any{}), problemSeverity(map[string]any{"maxNodes": 1}); full != "hint" || drawn != "information" {
		t.Errorf("graph problems after the setting: %s, %s (the graph kept the old severities)", full, drawn)
	}
	// no settings in the notification: the server pulls the "ccdag" section
	c.mu.Lock()
	c.settings = json.RawMessage(`{"severity":{"orphan":2,"unmatched-tool-use":"error"}}`)
	c.mu.Unlock()
	n = c.publications(uri)
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	c.await("republished with pulled settings", func() bool {
		ps := c.diags[uri]
		return len(ps) > n && severityOf(ps[len(ps)-1].Diagnostics, "orphan") == 2 && severityOf(ps[len(ps)-1].Diagnostics, "unmatched-tool-use") == 1
	})
}

func TestWorkDoneProgress(t *testing.T) {
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c := newClient(t, clientOpt{
		caps:  map[string]any{"window": map[string]any{"workDoneProgress": true}},
		hooks: hooks{progressBytes: 1}, // every session counts as large
	})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	progress := func(token string) []string {
		var kinds []string
		for _, n := range c.notes {
			var p struct {
				Token any
				Value struct{ Kind, Title string }
			}
			if n.method == "$/progress" && json.Unmarshal(n.params, &p) == nil && p.Token == token {
				kinds = append(kinds, p.Value.Kind)
			}
		}
		return kinds
	}
	c.await("loading progress with a created token", func() bool {
		return slices.Contains(c.calls, "window/workDoneProgress/create") && slices.Equal(progress("ccdag-1"), []string{"begin", "end"})
	})
	// The graph was built behind the diagnostics, silently (no progress on a token of the
	// server's); an edit makes the next request build it again, on the client's own token.
	c.change(uri, 2, edit(rng{Start: at(0, 0), End: at(0, 0)}, "\n"))
	c.diagsAt(uri, 2)
	var g json.RawMessage
	c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": uri}, "workDoneToken": "tok-1"}, &g)
	c.await("graph progress on the request's token", func() bool { return slices.Equal(progress("tok-1"), []string{"begin", "end"}) })
	c.mu.Lock()
	defer c.mu.Unlock()
	if got := progress("ccdag-2"); len(got) > 0 { // the worker ran the background build before the edit
		t.Errorf("the background graph build reported progress: %v", got)
	}
}

// Files of the session that are not open follow the disk when the client watches files.
func TestWatchedFiles(t *testing.T) {
	mainSrc, _, mainText := fixture(t, subMain)
	agentSrc, _, agentText := fixture(t, subAgent)
	dir := t.TempDir()
	mainPath := filepath.Join(dir, filepath.Base(mainSrc))
	agentPath := filepath.Join(dir, strings.TrimPrefix(agentSrc, filepath.Dir(mainSrc)+string(filepath.Separator)))
	os.WriteFile(mainPath, []byte(mainText), 0o644)
	mainURI, agentURI := pathToURI(mainPath), pathToURI(agentPath)

	c := newClient(t, clientOpt{caps: map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}})
	c.await("file watchers registered", func() bool { return slices.Contains(c.calls, "client/registerCapability") })
	c.open(mainURI, mainText, 1)
	if got := codesAt(c.diagsAt(mainURI, 1)); !slices.Equal(got, []string{"1:missing-agent-file:3"}) {
		t.Fatalf("without the agent's log: %v", got)
	}
	summaryNow := func() summary {
		var s summary
		c.mustCall(methodSessionSummary, map[string]any{"textDocument": map[string]any{"uri": mainURI}}, &s)
		return s
	}
	watched := func(uri string, typ int) {
		c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uri, "type": typ}}})
	}
	lastClean := func() bool {
		ps := c.diags[mainURI]
		return len(ps[len(ps)-1].Diagnostics) == 0
	}
	// the agent's log appears
	os.MkdirAll(filepath.Dir(agentPath), 0o755)
	os.WriteFile(agentPath, []byte(agentText), 0o644)
	watched(agentURI, fileCreated)
	c.await("missing-agent-file gone", lastClean)
	if s := summaryNow(); s.Files != 2 || s.Records != 8 {
		t.Errorf("after the agent's log appeared: %+v", s)
	}
	if locs := c.definition(mainURI, valuePos(t, mainText, 2, "agentId", agentID)); len(locs) != 1 || locs[0].URI != agentURI {
		t.Errorf("definition into the new log: %+v", locs)
	}
	// it grows on disk with a broken record
	os.WriteFile(agentPath, []byte(agentText+`{"type":"user","uuid":"s-0005","parentUuid":"gone","isSidechain":true,"message":{"role":"user","content":"x"}}`+"\n"), 0o644)
	n := c.publications(mainURI)
	watched(agentURI, fileChanged)
	c.await("diagnostics republished after the change on disk", func() bool { return len(c.diags[mainURI]) > n })
	if s := summaryNow(); s.Problems.Warning != 1 || s.Records != 9 {
		t.Errorf("the agent log's new orphan is not counted: %+v", s)
	}
	// it goes
	os.Remove(agentPath)
	watched(agentURI, fileDeleted)
	c.await("missing-agent-file back", func() bool {
		ps := c.diags[mainURI]
		return slices.Equal(codesAt(ps[len(ps)-1].Diagnostics), []string{"1:missing-agent-file:3"})
	})
	// a file of another folder, or a non-log file: nothing happens
	watched(pathToURI("/etc/passwd"), fileCreated)
	if s := summaryNow(); s.Files != 1 {
		t.Errorf("after unrelated events: %+v", s)
	}
}

func TestPlainClients(t *testing.T) {
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	// no markdown, no hierarchical symbols
	c := newClient(t, clientOpt{caps: map[string]any{"textDocument": map[string]any{"hover": map[string]any{"contentFormat": []string{"plaintext"}}}}})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	var h hoverResult
	c.mustCall("textDocument/hover", tdp(uri, pos{2, 5}), &h)
	if h.Contents.Kind != "plaintext" || strings.Contains(h.Contents.Value, "**") || !strings.Contains(h.Contents.Value, "Read") {
		t.Errorf("plain hover: %+v", h)
	}
	var syms []symbolInfo
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 6 || syms[1].ContainerName != syms[0].Name || syms[0].Location.URI != uri {
		t.Errorf("flat symbols: %+v", syms)
	}
}

// recAt returns the server's record object of a line, to tell whether it was parsed again.
func recAt(c *client, uri string, line int) any {
	d := c.srv.doc(uri)
	out := make(chan any, 1)
	d.sess.do(nil, func() { out <- d.sess.session.File(d.path).Rec(line) })
	return <-out
}

// An editor that reloads a growing log sends the whole new text over the whole old range: the
// lines it shares with the old text are not parsed again.
func TestReloadParsesOnlyWhatChanged(t *testing.T) {
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	first, last := recAt(c, uri, 0), recAt(c, uri, 6)
	appended := `{"type":"user","uuid":"u-0009","parentUuid":"a-0004","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B1","content":"ok"}]}}` + "\n"
	c.change(uri, 2, edit(rng{pos{0, 0}, pos{7, 0}}, text+appended))
	if got := codesAt(c.diagsAt(uri, 2)); !slices.Equal(got, []string{"5:orphan:2"}) {
		t.Errorf("after the reload: %v", got)
	}
	if recAt(c, uri, 0) != first || recAt(c, uri, 6) != last {
		t.Errorf("lines the reload did not change were parsed again")
	}
	// the same through a change without a range
	c.change(uri, 3, map[string]any{"text": text + appended + appended})
	c.diagsAt(uri, 3)
	if recAt(c, uri, 0) != first {
		t.Errorf("a whole-text change parsed unchanged lines again")
	}
}
