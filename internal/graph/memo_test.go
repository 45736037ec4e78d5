package graph

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/session"
)

// fresh encodes the graph of s built from scratch (no memo).
func fresh(s *session.Session) []byte { return AppendJSON(nil, Build(s)) }

// TestMemoFollowsEdits edits every fixture session at random (appends, deletions, replaced,
// duplicated and truncated lines) and checks after each edit that the graph built with a memo
// kept across the edits is byte for byte the graph built from scratch.
func TestMemoFollowsEdits(t *testing.T) {
	ents, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			s, _ := fixture(t, filepath.Join(fixtures, e.Name()))
			rnd := rand.New(rand.NewPCG(1, uint64(len(e.Name()))))
			memo := NewMemo()
			for step := 0; step < 60; step++ {
				f := s.Files[rnd.IntN(len(s.Files))]
				randomEdit(rnd, s, f)
				got := AppendJSON(nil, BuildWith(s, Options{Memo: memo}))
				if want := fresh(s); !bytes.Equal(got, want) {
					t.Fatalf("step %d: the memo's graph differs from a fresh build:\n got  %.600s\n want %.600s", step, got, want)
				}
			}
		})
	}
}

// randomEdit applies one edit of a kind a live log or a person editing it makes.
func randomEdit(rnd *rand.Rand, s *session.Session, f *session.File) {
	n := f.LineCount()
	text := f.Text()
	lineText := func(i int) []byte { return append(bytes.Clone(f.Line(i)), '\n') }
	if n == 0 {
		s.Edit(f, 0, 0, []byte(`{"type":"user","uuid":"u0","parentUuid":null,"message":{"role":"user","content":"hi"}}`+"\n"))
		return
	}
	i := rnd.IntN(n)
	switch rnd.IntN(6) {
	case 0, 1: // append a copy of a line (a duplicate record) or of the last one with a new uuid
		line := lineText(i)
		line = bytes.Replace(line, []byte(`"uuid":"`), []byte(`"uuid":"x`), 1)
		s.Edit(f, len(text), len(text), line)
	case 2: // delete a line
		s.Edit(f, f.LineStart(i), f.LineStart(i+1), nil)
	case 3: // replace a line with another
		j := rnd.IntN(n)
		s.Edit(f, f.LineStart(i), f.LineStart(i+1), lineText(j))
	case 4: // truncate a line mid-record
		l := f.Line(i)
		if len(l) > 2 {
			cut := rnd.IntN(len(l))
			s.Edit(f, f.LineStart(i)+cut, f.LineStart(i)+len(l), nil)
		}
	case 5: // insert a copy of a line in the middle
		s.Edit(f, f.LineStart(i), f.LineStart(i), lineText(rnd.IntN(n)))
	}
}

// TestMemoGrowingSession appends a realistic session's records one by one, as Claude Code writes
// them, comparing the memo's graph with a fresh build each time; the memo keeps no entry for
// records that left the session.
func TestMemoGrowingSession(t *testing.T) {
	w := gen.New(gen.Options{SessionID: "9e0b7a1c-0000-4000-8000-000000000001", Seed: 3})
	for range 20 {
		w.Turn()
	}
	f := session.NewFile("/tmp/grow.jsonl", w.Take())
	s := session.New("grow", "/tmp")
	s.AddFile(f)
	memo := NewMemo()
	for step := 0; step < 300; step++ {
		rec := w.Record()
		s.Edit(f, len(f.Text()), len(f.Text()), rec)
		got := AppendJSON(nil, BuildWith(s, Options{Memo: memo}))
		if want := fresh(s); !bytes.Equal(got, want) {
			t.Fatalf("after %d appends the memo's graph differs from a fresh build", step+1)
		}
	}
	// Replace the whole text: the old records' entries go once they outnumber the live ones.
	w2 := gen.New(gen.Options{SessionID: "9e0b7a1c-0000-4000-8000-000000000002", Seed: 4})
	for range 5 {
		w2.Turn()
	}
	s.SetText(f, w2.Take())
	g := BuildWith(s, Options{Memo: memo})
	BuildWith(s, Options{Memo: memo})
	if got := memo.Len(); got > 2*len(g.Nodes)+1024 {
		t.Errorf("the memo holds %d entries for a graph of %d nodes", got, len(g.Nodes))
	}
}

// TestAppendJSONMatchesEncodingJSON: the hand-written encoder writes what encoding/json writes.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	ents, _ := os.ReadDir(fixtures)
	var graphs []*Graph
	for _, e := range ents {
		if e.IsDir() {
			_, g := fixture(t, filepath.Join(fixtures, e.Name()))
			graphs = append(graphs, g)
		}
	}
	graphs = append(graphs, Build(genLoaded(300)), &Graph{})
	odd := Build(genLoaded(2))
	odd.Nodes[0].Label = "<b>&\"\\\x00\x1f\b\f\n\r\t\u2028\u2029é\xff\xfe😀"
	odd.Lanes[0].Depth, odd.Lanes[0].ParentNode = 3, "n1"
	graphs = append(graphs, odd)
	for i, g := range graphs {
		want, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendJSON(nil, g); !bytes.Equal(got, want) {
			t.Errorf("graph %d:\n got  %.400s\n want %.400s", i, got, want)
		}
	}
}

// FuzzAppendString: every string, valid UTF-8 or not, is written as encoding/json writes it.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<script>&", "\x00\x7f\u2028\xff", "é😀\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// FuzzMemo drives a fixture session through edits the fuzzer chooses (each pair of bytes: which
// edit, where), building with one memo after each: the graph must always be byte for byte the
// graph built from scratch.
func FuzzMemo(f *testing.F) {
	f.Add([]byte{0, 5, 1, 200, 2, 3, 3, 9, 4, 17, 5, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 2, 1, 0, 0})
	base, err := os.ReadFile(filepath.Join(fixtures, "fork", "0b000004-4444-4444-8444-000000000004.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		fl := session.NewFile("/tmp/fuzz-memo.jsonl", bytes.Clone(base))
		s := session.New("fuzz-memo", "/tmp")
		s.AddFile(fl)
		memo := NewMemo()
		BuildWith(s, Options{Memo: memo})
		for k := 0; k+1 < len(ops); k += 2 {
			rnd := rand.New(rand.NewPCG(uint64(ops[k]), uint64(ops[k+1])))
			randomEdit(rnd, s, fl)
			got := AppendJSON(nil, BuildWith(s, Options{Memo: memo}))
			if want := fresh(s); !bytes.Equal(got, want) {
				t.Fatalf("after edit %d the memo's graph differs from a fresh build", k/2+1)
			}
		}
	})
}

// TestMemoParentArrivesLate: a record whose parent is not in the log yet (an orphan) gets it when
// the parent is appended; the memo must not keep the orphan's old resolution.
func TestMemoParentArrivesLate(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"a1","parentUuid":null,"message":{"role":"user","content":"start"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		`{"type":"user","uuid":"a3","parentUuid":"late","message":{"role":"user","content":"an orphan for now"}}`,
	}
	f := session.NewFile("/tmp/late.jsonl", []byte(strings.Join(lines, "\n")+"\n"))
	s := session.New("late", "/tmp")
	s.AddFile(f)
	memo := NewMemo()
	BuildWith(s, Options{Memo: memo})
	BuildWith(s, Options{Memo: memo})
	late := `{"type":"assistant","uuid":"late","parentUuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"here"}]}}` + "\n"
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(late))
	got := AppendJSON(nil, BuildWith(s, Options{Memo: memo}))
	if want := fresh(s); !bytes.Equal(got, want) {
		t.Fatalf("after the orphan's parent arrived the memo's graph differs:\n got  %s\n want %s", got, want)
	}
}
