package check_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// fileSep splits a fuzz input into the files of one session: the main log, then agent logs.
var fileSep = []byte("\x00agent\x00")

// seedLogs returns small logs to start from: the repository's fixtures, the head of each real log
// of the corpus when it is present, and a generated session with its sub-agent.
func seedLogs() [][]byte {
	var seeds [][]byte
	var files []string
	for _, root := range []string{"../../testdata", testcorpus.Root()} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Keep seeds small: the first lines of big logs, long lines cut (which fuzzing needs too).
		var out []byte
		for i, line := range bytes.SplitAfter(data, []byte("\n")) {
			if i == 12 || len(out) > 8<<10 {
				break
			}
			if len(line) > 1500 {
				line = append(line[:1500:1500], '\n')
			}
			out = append(out, line...)
		}
		seeds = append(seeds, out)
	}
	main, last := hostile.Turns("m", "", 2, 0)
	agent, _ := hostile.Turns("a", "", 1, 0)
	spawn := hostile.Lines(hostile.ToolUse("s1", last, "ms", "toolu_s", "Task", `{"prompt":"p"}`),
		hostile.ToolResult("s2", "s1", "toolu_s", "done", "a1"))
	seeds = append(seeds, slices.Concat(main, spawn, fileSep, agent))
	return seeds
}

// load builds a session from a fuzz input: the main log and up to three agent logs.
func load(data []byte) *session.Session {
	parts := bytes.SplitN(data, fileSep, 4)
	s := session.New("fuzz", "/fuzz")
	for i, p := range parts {
		f := session.NewFile(fmt.Sprintf("/fuzz/%d.jsonl", i), bytes.Clone(p))
		if i > 0 {
			f.AgentID = fmt.Sprintf("a%d", i)
			f.Lane = "agent-" + f.AgentID
		}
		s.AddFile(f)
	}
	return s
}

// wellFormed checks every finding points inside its file and reads as text.
func wellFormed(t *testing.T, c *check.Checker) {
	t.Helper()
	for _, fd := range c.All(nil) {
		if fd.Line < 0 || fd.Line >= fd.File.LineCount() {
			t.Fatalf("%s on line %d of %d", fd.Code, fd.Line+1, fd.File.LineCount())
		}
		if fd.Span.Start < 0 || fd.Span.Start > fd.Span.End || int(fd.Span.End) > len(fd.File.Line(fd.Line)) {
			t.Fatalf("%s: span %v outside line %d (%d bytes)", fd.Code, fd.Span, fd.Line+1, len(fd.File.Line(fd.Line)))
		}
		if !utf8.ValidString(fd.Message) || textsafe.Printable(fd.Message) != fd.Message {
			t.Fatalf("%s: message is not printable text: %q", fd.Code, fd.Message)
		}
		for _, r := range fd.Related {
			if r.Line < 0 || r.Line >= r.File.LineCount() || int(r.Span.End) > len(r.File.Line(r.Line)) {
				t.Fatalf("%s: related %d:%v out of range", fd.Code, r.Line+1, r.Span)
			}
		}
	}
}

// FuzzSession feeds any bytes, as one to four files of a session, to the session index and the
// checker: nothing panics, findings are well formed, checking is deterministic, and the DAG's
// accessors agree with each other.
func FuzzSession(f *testing.F) {
	for _, s := range seedLogs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := load(data)
		c := check.New(s)
		wellFormed(t, c)
		if got, again := hostile.Fingerprints(c), hostile.Fingerprints(check.New(hostile.Fresh(s))); !slices.Equal(got, again) {
			t.Fatalf("two checks of the same text differ:\n%q\n%q", got, again)
		}
		cycles := s.Cycles()
		for _, file := range s.Files {
			file.Recs(func(r *session.Rec) bool {
				if p := s.Parent(r); p != nil && s.Lookup(p.UUID) == p && !slices.Contains(s.Children(p), r) {
					t.Fatalf("line %d names %s as parent, but is not among its children", r.Line+1, r.Parent)
				}
				if cycles[r] && s.Parent(r) == nil {
					t.Fatalf("line %d is on a cycle but has no parent", r.Line+1)
				}
				return true
			})
		}
	})
}

// snippets are what FuzzEdit inserts: record pieces, whole records that link to each other, line
// ends of both kinds, multi-byte characters.
var snippets = []string{
	"\n", "\r\n", "\r", "{", "}", `"`, `,`, "😀", "é", "中", "\xff", "\x00",
	`"parentUuid":"u1"`, `"parentUuid":null`, `"uuid":"u2"`, `"tool_use_id":"t1"`, `"uuid":5`,
	hostile.User("u1", "", "hi 😀") + "\n",
	hostile.User("u3", "u2", "again") + "\n",
	hostile.ToolUse("u2", "u1", "m1", "t1", "Bash", "") + "\n",
	hostile.ToolResult("u4", "u2", "t1", "ok", "") + "\n",
	hostile.ToolResult("u5", "u4", "t1", "dup", "a1") + "\n",
	hostile.Assistant("u6", "u5", "m2", "done") + "\r\n",
	`{"type":"user","uuid":"u7","parentUuid":"u7"}` + "\n",
	`{"type":"assistant","uuid":"u8","parentUuid":"u3","message":{"content":[{"type":"tool_use","id":"t1","name":"Task"}]}}`,
	`{"type":"user","uuid":"u1","parentUuid":"u6","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"t1"},{"type":"tool_use","id":"t1"}]}}` + "\n",
	`{"type":"user","uuid":"u9","logicalParentUuid":"u2","toolUseResult":{"agentId":"a2"},"message":{"content":[{"type":"tool_result","tool_use_id":"t2"}]}}` + "\n",
	hostile.ToolUse("u2", "u9", "m3", "t2", "Agent", "") + "\n",
}

// FuzzEdit applies random edit sequences through Session.Edit and Session.SetText (inserts,
// deletions, replacements across lines, appends, inverted ranges, whole replacements, CRLF and
// multi-byte characters, any byte offsets) to a session of two files, and after every edit compares
// the incrementally updated findings with a fresh parse of the same text.
func FuzzEdit(f *testing.F) {
	for i, s := range seedLogs() {
		f.Add(s, []byte{byte(i), 0, 3, 17, 5, 1, 0, 9, 2, 200, 1, 7, 3, 4, 4, 4, 0, 0, 0, 5, 6})
	}
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		s := load(data)
		c := check.New(s)
		next := func() int {
			if len(ops) == 0 {
				return 0
			}
			b := int(ops[0])
			ops = ops[1:]
			return b
		}
		for step := 0; len(ops) > 0 && step < 24; step++ {
			file := s.Files[next()%len(s.Files)]
			n := len(file.Text())
			pos := func() int { return (next()<<8 | next()) % (n + 1) }
			kind, a, b := next()%8, pos(), pos()
			piece := []byte(snippets[next()%len(snippets)])
			desc := ""
			switch kind {
			case 0: // insert
				s.Edit(file, a, a, piece)
				desc = fmt.Sprintf("insert %q at %d", piece, a)
			case 1: // delete (the range may be inverted)
				s.Edit(file, a, b, nil)
				desc = fmt.Sprintf("delete %d..%d", a, b)
			case 2: // replace
				s.Edit(file, a, b, piece)
				desc = fmt.Sprintf("replace %d..%d with %q", a, b, piece)
			case 3: // append, as a live session does
				s.Edit(file, n, n, piece)
				desc = fmt.Sprintf("append %q", piece)
			case 4: // an editor reloading a grown file: whole text, the old one plus a piece
				s.SetText(file, slices.Concat(file.Text(), piece))
				desc = fmt.Sprintf("SetText(old + %q)", piece)
			case 5: // whole replacement with an edited copy
				nt := slices.Concat(file.Text()[:min(a, b)], piece, file.Text()[max(a, b):])
				s.SetText(file, nt)
				desc = fmt.Sprintf("SetText(old with %d..%d = %q)", min(a, b), max(a, b), piece)
			case 6: // raw bytes from the fuzzer
				k := next() % 16
				raw := ops[:min(len(ops), k)]
				ops = ops[len(raw):]
				s.Edit(file, a, b, raw)
				desc = fmt.Sprintf("replace %d..%d with raw %q", a, b, raw)
			case 7: // clear or truncate
				s.SetText(file, slices.Clone(file.Text()[:a]))
				desc = fmt.Sprintf("truncate to %d", a)
			}
			c.Update()
			if d := hostile.Disagreement(c); d != "" {
				t.Fatalf("after step %d (%s) on %s:\n%s\ntext now: %q", step, desc, file.Path, d, file.Text())
			}
		}
		wellFormed(t, c)
	})
}
