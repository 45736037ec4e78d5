package resume

import (
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

// A record that is no conversation and names itself as its parent, where the walk to the resume's
// start passes: Compute ends (it looped forever; found by lsp's TestEditsMatchAFreshParse).
func TestSelfParentNotConversation(t *testing.T) {
	text := `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"a"}}
{"type":"ass{istant","uuid":"u2","parentUuid":"u2","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}]}}
`
	done := make(chan struct{})
	go func() {
		Compute(layout.SessionOf(session.NewFile("/x/cycle.jsonl", []byte(text))))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Compute does not end on a self-parent record")
	}
}
