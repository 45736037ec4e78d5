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

// bareLines counts the lines that are neither blank nor records, the slow way.
func bareLines(f *File) int {
	n := 0
	if f.NotJSONL() {
		return 0
	}
	for i := 0; i < f.LineCount(); i++ {
		if f.Rec(i) == nil && len(bytes.TrimSpace(f.Line(i))) > 0 {
			n++
		}
	}
	return n
}

// BareLines tells whether a file has lines the secret scan reads although they are no records
// (objects holding nothing ccdag reads, faulty lines past the cap): from a parse in one pass or in
// two halves, and after any edit, as a fresh parse of the same text would.
func TestBareLines(t *testing.T) {
	rec := `{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}` + "\n"
	for _, tc := range []struct {
		text string
		bare bool
	}{
		{rec + rec, false},
		{rec + "\n  \n" + rec, false}, // blank lines are not bare
		{rec + "{}\n", true},
		{"{}\n{}\n" + rec, true}, // among the lines that decide the file is JSON Lines
		{rec + `{"note":"token=abc"}` + "\n", true},
		{rec + strings.Repeat("1\n", 10), false},             // kept as records
		{rec + strings.Repeat("1\n", MaxLineErrors+1), true}, // one past the cap
		{rec + strings.Repeat(`{"x":1}`+"\n", 300_000) + strings.Repeat(rec, 100_000), true}, // in two halves
		{"\x00\x01 binary\n", false}, // not JSON Lines: nothing is read
	} {
		f := NewFile("/x.jsonl", []byte(tc.text))
		if f.BareLines() != tc.bare || tc.bare != (bareLines(f) > 0) {
			t.Errorf("%.40q…: BareLines %v, want %v (%d bare)", tc.text, f.BareLines(), tc.bare, bareLines(f))
		}
	}

	s := New("x", "/")
	f := NewFile("/x.jsonl", []byte(rec+rec+rec))
	s.AddFile(f)
	edit := func(start, end int, repl string, bare bool) {
		t.Helper()
		s.Edit(f, start, end, []byte(repl))
		if f.BareLines() != bare || bare != (bareLines(f) > 0) {
			t.Fatalf("after replacing [%d,%d) with %q: BareLines %v, want %v (%d bare)", start, end, repl, f.BareLines(), bare, bareLines(f))
		}
	}
	at := func(line int) int { return f.LineStart(line) }
	edit(at(1), at(1), `{"note":"x"}`+"\n{}\n", true)
	edit(at(1), at(2), "", true)    // one of the two gone
	edit(at(1), at(2), rec, false)  // the other made a record
	edit(at(2), at(2), "{}", false) // typed into a line: `{}{"type"…` does not parse, a kept fault
	edit(at(2), at(2)+2, "", false) // and taken out again
	edit(len(f.Text()), len(f.Text()), "{}\n", true)
	edit(0, len(f.Text()), "\x00\x01\x02 binary\n", false) // not JSON Lines
	edit(0, len(f.Text()), rec+"{}\n", true)
}
