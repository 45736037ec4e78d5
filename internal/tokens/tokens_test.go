package tokens

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// independent counts a log's tokens with encoding/json, nothing shared with the package: per
// message (message.id, else requestId, else the line alone) the usage of its last line.
func independent(t *testing.T, path string) (Count, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]Count{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for n := 0; sc.Scan(); n++ {
		var rec struct {
			RequestID string `json:"requestId"`
			Message   struct {
				ID    string  `json:"id"`
				Model string  `json:"model"`
				Stop  *string `json:"stop_reason"`
				Usage *struct {
					In  int64 `json:"input_tokens"`
					Out int64 `json:"output_tokens"`
					CC  int64 `json:"cache_creation_input_tokens"`
					CR  int64 `json:"cache_read_input_tokens"`
					CCs struct {
						Hour int64 `json:"ephemeral_1h_input_tokens"`
					} `json:"cache_creation"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Message.Usage == nil {
			continue
		}
		k := "id:" + rec.Message.ID
		if rec.Message.ID == "" {
			k = "req:" + rec.RequestID
		}
		if rec.Message.ID == "" && rec.RequestID == "" {
			k = "line:" + string(rune(n))
		}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		u := rec.Message.Usage
		c := Count{Input: u.In, Output: u.Out, CacheCreation: u.CC, CacheRead: u.CR, Messages: 1}
		if rec.Message.Stop == nil {
			c.Unfinished = 1
		}
		if u.In+u.Out+u.CC+u.CR > 0 {
			if p := prices.Builtin().Lookup(rec.Message.Model); p != nil {
				c.Cost = Cost{Nano: p.Of(jsonl.Usage{Input: u.In, Output: u.Out, CacheCreation: u.CC, CacheRead: u.CR, CacheCreation1h: u.CCs.Hour}), Priced: 1}
			} else {
				c.Cost.Unpriced = 1
			}
		}
		last[k] = c
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var c Count
	for _, k := range order {
		c = c.Add(last[k])
	}
	return c, len(order)
}

func TestCorpusIndependentCount(t *testing.T) {
	files := testcorpus.Files(t, "token totals per file and session against an independent encoding/json count on every real log")
	sessions, withUsage := 0, 0
	for _, p := range files {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sessions++
		tot := Session(s, nil)
		var want Count
		agents := 0
		for _, f := range s.Files {
			c, msgs := independent(t, f.Path)
			want = want.Add(c)
			ft := NewFile(f)
			if ft.Total() != c || ft.Messages() != msgs {
				t.Errorf("%s: %v over %d messages, independent count %v over %d", f.Path, ft.Total(), ft.Messages(), c, msgs)
			}
			if f.Lane != "main" {
				agents++
			}
		}
		if tot.Total != want {
			t.Errorf("%s: session total %v, independent %v", p, tot.Total, want)
		}
		if len(tot.Agents) != agents {
			t.Errorf("%s: %d sub-agent totals, want %d", p, len(tot.Agents), agents)
		}
		if !want.IsZero() {
			withUsage++
		}
	}
	if withUsage < 5 {
		t.Fatalf("only %d of %d corpus sessions had tokens: the corpus walk is broken", withUsage, sessions)
	}
}

// A message streamed over three lines with growing usage counts once, with its last line's usage
// (not the first, not the sum); another message without message.id is keyed by requestId.
func TestLastLineOnce(t *testing.T) {
	text := `{"type":"assistant","uuid":"a1","requestId":"r1","message":{"id":"m1","usage":{"input_tokens":3,"output_tokens":3,"cache_read_input_tokens":100}}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","requestId":"r1","message":{"id":"m1","usage":{"input_tokens":3,"output_tokens":50,"cache_read_input_tokens":100}}}
{"type":"user","uuid":"u1","parentUuid":"a2","message":{"content":"hi"}}
{"type":"assistant","uuid":"a3","parentUuid":"a2","requestId":"r1","message":{"id":"m1","usage":{"input_tokens":3,"output_tokens":118,"cache_read_input_tokens":100}}}
{"type":"assistant","uuid":"a4","parentUuid":"a3","requestId":"r2","message":{"usage":{"input_tokens":1,"output_tokens":2}}}
{"type":"assistant","uuid":"a5","parentUuid":"a4","requestId":"r2","message":{"usage":{"input_tokens":1,"output_tokens":7}}}
`
	f := session.NewFile("/x/s.jsonl", []byte(text))
	ft := NewFile(f)
	want := Count{Input: 4, Output: 125, CacheRead: 100, Unfinished: 2, Messages: 2, Cost: Cost{Unpriced: 2}}
	if ft.Total() != want || ft.Messages() != 2 {
		t.Fatalf("total %+v over %d messages, want %+v over 2", ft.Total(), ft.Messages(), want)
	}
	// The message's usage sits on its last line (3): lines [0, 3) hold none of it.
	if got := ft.Range(0, 3); !got.IsZero() {
		t.Errorf("Range(0,3) = %+v, want zero", got)
	}
	if got := ft.Range(3, 4); got.Output != 118 {
		t.Errorf("Range(3,4) = %+v, want 118 out", got)
	}
	if got, want := ft.Total().String(), "≥ 125 out · 104 in+cache · unpriced"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// Update after an append reads only the new lines and gives the same totals and ranges as a fresh
// index; an edit in the middle is noticed.
func TestUpdateFollowsAppend(t *testing.T) {
	line := func(id, msg string, out int) string {
		return `{"type":"assistant","uuid":"` + id + `","requestId":"r` + msg + `","message":{"id":"m` + msg + `","usage":{"input_tokens":1,"output_tokens":` + string(rune('0'+out)) + `}}}` + "\n"
	}
	s := session.New("s", "/x")
	f := session.NewFile("/x/s.jsonl", []byte(line("a", "1", 1)+line("b", "1", 2)))
	s.AddFile(f)
	ft := NewFile(f)
	half := `{"type":"assistant","uuid":"c","requestId":"r1","message":{"id":"m1","usage":{"input_tokens":1,"output_tokens":9}}`
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(half)) // a live line mid-write
	ft.Update(f)
	s.Edit(f, len(f.Text()), len(f.Text()), []byte("}\n"+line("d", "2", 4)))
	ft.Update(f)
	fresh := NewFile(f)
	if ft.Total() != fresh.Total() || ft.Total() != (Count{Input: 2, Output: 13, Unfinished: 2, Messages: 2, Cost: Cost{Unpriced: 2}}) {
		t.Fatalf("after appends %+v, fresh %+v, want 2 in 13 out", ft.Total(), fresh.Total())
	}
	for a := 0; a <= f.LineCount(); a++ {
		for b := a; b <= f.LineCount(); b++ {
			if ft.Range(a, b) != fresh.Range(a, b) {
				t.Fatalf("Range(%d,%d) = %+v, fresh %+v", a, b, ft.Range(a, b), fresh.Range(a, b))
			}
		}
	}
	// A complete record without its newline yet, then the newline and another line of its message.
	l := line("e", "5", 3)
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(l[:len(l)-1]))
	ft.Update(f)
	s.Edit(f, len(f.Text()), len(f.Text()), []byte("\n"+line("g", "5", 6)))
	ft.Update(f)
	if fresh := NewFile(f); ft.Total() != fresh.Total() || ft.Messages() != fresh.Messages() || ft.Messages() != 3 {
		t.Fatalf("after a completed live line %+v (%d messages), fresh %+v (%d)", ft.Total(), ft.Messages(), fresh.Total(), fresh.Messages())
	}
	s.Edit(f, 0, len(line("a", "1", 1)), []byte(line("a", "3", 5))) // the first line now another message
	ft.Update(f)
	if ft.Total() != NewFile(f).Total() || ft.Messages() != 4 {
		t.Fatalf("after an edit %+v (%d messages), fresh %+v", ft.Total(), ft.Messages(), NewFile(f).Total())
	}
}

// TestShort: one rule for every figure, rounded, three significant digits at most.
func TestShort(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 999: "999", 1000: "1.0k", 3_349: "3.3k", 3_350: "3.4k",
		34_549: "34.5k", 99_949: "99.9k", 99_950: "100k", 152_400: "152k", 999_499: "999k", 999_500: "1.0M",
		1_640_000: "1.6M", 11_749_999: "11.7M", 11_750_000: "11.8M", 152_000_000: "152M", 2_100_000_000: "2.1B", -1_500: "-1.5k"} {
		if got := Short(n); got != want {
			t.Errorf("Short(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestShortAnyNumber: Short takes every int64; -2^63 (its own negation) once recursed until the
// stack overflowed, taking the server down with it (issue 31 item 7).
func TestShortAnyNumber(t *testing.T) {
	for n, want := range map[int64]string{math.MinInt64: "-9223372T", math.MaxInt64: "9223372T", -math.MaxInt64: "-9223372T", 1 << 53: "9007T"} {
		if got := Short(n); got != want {
			t.Errorf("Short(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSumsNeverWrap: a log of messages at the largest plausible count (2^53 per field, read and
// counted) sums past int64; the totals saturate, so no range, file or session figure is negative.
func TestSumsNeverWrap(t *testing.T) {
	var b strings.Builder
	const n = 1100 // each field's sum passes int64 at message 1 024, their sum (In) at 342
	for i := range n {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%d","message":{"id":"m%d","model":"claude-opus-4-5","stop_reason":"end_turn","usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}}`+"\n",
			i, i, jsonl.MaxCount, jsonl.MaxCount, jsonl.MaxCount, jsonl.MaxCount)
	}
	f := session.NewFile("/x/s.jsonl", []byte(b.String()))
	idx := NewFile(f)
	tot := idx.Total()
	if tot.Output != math.MaxInt64 || tot.In() != math.MaxInt64 || tot.Cost.Nano != math.MaxInt64 || tot.Messages != n {
		t.Fatalf("total %+v (in %d)", tot, tot.In())
	}
	for _, r := range [][2]int{{0, n}, {0, 1}, {n - 1, n}, {n / 2, n}, {1, n - 1}} {
		c := idx.Range(r[0], r[1])
		if c.Input < 0 || c.Output < 0 || c.CacheRead < 0 || c.CacheCreation < 0 || c.In() < 0 || c.Cost.Nano < 0 {
			t.Errorf("Range%v = %+v: a negative figure", r, c)
		}
		if s := c.String(); strings.Contains(s, "-") {
			t.Errorf("Range%v shown as %q", r, s)
		}
	}
	if one := idx.Range(0, 1); one.Output != jsonl.MaxCount {
		t.Errorf("the first message alone: %d output tokens, want 2^53", one.Output)
	}
}

// TestCorpusHandCount holds one real session (2.0.64, four sub-agent logs) to figures counted by
// hand with a separate script (encoding/json, last line per message, Anthropic's prices per million
// tokens: Opus 4.5 5 / 25 / 6.25 / 0.50, Haiku 4.5 1 / 5 / 1.25 / 0.10): 141 messages, 111 of
// them logged before their reply ended, so the output is a lower bound.
func TestCorpusHandCount(t *testing.T) {
	p := testcorpus.Path(t, "CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl",
		"a real session's token and cost figures against a hand count")
	s, err := layout.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	tot := Session(s, nil)
	want := Count{Output: 63_961, Unfinished: 111, Messages: 141, Cost: Cost{Nano: 9_296_802_550, Priced: 140}}
	got := tot.Total
	if got.Output != want.Output || got.In() != 10_463_159 || got.Unfinished != want.Unfinished || got.Messages != want.Messages || got.Cost != want.Cost {
		t.Errorf("got %+v (in+cache %d), want %+v, in+cache 10 463 159", got, got.In(), want)
	}
	// 111 placeholder output counts: the cost is a lower bound too.
	if s, want := tot.String(), "≥ 64.0k out · 10.5M in+cache · ≥ $9.30 (incl. 4 sub-agents)"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	if why := got.Why(); !strings.Contains(why, "111 of 141 messages") || !strings.Contains(why, "lower bound") {
		t.Errorf("Why() = %q", why)
	}
	// The main log alone: 97 messages, 68 unfinished, $8.44.
	if m := tot.Main; m.Output != 62_834 || m.Unfinished != 68 || m.Cost.Nano != 8_443_339_500 {
		t.Errorf("main log %+v", m)
	}
	// A healthy 2.1.119 log: every message has its stop_reason; 7 synthetic API errors are not priced.
	p = testcorpus.Path(t, "Eduardodmb__ClaudeHome/projects/X--03-ACG-Custom-Addons/71b482a4-915a-4d69-80cb-04c122118ed3.jsonl", "a finished log's figures")
	s, err = layout.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = Session(s, nil).Total
	if got.Output != 5_592 || got.In() != 573_880 || got.Unfinished != 0 || got.Cost != (Cost{Nano: 411_718_500, Priced: 18}) || got.Messages != 25 {
		t.Errorf("71b482a4: %+v", got)
	}
	if s := got.String(); s != "5.6k out · 574k in+cache · $0.412" {
		t.Errorf("71b482a4: %q", s)
	}
}

// TestPriceTableChange: an index prices again when the table in use changes; an unknown model is
// unpriced, never $0.
func TestPriceTableChange(t *testing.T) {
	defer prices.Use(nil)
	text := `{"type":"assistant","uuid":"a","message":{"id":"m1","model":"my-model","stop_reason":"end_turn","usage":{"input_tokens":1000,"output_tokens":100}}}` + "\n"
	f := session.NewFile("/x/s.jsonl", []byte(text))
	ft := NewFile(f)
	if c := ft.Total().Cost; c != (Cost{Unpriced: 1}) || c.String() != "unpriced" {
		t.Fatalf("unknown model: %+v %q", c, c.String())
	}
	tb, err := prices.Parse([]byte(`{"my-model":{"input_cost_per_token":1e-06,"output_cost_per_token":2e-06}}`), "mine.json")
	if err != nil {
		t.Fatal(err)
	}
	prices.Use(tb)
	ft.Update(f)
	if c := ft.Total().Cost; c != (Cost{Nano: 1_200_000, Priced: 1}) || c.String() != "$0.0012" {
		t.Fatalf("after --prices: %+v %q", c, c.String())
	}
	if got := ft.Total().String(); got != "100 out · 1.0k in+cache · $0.0012" {
		t.Errorf("%q", got)
	}
}

// TestCostLowerBound: a cost priced on placeholder output counts is a lower bound, shown "≥ $…"
// as the output figure is (docs/spec.md §10); so is one leaving unpriced messages out; no figure
// (nothing priced) is no bound.
func TestCostLowerBound(t *testing.T) {
	priced := Cost{Nano: 6_770_000_000, Priced: 3}
	for _, c := range []struct {
		count Count
		bound bool
		text  string
	}{
		{Count{Output: 900, Messages: 3, Cost: priced}, false, "$6.77"},
		{Count{Output: 900, Messages: 3, Unfinished: 1, Cost: priced}, true, "≥ $6.77"},
		{Count{Output: 900, Messages: 4, Cost: Cost{Nano: priced.Nano, Priced: 3, Unpriced: 1}}, true, "≥ $6.77"},
		{Count{Output: 9, Messages: 1, Unfinished: 1, Cost: Cost{Unpriced: 1}}, false, "unpriced"},
		{Count{Output: 9, Messages: 1, Unfinished: 1}, false, ""},
	} {
		if got := c.count.CostLowerBound(); got != c.bound {
			t.Errorf("%+v: CostLowerBound %v", c.count, got)
		}
		if got := c.count.CostText(); got != c.text {
			t.Errorf("%+v: CostText %q, want %q", c.count, got, c.text)
		}
		if c.text != "" && !strings.HasSuffix(c.count.String(), " · "+c.text) {
			t.Errorf("%+v: String %q does not end in the cost %q", c.count, c.count.String(), c.text)
		}
	}
}
