package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

func asstLine(msg, id string) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"a-%s","message":{"id":%q,"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{}}]}}`, id, msg, id)
}

func resultLine(ids ...string) string {
	var bs []string
	for _, id := range ids {
		bs = append(bs, fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":"ok"}`, id))
	}
	return `{"type":"user","message":{"role":"user","content":[` + strings.Join(bs, ",") + `]}}`
}

func TestTurnTail(t *testing.T) {
	prompt := `{"type":"user","message":{"role":"user","content":"go"}}`
	progress := `{"type":"progress","data":{"type":"bash_progress"},"parentToolUseID":"t2"}`
	for _, c := range []struct {
		name  string
		lines []string
		want  int
	}{
		{"parallel calls, the first answered", []string{prompt, asstLine("m1", "t1"), asstLine("m1", "t2"), resultLine("t1"), asstLine("m1", "t3")}, 0},
		{"a result written before its call", []string{prompt, resultLine("t2"), asstLine("m1", "t1"), asstLine("m1", "t2")}, 0},
		{"progress and other records are the same turn", []string{prompt, asstLine("m1", "t1"), progress, `{"type":"file-history-snapshot"}`}, 0},
		{"another message follows", []string{prompt, asstLine("m1", "t1"), asstLine("m2", "t2")}, 1},
		{"a prompt follows", []string{prompt, asstLine("m1", "t1"), prompt}, 2},
		{"a result of another message's call", []string{asstLine("m0", "t0"), prompt, asstLine("m1", "t1"), resultLine("t0")}, 3},
		{"results mixed with text", []string{prompt, asstLine("m1", "t1"), `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"},{"type":"text","text":"and now"}]}}`}, 2},
		{"the whole file is one message", []string{asstLine("m1", "t1"), asstLine("m1", "t2")}, -1},
		{"no assistant record", []string{prompt, prompt}, 1},
		{"records without a message id are messages of their own", []string{prompt, `{"type":"assistant","message":{"content":[]}}`, `{"type":"assistant","message":{"content":[]}}`}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := NewFile("x.jsonl", []byte(strings.Join(c.lines, "\n")+"\n"))
			if got := f.TurnTail(); got != c.want {
				t.Errorf("TurnTail = %d, want %d", got, c.want)
			}
		})
	}
}

// 1b2fa935 (corpus): the call at 432 is followed by the conversation; 438, 439 and 441 are parallel
// calls of the message that ends the log.
func TestTurnTailCorpus(t *testing.T) {
	path := testcorpus.Path(t, "dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl", "which unanswered calls of a real log are in flight (438, 439, 441) and which the conversation went past (432)")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFile(path, text)
	for line, want := range map[int]bool{432: false, 438: true, 439: true, 441: true} {
		if got := f.InFlight(f.Rec(line - 1)); got != want {
			t.Errorf("line %d: in flight %v, want %v", line, got, want)
		}
	}
}

// TurnTail agrees with the rule read literally (docs/spec.md §2), checked record by record against
// everything after it, on random sequences of messages, results, prompts and other records.
func TestTurnTailMatchesTheRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for round := 0; round < 3000; round++ {
		var lines []string
		type call struct{ msg, id string }
		var calls []call
		n := 1 + rng.IntN(12)
		for i := 0; i < n; i++ {
			switch k := rng.IntN(10); {
			case k < 4: // an assistant line of one of three messages (or none), with a call
				msg := fmt.Sprintf("m%d", rng.IntN(3))
				id := fmt.Sprintf("t%d", i)
				if rng.IntN(6) == 0 {
					lines = append(lines, fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{}}]}}`, id))
					calls = append(calls, call{"", id})
					continue
				}
				lines = append(lines, asstLine(msg, id))
				calls = append(calls, call{msg, id})
			case k < 7 && len(calls) > 0: // results of one or two earlier calls
				ids := []string{calls[rng.IntN(len(calls))].id}
				if rng.IntN(2) == 0 {
					ids = append(ids, calls[rng.IntN(len(calls))].id)
				}
				lines = append(lines, resultLine(ids...))
			case k < 8:
				lines = append(lines, `{"type":"user","message":{"role":"user","content":"go on"}}`)
			default:
				lines = append(lines, `{"type":"progress","data":{}}`)
			}
		}
		f := NewFile("x.jsonl", []byte(strings.Join(lines, "\n")+"\n"))
		f.Recs(func(r *Rec) bool {
			if r.Type != "assistant" {
				return true
			}
			key := keyOf(r)
			mine := map[string]bool{} // the calls of r's message, anywhere in the file
			f.Recs(func(o *Rec) bool {
				if o.Type == "assistant" && keyOf(o) == key {
					for _, b := range o.D().Blocks {
						mine[b.ID] = true
					}
				}
				return true
			})
			want := true
			for j := r.Line + 1; j < f.LineCount(); j++ {
				o := f.Rec(j)
				switch {
				case o == nil || !o.IsConversation():
				case o.Type == "assistant" && keyOf(o) != key:
					want = false
				case o.Type == "user":
					only := onlyResults(o)
					for _, b := range o.D().Blocks {
						only = only && mine[b.ToolUseID]
					}
					if !only {
						want = false
					}
				}
			}
			if got := f.InFlight(r); got != want {
				t.Fatalf("line %d: in flight %v, want %v, in\n%s", r.Line+1, got, want, strings.Join(lines, "\n"))
			}
			return true
		})
	}
}
