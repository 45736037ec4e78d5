package describe

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/session"
)

// Without the server: what lsp's hover golden files (internal/lsp/testdata/hover) hold through
// the wire.

const log = `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hello"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/x"}}]}}
{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}
`

func testSession(t *testing.T) (*session.Session, *session.File) {
	t.Helper()
	f := session.NewFile("/s/main.jsonl", []byte(log))
	f.Lane = "main"
	s := session.New("s", "/s")
	s.AddFile(f)
	return s, f
}

func TestKind(t *testing.T) {
	_, f := testSession(t)
	want := []graph.Kind{graph.UserInput, graph.Action, graph.Observation}
	for i, k := range want {
		if got := Kind(f.Rec(i), -1); got != k {
			t.Errorf("line %d: %s, want %s", i, got, k)
		}
	}
}

func TestWithoutGraphOrLinks(t *testing.T) {
	s, f := testSession(t)
	d := Describer{Session: s}
	var b strings.Builder
	d.Record(&b, f.Rec(1), -1)
	for _, w := range []string{"### Action · `assistant`", "- **Tool:** `Read` `toolu_1`", "- **Input:** `file_path` `/x`", "- **Result:** success, line 3", "- **Parent:** line 1 `u1`"} {
		if !strings.Contains(b.String(), w+"\n") {
			t.Errorf("lacks %q:\n%s", w, b.String())
		}
	}
	b.Reset()
	d.Reference(&b, Ref{Field: "parentUuid", Value: "nowhere", In: f.Rec(2)})
	if want := "**parentUuid** `nowhere`\n\nNames no record of this session (main log and sub-agent logs).\n"; b.String() != want {
		t.Errorf("dangling reference:\n%q\nwant\n%q", b.String(), want)
	}
}
