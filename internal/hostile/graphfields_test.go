package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/layout"
)

// Issue 14 item 6: bidirectional overrides, isolates and terminal escapes in the graph's fields
// (toolName, toolUseId, model, timestamp, uuids, lane ids from file names) reach the JSON the
// server sends only visibly escaped, as labels are cleaned: the viewer's details panel showed a
// reversed tool name.
func TestGraphFieldsCarryNoBidiOrControls(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, SessionID, "subagents")
	os.MkdirAll(sub, 0o755)
	bad := "\u202e\u2066\x1b[31m\x07"
	main := filepath.Join(dir, SessionID+".jsonl")
	os.WriteFile(main, Lines(
		`{"type":"user","uuid":"u`+bad+`","parentUuid":null,"sessionId":"`+SessionID+`","timestamp":"2026`+bad+`","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u`+bad+`","sessionId":"`+SessionID+`","timestamp":"2026`+bad+`","message":{"id":"m1","role":"assistant","model":"claude`+bad+`","content":[{"type":"tool_use","id":"toolu_`+bad+`","name":"Re`+bad+`ad","input":{}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"`+SessionID+`","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_`+bad+`","content":"ok"}]}}`,
	), 0o644)
	agent, _ := Turns("ag", "", 1, 0)
	os.WriteFile(filepath.Join(sub, "agent-x"+bad+".jsonl"), agent, 0o644)
	s, err := layout.Load(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := graph.Build(s)
	raw := graph.AppendJSON(nil, g)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	seen := map[string]bool{}
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path+"[]", e)
			}
		case string:
			if strings.ContainsAny(x, "\u202e\u2066\x1b\x07") {
				t.Errorf("%s = %q holds a bidi or control character", path, x)
			}
			if strings.Contains(x, `\u202e`) {
				seen[path] = true
			}
		}
	}
	walk("", v)
	for _, f := range []string{".nodes[].toolName", ".nodes[].toolUseId", ".nodes[].model", ".nodes[].timestamp", ".lanes[].id", ".lanes[].agentId"} {
		if !seen[f] {
			t.Errorf("%s: not shown visibly escaped (\\u202e)", f)
		}
	}
}
