package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testutil"
)

// oneLineResults is one user record holding n tool_result blocks that answer no call: n
// unmatched-tool-result findings on one line.
func oneLineResults(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"tool_result","tool_use_id":"toolu_%07d","content":"é"}`, i)
	}
	b.WriteString("]}}\n")
	return b.String()
}

// openTimed opens text in the server and returns its first diagnostics, how long they took, and
// how long checking the same text in-process takes: the tests' bound is relative to that (what
// `ccdag check` does), since the machine may be shared.
func openTimed(t *testing.T, c *client, uri, text string) ([]diagnostic, timed, timed) {
	t.Helper()
	t0, c0 := time.Now(), testutil.CPUTime()
	s := session.New("timed", "/")
	s.AddFile(session.NewFile("/timed.jsonl", []byte(text)))
	check.New(s).All(nil)
	baseline := timed{time.Since(t0), testutil.CPUTime() - c0}
	t1, c1 := time.Now(), testutil.CPUTime()
	c.open(uri, text, 1)
	ds := c.diagsAt(uri, 1)
	return ds, timed{time.Since(t1), testutil.CPUTime() - c1}, baseline
}

// timed is a span by the wall clock and by the process's CPU time.
type timed struct{ wall, cpu time.Duration }

func (d timed) String() string { return fmt.Sprintf("%v (CPU %v)", d.wall, d.cpu) }

// slower says whether took exceeds k times base plus slack by the wall clock AND by CPU time:
// other processes' load inflates the one, this package's other tests the other; a regression
// (a line scanned once per finding) inflates both.
func slower(took, base timed, k int, slack time.Duration) bool {
	return took.wall > time.Duration(k)*base.wall+slack && took.cpu > time.Duration(k)*base.cpu+slack
}

// Issue 14 item 2: 100 000 findings on one long line. Each finding's columns used to be found by
// scanning the line from its start (76 s before the first diagnostics); a line is now mapped once.
func TestAbuseManyFindingsOnOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	text := oneLineResults(100_000)
	c, uri := newClient(t, clientOpt{}), "untitled:oneline.jsonl"
	ds, took, baseline := openTimed(t, c, uri, text)
	t.Logf("%d MB line, %d findings: first diagnostics after %v (%d published; in-process check %v)", len(text)>>20, 100_000, took, len(ds), baseline)
	if slower(took, baseline, 4, 2*time.Second) {
		t.Errorf("first diagnostics after %v; checking the text in-process takes %v", took, baseline)
	}
	if len(ds) == 0 || ds[0].Code != "unmatched-tool-result" {
		t.Fatalf("diagnostics: %d, first %+v", len(ds), ds[:min(1, len(ds))])
	}
	// the columns are UTF-16 units: each block before the n-th holds one "é" (2 bytes, 1 unit)
	for i, d := range ds[:min(len(ds), 1001)] { // in order: the last one stands at the first left out
		blockLen := len(`{"type":"tool_result","tool_use_id":"toolu_0000000","content":"é"},`)
		want := len(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[`) +
			i*(blockLen-1) + len(`{"type":"tool_result","tool_use_id":`)
		if int(d.Range.Start.Character) != want {
			t.Fatalf("finding on toolu_%07d starts at column %d, want %d", i, d.Range.Start.Character, want)
		}
	}
	// Issue 14 item 3: at most 1 000 findings of one code reach the editor, then one saying how many more.
	if len(ds) != 1001 || !strings.Contains(ds[1000].Message, "99000 more unmatched-tool-result findings") {
		t.Errorf("%d diagnostics published, the last %q; want 1 000 and one saying 99000 more", len(ds), ds[len(ds)-1].Message)
	}
	if h := c.hoverText(uri, at(0, 5)); h == "" {
		t.Error("no hover on the long line")
	}
}

// The findings an editor gets (the first 1 000) far into a long line: 16 MB of text, then 1 000
// tool_results answering nothing. Each column counted from the line's start cost 16 GB of scanning;
// the line is mapped once (position.Mapper).
func TestAbuseFindingsFarIntoALongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"`)
	b.WriteString(strings.Repeat("é", 8<<20)) // 16 MB, 8 M UTF-16 units
	b.WriteString(`"}`)
	for i := range 1000 {
		fmt.Fprintf(&b, `,{"type":"tool_result","tool_use_id":"toolu_%07d","content":"x"}`, i)
	}
	b.WriteString("]}}\n")
	text := b.String()
	ds, took, baseline := openTimed(t, newClient(t, clientOpt{}), "untitled:far.jsonl", text)
	t.Logf("%d MB line, 1 000 findings past 16 MB: first diagnostics after %v (in-process check %v)", len(text)>>20, took, baseline)
	if slower(took, baseline, 4, 3*time.Second) {
		t.Errorf("first diagnostics after %v; checking the text in-process takes %v", took, baseline)
	}
	prefix := len(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"`) + 8<<20 + len(`"}`)
	block := len(`,{"type":"tool_result","tool_use_id":"toolu_0000000","content":"x"}`)
	if len(ds) != 1000 {
		t.Fatalf("%d diagnostics, want 1 000", len(ds))
	}
	for i, d := range ds { // UTF-16 columns: each "é" is one unit of its two bytes
		if want := prefix + i*block + len(`,{"type":"tool_result","tool_use_id":`); int(d.Range.Start.Character) != want {
			t.Fatalf("finding %d at column %d, want %d", i, d.Range.Start.Character, want)
		}
	}
}

// Issue 14 item 8: ccdag/workflowGraph draws at most maxNodes nodes (default 5 000), collapsed
// and saying so; a larger maxNodes (or 0) gives the full graph; the command takes it too.
func TestAbuseGraphMaxNodes(t *testing.T) {
	c := newClient(t, clientOpt{})
	text, _ := hostile.Turns("t", "", 2000, 0) // 8 000 nodes
	uri := "untitled:big-graph.jsonl"
	c.open(uri, string(text), 1)
	c.diagsAt(uri, 1)
	type result struct {
		Nodes []struct {
			ID      string `json:"id"`
			Members int    `json:"members"`
		} `json:"nodes"`
		Collapsed *struct {
			MaxNodes int `json:"maxNodes"`
			Nodes    int `json:"nodes"`
			Turns    int `json:"turns"`
		} `json:"collapsed"`
	}
	get := func(params map[string]any) result {
		var r result
		params["textDocument"] = map[string]any{"uri": uri}
		c.mustCall("ccdag/workflowGraph", params, &r)
		return r
	}
	r := get(map[string]any{})
	if len(r.Nodes) > 5000 || r.Collapsed == nil || r.Collapsed.MaxNodes != 5000 || r.Collapsed.Nodes != 8000 || r.Collapsed.Turns != 2000 {
		t.Fatalf("default: %d nodes, collapsed %+v", len(r.Nodes), r.Collapsed)
	}
	if r.Nodes[0].Members != 4 {
		t.Errorf("a turn's node stands for %d nodes, want 4", r.Nodes[0].Members)
	}
	for _, max := range []int{8000, 0} {
		if r := get(map[string]any{"maxNodes": max}); len(r.Nodes) != 8000 || r.Collapsed != nil {
			t.Errorf("maxNodes %d: %d nodes, collapsed %+v", max, len(r.Nodes), r.Collapsed)
		}
	}
	if r := get(map[string]any{"maxNodes": 100}); len(r.Nodes) > 100 || r.Collapsed == nil {
		t.Errorf("maxNodes 100: %d nodes", len(r.Nodes))
	}
	var rc result
	c.mustCall("workspace/executeCommand", map[string]any{"command": "ccdag.workflowGraph", "arguments": []any{uri, map[string]any{"maxNodes": 50}}}, &rc)
	if len(rc.Nodes) > 50 || rc.Collapsed == nil {
		t.Errorf("command with maxNodes 50: %d nodes", len(rc.Nodes))
	}
}

// Issue 14 item 3: a record, then 5 000 lines that are numbers. The editor gets the first
// session.MaxLineErrors of them and one finding saying how many more; the server keeps no record
// for the rest, and an edit that removes some of them keeps the count true.
func TestAbuseManyFaultyLines(t *testing.T) {
	c := newClient(t, clientOpt{})
	uri := "untitled:faulty.jsonl"
	text := `{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n" + strings.Repeat("1\n", 5000)
	c.open(uri, text, 1)
	ds := c.diagsAt(uri, 1)
	if len(ds) != session.MaxLineErrors+1 {
		t.Fatalf("%d diagnostics, want %d", len(ds), session.MaxLineErrors+1)
	}
	last := ds[len(ds)-1]
	if last.Code != "not-an-object" || !strings.Contains(last.Message, "4000 more lines") || last.Range.Start.Line != session.MaxLineErrors {
		t.Errorf("last diagnostic: line %d %s %q", last.Range.Start.Line, last.Code, last.Message)
	}
	// Remove lines 2000..2999 (counted, not kept).
	c.change(uri, 2, edit(rng{at(2000, 0), at(3000, 0)}, ""))
	ds = c.diagsAt(uri, 2)
	if last := ds[len(ds)-1]; len(ds) != session.MaxLineErrors+1 || !strings.Contains(last.Message, "3000 more lines") {
		t.Errorf("after removing 1 000 lines: %d diagnostics, the last %q", len(ds), last.Message)
	}
}
