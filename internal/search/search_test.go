package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

const log = `{"type":"user","uuid":"u1","message":{"role":"user","content":"Find the Parser BUG in skim.go"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"The parser might loop on \"quotes\"","signature":"parser"}]}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"func Parse","path":"/src/jsonl"}}]}}
{"type":"user","uuid":"r1","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"skim.go:13: func Parse(line []byte)"}]}]}}
{"type":"user","uuid":"m2","parentUuid":"r1","isMeta":true,"message":{"role":"user","content":"<local-command-stdout>parser rebuilt</local-command-stdout>"}}
{"type":"system","uuid":"s1","parentUuid":"m2","content":"Parser hook ran","subtype":"informational"}
{"type":"assistant","uuid":"a3","parentUuid":"s1","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Café ÜBER naïve \u001b[31m red \u202e"}]}}
{"type":"file-history-snapshot","uuid":"f1","snapshot":{"text":"parser"}}
{"type":"user","uuid":"u9","parentUuid":"a3","cwd":"/parser","message":{"role":"user","content":"nothing here"}}
{"type":"user","uuid":"u10","message":{"role":"user","content":"parser in a line being written"}}`

func hits(t *testing.T, q, text string) []Hit {
	t.Helper()
	c, err := Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	var out []Hit
	c.NewScanner().File([]byte(text), func(h Hit) bool { out = append(out, h); return true })
	return out
}

func TestKindsAndPlaces(t *testing.T) {
	got := hits(t, "parser", log)
	want := []struct {
		line int
		kind graph.Kind
	}{{1, graph.UserInput}, {2, graph.Thought}, {5, graph.System}, {6, graph.System}}
	if len(got) != len(want) {
		t.Fatalf("got %d hits, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Line != w.line || got[i].Kind != w.kind {
			t.Errorf("hit %d = line %d %s, want line %d %s", i, got[i].Line, got[i].Kind, w.line, w.kind)
		}
	}
	// The column is the match's byte column in the line.
	line1 := strings.Split(log, "\n")[0]
	if got[0].Column != strings.Index(line1, "Parser")+1 {
		t.Errorf("column %d", got[0].Column)
	}
	if got[0].Snippet != "Find the Parser BUG in skim.go" {
		t.Errorf("snippet %q", got[0].Snippet)
	}
	// A tool input and a tool result; a word in an id, a key, a signature, a cwd or a snapshot is not a hit.
	if h := hits(t, "func parse", log); len(h) != 2 || h[0].Kind != graph.Action || h[1].Kind != graph.Observation || h[0].Line != 3 || h[1].Line != 4 {
		t.Errorf("func parse: %+v", h)
	}
	for _, q := range []string{"t1", "pattern", "informational", "tool_result"} {
		if h := hits(t, q, log); len(h) != 0 {
			t.Errorf("%q matched structure: %+v", q, h)
		}
	}
}

func TestWordsCaseAndEscapes(t *testing.T) {
	// every word in one record, in any order, any case
	if h := hits(t, "BUG parser", log); len(h) != 1 || h[0].Line != 1 {
		t.Errorf("all words: %+v", h)
	}
	if h := hits(t, "parser nothing", log); len(h) != 0 {
		t.Errorf("words of two records: %+v", h)
	}
	// JSON escapes in the log and in the query; non-ASCII case folding
	if h := hits(t, `on "quotes"`, log); len(h) != 1 || h[0].Line != 2 {
		t.Errorf("quotes: %+v", h)
	}
	if h := hits(t, "café über NAÏVE", log); len(h) != 1 || h[0].Line != 7 {
		t.Errorf("non-ASCII: %+v", h)
	}
	// control and bidirectional characters are escaped in snippets
	h := hits(t, "red", log)
	if len(h) != 1 || strings.ContainsAny(h[0].Snippet, "\x1b\u202e") || !strings.Contains(h[0].Snippet, `\x1b[31m red \u202e`) {
		t.Errorf("snippet not escaped: %+v", h)
	}
}

func TestQueryLimits(t *testing.T) {
	for _, q := range []string{"", "   \t", strings.Repeat("a", MaxQuery+1), "\xff"} {
		if _, err := Compile(q); err == nil {
			t.Errorf("Compile(%.20q) accepted", q)
		}
	}
	if _, err := Compile(strings.Repeat("a", MaxQuery)); err != nil {
		t.Error(err)
	}
}

func TestLowerASCII(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	for off := 0; off < 9; off++ {
		got := lowerASCII(nil, all[off:])
		for i, c := range all[off:] {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 32
			}
			if got[i] != want {
				t.Fatalf("byte %#x -> %#x", c, got[i])
			}
		}
	}
}

// Every record of a generated log holding a word is found, and no other: compared with decoding
// every line.
func TestAgreesWithFullDecode(t *testing.T) {
	text := gen.Session(3<<20, 5)
	for _, q := range []string{"函数", "RETRIES timeout", "file12.go", "résumé 🚀", "zzz"} {
		c, _ := Compile(q)
		var fast []int
		c.NewScanner().File(text, func(h Hit) bool { fast = append(fast, h.Line); return true })
		var slow []int
		for i, line := range bytes.Split(text, []byte{'\n'}) {
			if _, ok := c.Record(line); ok {
				slow = append(slow, i+1)
			}
		}
		if fmt.Sprint(fast) != fmt.Sprint(slow) {
			t.Errorf("%q: scan found %d lines, decoding %d", q, len(fast), len(slow))
		}
		if q != "zzz" && len(fast) == 0 {
			t.Errorf("%q: nothing found", q)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	text := gen.Session(100<<20, 1)
	c, _ := Compile("zzqq")
	sc := c.NewScanner()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		sc.File(text, func(Hit) bool { return true })
	}
}

// TestSnippetRedactedThenCut (docs/spec.md §15): with Redact, the text a snippet is cut from is
// redacted first — a secret the cut would have halved shows no 8 bytes, a match inside a secret
// shows its placeholder — and without it the secret is there (so the test can fail).
func TestSnippetRedactedThenCut(t *testing.T) {
	plants := secretstest.Plants(5)
	aws, gh := plants[0].Secret, plants[1].Secret
	text := "export AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=" + aws + " GITHUB_TOKEN=" + gh + " " + strings.Repeat("padding ", 40) + " deploy"
	b, _ := json.Marshal(text)
	line := []byte(`{"type":"user","message":{"role":"user","content":` + string(b) + `}}`)
	for _, query := range []string{"AWS_REGION", "GITHUB_TOKEN", gh[8:20], "deploy"} {
		q, err := Compile(query)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := q.Record(line)
		if !ok {
			t.Fatalf("%s: no hit", query)
		}
		if query != "deploy" && secretstest.Leak(h.Snippet, plants[:2]) == "" {
			t.Errorf("%s without Redact: the snippet %q shows no secret", query, h.Snippet)
		}
		q.Redact = true
		h, _ = q.Record(line)
		if leak := secretstest.Leak(h.Snippet, plants[:2]); leak != "" {
			t.Errorf("%s: the snippet %q shows %q", query, h.Snippet, leak)
		}
		if query != "deploy" && !strings.Contains(h.Snippet, "[REDACTED:") {
			t.Errorf("%s: the snippet %q shows no placeholder", query, h.Snippet)
		}
	}
}
