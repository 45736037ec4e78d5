package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/session"
)

// A Checker keeps MaxPerCode findings of a code per file and counts the rest: File gives the kept
// ones and one finding standing for the others, All gives every one, and both stay true through
// edits (All equal to a fresh check's).
func TestFindingsPastTheCapAreCounted(t *testing.T) {
	const n = MaxPerCode + 700
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"user","sessionId":"s","message":{"role":"user","content":"no uuid %d"}}`+"\n", i)
	}
	f := session.NewFile("/x.jsonl", []byte(b.String()))
	s := session.New("s", "/")
	s.AddFile(f)
	c := New(s)
	fresh := func() []Finding {
		g := session.NewFile("/x.jsonl", append([]byte(nil), f.Text()...))
		t := session.New("s", "/")
		t.AddFile(g)
		return New(t).All(nil)
	}
	expect := func(what string, total int) {
		t.Helper()
		shown := c.File(f, nil)
		kept, more := 0, 0
		for _, fd := range shown {
			if fd.Code != MissingUUID {
				continue
			}
			if fd.More > 0 {
				more += fd.More
				if !strings.Contains(fd.Message, fmt.Sprintf("%d more missing-uuid findings", fd.More)) {
					t.Errorf("%s: %q", what, fd.Message)
				}
			} else {
				kept++
			}
		}
		if kept != min(total, MaxPerCode) || kept+more != total {
			t.Errorf("%s: %d kept and %d counted, want %d in all", what, kept, more, total)
		}
		all := c.All(nil)
		if len(all) != total {
			t.Fatalf("%s: All gives %d findings, want %d", what, len(all), total)
		}
		want := fresh()
		for i := range all {
			if all[i].Line != want[i].Line || all[i].Message != want[i].Message {
				t.Fatalf("%s: finding %d is %d %q, a fresh check's %d %q", what, i, all[i].Line, all[i].Message, want[i].Line, want[i].Message)
			}
		}
	}
	expect("opened", n)
	// Remove 300 lines that were only counted, then 100 kept ones, then add some.
	s.Edit(f, f.LineStart(1200), f.LineStart(1500), nil)
	c.Update()
	expect("300 counted lines removed", n-300)
	s.Edit(f, f.LineStart(0), f.LineStart(100), nil)
	c.Update()
	expect("100 kept lines removed", n-400)
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(strings.Repeat(`{"type":"user","sessionId":"s"}`+"\n", 50)))
	c.Update()
	expect("50 appended", n-350)
	s.Edit(f, 0, len(f.Text()), []byte(`{"type":"user","sessionId":"s"}`+"\n"))
	c.Update()
	expect("all replaced by one", 1)
}
