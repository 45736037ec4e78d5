package graph

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccdag/ccdag/internal/session"
)

// FuzzBuild feeds arbitrary bytes as a session log: Build and the renderers must not panic, every
// node must have a lane and a one-line label, and tool edges must join matching ids.
func FuzzBuild(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.jsonl"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"user","uuid":"a","parentUuid":"a","message":{"content":[{"type":"tool_result","tool_use_id":"x"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := session.New("fuzz", "/tmp")
		s.AddFile(session.NewFile("/tmp/fuzz.jsonl", data))
		g := Build(s)
		for i := range g.Nodes {
			n := &g.Nodes[i]
			if g.Lane(n.Lane) == nil || n.Label == "" || bytes.ContainsAny([]byte(n.Label), "\n\r") {
				t.Fatalf("node %+v", n)
			}
			if g.NodeOf(n.Rec) == nil {
				t.Fatalf("NodeOf misses %s", n.ID)
			}
		}
		for _, e := range g.Edges {
			if e.Kind == Tool && g.Node(e.Source).ToolUseID != g.Node(e.Target).ToolUseID {
				t.Fatalf("tool edge %v", e)
			}
		}
		if want, _ := json.Marshal(g); !bytes.Equal(AppendJSON(nil, g), want) {
			t.Fatal("AppendJSON differs from encoding/json")
		}
		if WriteJSON(io.Discard, g) != nil || WriteDOT(io.Discard, g) != nil || WriteMermaid(io.Discard, g) != nil {
			t.Fatal("a writer failed")
		}
	})
}
