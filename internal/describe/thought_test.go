package describe

import (
	"testing"

	"github.com/ccdag/ccdag/internal/session"
)

// An assistant message the person sees is a reply; one that only thinks is thinking (hover said
// "Thought" for both).
func TestThoughtWord(t *testing.T) {
	text := `{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Done."}]}}
{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"}]}}
{"type":"assistant","uuid":"a3","message":{"role":"assistant","content":"Plain."}}
`
	f := session.NewFile("/x/s.jsonl", []byte(text))
	for i, want := range []string{"reply", "thinking", "reply"} {
		if got := thoughtWord(f.Rec(i)); got != want {
			t.Errorf("line %d: %q, want %q", i, got, want)
		}
	}
}
