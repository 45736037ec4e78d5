package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// outsideCode returns the Markdown with fenced blocks and inline code spans removed (CommonMark's
// rules for the forms the transcript writes: fences and spans of n backticks closed by the same
// run), and whether every fence and span was closed. Block-quote and list prefixes are kept.
func outsideCode(md string) (string, bool) {
	var out strings.Builder
	lines := strings.Split(md, "\n")
	ok := true
	content := func(l string) string { return strings.TrimLeft(l, " >") }
	run := func(s string, i int) int {
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		return j - i
	}
	for i := 0; i < len(lines); i++ {
		l := content(lines[i])
		if n := run(l, 0); n >= 3 {
			fence := strings.Repeat("`", n)
			for i++; i < len(lines) && content(lines[i]) != fence; i++ {
			}
			if i == len(lines) {
				ok = false
			}
			continue
		}
		l = lines[i]
		for len(l) > 0 {
			j := strings.IndexByte(l, '`')
			if j < 0 {
				out.WriteString(l)
				break
			}
			out.WriteString(l[:j])
			n := run(l, j)
			rest := l[j+n:]
			k := -1
			for p := 0; p < len(rest); {
				q := strings.IndexByte(rest[p:], '`')
				if q < 0 {
					break
				}
				if m := run(rest, p+q); m == n {
					k = p + q
					break
				} else {
					p += q + m
				}
			}
			if k < 0 {
				ok = false
				out.WriteString(l[j:])
				break
			}
			l = rest[k+n:]
		}
		out.WriteByte('\n')
	}
	return out.String(), ok
}

var ownLink = regexp.MustCompile(`\[L[0-9]+\]\(<file://[^<> ()]*#L[0-9]+>\)`)

// A session whose every piece of text is hostile: prompt, assistant text, thinking, tool input,
// tool result, sub-agent prompt. The transcript must show all of it as text.
func TestHostileText(t *testing.T) {
	for name, bad := range hostile.Texts() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			main := filepath.Join(dir, hostile.SessionID+".jsonl")
			think := `{"parentUuid":"u1","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":` + hostile.Q(bad) + `}]},"uuid":"a0","sessionId":"` + hostile.SessionID + `"}`
			log := hostile.Lines(
				hostile.User("u1", "", bad),
				think,
				hostile.Assistant("a1", "a0", "m1", bad),
				hostile.ToolUse("a2", "a1", "m1", "toolu_1", "Read", `{"file_path":`+hostile.Q(bad)+`}`),
				hostile.ToolResult("r1", "a2", "toolu_1", bad, ""),
				hostile.ToolUse("a3", "r1", "m2", "toolu_2", bad, `{"description":`+hostile.Q(bad)+`,"prompt":"p"}`),
				hostile.ToolResult("r2", "a3", "toolu_2", bad, ""),
			)
			if err := os.WriteFile(main, log, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := layout.Load(main, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := Build(s, graph.Build(s), Options{})
			md := res.Markdown
			if len(md) > 300<<10 {
				t.Errorf("transcript is %d bytes: log text is not bounded", len(md))
			}
			if strings.ContainsAny(md, "\u202e\u2066\u2069\u200e\u200f\x1b\x07\u2028\u2029") {
				t.Errorf("a bidi or control character reached the transcript")
			}
			rest, ok := outsideCode(md)
			if !ok {
				t.Fatalf("an unclosed code span or fence:\n%s", md)
			}
			rest = ownLink.ReplaceAllString(rest, "")
			for _, tag := range []string{"<details>", "</details>", "<summary>", "</summary>"} {
				rest = strings.ReplaceAll(rest, tag, "")
			}
			for _, bad := range []string{"<", "](", "http", "www.", "command:", "alert", "# heading", "**bold**", "&amp;"} {
				if i := strings.Index(rest, bad); i >= 0 {
					t.Errorf("log text outside code: %q in %q", bad, rest[max(0, i-80):min(len(rest), i+80)])
				}
			}
			// Every piece of the session shows: the prompt's turn, both calls, both results.
			for _, want := range []string{"## Turn 1", "- ▸", "- ✓", "<details><summary>thinking"} {
				if !strings.Contains(md, want) {
					t.Errorf("missing %q", want)
				}
			}
		})
	}
}

// Every line map entry points at a line the transcript links to, in order.
func TestLineMap(t *testing.T) {
	s := genSession(t, 400<<10)
	res := Build(s, graph.Build(s), Options{})
	lines := strings.Split(res.Markdown, "\n")
	prev := -1
	for _, l := range res.Lines {
		if l.Transcript < prev || l.Transcript >= len(lines) {
			t.Fatalf("entry %+v out of order or range (prev %d, %d lines)", l, prev, len(lines))
		}
		prev = l.Transcript
		f := s.Files[0]
		if l.Line < 0 || l.Line >= f.LineCount() || f.Rec(l.Line) == nil {
			t.Fatalf("entry %+v names no record", l)
		}
		tl := lines[l.Transcript]
		if strings.Contains(tl, "#L") && !strings.Contains(tl, fmt.Sprintf("#L%d>", l.Line+1)) {
			t.Errorf("transcript line %d maps to log line %d but links elsewhere: %s", l.Transcript, l.Line, tl)
		}
	}
	if len(res.Lines) < 100 {
		t.Fatalf("only %d line map entries", len(res.Lines))
	}
}

func genSession(t testing.TB, size int) *session.Session {
	s := session.New("s", "/tmp/gen")
	s.AddFile(session.NewFile("/tmp/gen/s.jsonl", gen.Session(size, 3)))
	return s
}

// After appends, a builder that kept its memo renders the same document as a fresh one, and
// renders again only the nodes the append made or changed.
func TestIncrementalEqualsFresh(t *testing.T) {
	w := gen.New(gen.Options{Seed: 5})
	for i := 0; i < 30; i++ {
		w.Turn()
	}
	s := session.New("s", "/tmp/gen")
	f := session.NewFile("/tmp/gen/s.jsonl", w.Take())
	s.AddFile(f)
	b := NewBuilder()
	memo := graph.NewMemo()
	b.Build(s, graph.BuildWith(s, graph.Options{Memo: memo}), Options{})
	for i := 0; i < 3; i++ {
		w.Turn()
		add := w.Take()
		s.Edit(f, len(f.Text()), len(f.Text()), add)
		g := graph.BuildWith(s, graph.Options{Memo: memo})
		got := b.Build(s, g, Options{})
		want := Build(s, graph.Build(s), Options{})
		if got.Markdown != want.Markdown || fmt.Sprint(got.Lines) != fmt.Sprint(want.Lines) {
			t.Fatalf("append %d: the kept builder's transcript differs from a fresh one", i)
		}
		if b.rendered > 40 {
			t.Errorf("append %d: %d nodes rendered again for one turn", i, b.rendered)
		}
	}
}

func TestCorpus(t *testing.T) {
	files := testcorpus.Files(t, "the transcript of every real session (code spans closed, every call with its results)")
	for _, p := range files {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := graph.Build(s)
		res := Build(s, g, Options{AllBranches: true})
		if _, ok := outsideCode(res.Markdown); !ok {
			t.Errorf("%s: unclosed code", p)
		}
		// Every call of the session shows, each with its results.
		calls := 0
		for i := range g.Nodes {
			if g.Nodes[i].Kind == graph.Action {
				calls++
			}
		}
		if got := strings.Count(res.Markdown, "- ▸ "); got != calls {
			t.Errorf("%s: %d calls in the transcript, %d in the graph", p, got, calls)
		}
	}
}
