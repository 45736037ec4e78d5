package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A live session whose client watches no files (Neovim 0.7; code-server for a folder created after
// it started): the sub-agent's folder and log appear on disk, the main log grows, and the server
// finds the new log itself, follows it as it grows and lets it go when it goes — reading only the
// session's own folders.
func TestNewFilesFoundWithoutWatching(t *testing.T) {
	mainSrc, _, mainText := fixture(t, subMain)
	agentSrc, _, agentText := fixture(t, subAgent)
	rel := strings.TrimPrefix(agentSrc, filepath.Dir(mainSrc)+string(filepath.Separator))
	dir := t.TempDir()
	mainPath := filepath.Join(dir, filepath.Base(mainSrc))
	agentPath := filepath.Join(dir, rel)
	metaSrc := strings.TrimSuffix(agentSrc, ".jsonl") + ".meta.json"
	mainLines := strings.SplitAfter(mainText, "\n")
	// the main log as it is while the Task call runs: the prompt and the call
	running := mainLines[0] + mainLines[1]
	os.WriteFile(mainPath, []byte(running), 0o644)
	mainURI := pathToURI(mainPath)

	c := newClient(t, clientOpt{}) // no didChangeWatchedFiles capability
	c.open(mainURI, running, 1)
	if got := codesAt(c.diagsAt(mainURI, 1)); !slices.Equal(got, []string{"1:unmatched-tool-use:3"}) {
		t.Fatalf("with the call running: %v", got)
	}
	summaryNow := func() summary {
		var s summary
		c.mustCall(methodSessionSummary, map[string]any{"textDocument": map[string]any{"uri": mainURI}}, &s)
		return s
	}
	type graphLanes struct {
		Lanes []struct{ ID string }
		Edges []struct{ Source, Target, Kind string }
	}
	graphNow := func() graphLanes {
		var g graphLanes
		c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": mainURI}}, &g)
		return g
	}
	version := int32(1)
	reload := func(text string) { // what an editor sends when it reloads the grown file
		version++
		c.change(mainURI, version, map[string]any{"text": text})
	}

	// The first sub-agent creates <sessionId>/subagents/ with its log and meta file; no event
	// reaches the server. The main log grows (a progress record), as it does while the agent runs.
	os.MkdirAll(filepath.Dir(agentPath), 0o755)
	agentLines := strings.SplitAfter(agentText, "\n")
	os.WriteFile(agentPath, []byte(agentLines[0]), 0o644)
	meta, _ := os.ReadFile(metaSrc)
	os.WriteFile(strings.TrimSuffix(agentPath, ".jsonl")+".meta.json", meta, 0o644)
	progress := `{"type":"progress","uuid":"p-0001","parentUuid":"a-0001","isSidechain":false,"sessionId":"22222222-2222-4222-8222-222222222222","toolUseID":"toolu_T1","parentToolUseID":"toolu_T1","data":{"type":"agent_progress","agentId":"` + agentID + `"},"timestamp":"2026-03-01T10:00:07.000Z"}` + "\n"
	running += progress
	os.WriteFile(mainPath, []byte(running), 0o644)
	reload(running)
	eventually(t, "the agent's log to join the session", func() bool { return summaryNow().Files == 2 })
	g := graphNow()
	if len(g.Lanes) != 2 || g.Lanes[1].ID != "agent-"+agentID {
		t.Errorf("the running agent has no lane: %+v", g.Lanes)
	}
	if !slices.ContainsFunc(g.Edges, func(e struct{ Source, Target, Kind string }) bool { return e.Kind == "spawn" }) {
		t.Errorf("the running agent's lane is not tied to its call: %+v", g.Edges)
	}

	// The agent's log grows (no event); the main log gets the result: everything is in.
	os.WriteFile(agentPath, []byte(agentText), 0o644)
	full := running + strings.Join(mainLines[2:], "")
	os.WriteFile(mainPath, []byte(full), 0o644)
	reload(full)
	eventually(t, "the agent log's new records", func() bool { return summaryNow().Records == 4+1+4 })
	c.await("clean diagnostics", func() bool {
		ps := c.diags[mainURI]
		return len(ps) > 0 && ps[len(ps)-1].Version != nil && *ps[len(ps)-1].Version == version && len(ps[len(ps)-1].Diagnostics) == 0
	})
	if locs := c.definition(mainURI, valuePos(t, full, 3, "agentId", agentID)); len(locs) != 1 || locs[0].URI != pathToURI(agentPath) {
		t.Errorf("definition into the log found on disk: %+v", locs)
	}

	// A change right after a look: the next look waits for lookEvery, then still happens without
	// any further change.
	reload(full + "\n")
	os.WriteFile(agentPath, []byte(agentText+`{"type":"user","uuid":"s-0009","parentUuid":"gone","isSidechain":true,"message":{"role":"user","content":"x"}}`+"\n"), 0o644)
	reload(full)
	eventually(t, "the agent log's later growth", func() bool { s := summaryNow(); return s.Records == 10 && s.Problems.Warning == 1 })

	// It goes: the file leaves, the main log's result names a log no longer there.
	os.RemoveAll(filepath.Join(dir, strings.Split(rel, string(filepath.Separator))[0]))
	reload(full + "\n")
	eventually(t, "the deleted log to leave", func() bool { return summaryNow().Files == 1 })
	c.await("missing-agent-file", func() bool {
		ps := c.diags[mainURI]
		return slices.Contains(codesAt(ps[len(ps)-1].Diagnostics), "1:missing-agent-file:3")
	})

	// A link out of the session's folder put where subagents/ goes is not followed (docs/spec.md §5).
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(outside, "subagents"), 0o755)
	os.WriteFile(filepath.Join(outside, "subagents", "agent-"+agentID+".jsonl"), []byte(strings.ReplaceAll(agentText, "Explore", "SECRET-CONTENT")), 0o644)
	sessDir := filepath.Join(dir, strings.Split(rel, string(filepath.Separator))[0])
	if err := os.Symlink(outside, sessDir); err != nil {
		t.Fatal(err)
	}
	reload(full)
	time.Sleep(2 * lookEvery)
	reload(full + "\n")
	time.Sleep(2 * lookEvery)
	if s := summaryNow(); s.Files != 1 {
		t.Errorf("a log behind a link out of the session's folder joined: %+v", s)
	}
}

// BenchmarkLook: one look at a session of 200 sub-agent logs in a project folder of 1 000
// sessions, nothing changed (what a live session pays at most every lookEvery).
func BenchmarkLook(b *testing.B) {
	_, _, mainText := fixture(b, subMain)
	_, _, agentText := fixture(b, subAgent)
	dir := b.TempDir()
	id := "22222222-2222-4222-8222-222222222222"
	sub := filepath.Join(dir, id, "subagents")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(mainText), 0o644)
	for i := range 200 {
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("agent-a%04d.jsonl", i)), []byte(agentText), 0o644)
	}
	for i := range 1000 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i)), []byte(mainText), 0o644)
	}
	c := newClient(b, clientOpt{})
	uri := pathToURI(filepath.Join(dir, id+".jsonl"))
	c.open(uri, mainText, 1)
	c.diagsAt(uri, 1)
	c.srv.mu.Lock()
	ss := c.srv.docs[uri].sess
	c.srv.mu.Unlock()
	done := make(chan bool)
	ss.do(nil, func() {
		b.ResetTimer()
		for range b.N {
			if ss.look() {
				b.Error("a look found a change where there was none")
			}
		}
		b.StopTimer()
		close(done)
	})
	<-done
}

// A sub-agent log past the server's file-size limit is there but not read (docs/spec.md §15): its
// call's finding says so, and why, rather than that the log is not where Claude Code writes it —
// when the session is read, and when the server finds the log on a later look; a log that goes is
// missing again.
func TestAgentLogPastTheLimitIsThereNotMissing(t *testing.T) {
	dir := t.TempDir()
	sid := "c2c20000-0000-0000-0000-000000000002"
	mainPath := filepath.Join(dir, sid+".jsonl")
	agentPath := filepath.Join(dir, sid, "subagents", "agent-a1.jsonl")
	text := strings.Join([]string{
		fmt.Sprintf(`{"type":"user","uuid":"m1","sessionId":%q,"message":{"role":"user","content":"go"}}`, sid),
		fmt.Sprintf(`{"type":"assistant","uuid":"m2","parentUuid":"m1","sessionId":%q,"message":{"id":"x","role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Task","input":{"description":"d","prompt":"p","subagent_type":"Explore"}}]}}`, sid),
		fmt.Sprintf(`{"type":"user","uuid":"m3","parentUuid":"m2","sessionId":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"ok"}]},"toolUseResult":{"status":"completed","agentId":"a1"}}`, sid),
	}, "\n") + "\n"
	writeLog(t, mainPath, strings.TrimSuffix(text, "\n"))
	bigLog(t, agentPath, "agentmarker", 2<<20)
	uri := pathToURI(mainPath)

	c := newClient(t, clientOpt{hooks: hooks{maxFileBytes: 1 << 20}})
	c.open(uri, text, 1)
	agentFinding := func(ds []diagnostic) string {
		for _, d := range ds {
			if d.Code == "missing-agent-file" {
				return d.Message
			}
		}
		return ""
	}
	unread := func(m string) bool {
		return strings.Contains(m, "its log "+sid+"/subagents/agent-a1.jsonl is there but was not read") &&
			strings.Contains(m, "larger than the file-size limit of 1 MB") && !strings.Contains(m, "not where")
	}
	if m := agentFinding(c.diagsAt(uri, 1)); !unread(m) {
		t.Errorf("a sub-agent log past the limit, read with the session: %q", m)
	}
	version := int32(1)
	lastFinding := func(what string, want func(string) bool) {
		t.Helper()
		version++
		c.change(uri, version, map[string]any{"text": text}) // a reload: the server looks at the folders
		c.await(what, func() bool {
			ps := c.diags[uri]
			return len(ps) > 0 && want(agentFinding(ps[len(ps)-1].Diagnostics))
		})
	}
	os.Remove(agentPath)
	lastFinding("the log gone: missing", func(m string) bool { return strings.Contains(m, "is not where Claude Code writes it") })
	bigLog(t, agentPath, "agentmarker", 2<<20)
	lastFinding("the log back past the limit: there, not read", unread)
}
