package session

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/jsonl"
)

// A large file is indexed and parsed in two halves on two cores: the result must be what one pass
// makes, line for line.
func TestParallelParseIsSequentialParse(t *testing.T) {
	text := gen.Session(parallelMin+3<<20, 3)
	text = append(text, "not json\n\n{\"type\":\"user\",\"uuid\":\"x\"}"...) // a bad line, a blank one, no final newline
	f := NewFile("big.jsonl", text)
	if want := jsonl.LineStarts(text); !slices.Equal(f.starts, want) {
		t.Fatalf("line starts differ: %d vs %d lines", len(f.starts), len(want))
	}
	for i := range f.starts {
		want := jsonl.Parse(f.Line(i))
		r := f.Rec(i)
		switch {
		case want == nil && r == nil:
		case want == nil || r == nil:
			t.Fatalf("line %d: record %v, want %v", i+1, r, want)
		default:
			got := r.Record
			got.KeepDetail(r.D()) // a dropped Detail (CCDAG_DROP_DETAIL) compared as read
			if !reflect.DeepEqual(&got, want) {
				t.Fatalf("line %d differs:\n%+v %+v\n%+v %+v", i+1, got, *got.D(), *want, *want.D())
			}
		}
	}
}
