package transcript

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
			j := unescapedTick(l)
			if j < 0 {
				out.WriteString(dropEscapes(l))
				break
			}
			out.WriteString(dropEscapes(l[:j]))
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

// unescapedTick is the index of the first backtick of l that no backslash escapes (-1: none).
func unescapedTick(l string) int {
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && isASCIIPunct(l[i+1]):
			i++
		case l[i] == '`':
			return i
		}
	}
	return -1
}

// dropEscapes removes every backslash-escaped punctuation character (CommonMark: a literal that
// starts nothing), so what is left is the text that Markdown could still read as syntax.
func dropEscapes(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		if l[i] == '\\' && i+1 < len(l) && isASCIIPunct(l[i+1]) {
			i++
			continue
		}
		b.WriteByte(l[i])
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
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
			// Prose is Markdown text with its punctuation escaped (dropped above): a word like
			// "https" or "alert" may stay, but not the punctuation that would make it a link,
			// an autolink, HTML or a script.
			for _, bad := range []string{"<", "](", "http:", "https:", "www.", "command:", "alert(", "# heading", "**bold**", "&amp;"} {
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

// growing is a session that grows the way a live one does: lines appended to its files, sometimes
// half a line, then the rest.
type growing struct {
	t            *testing.T
	s            *session.Session
	b            *Builder
	memo         *graph.Memo
	opt          Options
	builds, full int
	tails        int // nodes walked by the incremental builds
}

func newGrowing(t *testing.T, opt Options) *growing {
	g := &growing{t: t, s: session.New("s", "/tmp/grow"), b: NewBuilder(), memo: graph.NewMemo(), opt: opt}
	g.b.Stats = func(full bool, tail int) {
		g.builds++
		if full {
			g.full++
		} else {
			g.tails += tail
		}
	}
	return g
}

func (g *growing) appendTo(f *session.File, text []byte) {
	g.s.Edit(f, len(f.Text()), len(f.Text()), text)
}

// check builds the transcript with the kept builder and afresh: they must be the same.
func (g *growing) check(step string) {
	g.t.Helper()
	got := g.b.Build(g.s, graph.BuildWith(g.s, graph.Options{Memo: g.memo}), g.opt)
	want := Build(g.s, graph.Build(g.s), g.opt)
	if got.Markdown != want.Markdown {
		a, b := got.Markdown, want.Markdown
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		g.t.Fatalf("%s (full build: %v): the kept builder's transcript differs from a fresh one at byte %d:\n got …%q…\nwant …%q…",
			step, g.b.full, i, a[max(0, i-200):min(len(a), i+200)], b[max(0, i-200):min(len(b), i+200)])
	}
	if fmt.Sprint(got.Lines) != fmt.Sprint(want.Lines) {
		g.t.Fatalf("%s (full build: %v): the line maps differ", step, g.b.full)
	}
}

var uuidField = regexp.MustCompile(`"uuid":"[^"]*"`)

// Random append sequences to a generated session: records one by one or a few at a time, half
// lines completed later, and now and then a rewind (a prompt again from an earlier point: a new
// branch) or an edit of an earlier line. After each step the kept builder's transcript equals a
// fresh one; appends that only extend the last turn are incremental.
func TestIncrementalEqualsFresh(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		for _, all := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed%d-all%v", seed, all), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 7))
				w := gen.New(gen.Options{Seed: seed})
				for i := 0; i < 8; i++ {
					w.Turn()
				}
				g := newGrowing(t, Options{AllBranches: all})
				f := session.NewFile("/tmp/grow/s.jsonl", w.Take())
				g.s.AddFile(f)
				g.check("first build")
				events := 0
				var pending []byte
				for step := 0; step < 120; step++ {
					switch x := rng.IntN(40); {
					case x == 0 && len(pending) == 0: // a rewind: an earlier prompt again, as a new record
						lines := strings.Split(strings.TrimSpace(string(f.Text())), "\n")
						for k := 0; k < 20; k++ {
							l := lines[rng.IntN(len(lines))]
							if strings.Contains(l, `"type":"user"`) && !strings.Contains(l, "tool_result") {
								l = uuidField.ReplaceAllString(l, fmt.Sprintf(`"uuid":"rewind-%d-%d"`, seed, step))
								g.appendTo(f, []byte(l+"\n"))
								events++
								break
							}
						}
					case x == 1 && len(pending) == 0 && f.LineCount() > 10: // an earlier line's text edited
						for k := 0; k < 20; k++ {
							i := rng.IntN(f.LineCount() - 5)
							line := string(f.Line(i))
							if j := strings.Index(line, `"text":"`); j >= 0 {
								line = line[:j+8] + "EDITED " + line[j+8:]
								g.s.Edit(f, f.LineStart(i), f.LineStart(i)+len(f.Line(i)), []byte(line))
								events++
								break
							}
						}
					default:
						if len(pending) == 0 {
							if rng.IntN(4) == 0 {
								w.Turn()
								pending = w.Take()
							} else {
								pending = w.Record()
							}
						}
						n := len(pending)
						if rng.IntN(5) == 0 && n > 2 {
							n = 1 + rng.IntN(n-1) // half a line now, the rest later
						}
						g.appendTo(f, pending[:n])
						pending = pending[n:]
					}
					g.check(fmt.Sprintf("step %d", step))
				}
				g.check("last")
				// A full build after each event, a few more after a turn's appends: the rest
				// are incremental.
				if g.builds-g.full < g.builds*2/3 {
					t.Errorf("%d of %d builds were full builds (%d rewinds and edits)", g.full, g.builds, events)
				}
				t.Logf("%d builds, %d full, %d events, %.1f nodes walked per incremental build", g.builds, g.full, events,
					float64(g.tails)/float64(max(1, g.builds-g.full)))
			})
		}
	}
}

// The sessions of testdata/graph (sub-agents in their own logs and in the main log, forks,
// compactions, parallel calls) replayed line by line, their logs interleaved at random: the kept
// builder's transcript equals a fresh one after every line.
func TestReplayEqualsFresh(t *testing.T) {
	mains, _ := filepath.Glob("../../testdata/graph/*/*.jsonl")
	if len(mains) < 10 {
		t.Fatalf("found %d sessions in testdata/graph", len(mains))
	}
	for _, p := range mains {
		for _, all := range []bool{false, true} {
			t.Run(filepath.Base(filepath.Dir(p))+fmt.Sprint("-all", all), func(t *testing.T) {
				src, err := layout.Load(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				g := newGrowing(t, Options{AllBranches: all})
				type log struct {
					f     *session.File // the growing copy, nil until its first line
					src   *session.File
					lines [][]byte
				}
				var logs []*log
				for _, sf := range src.Files {
					var lines [][]byte
					for i := 0; i < sf.LineCount(); i++ {
						lines = append(lines, append(append([]byte(nil), sf.Line(i)...), '\n'))
					}
					logs = append(logs, &log{src: sf, lines: lines})
				}
				rng := rand.New(rand.NewPCG(uint64(len(p)), 3))
				for step := 0; ; step++ {
					var open []*log
					for _, l := range logs {
						if len(l.lines) > 0 {
							open = append(open, l)
						}
					}
					if len(open) == 0 {
						break
					}
					l := open[rng.IntN(len(open))]
					if l != logs[0] && len(logs[0].lines) > 0 && rng.IntN(2) == 0 {
						l = logs[0] // the main log moves most
					}
					if l.f == nil {
						l.f = session.NewFile(l.src.Path, nil)
						l.f.Lane, l.f.AgentID, l.f.Meta = l.src.Lane, l.src.AgentID, l.src.Meta
						g.s.AddFile(l.f)
					}
					g.appendTo(l.f, l.lines[0])
					l.lines = l.lines[1:]
					if logs[0].f != nil {
						g.check(fmt.Sprintf("step %d (%s)", step, filepath.Base(l.src.Path)))
					}
				}
				t.Logf("%d builds, %d full", g.builds, g.full)
			})
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

// Prose reads as prose: the prompt and the reply are escaped Markdown text, not fenced code
// boxes; an empty thinking block is left out; a thinking block with text is kept.
func TestProseAsMarkdownText(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, hostile.SessionID+".jsonl")
	thinking := func(uuid, parent, msg, body string) string {
		return `{"parentUuid":"` + parent + `","type":"assistant","message":{"id":"` + msg + `","role":"assistant","content":[{"type":"thinking","thinking":` + hostile.Q(body) + `}]},"uuid":"` + uuid + `","sessionId":"` + hostile.SessionID + `"}`
	}
	log := hostile.Lines(
		hostile.User("u1", "", "Fix *the* bug\nin main.go"),
		thinking("a0", "u1", "m1", ""),
		thinking("a1", "a0", "m1", "  \n "),
		hostile.Assistant("a2", "a1", "m1", "Done: see [x](y)."),
		thinking("a3", "a2", "m2", "Check the tests"),
	)
	if err := os.WriteFile(main, log, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := layout.Load(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := Build(s, graph.Build(s), Options{}).Markdown
	for _, want := range []string{"> Fix \\*the\\* bug\\\n> in main\\.go\n", "\nDone\\: see \\[x\\]\\(y\\)\\.\n", "<details><summary>thinking (L5)</summary>\n\nCheck the tests\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if strings.Contains(md, "```") {
		t.Errorf("prose in a code block:\n%s", md)
	}
	if n := strings.Count(md, "<details>"); n != 1 {
		t.Errorf("%d thinking blocks, want 1 (two are empty):\n%s", n, md)
	}
}

// TestUnnamedAgentHeadingLeadsToItsLog: a sub-agent log no call's result names (a call the user
// rejected, say) follows the main log under a heading of its own; the heading links to the
// agent log's first record and maps to it, so an editor's jump from it opens that log, not the
// main log's line marked before it.
func TestUnnamedAgentHeadingLeadsToItsLog(t *testing.T) {
	main := `{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"explore"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"look","prompt":"look around"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}}
`
	agent := `{"type":"user","uuid":"g1","parentUuid":null,"isSidechain":true,"agentId":"a42ab1a1","sessionId":"s","timestamp":"2026-01-01T00:00:01.500Z","message":{"role":"user","content":"an errand of its own"}}
{"type":"assistant","uuid":"g2","parentUuid":"g1","isSidechain":true,"agentId":"a42ab1a1","sessionId":"s","timestamp":"2026-01-01T00:00:01.800Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"found it"}]}}
`
	s := session.New("s", "/tmp/unnamed")
	s.AddFile(session.NewFile("/tmp/unnamed/s.jsonl", []byte(main)))
	af := session.NewFile("/tmp/unnamed/s/subagents/agent-a42ab1a1.jsonl", []byte(agent))
	s.AddFile(af)
	res := Build(s, graph.Build(s), Options{})
	lines := strings.Split(res.Markdown, "\n")
	k := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "no call in the session names it") })
	if k < 0 {
		t.Fatalf("no heading for the unnamed sub-agent:\n%s", res.Markdown)
	}
	if !strings.Contains(lines[k], "#L1>") {
		t.Errorf("the heading links nowhere in its log: %s", lines[k])
	}
	i := slices.IndexFunc(res.Lines, func(l Line) bool { return l.Transcript == k })
	if i < 0 || !strings.HasSuffix(string(res.Lines[i].URI), "agent-a42ab1a1.jsonl") || res.Lines[i].Line != 0 {
		t.Errorf("the heading (transcript line %d) maps to %+v, want the agent log's line 0; map %+v", k, res.Lines[max(i, 0)], res.Lines)
	}
}
