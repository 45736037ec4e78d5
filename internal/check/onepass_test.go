package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/session"
)

// OnePass lists what New lists, finding for finding, in a file whose findings are counted past
// MaxPerCode (a million missing-uuid records) and in one that counts none.
func TestOnePassListsWhatNewLists(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	for i := range 3*MaxPerCode + 7 {
		switch i % 3 {
		case 0:
			b.WriteString(`{"type":"user"}` + "\n")
		case 1:
			fmt.Fprintf(&b, `{"type":"user","uuid":"o%d","parentUuid":"gone%d","sessionId":"s","message":{"role":"user","content":"x"}}`+"\n", i, i)
		default:
			fmt.Fprintf(&b, `{"type":"assistant","uuid":"t%d","parentUuid":"a","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"tu%d","name":"Bash","input":{}}]}}`+"\n", i, i)
		}
	}
	b.WriteString("not json\n")
	for name, text := range map[string]string{"counts": b.String(), "few": strings.Join(strings.Split(b.String(), "\n")[:40], "\n") + "\n"} {
		s := session.New("s", "/x")
		s.AddFile(session.NewFile("/x/s.jsonl", []byte(text)))
		want, got := New(s).All(nil), NewOptions(s, Options{OnePass: true}).All(nil)
		str := func(fs []Finding) []string {
			var out []string
			for _, f := range fs {
				out = append(out, fmt.Sprintf("%d:%d %s %s %s %d", f.Line, f.Span.Start, f.Code, f.Severity, f.Message, len(f.Related)))
			}
			return out
		}
		if len(want) < 10 || !slices.Equal(str(want), str(got)) {
			t.Errorf("%s: %d findings from NewOnePass, %d from New", name, len(got), len(want))
		}
	}
}
