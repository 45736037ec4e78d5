package lsp

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestNoResultShowsASecret (docs/spec.md §15): secrets planted in a real session — prompts (the
// title), a tool input, tool results, a sub-agent log — show in no server result, not 8 bytes of
// one: hover on every line, the outline, code lenses, inlay hints, code-action titles,
// ccdag/workflowGraph (JSON, text, collapsed), ccdag/transcript, ccdag/resumePreview (of the open
// session and read from disk), ccdag/sessions, workspace/symbol, diagnostics. With ccdag.redact
// false, each view that shows log text shows them (so the planting reaches it, and the test can
// fail).
func TestNoResultShowsASecret(t *testing.T) {
	ps := secretstest.PlantSession(t)
	for _, redact := range []bool{true, false} {
		var init any
		if !redact {
			init = map[string]any{"ccdag": map[string]any{"redact": false}}
		}
		c := newClient(t, clientOpt{root: ps.Root, init: init, hooks: hooks{wsPoll: 20 * time.Millisecond}})
		views := map[string]string{} // what each view answered, as sent
		add := func(view string, v json.RawMessage) { views[view] += string(v) + "\n" }
		call := func(view, method string, params any) {
			var res json.RawMessage
			c.mustCall(method, params, &res)
			add(view, res)
		}
		doc := func(uri string, more map[string]any) map[string]any {
			p := map[string]any{"textDocument": map[string]any{"uri": uri}}
			for k, v := range more {
				p[k] = v
			}
			return p
		}
		// Read from disk (no document open).
		mainURI, agentURI := pathToURI(ps.Main), pathToURI(ps.Agent)
		for _, u := range []string{mainURI, agentURI} {
			call("graph (closed)", methodWorkflowGraph, doc(u, nil))
			call("graph text (closed)", methodWorkflowGraph, doc(u, map[string]any{"format": "text"}))
			call("transcript (closed)", methodTranscript, doc(u, map[string]any{"allBranches": true}))
			call("resumePreview (closed)", methodResumePreview, doc(u, nil))
		}
		call("sessions", methodSessions, map[string]any{"folders": []string{pathToURI(ps.Dir)}})
		for deadline := time.Now().Add(waitLimit); len(c.workspaceSymbols("deploy")) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("workspace symbols: the planted session was never indexed")
			}
		}
		for _, w := range append(ps.Words, "Bash", "clear") {
			call("workspace/symbol", "workspace/symbol", map[string]any{"query": w})
		}
		// Open.
		texts := map[string]string{}
		for i, u := range []string{mainURI, agentURI} {
			b, err := os.ReadFile([]string{ps.Main, ps.Agent}[i])
			if err != nil {
				t.Fatal(err)
			}
			texts[u] = string(b)
			c.open(u, string(b), 1)
		}
		for u, text := range texts {
			var diags []diagnostic // the publication with the secrets (a large log's comes second)
			c.await("secret diagnostics of "+u, func() bool {
				for _, p := range c.diags[u] {
					for _, d := range p.Diagnostics {
						if d.Code == "secret" {
							diags = p.Diagnostics
							return true
						}
					}
				}
				return false
			})
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			for i, line := range lines {
				for _, col := range []int{1, utf16Len(line) / 2, utf16Len(line) - 2} {
					call("hover", "textDocument/hover", tdp(u, at(i, col)))
				}
				for _, w := range ps.Words { // on the planted text itself
					if k := strings.Index(line, w); k >= 0 {
						call("hover", "textDocument/hover", tdp(u, at(i, utf16Len(line[:k])+2)))
					}
				}
			}
			call("documentSymbol", "textDocument/documentSymbol", doc(u, nil))
			call("codeLens", "textDocument/codeLens", doc(u, nil))
			call("inlayHint", "textDocument/inlayHint", doc(u, map[string]any{"range": rng{at(0, 0), at(len(lines), 0)}}))
			call("graph", methodWorkflowGraph, doc(u, nil))
			call("graph", methodWorkflowGraph, doc(u, map[string]any{"maxNodes": 20}))
			call("graph text", methodWorkflowGraph, doc(u, map[string]any{"format": "text"}))
			call("transcript", methodTranscript, doc(u, nil))
			call("transcript", methodTranscript, doc(u, map[string]any{"allBranches": true}))
			call("resumePreview", methodResumePreview, doc(u, nil))
			for _, d := range diags { // code-action titles (edits are the log's own text)
				var acts []struct{ Title string }
				c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u}, "range": d.Range,
					"context": map[string]any{"diagnostics": diags}}, &acts)
				for _, a := range acts {
					views["codeAction titles"] += a.Title + "\n"
				}
				b, _ := json.Marshal(d)
				add("diagnostics", b)
			}
		}
		c.mu.Lock()
		for _, n := range c.notes {
			add("notifications", n.params)
		}
		c.mu.Unlock()

		for view, got := range views {
			leak := secretstest.Leak(got, ps.Plants)
			if redact && leak != "" {
				i := strings.Index(got, leak)
				t.Errorf("%s shows %q: …%s…", view, leak, got[max(0, i-80):min(len(got), i+40)])
			}
			switch view {
			case "codeAction titles", "diagnostics", "notifications", "codeLens":
				// Never log text here beside the secret: nothing to show with redact off either.
			case "workspace/symbol": // the index holds no secret, whatever the setting
				if !strings.Contains(got, "[REDACTED:") {
					t.Errorf("workspace/symbol (redact %v): no name shows a placeholder:\n%.500s", redact, got)
				}
			default:
				if !redact && leak == "" {
					t.Errorf("%s with ccdag.redact false shows no secret: the planting misses this view", view)
				}
			}
		}
		if redact && !strings.Contains(views["codeAction titles"], "Redact this secret") {
			t.Errorf("no Redact quick fix offered:\n%s", views["codeAction titles"])
		}
	}
}

// TestRedactSettingFollowsTheClient: ccdag.redact set false by didChangeConfiguration shows the
// secret in the next hover, set true again hides it; other shapes of the setting are read too.
func TestRedactSettingFollowsTheClient(t *testing.T) {
	for _, raw := range []string{`{"redact":false}`, `{"ccdag.redact":false}`, `{"ccdag":{"redact":false}}`} {
		if on, ok := redactSetting(json.RawMessage(raw)); !ok || on {
			t.Errorf("%s: read as %v, %v", raw, on, ok)
		}
	}
	for _, raw := range []string{`{}`, `{"redact":"no"}`, `null`, `{"ccdag":{"severity":{}}}`} {
		if _, ok := redactSetting(json.RawMessage(raw)); ok {
			t.Errorf("%s: read as a setting", raw)
		}
	}
	ps := secretstest.PlantSession(t)
	b, err := os.ReadFile(ps.Agent)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, clientOpt{})
	uri := pathToURI(ps.Agent)
	c.open(uri, string(b), 1)
	c.diagsAt(uri, 1)
	line := strings.Split(string(b), "\n")[0] // the sub-agent's prompt, planted with a secret
	hover := func() string { return c.hoverText(uri, at(0, utf16Len(line[:strings.Index(line, "GITHUB_TOKEN")])+2)) }
	if h := hover(); secretstest.Leak(h, ps.Plants) != "" || !strings.Contains(h, "[REDACTED:") {
		t.Fatalf("redacting by default: %s", h)
	}
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag": map[string]any{"redact": false}}})
	if h := hover(); secretstest.Leak(h, ps.Plants) == "" {
		t.Errorf("ccdag.redact false: the hover hides the secret: %s", h)
	}
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag.redact": true}})
	if h := hover(); secretstest.Leak(h, ps.Plants) != "" {
		t.Errorf("ccdag.redact true again: the hover shows the secret: %s", h)
	}
}

// TestMaskHoldsCountedSecrets: past check.MaxPerCode secrets in a file the checker counts the rest
// without keeping them; the mask still holds every one (the last line's hover shows none).
func TestMaskHoldsCountedSecrets(t *testing.T) {
	var lines []string
	var plants []secretstest.Planted
	for i := range check.MaxPerCode + 20 {
		p := secretstest.Plants(uint64(1000 + i))[1] // a GitHub token
		plants = append(plants, p)
		lines = append(lines, prompt("u"+strconv.Itoa(i), "GITHUB_TOKEN="+p.Secret+" please"))
	}
	text := strings.Join(lines, "\n") + "\n"
	c := newClient(t, clientOpt{})
	uri := "untitled:counted.jsonl"
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	last := len(lines) - 1
	h := c.hoverText(uri, at(last, utf16Len(lines[last][:strings.Index(lines[last], "GITHUB_TOKEN")])+2))
	if leak := secretstest.Leak(h, plants[last:]); leak != "" || !strings.Contains(h, "[REDACTED:") {
		t.Errorf("the last line's hover (a counted secret): %s", h)
	}
}

// TestTranscriptShowsNoPartOfASecret: the transcript's prose escapes every punctuation character
// (mdsafe.Text), which cut a secret (`ghp\_…`) before the mask ran on the escaped text: the mask
// hid the parts of 8 bytes or more and left `ghp` before the placeholder. Prose is masked before it
// is escaped: no byte of a secret shows, in a prompt or a reply, open or read from disk; and a
// secret found only in a record appended later is hidden where earlier prose showed it too (the
// kept part of an incremental build is built again when the mask changes).
func TestTranscriptShowsNoPartOfASecret(t *testing.T) {
	ps := secretstest.Plants(11)
	pat, slack := ps[1], ps[2]
	// A value generic-api-key finds after "api_key =", not alone; prose's escapes cut it into pieces
	// shorter than 8 bytes. Put together here: no literal secret in the source.
	generic := strings.Join([]string{"Xk9", "pQ2_vB7.mN4", "zR8wL1tY6"}, "-")
	lines := []string{
		prompt("u1", "token "+pat.Secret+" please, and "+slack.Secret+" too; "+generic+" is not one yet"),
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"I see ` + pat.Secret + `."}]}}`,
	}
	dir := t.TempDir()
	path := dir + "/s1.jsonl"
	text := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	unescape := strings.NewReplacer(`\`, "") // every byte prose escapes is punctuation: read as shown
	shows := func(md string, secrets ...string) string {
		md = unescape.Replace(md)
		for _, s := range secrets {
			for _, part := range []string{s[:3], s[len(s)-3:]} {
				if i := strings.Index(md, part); i >= 0 {
					return strconv.Quote(part) + " in " + strconv.Quote(md[max(0, i-40):min(len(md), i+40)])
				}
			}
		}
		return ""
	}
	c := newClient(t, clientOpt{})
	uri := pathToURI(path)
	var closed transcriptWire
	c.mustCall(methodTranscript, docParams(uri), &closed)
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	var open transcriptWire
	c.mustCall(methodTranscript, docParams(uri), &open)
	for view, md := range map[string]string{"closed": closed.Markdown, "open": open.Markdown} {
		if s := shows(md, pat.Secret, slack.Secret); s != "" {
			t.Errorf("%s: a part of a secret shows: %s\n%s", view, s, md)
		}
		for _, want := range []string{"> token [REDACTED:github-pat] please, and [REDACTED:slack-bot-token] too", "I see [REDACTED:github-pat]."} {
			if !strings.Contains(unescape.Replace(md), want) {
				t.Errorf("%s: the placeholder is not where the secret was (%q):\n%s", view, want, md)
			}
		}
	}
	if !strings.Contains(unescape.Replace(open.Markdown), generic) {
		t.Fatalf("the generic value is a secret already: the test needs another:\n%s", open.Markdown)
	}
	var full atomic.Int32 // the last build's kind: 1 full, 2 incremental
	d := c.srv.doc(uri)
	set := make(chan struct{})
	d.sess.do(nil, func() {
		d.sess.readingState().transcript.Stats = func(f bool, _ int) { full.Store(map[bool]int32{true: 1, false: 2}[f]) }
		close(set)
	})
	<-set
	// An append with no new secret: the same mask, the document kept up to its checkpoint.
	add := prompt("u2", "And now?") + "\n"
	c.change(uri, 2, edit(rng{at(len(lines), 0), at(len(lines), 0)}, add))
	c.diagsAt(uri, 2)
	c.mustCall(methodTranscript, docParams(uri), &open)
	if full.Load() != 2 || !strings.Contains(open.Markdown, "And now?") {
		t.Errorf("an append that finds no new secret: not an incremental build (%d):\n%s", full.Load(), open.Markdown)
	}
	// An append that makes the earlier value a secret: built again whole, hidden where prose showed it.
	add = `{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s1","message":{"role":"user","content":"api_key = \"` + generic + `\""}}` + "\n"
	c.change(uri, 3, edit(rng{at(len(lines)+1, 0), at(len(lines)+1, 0)}, add))
	diags := c.diagsAt(uri, 3)
	found := false
	for _, d := range diags {
		found = found || d.Code == "secret" && d.Range.Start.Line == 3
	}
	if !found {
		t.Fatalf("the appended value is not found as a secret: %+v", diags)
	}
	c.mustCall(methodTranscript, docParams(uri), &open)
	if s := shows(open.Markdown, pat.Secret, slack.Secret, generic); s != "" || full.Load() != 1 {
		t.Errorf("after the append (full build: %d), a part of a secret shows: %s\n%s", full.Load(), s, open.Markdown)
	}
}
