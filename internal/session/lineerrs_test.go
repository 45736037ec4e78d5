package session

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonl"
)

// faults counts the faulty lines of a file, kept and not, by kind.
func faults(f *File) (kept, all [3]int) {
	for i := 0; i < f.LineCount(); i++ {
		if r := f.Rec(i); r != nil && r.LineErr() != nil {
			kept[r.LineErr().Kind]++
		}
	}
	for k := range all {
		all[k] = kept[k] + f.UnkeptLineErrors(jsonl.ErrorKind(k))
	}
	return kept, all
}

func faultyLog(ones, brackets int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}` + "\n")
	b.WriteString(strings.Repeat("1\n", ones))
	b.WriteString(strings.Repeat("[\n", brackets))
	return b.Bytes()
}

// A file keeps the first MaxLineErrors faulty lines of each kind as records and counts the rest,
// in one pass and in two halves alike, and an edit keeps the count true.
func TestFaultyLinesBeyondTheCapAreCounted(t *testing.T) {
	for _, tc := range []struct{ ones, brackets int }{
		{10, 5}, {2500, 1500}, {5_000_000, 1200}, // the last is parsed in two halves
	} {
		f := NewFile("/x.jsonl", faultyLog(tc.ones, tc.brackets))
		kept, all := faults(f)
		if all[jsonl.ErrNotAnObject] != tc.ones || all[jsonl.ErrInvalidJSON] != tc.brackets {
			t.Fatalf("%v: counted %v", tc, all)
		}
		if want := min(tc.ones, MaxLineErrors); kept[jsonl.ErrNotAnObject] != want {
			t.Errorf("%v: %d not-an-object lines kept, want %d", tc, kept[jsonl.ErrNotAnObject], want)
		}
		// The kept ones are the first ones.
		if r := f.Rec(1); r == nil || r.LineErr() == nil {
			t.Errorf("%v: the first faulty line is not kept", tc)
		}
		if tc.ones > MaxLineErrors {
			if f.Rec(MaxLineErrors) == nil || f.Rec(MaxLineErrors+1) != nil {
				t.Errorf("%v: the kept lines are not lines 1..%d", tc, MaxLineErrors)
			}
		}
	}

	s := New("x", "/")
	f := NewFile("/x.jsonl", faultyLog(2500, 1500))
	s.AddFile(f)
	edit := func(start, end int, repl string) {
		s.Edit(f, start, end, []byte(repl))
		_, all := faults(f)
		_, fresh := faults(NewFile("/y.jsonl", append([]byte(nil), f.Text()...)))
		if all != fresh {
			t.Fatalf("after replacing [%d,%d) with %q: counted %v, a fresh parse %v", start, end, repl, all, fresh)
		}
	}
	at := func(line int) int { return f.LineStart(line) }
	edit(at(1500), at(1600), "")                       // 100 lines that are counted, not kept
	edit(at(10), at(20), "")                           // 10 kept ones
	edit(at(3000), at(3000), strings.Repeat("1\n", 7)) // more faults past the cap
	edit(at(5), at(5), strings.Repeat("{}\n", 3))      // objects that hold nothing
	edit(at(2000), at(2001), `{"type":"user","uuid":"b"}`+"\n")
	edit(len(f.Text()), len(f.Text()), "[") // an unfinished last line is always kept
	if r := f.Rec(f.LineCount() - 1); r == nil || !r.Incomplete() {
		t.Error("the unfinished last line is not kept")
	}
	edit(0, len(f.Text()), string(faultyLog(1200, 3))) // the whole text
	edit(0, len(f.Text()), "\x00\x01\x02 binary\n")
}
