package jsonl

import "testing"

func TestProgressIDs(t *testing.T) {
	line := []byte(`{"type":"progress","data":{"message":{"type":"user","message":{"content":[{"type":"text","text":"go"}]}},"type":"agent_progress","prompt":"go","agentId":"a4fd35097a8ae6d70"},"toolUseID":"agent_msg_01","parentToolUseID":"toolu_01","uuid":"u"}`)
	r := Parse(line)
	if r.LineErr() != nil {
		t.Fatal(r.LineErr().Message)
	}
	for _, c := range []struct {
		name, got string
		span      Span
		want      string
	}{
		{"data.agentId", r.D().DataAgentID, r.D().DataAgentIDSpan, "a4fd35097a8ae6d70"},
		{"toolUseID", string(line[r.D().ToolUseIDSpan.Start+1 : r.D().ToolUseIDSpan.End-1]), r.D().ToolUseIDSpan, "agent_msg_01"},
		{"parentToolUseID", r.D().ParentToolUseID, r.D().ParentToolUseIDSpan, "toolu_01"},
	} {
		if c.got != c.want || string(line[c.span.Start:c.span.End]) != `"`+c.want+`"` {
			t.Errorf("%s = %q at %q, want %q", c.name, c.got, line[c.span.Start:c.span.End], c.want)
		}
	}
	// a nested agentId (inside data.message) is not data.agentId
	r = Parse([]byte(`{"type":"progress","data":{"message":{"agentId":"inner"}}}`))
	if r.D().DataAgentID != "" {
		t.Errorf("nested agentId read as data.agentId: %q", r.D().DataAgentID)
	}
}
