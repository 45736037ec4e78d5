package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

// missingAgentsLog is a session whose n Task calls each ran a sub-agent whose log is not there.
func missingAgentsLog(n int, agentID func(int) string) string {
	var b strings.Builder
	parent := `null`
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","parentUuid":%s,"sessionId":"s1","message":{"role":"user","content":"go %d"}}`+"\n", i, parent, i)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","parentUuid":"u%d","sessionId":"s1","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Task","input":{"prompt":"x"}}]}}`+"\n", i, i, i, i)
		fmt.Fprintf(&b, `{"type":"user","uuid":"r%d","parentUuid":"a%d","sessionId":"s1","toolUseResult":{"agentId":"%s","status":"completed"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"done"}]}}`+"\n", i, i, agentID(i), i)
		parent = fmt.Sprintf(`"r%d"`, i)
	}
	return b.String()
}

// TestMissingAgentsGrouped: a file's missing sub-agent logs are one finding, on the first call, in
// under 120 characters, with each call in its related information; File, All and Each agree.
func TestMissingAgentsGrouped(t *testing.T) {
	s := layout.SessionOf(session.NewFile("/p/s1.jsonl", []byte(missingAgentsLog(24, func(i int) string { return fmt.Sprintf("a%016x", i*7919) }))))
	c := New(s)
	for name, fs := range map[string][]Finding{"File": c.File(s.Main(), nil), "All": c.All(nil), "Each": slices.Collect(c.Each(s.Main(), nil))} {
		var ms []Finding
		for _, f := range fs {
			if f.Code == MissingAgentFile {
				ms = append(ms, f)
			}
		}
		if len(ms) != 1 {
			t.Fatalf("%s: %d missing-agent-file findings, want 1", name, len(ms))
		}
		g := ms[0]
		if g.Line != 1 || len(g.Related) != 24 || g.Related[23].Line != 3*23+1 {
			t.Errorf("%s: line %d, %d related", name, g.Line, len(g.Related))
		}
		if n := len([]rune(g.Message)); n >= MaxGroupedMessage || !strings.HasPrefix(g.Message, "24 sub-agent logs") {
			t.Errorf("%s: %d characters: %q", name, n, g.Message)
		}
		if !strings.Contains(g.Related[5].Message, "toolu_5") || !strings.Contains(g.Related[5].Message, "looked in") {
			t.Errorf("%s: related %q", name, g.Related[5].Message)
		}
	}
	// One missing log keeps its own message.
	s = layout.SessionOf(session.NewFile("/p/s1.jsonl", []byte(missingAgentsLog(1, func(int) string { return "abc" }))))
	if fs := New(s).File(s.Main(), nil); len(fs) != 1 || !strings.Contains(fs[0].Message, "Task call toolu_0 ran sub-agent abc") {
		t.Errorf("one missing log: %v", fs)
	}
}

// A sub-agent log that is there but was not read (session.SetUnread) has a finding of its own,
// saying so and why; the logs that are not there are grouped without it.
func TestUnreadAgentNotGroupedAsMissing(t *testing.T) {
	s := layout.SessionOf(session.NewFile("/p/s1.jsonl", []byte(missingAgentsLog(3, func(i int) string { return fmt.Sprintf("a%d", i) }))))
	s.SetUnread("a1", session.Unread{Path: "/p/s1/subagents/agent-a1.jsonl", Why: "not a regular file"})
	c := New(s)
	for name, fs := range map[string][]Finding{"File": c.File(s.Main(), nil), "All": c.All(nil), "Each": slices.Collect(c.Each(s.Main(), nil))} {
		var ms []string
		for _, f := range fs {
			if f.Code == MissingAgentFile {
				ms = append(ms, fmt.Sprintf("%d: %s", f.Line, f.Message))
			}
		}
		want := []string{
			"1: 2 sub-agent logs are not where Claude Code writes them: a0, a2 (each call below)",
			"4: Task call toolu_1 ran sub-agent a1; its log s1/subagents/agent-a1.jsonl is there but was not read: not a regular file",
		}
		if !slices.Equal(ms, want) {
			t.Errorf("%s:\n%s\nwant\n%s", name, strings.Join(ms, "\n"), strings.Join(want, "\n"))
		}
	}
}
