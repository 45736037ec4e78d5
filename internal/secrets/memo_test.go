package secrets

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestMemoMovesHits: a long value seen again (in the same line, at another place, or in another
// line) takes the hits of its first scan from the memo, moved to where it stands now: equal to a
// scan of its own, and the memo is what answered.
func TestMemoMovesHits(t *testing.T) {
	var text strings.Builder
	for i, p := range secretstest.Plants(11) {
		text.WriteString(strings.Repeat("some prose between the secrets, with a key word or two. ", 3))
		if p.Rule == "generic-api-key" {
			text.WriteString("api_key=")
		}
		text.WriteString(p.Secret + " ")
		if i%2 == 0 {
			text.WriteString("\n")
		}
	}
	v, _ := json.Marshal(text.String())
	if len(v) < memoMin {
		t.Fatalf("the value is %d bytes, under the memo's %d", len(v), memoMin)
	}
	line := []byte(`{"a":` + string(v) + `,"b":[1,` + string(v) + `]}`)
	s := Default()
	want := s.line(line, nil, false) // no memo
	if len(want) < 4 {
		t.Fatalf("the planted secrets gave %d hits, want several in each copy", len(want))
	}
	got := s.Line(line, nil)
	if !slices.Equal(got, want) {
		t.Fatalf("with the memo:\n got %v\nwant %v", got, want)
	}
	if _, ok := s.memo.get(s.memo.key(v[1:len(v)-1]), 0, nil); !ok {
		t.Fatal("the memo does not hold the value")
	}
	// Another line, the value elsewhere: the hits move with it.
	line2 := []byte(`{"type":"user","x":"short","c":` + string(v) + `}`)
	if got, want := s.Line(line2, nil), s.line(line2, nil, false); !slices.Equal(got, want) {
		t.Fatalf("a later line:\n got %v\nwant %v", got, want)
	}
}
