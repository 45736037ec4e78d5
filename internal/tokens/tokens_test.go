package tokens

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
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
				ID    string `json:"id"`
				Usage *struct {
					In  int64 `json:"input_tokens"`
					Out int64 `json:"output_tokens"`
					CC  int64 `json:"cache_creation_input_tokens"`
					CR  int64 `json:"cache_read_input_tokens"`
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
		last[k] = Count{u.In, u.Out, u.CC, u.CR}
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
	want := Count{Input: 4, Output: 125, CacheRead: 100}
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
	if got, want := ft.Total().String(), "125 out · 104 in+cache"; got != want {
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
	if ft.Total() != fresh.Total() || ft.Total() != (Count{Input: 2, Output: 13}) {
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
