package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// stages records the server's stage marks (hooks.stage), from any goroutine.
type stages struct {
	mu    sync.Mutex
	names []string
}

func (s *stages) mark(name string) {
	s.mu.Lock()
	s.names = append(s.names, name)
	s.mu.Unlock()
}

func (s *stages) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, x := range s.names {
		if x == name {
			n++
		}
	}
	return n
}

// willOpenWorkspace copies the basic fixture under <tmp>/.claude/projects/p and returns the
// workspace folder, the log's path, URI and text.
func willOpenWorkspace(t *testing.T) (ws, path, uri, text string) {
	t.Helper()
	_, _, text = fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	ws = t.TempDir()
	dir := filepath.Join(ws, ".claude", "projects", "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "11111111-1111-4111-8111-111111111111.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, path, pathToURI(path), text
}

// unversioned waits for diagnostics of uri published without a version (read from disk).
func (c *client) unversioned(uri string) []diagnostic {
	c.t.Helper()
	var got []diagnostic
	c.await("unversioned diagnostics of "+uri, func() bool {
		for _, p := range c.diags[uri] {
			if p.Version == nil {
				got = p.Diagnostics
				return true
			}
		}
		return false
	})
	return got
}

// ccdag/willOpen publishes a log's diagnostics before the editor has sent its text; the didOpen
// with the same bytes then parses nothing and publishes nothing again.
func TestWillOpenPublishesBeforeDidOpen(t *testing.T) {
	ws, _, uri, text := willOpenWorkspace(t)
	var st stages
	c := newClient(t, clientOpt{root: ws, hooks: hooks{stage: st.mark}})

	c.notify(notifyWillOpen, map[string]any{"uri": uri})
	got := wireDiags(c.unversioned(uri))
	want := freshDiags(uri, []byte(text))
	if len(want) == 0 {
		t.Fatal("the fixture has no findings: the test would prove nothing")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("diagnostics from disk differ from a fresh parse:\n got  %q\n want %q", got, want)
	}
	if n := st.count("parsed and indexed"); n != 1 {
		t.Fatalf("willOpen parsed the session %d times, want 1", n)
	}

	published := c.publications(uri)
	c.open(uri, text, 1)
	// Two round trips on the session's worker: a publication queued by the didOpen would be
	// sent before the second answer.
	c.hoverText(uri, at(0, 2))
	c.hoverText(uri, at(0, 2))
	if n := st.count("didOpen reused"); n != 1 {
		t.Errorf("didOpen with the same bytes: %d reuses (stages %q)", n, st.names)
	}
	if n := st.count("parsed and indexed") + st.count("didOpen re-checked"); n != 1 {
		t.Errorf("didOpen with the same bytes parsed again (stages %q)", st.names)
	}
	if n := c.publications(uri); n != published {
		t.Errorf("didOpen with the same bytes published %d more times", n-published)
	}

	// From here on it is an ordinary open document: an edit is checked and published at its version.
	line0 := strings.SplitN(text, "\n", 2)[0]
	c.change(uri, 2, edit(rng{at(0, 0), at(0, utf16Len(line0))}, "{"))
	if ds := wireDiags(c.diagsAt(uri, 2)); !slices.ContainsFunc(ds, func(d string) bool { return strings.Contains(d, "invalid-json") }) {
		t.Errorf("an edit after the claimed open: no invalid-json finding in %q", ds)
	}
}

// A didOpen whose text differs from the disk's (the editor had unsaved text, or the log grew in
// between) is checked as the editor's text, at its version.
func TestWillOpenThenOtherBytes(t *testing.T) {
	ws, _, uri, text := willOpenWorkspace(t)
	var st stages
	c := newClient(t, clientOpt{root: ws, hooks: hooks{stage: st.mark}})
	c.notify(notifyWillOpen, map[string]any{"uri": uri})
	c.unversioned(uri)

	grown := text + `{"type":"user","uuid":"9f0e7c2a-0000-4000-8000-000000000001","parentUuid":"9f0e7c2a-0000-4000-8000-00000000dead","sessionId":"11111111-1111-4111-8111-111111111111","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"more"}}` + "\n"
	c.open(uri, grown, 1)
	got := wireDiags(c.diagsAt(uri, 1))
	if want := freshDiags(uri, []byte(grown)); !slices.Equal(got, want) {
		t.Fatalf("didOpen with other bytes: diagnostics differ from a fresh parse:\n got  %q\n want %q", got, want)
	}
	if st.count("didOpen re-checked") != 1 || st.count("parsed and indexed") != 1 {
		t.Errorf("other bytes should be one edit of the session read once (stages %q)", st.names)
	}
}

// Bad, foreign and unreadable paths: nothing is read or published, a warning says why, and a
// later didOpen of the same URI works as ever.
func TestWillOpenRefuses(t *testing.T) {
	ws, path, _, text := willOpenWorkspace(t)
	outside := filepath.Join(t.TempDir(), "11111111-1111-4111-8111-111111111111.jsonl")
	if err := os.WriteFile(outside, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(filepath.Dir(path), "link.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	notLog := filepath.Join(filepath.Dir(path), "notes.txt")
	if err := os.WriteFile(notLog, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.WarnLevel)
	var st stages
	c := newClient(t, clientOpt{root: ws, hooks: hooks{log: zap.New(core), stage: st.mark}})
	bad := []string{
		pathToURI(outside),                      // not under the workspace
		pathToURI(link),                         // a link out of it
		pathToURI(notLog),                       // not a log
		pathToURI(filepath.Join(ws, "x.jsonl")), // no such file
		pathToURI(filepath.Dir(path)) + "/",     // a folder
		"untitled:Untitled-1",
		"",
	}
	for _, u := range bad {
		c.notify(notifyWillOpen, map[string]any{"uri": u})
	}
	c.notify(notifyWillOpen, "not an object")
	// The read loop handles notifications in order: an answer after them means they were handled.
	var res any
	c.mustCall(methodSessions, map[string]any{}, &res)
	if n := logs.FilterMessage(notifyWillOpen + ": not read").Len(); n != len(bad) {
		t.Errorf("%d warnings for %d refused URIs: %v", n, len(bad), logs.All())
	}
	if n := st.count("willOpen registered"); n != 0 {
		t.Errorf("%d refused URIs were registered", n)
	}
	c.mu.Lock()
	published := len(c.diags)
	c.mu.Unlock()
	if published != 0 {
		t.Errorf("diagnostics published for refused URIs: %v", c.diags)
	}
	c.open(pathToURI(outside), text, 1)
	if ds := c.diagsAt(pathToURI(outside), 1); len(ds) == 0 {
		t.Error("a didOpen after a refused willOpen got no findings")
	}
}

// A willOpen that no didOpen follows is closed after willOpenGrace: its diagnostics are cleared
// and the session is forgotten.
func TestWillOpenWithoutDidOpenIsForgotten(t *testing.T) {
	ws, _, uri, _ := willOpenWorkspace(t)
	c := newClient(t, clientOpt{root: ws, hooks: hooks{willOpenGrace: 200 * time.Millisecond, closeGrace: 100 * time.Millisecond}})
	c.notify(notifyWillOpen, map[string]any{"uri": uri})
	if len(c.unversioned(uri)) == 0 {
		t.Fatal("no findings published from disk")
	}
	c.await("the findings cleared", func() bool {
		ps := c.diags[uri]
		return len(ps) > 1 && len(ps[len(ps)-1].Diagnostics) == 0
	})
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) { // no event says it
		c.srv.mu.Lock()
		n, d := len(c.srv.sessions), c.srv.docs[uri]
		c.srv.mu.Unlock()
		if n == 0 && d == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions and document %v kept after the grace periods", n, d)
		}
	}
}

// VS Code also announces a saved log just before its didOpen (a start with logs open): whichever
// comes first on the worker, the session is read once and its findings are a fresh parse's.
func TestWillOpenRightBeforeDidOpen(t *testing.T) {
	ws, _, uri, text := willOpenWorkspace(t)
	var st stages
	c := newClient(t, clientOpt{root: ws, hooks: hooks{stage: st.mark}})
	c.notify(notifyWillOpen, map[string]any{"uri": uri})
	c.open(uri, text, 1)
	want := freshDiags(uri, []byte(text))
	var got []string
	c.await("the findings", func() bool {
		ps := c.diags[uri]
		if len(ps) == 0 {
			return false
		}
		got = wireDiags(ps[len(ps)-1].Diagnostics)
		return len(got) > 0
	})
	if !slices.Equal(got, want) {
		t.Fatalf("diagnostics differ from a fresh parse:\n got  %q\n want %q", got, want)
	}
	c.hoverText(uri, at(0, 2))
	c.hoverText(uri, at(0, 2))
	if n := st.count("parsed and indexed") + st.count("didOpen re-checked"); n != 1 {
		t.Errorf("the log was parsed %d times (stages %q)", n, st.names)
	}
	// An open document now: an edit is published at its version.
	c.change(uri, 2, edit(rng{at(0, 0), at(0, 0)}, "x"))
	c.diagsAt(uri, 2)
}

// ccdag/willOpen and a request about a closed log read no file past the server's file-size limit
// (docs/spec.md §15): a sparse file of 2 MB under a 1 MB limit is refused before it is read (a
// sparse 512 MB file once cost 551 MB of memory), while the editor's didOpen still brings its text.
func TestWillOpenTooLarge(t *testing.T) {
	ws, path, uri, text := willOpenWorkspace(t)
	big := filepath.Join(filepath.Dir(path), "22222222-2222-4222-8222-222222222222.jsonl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 20); err != nil { // sparse: no disk, 2 MB read
		t.Fatal(err)
	}
	f.Close()
	core, logs := observer.New(zapcore.WarnLevel)
	var st stages
	c := newClient(t, clientOpt{root: ws, hooks: hooks{log: zap.New(core), stage: st.mark, maxFileBytes: 1 << 20}})
	c.notify(notifyWillOpen, map[string]any{"uri": pathToURI(big)})
	var tr transcriptWire
	err = c.call("ccdag/transcript", docParams(pathToURI(big)), &tr)
	if err == nil || !strings.Contains(err.Error(), "limit of 1 MB") {
		t.Errorf("transcript of a closed log past the limit: %v, want a refusal naming the limit", err)
	}
	refused := logs.FilterMessage(notifyWillOpen + ": not read").All()
	if len(refused) != 1 || !strings.Contains(refused[0].ContextMap()["why"].(string), "file-size limit of 1 MB") {
		t.Errorf("willOpen of a log past the limit: warnings %v", logs.All())
	}
	if n := st.count("willOpen registered"); n != 0 {
		t.Errorf("a log past the limit was registered")
	}
	// Under the limit, as before.
	c.notify(notifyWillOpen, map[string]any{"uri": uri})
	if ds := c.unversioned(uri); len(ds) == 0 {
		t.Errorf("no diagnostics for a log under the limit")
	}
	c.open(pathToURI(big), text, 1)
	if ds := c.diagsAt(pathToURI(big), 1); len(ds) == 0 {
		t.Error("a didOpen of a log past the limit got no findings")
	}
}
