package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	goccy "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/session"
)

// genSession writes a session of `turns` turns, every record on one chain: a prompt, a message of
// thinking + text + three parallel tool calls (2.1 shape: call, progress, result, next call ...),
// then a reply; every 50th turn is rewound and asked again (a real fork), every 20th spawns a
// Task whose agent runs inside the log (1.0 shape) — records in all, about 13 per turn.
func genSession(turns int) []byte {
	var b strings.Builder
	n := 0
	id := func() string { n++; return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }
	rec := func(parent, tail string) string {
		u := id()
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"sessionId":"s","timestamp":"2025-06-01T10:00:00.000Z","uuid":"%s",%s}`+"\n", p, u, tail)
		return u
	}
	asst := func(parent, msg, content string) string {
		return rec(parent, `"type":"assistant","requestId":"r`+msg+`","message":{"id":"m`+msg+`","model":"claude","role":"assistant","content":[`+content+`],"usage":{"input_tokens":3,"output_tokens":50,"cache_read_input_tokens":9000}}`)
	}
	user := func(parent, text string) string {
		return rec(parent, `"type":"user","message":{"role":"user","content":"`+text+`"}`)
	}
	tip := ""
	for t := 0; t < turns; t++ {
		if t%50 == 49 { // a rewound attempt: prompt and reply, then abandoned
			p := user(tip, fmt.Sprintf("abandoned attempt %d", t))
			asst(p, fmt.Sprintf("x%d", t), `{"type":"text","text":"never mind"}`)
		}
		tip = user(tip, fmt.Sprintf("Please do step %d of the plan, carefully", t))
		msg := fmt.Sprint(t)
		tip = asst(tip, msg, `{"type":"thinking","thinking":"Let me think about step `+msg+`.","signature":"x"}`)
		tip = asst(tip, msg, `{"type":"text","text":"I will run three tools."}`)
		tools := 3
		if t%20 == 19 {
			tools = 1
		}
		for k := 0; k < tools; k++ {
			tid := fmt.Sprintf("toolu_%d_%d", t, k)
			name, input := "Bash", `{"command":"go test ./pkg/`+msg+`/..."}`
			if tools == 1 {
				name, input = "Task", `{"description":"sub-task","prompt":"Do sub-task `+msg+`.","subagent_type":"general-purpose"}`
			}
			call := asst(tip, msg, `{"type":"tool_use","id":"`+tid+`","name":"`+name+`","input":`+input+`}`)
			rec(call, `"type":"progress","toolUseID":"`+tid+`","data":{"type":"hook_progress"}`)
			if tools == 1 {
				s := rec("", `"type":"user","isSidechain":true,"message":{"role":"user","content":"Do sub-task `+msg+`."}`)
				rec(s, `"type":"assistant","isSidechain":true,"requestId":"rs`+msg+`","message":{"id":"ms`+msg+`","role":"assistant","content":[{"type":"text","text":"done"}]}`)
			}
			tip = rec(call, `"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+tid+`","content":"ok\n--- PASS: TestX (0.01s)"}]},"toolUseResult":{"stdout":"ok","durationMs":12}`)
		}
		tip = asst(tip, msg+"b", `{"type":"text","text":"Step `+msg+` is done; all tests pass."}`)
	}
	return []byte(b.String())
}

func genLoaded(turns int) *session.Session {
	s := session.New("bench", "/tmp")
	s.AddFile(session.NewFile("/tmp/bench.jsonl", genSession(turns)))
	return s
}

// BenchmarkBuild builds the graph of a generated 40 000-turn session (about 500 000 records on
// one chain, with forks, parallel calls, progress and in-log sub-agents).
func BenchmarkBuild(b *testing.B) {
	s := genLoaded(40_000)
	b.ReportAllocs()
	b.ResetTimer()
	var g *Graph
	for i := 0; i < b.N; i++ {
		g = Build(s)
	}
	b.StopTimer()
	b.ReportMetric(float64(s.RecordCount()), "records")
	b.ReportMetric(float64(len(g.Nodes)), "nodes")
}

func TestGeneratedSession(t *testing.T) {
	s := genLoaded(200)
	g := Build(s)
	checkInvariants(t, "generated", s, g)
	if got, want := abandonedBranches(g), 200/50; got != want {
		t.Errorf("%d abandoned branches, want %d", got, want)
	}
	if got, want := len(g.Lanes), 1+200/20; got != want {
		t.Errorf("%d lanes, want %d", got, want)
	}
	for _, l := range g.Lanes[1:] {
		if l.ParentNode == "" || l.SubagentType != "general-purpose" {
			t.Errorf("lane %+v: no spawning call", l)
		}
	}
}

// TestMillionDeepChain builds the graph of a chain one million records deep: nothing may recurse
// along the chain (a goroutine stack of 1 MB is far less than a recursion would need).
func TestMillionDeepChain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1 000 000-record session")
	}
	const depth = 1_000_000
	var b strings.Builder
	b.Grow(depth * 150)
	for i := 0; i < depth; i++ {
		p := "null"
		if i > 0 {
			p = fmt.Sprintf(`"%08x-0000-4000-8000-000000000000"`, i-1)
		}
		typ, content := "user", `"content":"go on"`
		if i%2 == 1 {
			typ, content = "assistant", fmt.Sprintf(`"id":"m%d","content":[{"type":"text","text":"ok"}]`, i)
		}
		fmt.Fprintf(&b, `{"type":"%s","parentUuid":%s,"uuid":"%08x-0000-4000-8000-000000000000","message":{"role":"%s",%s}}`+"\n", typ, p, i, typ, content)
	}
	s := session.New("deep", "/tmp")
	s.AddFile(session.NewFile("/tmp/deep.jsonl", []byte(b.String())))
	// Recursing along the chain would need far more than 16 MB of stack: with this limit the
	// process dies of a stack overflow instead of passing.
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	done := make(chan *Graph)
	go func() { done <- Build(s) }()
	var g *Graph
	select {
	case g = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Build did not finish in 2 minutes")
	}
	if len(g.Nodes) != depth || len(g.Edges) != depth-1 {
		t.Fatalf("%d nodes, %d edges", len(g.Nodes), len(g.Edges))
	}
	for i := 1; i < len(g.Nodes); i += 99_991 {
		if g.Nodes[i].Rec.Line != i {
			t.Fatalf("node %d is line %d", i, g.Nodes[i].Rec.Line)
		}
	}
}

// BenchmarkLiveGraph is the language server's case: a 10 MB realistic session grows by one record,
// then its graph is built and encoded, from scratch ("fresh") or with the memo kept across builds
// ("memo"; "memo-goccy" encodes with goccy/go-json instead, which cannot reuse the memo's node
// JSON). Run with -benchtime=Nx: each iteration appends.
func BenchmarkLiveGraph(b *testing.B) {
	for _, mode := range []string{"fresh", "memo", "memo-goccy"} {
		b.Run(mode, func(b *testing.B) {
			w := gen.New(gen.Options{SessionID: "9e0b7a1c-0000-4000-8000-00000000000a", Seed: 10})
			for len(w.Bytes()) < 10<<20 {
				w.Turn()
			}
			f := session.NewFile("/tmp/live.jsonl", w.Take())
			s := session.New("live", "/tmp")
			s.AddFile(f)
			var memo *Memo
			if mode != "fresh" {
				memo = NewMemo()
			}
			buf := AppendJSON(nil, BuildWith(s, Options{Memo: memo}))
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s.Edit(f, len(f.Text()), len(f.Text()), w.Record())
				b.StartTimer()
				if mode == "memo-goccy" {
					var err error
					if buf, err = goccy.Marshal(BuildWith(s, Options{Memo: memo})); err != nil {
						b.Fatal(err)
					}
					continue
				}
				buf = AppendJSON(buf[:0], BuildWith(s, Options{Memo: memo}))
			}
		})
	}
}

// BenchmarkEncode writes the graph of a 10 MB realistic session (about 1.3 MB of JSON) with the
// hand-made encoder, with encoding/json and with goccy/go-json; all three write the same bytes.
func BenchmarkEncode(b *testing.B) {
	w := gen.New(gen.Options{SessionID: "9e0b7a1c-0000-4000-8000-00000000000b", Seed: 11})
	for len(w.Bytes()) < 10<<20 {
		w.Turn()
	}
	s := session.New("enc", "/tmp")
	s.AddFile(session.NewFile("/tmp/enc.jsonl", w.Take()))
	g := Build(s)
	out := AppendJSON(nil, g)
	b.Run("AppendJSON", func(b *testing.B) {
		b.SetBytes(int64(len(out)))
		for i := 0; i < b.N; i++ {
			out = AppendJSON(out[:0], g)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(out)))
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy-go-json", func(b *testing.B) {
		if got, err := goccy.Marshal(g); err != nil || !bytes.Equal(got, out) {
			b.Fatalf("goccy/go-json does not write AppendJSON's bytes (%v)", err)
		}
		b.SetBytes(int64(len(out)))
		for i := 0; i < b.N; i++ {
			if _, err := goccy.Marshal(g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// chainLog is the 1 M-record chain of docs/SECURITY.md's item 8 ("Issue 14: the figures": 500 000
// user/assistant pairs, each naming the last), which BenchmarkBuildDrawn reads when it is there:
// `python3 scripts/issue14-figures.py bin/ccdag /tmp/i14` makes it as /tmp/i14/chain.jsonl.
const chainLog = "/tmp/chain147.jsonl"

// BenchmarkBuildDrawn is ccdag/workflowGraph's case for a session of a million records: the graph
// drawn within the default budget, not made whole (graph.BuildDrawn), then encoded.
func BenchmarkBuildDrawn(b *testing.B) {
	text, err := os.ReadFile(chainLog)
	if err != nil {
		b.Skipf("needs %s (docs/SECURITY.md, \"Issue 14: the figures\", says how it is made): %v", chainLog, err)
	}
	s := session.New("chain", "/tmp")
	s.AddFile(session.NewFile(chainLog, text))
	b.ReportAllocs()
	b.ResetTimer()
	var out []byte
	for i := 0; i < b.N; i++ {
		g := BuildDrawn(s, Options{}, CollapseOptions{MaxNodes: DefaultMaxNodes})
		out = AppendJSON(out[:0], g)
	}
	b.StopTimer()
	b.ReportMetric(float64(s.RecordCount()), "records")
	b.ReportMetric(float64(len(out)), "bytes")
}
