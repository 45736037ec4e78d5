package graph

import (
	"bytes"
	stdjson "encoding/json"
	"path/filepath"
	"slices"
	"testing"

	gojson "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

func recAt(t *testing.T, s *session.Session, line int) *session.Rec {
	t.Helper()
	r := s.Main().Rec(line - 1)
	if r == nil {
		t.Fatalf("no record on line %d", line)
	}
	return r
}

func TestLookups(t *testing.T) {
	s, g := fixture(t, filepath.Join(fixtures, "commands"))
	r6 := recAt(t, s, 6) // text + tool_use in one line
	th := g.NodeOf(r6)
	if th == nil || th.Kind != Thought {
		t.Fatalf("NodeOf(line 6) = %+v, want the THOUGHT", th)
	}
	ns := g.NodesOf(r6)
	if len(ns) != 2 || ns[0] != th || ns[1].Kind != Action {
		t.Fatalf("NodesOf(line 6) = %v", ns)
	}
	act := g.BlockNode(r6, 1)
	if act != ns[1] || act.ToolUseID != "toolu_h1🎉" || g.BlockNode(r6, 0) != nil {
		t.Fatalf("BlockNode(line 6, 1) = %+v", act)
	}
	res := g.Results(act)
	if len(res) != 1 || res[0].Kind != Observation || g.Action(res[0]) != act {
		t.Fatalf("Results/Action: %v", res)
	}
	if g.Node(act.ID) != act || g.Index(act) < 0 || g.Node("n0") != nil || g.Node("x1") != nil || g.Node("n99999") != nil {
		t.Fatal("Node/Index by id")
	}
	if l := g.LaneOf(r6); l == nil || l.ID != MainLane || g.Lane(MainLane) != l {
		t.Fatalf("LaneOf = %+v", l)
	}
	var out []string
	for _, e := range g.Out(th) {
		out = append(out, e.Target+":"+string(e.Kind))
	}
	if !slices.Equal(out, []string{act.ID + ":flow"}) {
		t.Fatalf("Out(THOUGHT) = %v", out)
	}
	if g.NodeOf(nil) != nil || g.LaneOf(nil) != nil || g.Active(nil) {
		t.Fatal("nil record")
	}

	// A record of another session, and a stale one whose line moved, are not found.
	s2, _ := fixture(t, filepath.Join(fixtures, "basic"))
	if g.NodeOf(recAt(t, s2, 2)) != nil {
		t.Fatal("NodeOf answers for another session's record")
	}
	s.Edit(s.Main(), 0, 0, []byte("\n"))
	if g.NodeOf(r6) != nil {
		t.Fatal("NodeOf answers for a record whose line moved since the build")
	}
}

func TestBranchLookups(t *testing.T) {
	s, g := fixture(t, filepath.Join(fixtures, "fork"))
	if !g.Forked(recAt(t, s, 2)) {
		t.Error("line 2 is a real fork")
	}
	for line := 1; line <= 14; line++ {
		r := recAt(t, s, line)
		want := line < 3 || line > 7
		if g.Active(r) != want {
			t.Errorf("Active(line %d) = %v", line, !want)
		}
		if line != 2 && g.Forked(r) {
			t.Errorf("line %d is no fork", line)
		}
	}
	// records that make no node still have a lane and a branch
	s, g = fixture(t, filepath.Join(fixtures, "progress"))
	p := recAt(t, s, 7) // progress
	if g.NodeOf(p) != nil || g.LaneOf(p) == nil || !g.Active(p) {
		t.Errorf("progress record: node %v lane %v active %v", g.NodeOf(p), g.LaneOf(p), g.Active(p))
	}
	s, g = fixture(t, filepath.Join(fixtures, "sidechains"))
	if l := g.LaneOf(recAt(t, s, 9)); l == nil || l.SubagentType != "general-purpose" || g.Node(l.ParentNode).ToolUseID != "toolu_s1" {
		t.Errorf("sidechain lane of line 9: %+v", l)
	}
	s, g = fixture(t, filepath.Join(fixtures, "agents-nested"))
	for _, f := range s.Files[1:] {
		r := f.Rec(0)
		if l := g.LaneOf(r); l == nil || l.File != f || l.AgentID != f.AgentID {
			t.Errorf("%s: lane %+v", f.Path, l)
		}
	}
}

// TestLocations checks every location against the bytes it names, UTF-16 columns included.
func TestLocations(t *testing.T) {
	var graphs []*Graph
	for _, name := range cases(t) {
		_, g := fixture(t, filepath.Join(fixtures, name))
		graphs = append(graphs, g)
	}
	graphs = append(graphs, hostileGraph(t))
	for _, g := range graphs {
		for i := range g.Nodes {
			n := &g.Nodes[i]
			line := n.Rec.LineBytes()
			rg := n.Location.Range
			if rg.Start.Line != uint32(n.Rec.Line) || rg.End.Line != rg.Start.Line {
				t.Errorf("%s: range %+v is not on line %d", n.ID, rg, n.Rec.Line)
			}
			want := [2]int{0, len(line)}
			if n.Block >= 0 {
				sp := n.Rec.D().Blocks[n.Block].IDSpan
				want = [2]int{int(sp.Start), int(sp.End)}
				val := string(line[sp.Start:sp.End])
				if (n.Kind == Action && val != `"`+n.ToolUseID+`"`) || (n.Kind == Observation && val != `"`+n.ToolUseID+`"`) {
					t.Errorf("%s: location names %s, want the id %q", n.ID, val, n.ToolUseID)
				}
			}
			got := [2]int{position.ByteOffset(line, rg.Start.Character), position.ByteOffset(line, rg.End.Character)}
			if got != want || rg.End.Character != position.UTF16Col(line, want[1]) {
				t.Errorf("%s: range %+v covers bytes %v, want %v", n.ID, rg, got, want)
			}
		}
	}
	// Whole-line ranges end at the line's cached UTF-16 length, which must stay right as the file is
	// edited around the record.
	text := "{\"uuid\":\"a\",\"x\":\"日本🎉\"}\n{\"uuid\":\"b\",\"parentUuid\":\"a\",\"x\":\"abc\\u00e9\xff\"}\n"
	s := session.New("t", "/tmp")
	f := session.NewFile("/tmp/t.jsonl", []byte(text))
	s.AddFile(f)
	for step := 0; step < 3; step++ {
		f.Recs(func(r *session.Rec) bool {
			line := r.LineBytes()
			if got, want := r.LineUTF16Len(), position.UTF16Col(line, len(line)); got != want {
				t.Errorf("step %d line %d: cached UTF-16 length %d, want %d", step, r.Line, got, want)
			}
			return true
		})
		s.Edit(f, 0, 0, []byte("{\"uuid\":\"z🎉\"}\n")) // shift every record down a line
	}
}

// TestJSONShape holds the encoding to docs/spec.md §4: field names, arrays never null, both encoders.
func TestJSONShape(t *testing.T) {
	allowed := map[string][]string{
		"top":     {"session", "lanes", "nodes", "edges"},
		"session": {"id", "files"},
		"file":    {"uri", "lane"},
		"lane":    {"id", "label", "agentId", "subagentType", "parentNode", "depth"},
		"node": {"id", "kind", "lane", "label", "active", "uuids", "location", "timestamp", "toolName",
			"toolUseId", "status", "model", "inputTokens", "outputTokens", "durationMs"},
		"edge": {"source", "target", "kind"},
	}
	check := func(what string, m map[string]any, required ...string) {
		for k := range m {
			if !slices.Contains(allowed[what], k) {
				t.Errorf("%s has field %q", what, k)
			}
		}
		for _, k := range required {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %q: %v", what, k, m)
			}
		}
	}
	empty := session.New("empty", "/tmp")
	empty.AddFile(session.NewFile("/tmp/empty.jsonl", []byte(`{"type":"summary","summary":"x","leafUuid":"u"}`+"\n")))
	graphs := []*Graph{Build(empty), Build(session.New("none", "/tmp")), hostileGraph(t)}
	for _, name := range cases(t) {
		_, g := fixture(t, filepath.Join(fixtures, name))
		graphs = append(graphs, g)
	}
	for _, g := range graphs {
		var std bytes.Buffer
		if err := WriteJSON(&std, g); err != nil {
			t.Fatal(err)
		}
		goc, err := gojson.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(std.Bytes()), goc) {
			t.Errorf("encoding/json and goccy/go-json disagree:\n%s\n%s", std.Bytes(), goc)
		}
		var doc map[string]any
		if err := stdjson.Unmarshal(std.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		check("top", doc, "session", "lanes", "nodes", "edges")
		for _, k := range []string{"lanes", "nodes", "edges"} {
			if _, ok := doc[k].([]any); !ok {
				t.Errorf("%s is %v, want an array", k, doc[k])
			}
		}
		sess := doc["session"].(map[string]any)
		check("session", sess, "id", "files")
		if _, ok := sess["files"].([]any); !ok {
			t.Errorf("session.files is %v", sess["files"])
		}
		for _, f := range sess["files"].([]any) {
			check("file", f.(map[string]any), "uri", "lane")
		}
		for _, l := range doc["lanes"].([]any) {
			check("lane", l.(map[string]any), "id", "label")
		}
		for _, n := range doc["nodes"].([]any) {
			m := n.(map[string]any)
			check("node", m, "id", "kind", "lane", "label", "active", "location")
			loc := m["location"].(map[string]any)
			if _, ok := loc["range"].(map[string]any)["start"].(map[string]any)["character"]; !ok {
				t.Errorf("location %v", loc)
			}
		}
		for _, e := range doc["edges"].([]any) {
			check("edge", e.(map[string]any), "source", "target", "kind")
		}
	}
	if g := Build(session.New("none", "/tmp")); len(g.Lanes) != 1 || g.Lanes[0].ID != MainLane {
		t.Errorf("empty session lanes %+v", g.Lanes)
	}
}

// TestUsageTakesTheLargestLine: usage repeats (and grows) on every line of a message; the node
// carries the largest, never the sum.
func TestUsageTakesTheLargestLine(t *testing.T) {
	_, g := fixture(t, filepath.Join(fixtures, "basic"))
	n := g.Node("n2")
	if n.Kind != Thought || n.OutputTokens != 95 || n.InputTokens != 10+200+3000 || len(n.UUIDs) != 2 {
		t.Errorf("THOUGHT n2: %+v", n)
	}
}
