package session

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonl"
)

// A short line's Detail is not kept but parsed again when read (dropBelow), and reads the same as
// the line parsed afresh. An edit that removes such a record still takes its tool call out of the
// index: the Detail is parsed while the line is still there.
func TestShortLinesDropTheirDetail(t *testing.T) {
	call := `{"message":{"content":[{"type":"tool_use","id":"t"}]}}` // 54 bytes, a Detail of ~400
	long := `{"uuid":"b","model":"` + strings.Repeat("m", 64) + `"}`
	f := NewFile("/s.jsonl", []byte(call+"\n"+long+"\n"))
	s := New("s", "/")
	s.AddFile(f)
	short, kept := f.Rec(0), f.Rec(1)
	if !short.Dropped() || kept.Dropped() {
		t.Fatalf("dropped: short line %v, long line %v; want true, false", short.Dropped(), kept.Dropped())
	}
	for _, r := range []*Rec{short, kept} {
		if want := jsonl.Parse(r.LineBytes()); !reflect.DeepEqual(r.D(), want.D()) {
			t.Errorf("line %d reads %+v, parsed afresh %+v", r.Line+1, *r.D(), *want.D())
		}
	}
	if len(s.Uses("t")) != 1 {
		t.Fatalf("%d uses of t, want 1", len(s.Uses("t")))
	}
	s.Edit(f, 0, len(call), []byte(`{"type":"user"}`))
	if u := s.Uses("t"); len(u) != 0 {
		t.Errorf("after the call's line was replaced, t still has %d uses", len(u))
	}
}
