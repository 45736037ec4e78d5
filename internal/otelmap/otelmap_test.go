package otelmap

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/golden"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// tree writes spans as an indented tree (children by start, then id), every field shown; paths
// relative to root.
func tree(spans []Span, root string) string {
	kids := map[SpanID][]int{}
	ids := map[SpanID]bool{}
	for i, sp := range spans {
		kids[sp.Parent] = append(kids[sp.Parent], i)
		ids[sp.ID] = true
	}
	var sb strings.Builder
	var walk func(p SpanID, depth int)
	walk = func(p SpanID, depth int) {
		ks := kids[p]
		slices.SortStableFunc(ks, func(a, b int) int {
			if c := spans[a].Start.Compare(spans[b].Start); c != 0 {
				return c
			}
			return strings.Compare(spans[a].ID.String(), spans[b].ID.String())
		})
		for _, i := range ks {
			sp := spans[i]
			ind := strings.Repeat("  ", depth)
			fmt.Fprintf(&sb, "%s%s [%s] %s +%s kind=%d", ind, sp.Name, sp.ID, sp.Start.UTC().Format(time.RFC3339Nano), sp.End.Sub(sp.Start), sp.Kind)
			if sp.Error {
				fmt.Fprintf(&sb, " ERROR(%q)", sp.Message)
			}
			if sp.Pending {
				sb.WriteString(" PENDING")
			}
			sb.WriteByte('\n')
			for _, a := range sp.Attrs {
				fmt.Fprintf(&sb, "%s    %s\n", ind, attrString(a, root))
			}
			for _, e := range sp.Events {
				fmt.Fprintf(&sb, "%s    event %s %s", ind, e.Name, e.Time.UTC().Format(time.RFC3339Nano))
				for _, a := range e.Attrs {
					fmt.Fprintf(&sb, " %s", attrString(a, root))
				}
				sb.WriteByte('\n')
			}
			if sp.ID != p {
				walk(sp.ID, depth+1)
			}
		}
	}
	walk(SpanID{}, 0)
	for p := range kids { // spans whose parent is not in the trace
		if !p.IsZero() && !ids[p] {
			fmt.Fprintf(&sb, "ORPHANS of %s\n", p)
			walk(p, 1)
		}
	}
	return sb.String()
}

func attrString(a Attr, root string) string {
	if a.IsInt {
		return fmt.Sprintf("%s=%d", a.Key, a.Num)
	}
	v := a.Str
	if a.Key == KeyPath {
		if rel, err := filepath.Rel(root, v); err == nil {
			v = filepath.ToSlash(rel)
		}
	}
	return fmt.Sprintf("%s=%q", a.Key, v)
}

func load(t *testing.T, path string) *session.Session {
	t.Helper()
	s, err := layout.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixtures: one log of each session in testdata/sessions.
var fixtures = map[string]string{
	"demo":               "demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl",
	"flat":               "flat/7a2b3c4d-1111-4222-8333-444455556666.jsonl",
	"in-file-sidechains": "in-file-sidechains/1c0de000-aaaa-4bbb-8ccc-dddddddddddd.jsonl",
	"workflows":          "workflows/2b4d6f80-1357-4ace-8bdf-0123456789ab.jsonl",
	"agents-only":        "agents-only/agent-5e5e5e5e.jsonl",
	"events":             "../../internal/otelmap/testdata/events/5e55a000-0000-4000-8000-000000000001.jsonl",
}

func TestGolden(t *testing.T) {
	root, _ := filepath.Abs("../..")
	for name, rel := range fixtures {
		t.Run(name, func(t *testing.T) {
			s := load(t, filepath.Join(root, "testdata/sessions", rel))
			got := tree(Session(s, Options{}), root)
			golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
		})
	}
}

// TestRedactEveryString: the redactor sees every string attribute, event attribute and status.
func TestRedactEveryString(t *testing.T) {
	root, _ := filepath.Abs("../..")
	s := load(t, filepath.Join(root, "testdata/sessions", fixtures["events"]))
	spans := Session(s, Options{Redact: func(string) string { return "R" }})
	n := 0
	for _, sp := range spans {
		for _, a := range sp.Attrs {
			if !a.IsInt && a.Str != "R" {
				t.Errorf("%s: %s=%q not redacted", sp.Name, a.Key, a.Str)
			}
			n++
		}
		for _, e := range sp.Events {
			for _, a := range e.Attrs {
				if !a.IsInt && a.Str != "R" {
					t.Errorf("%s event %s: %s=%q not redacted", sp.Name, e.Name, a.Key, a.Str)
				}
			}
		}
		if sp.Name != "R" {
			t.Errorf("span name %q not redacted", sp.Name)
		}
		if sp.Error && sp.Message != "R" {
			t.Errorf("%s: status %q not redacted", sp.Name, sp.Message)
		}
	}
	if n == 0 {
		t.Fatal("no attributes")
	}
}

// TestCorpus holds the mapping of every real session to its DAG: a chat span per assistant
// message, an execute_tool span per call (main and sub-agent logs), sub-agents under their call,
// ids unique and stable, every span where a log says and within its parent's trace.
func TestCorpus(t *testing.T) {
	files := testcorpus.Files(t, "the spans of each real session against its DAG")
	seen := map[string]bool{}
	for _, p := range files {
		s := load(t, p)
		if seen[s.ID] {
			continue
		}
		seen[s.ID] = true
		spans := Session(s, Options{})
		again := Session(load(t, p), Options{})
		if tree(spans, "/") != tree(again, "/") {
			t.Errorf("%s: two mappings differ", p)
		}
		calls, msgs := 0, 0
		for _, f := range s.Files {
			keys := map[string]bool{}
			f.Recs(func(r *session.Rec) bool {
				if r.LineErr() != nil || r.Type != "assistant" || r.Has(jsonl.FlagAPIError) {
					return true
				}
				if k := msgKeyOf(r); k == "" || !keys[k] {
					msgs++
					keys[k] = k != ""
				}
				for k := range r.D().Blocks {
					if r.D().Blocks[k].Kind == jsonl.BlockToolUse {
						calls++
					}
				}
				return true
			})
		}
		byID := map[SpanID]*Span{}
		count := map[string]int{}
		agents := 0
		for i := range spans {
			sp := &spans[i]
			if byID[sp.ID] != nil {
				t.Errorf("%s: span id %s twice", p, sp.ID)
			}
			byID[sp.ID] = sp
			count[strings.SplitN(sp.Name, " ", 2)[0]]++
			if sp.End.Before(sp.Start) {
				t.Errorf("%s: %s ends before it starts", p, sp.Name)
			}
			if sp.Trace != TraceOf(s.ID) {
				t.Errorf("%s: %s in another trace", p, sp.Name)
			}
			var path, line bool
			for _, a := range sp.Attrs {
				path = path || a.Key == KeyPath && a.Str != ""
				line = line || a.Key == KeyLine && a.Num > 0
			}
			if !path || !line {
				t.Errorf("%s: %s lacks ccdag.path or ccdag.line", p, sp.Name)
			}
			if sp.Name == "invoke_agent "+RootAgent {
				continue
			}
			if strings.HasPrefix(sp.Name, "invoke_agent ") {
				agents++
			}
		}
		if len(spans) == 0 {
			continue
		}
		for _, sp := range spans[1:] {
			par := byID[sp.Parent]
			if par == nil {
				t.Errorf("%s: %s's parent %s is not in the trace", p, sp.Name, sp.Parent)
				continue
			}
			if strings.HasPrefix(sp.Name, "invoke_agent ") && !hasAttr(sp, KeySpawnUnlinked) &&
				!(strings.HasPrefix(par.Name, "execute_tool ") && session.IsAgentTool(strings.TrimPrefix(par.Name, "execute_tool "))) {
				t.Errorf("%s: sub-agent %s under %s, not its Task/Agent call", p, sp.Name, par.Name)
			}
		}
		if count["execute_tool"] != calls || count["chat"] != msgs {
			t.Errorf("%s: %d execute_tool and %d chat spans; the logs hold %d calls and %d messages", p, count["execute_tool"], count["chat"], calls, msgs)
		}
		if want := len(s.Files) - 1; s.Main() != nil && agents < want {
			t.Errorf("%s: %d sub-agent spans for %d sub-agent logs", p, agents, want)
		}
	}
}

func hasAttr(sp Span, k string) bool {
	for _, a := range sp.Attrs {
		if a.Key == k {
			return true
		}
	}
	return false
}

// TestStreamingSubAgent: a sub-agent's last message without stop_reason is still streaming while
// the call that spawned it is in flight (it, and the agent's span, are pending); once the call has
// its result the agent is done and the message is final as logged.
func TestStreamingSubAgent(t *testing.T) {
	const sid = "5e55a000-0000-4000-8000-00000000abcd"
	rec := func(uuid, parent, typ, extra string) string {
		p := `"` + parent + `"`
		if parent == "" {
			p = "null"
		}
		return `{"parentUuid":` + p + `,"sessionId":"` + sid + `","type":"` + typ + `","uuid":"` + uuid + `","timestamp":"2026-03-04T10:00:0` + uuid[len(uuid)-1:] + `.000Z",` + extra + `}` + "\n"
	}
	dir := t.TempDir()
	main := filepath.Join(dir, sid+".jsonl")
	agent := filepath.Join(dir, sid, "subagents", "agent-a1.jsonl")
	os.MkdirAll(filepath.Dir(agent), 0o755)
	os.WriteFile(main, []byte(rec("u1", "", "user", `"message":{"role":"user","content":"look"}`)+
		rec("u2", "u1", "assistant", `"message":{"id":"msg_m","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_t","name":"Task","input":{"prompt":"find it","subagent_type":"Explore"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":9}}`)), 0o644)
	os.WriteFile(agent, []byte(rec("a1", "", "user", `"isSidechain":true,"agentId":"a1","message":{"role":"user","content":"find it"}`)+
		rec("a2", "a1", "assistant", `"isSidechain":true,"agentId":"a1","message":{"id":"msg_s","role":"assistant","model":"m","content":[{"type":"text","text":"looking"}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}`)), 0o644)
	spans := func() (chat, sub Span) {
		for _, sp := range Session(load(t, main), Options{}) {
			switch {
			case strings.HasPrefix(sp.Name, "invoke_agent Explore"):
				sub = sp
			case sp.Name == "chat m" && hasAttr(sp, KeyResponseID) && attrOf(sp, KeyResponseID) == "msg_s":
				chat = sp
			}
		}
		if chat.Name == "" || sub.Name == "" {
			t.Fatal("no chat span of the sub-agent's message, or no sub-agent span")
		}
		return chat, sub
	}
	chat, sub := spans()
	if !chat.Pending || !sub.Pending || !hasAttr(chat, KeyStreaming) {
		t.Errorf("the agent runs: chat pending %v (streaming attr %v), agent pending %v; want all", chat.Pending, hasAttr(chat, KeyStreaming), sub.Pending)
	}
	f, _ := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(rec("u3", "u2", "user", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_t","content":"found"}]}`))
	f.Close()
	if chat, sub = spans(); chat.Pending || sub.Pending || hasAttr(chat, KeyStreaming) {
		t.Errorf("the agent is done: chat pending %v, agent pending %v; want final", chat.Pending, sub.Pending)
	}
}

func attrOf(sp Span, k string) string {
	for _, a := range sp.Attrs {
		if a.Key == k {
			return a.Str
		}
	}
	return ""
}

// TestAllowOnOneResultBlockSilencesOnlyIt: a failed call's result of two text blocks, the first
// marked `gitleaks:allow`, the second holding a secret: the check flags the second (each string is
// scanned on its own), so the exported status message must not show it — the blocks are not glued
// into one line the first block's allow would cover.
func TestAllowOnOneResultBlockSilencesOnlyIt(t *testing.T) {
	const sid = "5e55a000-0000-4000-8000-00000000a110"
	var allowed, secret string
	for _, p := range secretstest.Plants(31) {
		if p.Rule == "github-pat" {
			allowed = p.Secret
		}
	}
	for _, p := range secretstest.Plants(32) {
		if p.Rule == "github-pat" {
			secret = p.Secret
		}
	}
	content, _ := json.Marshal([]map[string]string{
		{"type": "text", "text": "test fixture " + allowed + " # gitleaks:allow"},
		{"type": "text", "text": "auth failed for GITHUB_TOKEN=" + secret},
	})
	log := `{"parentUuid":null,"sessionId":"` + sid + `","type":"user","uuid":"u1","timestamp":"2026-03-04T10:00:01.000Z","message":{"role":"user","content":"check auth"}}
{"parentUuid":"u1","sessionId":"` + sid + `","type":"assistant","uuid":"u2","timestamp":"2026-03-04T10:00:02.000Z","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"gh auth status"}}],"stop_reason":"tool_use"}}
{"parentUuid":"u2","sessionId":"` + sid + `","type":"user","uuid":"u3","timestamp":"2026-03-04T10:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":` + string(content) + `}]}}
`
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, sp := range Session(load(t, path), Options{Redact: secrets.RedactString}) {
		if sp.Error && attrOf(sp, KeyToolCallID) == "toolu_1" {
			msg = sp.Message
		}
	}
	if !strings.Contains(msg, "auth failed") {
		t.Fatalf("the failed call's status message is %q; want the result's text", msg)
	}
	if leak := secretstest.Leak(msg, []secretstest.Planted{{Rule: "github-pat", Secret: secret}}); leak != "" {
		t.Errorf("the status message shows %q of the second block's secret: %q", leak, msg)
	}
}
