package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"
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

// Issue 14 item 2: 100 000 findings on one long line. Each finding's columns used to be found by
// scanning the line from its start (76 s before the first diagnostics); a line is now mapped once.
func TestAbuseManyFindingsOnOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	c := newClient(t, clientOpt{})
	text := oneLineResults(100_000)
	uri := "untitled:oneline.jsonl"
	start := time.Now()
	c.open(uri, text, 1)
	ds := c.diagsAt(uri, 1)
	took := time.Since(start)
	t.Logf("%d MB line, %d findings: first diagnostics after %v (%d published)", len(text)>>20, 100_000, took, len(ds))
	if took > 3*time.Second {
		t.Errorf("first diagnostics after %v, want about 1 s", took)
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
