package hostile

// The hostile logs of issue 5, each a test: a clear finding (or a clear absence of one), no crash, no
// recursion that can overflow the stack, nothing quadratic, and the engine still answering the next
// edit. Time bounds are left to `go test -timeout`; sizes are the issue's own.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

type counts map[check.Code]int

// run checks text as a one-file session and verifies that every finding is well formed.
func run(t *testing.T, text []byte) (*session.Session, *check.Checker, counts) {
	t.Helper()
	s := layout.SessionOf(session.NewFile("/hostile/"+strings.ReplaceAll(t.Name(), "/", "_")+".jsonl", text))
	c := check.New(s)
	return s, c, tally(t, c)
}

func tally(t *testing.T, c *check.Checker) counts {
	t.Helper()
	n := counts{}
	for _, fd := range c.All(nil) {
		n[fd.Code]++
		wellFormed(t, fd)
	}
	return n
}

// wellFormed checks that a finding points inside its file, maps to LSP positions and says something
// readable.
func wellFormed(t *testing.T, fd check.Finding) {
	t.Helper()
	if fd.Line < 0 || fd.Line >= fd.File.LineCount() {
		t.Fatalf("%s finding on line %d of a %d-line file", fd.Code, fd.Line+1, fd.File.LineCount())
	}
	line := fd.File.Line(fd.Line)
	if fd.Span.Start < 0 || fd.Span.Start > fd.Span.End || int(fd.Span.End) > len(line) {
		t.Fatalf("%s finding: span %v outside its %d-byte line", fd.Code, fd.Span, len(line))
	}
	position.SpanRange(fd.Line, line, int(fd.Span.Start), int(fd.Span.End))
	if fd.Message == "" || !utf8.ValidString(fd.Message) {
		t.Fatalf("%s finding: message %q is empty or not UTF-8", fd.Code, fd.Message)
	}
	for _, r := range fd.Message {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("%s finding: message holds control character %U (a terminal escape from the log?): %q", fd.Code, r, fd.Message)
		}
	}
	if _, ok := check.Defaults[fd.Code]; !ok {
		t.Fatalf("unknown code %q", fd.Code)
	}
	for _, rel := range fd.Related {
		if rel.Line < 0 || rel.Line >= rel.File.LineCount() || int(rel.Span.End) > len(rel.File.Line(rel.Line)) {
			t.Fatalf("%s finding: related place %d:%v out of range", fd.Code, rel.Line+1, rel.Span)
		}
	}
}

func expect(t *testing.T, got counts, want counts) {
	t.Helper()
	for code, n := range want {
		if got[code] != n {
			t.Errorf("%s: %d findings, want %d (all: %v)", code, got[code], n, got)
		}
	}
	for code, n := range got {
		if _, ok := want[code]; !ok {
			t.Errorf("unexpected %d %s findings (all: %v)", n, code, got)
		}
	}
}

// agrees checks that the incrementally updated checker matches a fresh parse of the same text.
func agrees(t *testing.T, c *check.Checker) {
	t.Helper()
	c.Update()
	if d := Disagreement(c); d != "" {
		t.Fatal(d)
	}
}

// edit replaces the first occurrence of old in f with repl through Session.Edit.
func edit(t *testing.T, s *session.Session, f *session.File, old, repl string) {
	t.Helper()
	i := bytes.Index(f.Text(), []byte(old))
	if i < 0 {
		t.Fatalf("%q not in the file", old)
	}
	s.Edit(f, i, i+len(old), []byte(repl))
}

// tiny is a small chain record: a progress record with a uuid and a parent.
func tiny(uuid, parent string) string {
	if parent == "" {
		return `{"type":"progress","uuid":"` + uuid + `","parentUuid":null}`
	}
	return `{"type":"progress","uuid":"` + uuid + `","parentUuid":"` + parent + `"}`
}

func chain(n int, reverse bool) []byte {
	var b bytes.Buffer
	b.Grow(n * 56)
	for k := 0; k < n; k++ {
		i := k
		if reverse {
			i = n - 1 - k
		}
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf("u%07d", i-1)
		}
		b.WriteString(tiny(fmt.Sprintf("u%07d", i), parent))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestEmptyFile(t *testing.T) {
	s, c, n := run(t, nil)
	expect(t, n, counts{})
	if s.RecordCount() != 0 {
		t.Errorf("%d records in an empty file", s.RecordCount())
	}
	// The next edit is still handled: the first record of a new session arrives.
	s.Edit(s.Files[0], 0, 0, []byte(User("a", "", "hi")+"\n"))
	agrees(t, c)
}

func TestOnlyBlankLines(t *testing.T) {
	s, c, n := run(t, []byte("\n\n   \n\t\r\n\r\n \t \n"))
	expect(t, n, counts{})
	if s.RecordCount() != 0 {
		t.Errorf("%d records in a file of blank lines", s.RecordCount())
	}
	s.Edit(s.Files[0], 1, 1, []byte(User("a", "missing", "hi")+"\n"))
	agrees(t, c)
	expect(t, tally(t, c), counts{check.Orphan: 1})
}

func TestByteOrderMark(t *testing.T) {
	text := append([]byte("\xEF\xBB\xBF"), Lines(User("a", "", "hi"), Assistant("b", "a", "m", "hello"))...)
	s, _, n := run(t, text)
	expect(t, n, counts{}) // the BOM'd first record parses, so its child is no orphan
	if r := s.Lookup("a"); r == nil || r.Line != 0 {
		t.Fatalf("the record after the BOM is not read: %v", r)
	}
	// A BOM elsewhere than the file's start is junk before a record.
	_, _, n = run(t, append(Lines(User("a", "", "hi")), []byte("\xEF\xBB\xBF\xEF\xBB\xBF"+Assistant("b", "a", "m", "x")+"\n")...))
	expect(t, n, counts{check.InvalidJSON: 1})
}

func TestCRLFLineEndings(t *testing.T) {
	text := []byte(User("a", "", "hi") + "\r\n" + ToolUse("b", "a", "m", "t1", "Read", "") + "\r\n" +
		ToolResult("c", "b", "t1", "ok", "") + "\r\n" + Assistant("d", "c", "m2", "done") + "\r\n")
	s, c, n := run(t, text)
	expect(t, n, counts{})
	for i := 0; i < s.Files[0].LineCount(); i++ {
		if bytes.HasSuffix(s.Files[0].Line(i), []byte("\r")) {
			t.Fatalf("line %d keeps its \\r", i+1)
		}
	}
	r := s.Lookup("b")
	if got := string(r.Bytes(r.UUIDSpan)); got != `"b"` {
		t.Errorf("uuid span covers %q", got)
	}
	// A truncated CRLF file: the last line has no line end and does not parse.
	s.Edit(s.Files[0], len(text), len(text), []byte(`{"type":"user","uuid":"e","par`))
	agrees(t, c)
	expect(t, tally(t, c), counts{check.IncompleteLastLine: 1})
	// Breaking a CRLF pair in the middle of the file.
	i := bytes.Index(s.Files[0].Text(), []byte("\r\n"))
	s.Edit(s.Files[0], i+1, i+1, []byte("junk"))
	agrees(t, c)
}

func TestNULAndBinaryJunk(t *testing.T) {
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(i*7 + i/13) // every byte value, NUL included, no newline pattern
		if junk[i] == '\n' {
			junk[i] = 0
		}
	}
	text := Lines(User("a", "", "hi"))
	text = append(text, junk...)
	text = append(text, '\n', 0, 0, 0, '\n')
	text = append(text, Lines(Assistant("b", "a", "m", "after the junk"),
		`{"type":"user","uuid":"c","parentUuid":"b","message":{"content":"NUL \u0000 escaped and`+"\x00 raw\x01\x7f"+`"}}`)...)
	s, c, n := run(t, text)
	expect(t, n, counts{check.InvalidJSON: 2})
	if s.Lookup("b") == nil || s.Lookup("c") == nil {
		t.Fatal("records after binary junk are lost")
	}
	for _, fd := range c.All(nil) {
		if !strings.Contains(fd.Message, "control character") && !strings.Contains(fd.Message, "byte 0x") {
			t.Errorf("junk line %d: message does not say what it found: %q", fd.Line+1, fd.Message)
		}
	}
	// Replacing the junk with a record heals the file.
	f := s.Files[0]
	s.Edit(f, f.LineStart(1), f.LineStart(3), []byte(Progress("p", "a", "t")+"\n"))
	agrees(t, c)
	expect(t, tally(t, c), counts{})
}

func TestInvalidUTF8InStrings(t *testing.T) {
	bad := "\xff\xfe\xc3(\xed\xa0\x80" // stray bytes, a broken sequence, a UTF-8 encoded surrogate
	text := Lines(
		`{"type":"user","uuid":"u`+bad+`","parentUuid":null,"message":{"content":"t`+bad+`"}}`,
		`{"type":"assistant","uuid":"v","parentUuid":"u`+bad+`","message":{"id":"m","content":[{"type":"tool_use","id":"t`+bad+`","name":"N`+bad+`\u001b[2J","input":{}}]}}`,
		`{"type":"user","uuid":"w","parentUuid":"v","message":{"content":"go on"}}`,
		`{"type":"user","uuid":"x","parentUuid":"\u001b]0;pwned\u0007`+bad+`"}`,
	)
	s, _, n := run(t, text)
	// The uuid with bad bytes still links its child; the unanswered call and the orphan are reported
	// with messages that are valid UTF-8 and hold no terminal escapes (checked by run).
	expect(t, n, counts{check.UnmatchedToolUse: 1, check.Orphan: 1})
	if p := s.Parent(s.Lookup("v")); p == nil || p.Line != 0 {
		t.Fatal("a uuid holding invalid UTF-8 does not resolve")
	}
}

func TestFiftyMegabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	unit := "ab\\\"cd 😀 \\u4e2d "
	big := strings.Repeat(unit, 50<<20/len(unit)+1)
	huge := `{"type":"user","uuid":"big","parentUuid":"a","message":{"content":"` + big + `"}}`
	text := Lines(User("a", "", "hi"), huge, Assistant("b", "big", "m", "read it"))
	s, c, n := run(t, text)
	expect(t, n, counts{})
	if len(s.Files[0].Line(1)) < 50<<20 {
		t.Fatalf("line is %d bytes", len(s.Files[0].Line(1)))
	}
	// Appending to the file does not touch the big line.
	f := s.Files[0]
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(User("c", "b", "more")+"\n"))
	c.Update()
	expect(t, tally(t, c), counts{})

	// The same line cut off: mid-file it is invalid JSON, at the end an incomplete last line.
	cut := huge[:len(huge)/2]
	_, _, n = run(t, Lines(User("a", "", "hi"), cut, Assistant("b", "a", "m", "x")))
	expect(t, n, counts{check.InvalidJSON: 1})
	_, _, n = run(t, []byte(User("a", "", "hi")+"\n"+cut))
	expect(t, n, counts{check.IncompleteLastLine: 1})
	// 50 MB of one unclosed array: a file whose only line is no object is not JSON Lines at all.
	_, _, n = run(t, []byte(strings.Repeat("[", 50<<20)+"\n"))
	expect(t, n, counts{check.NotJSONL: 1})
}

func TestMillionTinyRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	text := bytes.Repeat([]byte(`{"type":"x"}`+"\n"), 1_000_000)
	s, c, n := run(t, text)
	expect(t, n, counts{})
	if s.RecordCount() != 1_000_000 {
		t.Fatalf("%d records", s.RecordCount())
	}
	// Appending one record stays incremental and correct.
	f := s.Files[0]
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(User("a", "nope", "x")+"\n"))
	c.Update()
	expect(t, tally(t, c), counts{check.Orphan: 1})
}

func TestChainMillionDeep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s, c, n := run(t, chain(1_000_000, false))
	expect(t, n, counts{})
	if cy := s.Cycles(); len(cy) != 0 {
		t.Fatalf("%d records on cycles in a straight chain", len(cy))
	}
	// Close the chain into a cycle of a million records: its root now names the last record.
	f := s.Files[0]
	edit(t, s, f, `"uuid":"u0000000","parentUuid":null`, `"uuid":"u0000000","parentUuid":"u0999999"`)
	c.Update()
	expect(t, tally(t, c), counts{check.ParentCycle: 1_000_000, check.ParentAfterChild: 1})

	// Written children first: every parent comes later in the file.
	_, _, n = run(t, chain(1_000_000, true))
	expect(t, n, counts{check.ParentAfterChild: 999_999})
}

func TestCycleOfOne(t *testing.T) {
	s, c, n := run(t, Lines(User("a", "", "hi"), tiny("self", "self"), tiny("kid", "self")))
	expect(t, n, counts{check.ParentCycle: 1})
	fd := c.All(nil)[0]
	if fd.Line != 1 || !strings.Contains(fd.Message, "self") {
		t.Errorf("cycle finding at line %d: %q", fd.Line+1, fd.Message)
	}
	edit(t, s, s.Files[0], `"parentUuid":"self"`, `"parentUuid":"a"`)
	agrees(t, c)
	expect(t, tally(t, c), counts{})
}

func TestCycleOfHundredThousand(t *testing.T) {
	const n = 100_000
	var recs []string
	for i := 0; i < n; i++ {
		recs = append(recs, tiny(fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", (i+n-1)%n)))
	}
	recs = append(recs, tiny("tail", "c500"), User("root", "", "a healthy root"))
	s, c, got := run(t, Lines(recs...))
	expect(t, got, counts{check.ParentCycle: n, check.ParentAfterChild: 1})
	if len(s.Cycles()) != n {
		t.Fatalf("Cycles() = %d records", len(s.Cycles()))
	}
	// Breaking one link ends the cycle; the incremental update agrees with a fresh parse.
	edit(t, s, s.Files[0], `"uuid":"c0","parentUuid":"c99999"`, `"uuid":"c0","parentUuid":null`)
	agrees(t, c)
	expect(t, tally(t, c), counts{})
}

func TestEveryRecordARoot(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 100_000; i++ {
		b.WriteString(tiny(fmt.Sprintf("r%d", i), ""))
		b.WriteByte('\n')
	}
	s, c, n := run(t, b.Bytes())
	expect(t, n, counts{})
	s.Edit(s.Files[0], 0, 0, []byte(tiny("r5", "")+"\n"))
	agrees(t, c)
	expect(t, tally(t, c), counts{check.DuplicateUUID: 1})
}

func TestOneParentHundredThousandChildren(t *testing.T) {
	recs := []string{User("p", "", "the parent")}
	for i := 0; i < 100_000; i++ {
		recs = append(recs, tiny(fmt.Sprintf("k%d", i), "p"))
	}
	s, c, n := run(t, Lines(recs...))
	expect(t, n, counts{})
	if kids := s.Children(s.Lookup("p")); len(kids) != 100_000 || kids[0].Line != 1 {
		t.Fatalf("%d children", len(kids))
	}
	// Deleting the parent orphans every child; restoring it heals them.
	f := s.Files[0]
	s.Edit(f, 0, f.LineStart(1), nil)
	c.Update()
	expect(t, tally(t, c), counts{check.Orphan: 100_000})
	s.Edit(f, 0, 0, []byte(User("p", "", "back")+"\n"))
	agrees(t, c)
	expect(t, tally(t, c), counts{})
	// Replacing the whole text, and closing the file, take every child out at once.
	s.SetText(f, []byte(User("q", "", "new text")+"\n"))
	agrees(t, c)
	s.SetText(f, Lines(recs...))
	c.Update()
	s.RemoveFile(f)
	c.Update()
	if len(c.All(nil)) != 0 || s.RecordCount() != 0 {
		t.Fatal("findings or records left after the file was removed")
	}
}

func TestToolUseAnsweredTenThousandTimes(t *testing.T) {
	recs := []string{User("a", "", "go"), ToolUse("b", "a", "m", "toolu_1", "Bash", `{"command":"ls"}`)}
	for i := 0; i < 10_000; i++ {
		recs = append(recs, ToolResult(fmt.Sprintf("r%d", i), "b", "toolu_1", "ok", ""))
	}
	s, c, n := run(t, Lines(recs...))
	expect(t, n, counts{check.DuplicateToolResult: 9_999})
	for _, fd := range c.All(nil) {
		if len(fd.Related) != 1 || fd.Related[0].Line != 2 {
			t.Fatalf("duplicate at line %d does not point at the first result (line 3): %+v", fd.Line+1, fd.Related)
		}
	}
	// Removing the first answer moves "first" to the next one.
	f := s.Files[0]
	s.Edit(f, f.LineStart(2), f.LineStart(3), nil)
	agrees(t, c)
	expect(t, tally(t, c), counts{check.DuplicateToolResult: 9_998})
}

func TestNestedHundredThousandDeep(t *testing.T) {
	const n = 100_000
	arr := strings.Repeat("[", n) + strings.Repeat("]", n)
	obj := strings.Repeat(`{"k":`, n) + "1" + strings.Repeat("}", n)
	text := Lines(
		`{"type":"user","uuid":"a","parentUuid":null,"message":{"content":`+arr+`}}`,
		`{"type":"assistant","uuid":"b","parentUuid":"a","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"X","input":`+obj+`}]}}`,
		`{"type":"user","uuid":"c","parentUuid":"b","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":`+arr+`}]},"toolUseResult":`+obj+`}`,
		arr,
		`{"type":"user","uuid":"d","parentUuid":"c","deep":`+strings.Repeat("[", n)+`}`,
		`{"type":"user","uuid":"e","parentUuid":"c","deep":`+strings.Repeat(`{"k":`, n)+`}`,
	)
	_, _, got := run(t, text)
	expect(t, got, counts{check.NotAnObject: 1, check.InvalidJSON: 2})
}

func TestWrongTypes(t *testing.T) {
	text := Lines(
		User("root", "", "hi"),
		`{"type":"user","uuid":5,"parentUuid":"root","message":{"content":"x"}}`,
		`{"type":"user","uuid":"b","parentUuid":[],"message":{"content":{}}}`,
		`{"type":"user","uuid":"c","parentUuid":{"x":1},"logicalParentUuid":true,"sessionId":7,"agentId":[1]}`,
		`{"type":5,"uuid":"d","parentUuid":"c","isSidechain":"yes","message":"a string"}`,
		`{"type":"assistant","uuid":"e","parentUuid":"d","message":{"id":{},"model":[],"content":[1,"x",null,{"type":"tool_use","id":5,"name":{}},{"type":[]}],"usage":{"input_tokens":"many","output_tokens":1e400}}}`,
		`{"type":"user","uuid":"f","parentUuid":"e","message":[],"toolUseResult":[{"agentId":5}]}`,
		`{"type":"user","uuid":"g","parentUuid":"f","message":{"content":[{"type":"tool_result","tool_use_id":{"id":"x"},"content":5,"is_error":"yes"}]},"toolUseResult":{"agentId":5,"totalDurationMs":"long","status":9}}`,
	)
	s, c, n := run(t, text)
	// uuid, parentUuid twice, logicalParentUuid, sessionId, agentId, and output_tokens 1e400 (not a
	// count: docs/spec.md §15): each an invalid-field finding on the offending value, the record
	// read as if the field were absent. A count of another type ("many", "long") is skipped.
	expect(t, n, counts{check.InvalidField: 7})
	for _, fd := range c.All(nil) {
		v := string(fd.File.Line(fd.Line)[fd.Span.Start:fd.Span.End])
		switch v {
		case "5", "[]", `{"x":1}`, "true", "7", "[1]", "1e400":
		default:
			t.Errorf("invalid-field on line %d covers %q, not the value", fd.Line+1, v)
		}
	}
	if s.Lookup("b") == nil || s.Lookup("e") == nil {
		t.Fatal("records with wrong-typed fields drop out of the chain")
	}
	s.Edit(s.Files[0], 0, 0, []byte(`{"uuid":[`+"\n"))
	agrees(t, c)
}

func TestDuplicateKeys(t *testing.T) {
	// The last value wins, as in JSON.parse and encoding/json.
	text := Lines(
		User("a", "", "hi"),
		`{"type":"user","uuid":"x","uuid":"b","parentUuid":"nowhere","parentUuid":"a","type":"assistant"}`,
		`{"type":"user","uuid":"c","parentUuid":"b","message":{"content":[{"type":"tool_use","id":"t1","name":"A"}]},"message":{"content":"plain"}}`,
	)
	s, _, n := run(t, text)
	expect(t, n, counts{})
	r := s.Lookup("b")
	if r == nil || r.Parent != "a" || r.Type != "assistant" || s.Lookup("x") != nil {
		t.Fatalf("duplicate keys: %+v", r)
	}
	if c := s.Lookup("c"); len(c.D().Blocks) != 0 || !c.Has(jsonl.FlagContentString) {
		t.Fatalf("the second message should win: %+v", c.Record)
	}
}

func TestTwoRecordsGluedOnOneLine(t *testing.T) {
	text := Lines(
		User("a", "", "hi"),
		Assistant("b", "a", "m", "one")+Assistant("c", "b", "m2", "two"),
		User("d", "c", "next"),
	)
	_, c, n := run(t, text)
	expect(t, n, counts{check.InvalidJSON: 1, check.Orphan: 1})
	for _, fd := range c.All(nil) {
		if fd.Code == check.InvalidJSON && !strings.Contains(fd.Message, "two records") {
			t.Errorf("glued records: message %q does not say so", fd.Message)
		}
	}
}

func TestTruncatedRecordMidFile(t *testing.T) {
	full := Assistant("b", "a", "m", "a reply that was cut off")
	text := Lines(User("a", "", "hi"), full[:len(full)/2], User("c", "a", "next"))
	s, c, n := run(t, text)
	expect(t, n, counts{check.InvalidJSON: 1})
	fd := c.All(nil)[0]
	if fd.Line != 1 || !strings.Contains(fd.Message, "truncated") && !strings.Contains(fd.Message, "never closed") {
		t.Errorf("truncated record: line %d, %q", fd.Line+1, fd.Message)
	}
	// The same record at the end, still being written.
	_, _, n = run(t, []byte(User("a", "", "hi")+"\n"+full[:len(full)/2]))
	expect(t, n, counts{check.IncompleteLastLine: 1})
	// Completing the line heals it.
	f := s.Files[0]
	s.Edit(f, f.LineStart(1), f.LineStart(2), []byte(full+"\n"))
	agrees(t, c)
	expect(t, tally(t, c), counts{})
}

// A file that changes on disk while it is read: a writer appends whole records (as Claude Code
// does) and now and then rewrites the file shorter, while the reader loads it and feeds each read
// to one long-lived session. Every read must load; the only finding a torn read may cause is an
// incomplete last line; the incremental state must always match a fresh parse.
func TestFileChangingWhileRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SessionID+".jsonl")
	if err := os.WriteFile(path, Lines(User("u0", "", "start")), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error)
	var rewrites atomic.Int64 // counts truncating rewrites; a read that spans one may see any mix
	go func() {
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			done <- err
			return
		}
		defer fh.Close()
		for i := 1; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if i%500 == 0 {
				rewrites.Add(1)
				fh.Truncate(0)
				fh.Write(Lines(User(fmt.Sprintf("u%d", i), "", "rewritten")))
				continue
			}
			rec := Assistant(fmt.Sprintf("u%d", i), fmt.Sprintf("u%d", i-1), "m", strings.Repeat("z", i%3000))
			if _, err := fh.Write([]byte(rec + "\n")); err != nil {
				done <- err
				return
			}
		}
	}()
	var s *session.Session
	var c *check.Checker
	changes, last := 0, -1
	// Read at least 300 times, until the file has changed between 50 reads and been rewritten 3 times.
	for round := 0; round < 300 || changes < 50 || rewrites.Load() < 3; round++ {
		before := rewrites.Load()
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		torn := rewrites.Load() != before // the read overlapped a rewrite: any mix of old and new
		if len(text) != last {
			changes++
			last = len(text)
		}
		if s == nil {
			ls, err := layout.Load(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, c = ls, check.New(ls)
		}
		s.SetText(s.Files[0], text)
		c.Update()
		for _, fd := range c.All(nil) {
			wellFormed(t, fd)
			switch {
			case fd.Code == check.IncompleteLastLine: // a record still being appended
			case torn:
			default:
				t.Fatalf("round %d: %s at line %d: %s", round, fd.Code, fd.Line+1, fd.Message)
			}
		}
		if round%50 == 0 {
			if d := Disagreement(c); d != "" {
				t.Fatal(d)
			}
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("the file changed between %d reads, %d rewrites", changes, rewrites.Load())
	// A file deleted between discovery and reading is an error, not a crash.
	found, err := layout.Discover(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if _, err := layout.LoadFound(found, nil); err == nil {
		t.Error("loading a vanished main log succeeded")
	}
}

// writeSession lays out a main log whose Task calls spawned n sub-agents, each with its own log,
// in the 2.1 layout (nested under <id>/subagents) or the 2.0 one (flat, beside the main log).
func writeSession(t *testing.T, dir string, n int, nested bool) string {
	t.Helper()
	var main []string
	main = append(main, User("root", "", "spawn them all"))
	parent := "root"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("a%07x", i)
		tool := fmt.Sprintf("toolu_spawn_%d", i)
		main = append(main,
			ToolUse(fmt.Sprintf("s%d", i), parent, fmt.Sprintf("m%d", i), tool, "Task", `{"description":"sub","prompt":"look","subagent_type":"Explore"}`),
			ToolResult(fmt.Sprintf("r%d", i), fmt.Sprintf("s%d", i), tool, "done", id))
		parent = fmt.Sprintf("r%d", i)
		agentDir := dir
		if nested {
			agentDir = filepath.Join(dir, SessionID, "subagents")
		}
		if err := os.MkdirAll(agentDir, 0o755); err != nil {
			t.Fatal(err)
		}
		log, _ := Turns("ag"+id, "", 1, 0)
		if err := os.WriteFile(filepath.Join(agentDir, "agent-"+id+".jsonl"), log, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, SessionID+".jsonl")
	if err := os.WriteFile(path, Lines(main...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestThousandAgentLogs(t *testing.T) {
	for _, nested := range []bool{true, false} {
		t.Run(fmt.Sprintf("nested=%v", nested), func(t *testing.T) {
			path := writeSession(t, t.TempDir(), 1000, nested)
			s, err := layout.Load(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Files) != 1001 {
				t.Fatalf("%d files loaded, want 1001", len(s.Files))
			}
			c := check.New(s)
			expect(t, tally(t, c), counts{})
			// Opening an agent log finds the same session.
			found, err := layout.Discover(s.Files[500].Path)
			if err != nil || len(found.Agents) != 1000 || found.Main != path {
				t.Fatalf("from an agent log: %d agents, main %q, %v", len(found.Agents), found.Main, err)
			}
			// Edits to the main log stay incremental and correct with a thousand files around.
			m := s.Main()
			for i := 0; i < 200; i++ {
				s.Edit(m, len(m.Text()), len(m.Text()), []byte(User(fmt.Sprintf("x%d", i), "r999", "more")+"\n"))
				c.Update()
			}
			s.RemoveFile(s.Files[1])
			agrees(t, c)
			expect(t, tally(t, c), counts{check.MissingAgentFile: 1})
		})
	}
}

// symlinks builds a session folder whose links point out of it, and returns the main log's path
// and the outside folder.
func symlinks(t *testing.T) (main, outside string) {
	t.Helper()
	root := t.TempDir()
	outside = filepath.Join(root, "outside")
	dir := filepath.Join(root, "projects", "p")
	sub := filepath.Join(dir, SessionID, "subagents")
	for _, d := range []string{outside, filepath.Join(outside, "subagents"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := Lines(User("secret", "", "outside the session folder"))
	for _, p := range []string{"agent-secret.jsonl", "agent-flat.jsonl", "subagents/agent-deep.jsonl", "agent-secret.meta.json"} {
		if err := os.WriteFile(filepath.Join(outside, p), secret, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main = filepath.Join(dir, SessionID+".jsonl")
	os.WriteFile(main, Lines(User("root", "", "hi")), 0o644)
	inside, _ := Turns("in", "", 1, 0)
	os.WriteFile(filepath.Join(sub, "agent-inside.jsonl"), inside, 0o644)
	links := map[string]string{
		filepath.Join(sub, "agent-evil.jsonl"):        filepath.Join(outside, "agent-secret.jsonl"),
		filepath.Join(sub, "linkdir"):                 filepath.Join(outside, "subagents"),
		filepath.Join(sub, "agent-inside.meta.json"):  filepath.Join(outside, "agent-secret.meta.json"),
		filepath.Join(dir, "agent-flat.jsonl"):        filepath.Join(outside, "agent-flat.jsonl"),
		filepath.Join(sub, "agent-alias.jsonl"):       filepath.Join(sub, "agent-inside.jsonl"), // stays inside: allowed
		filepath.Join(sub, "agent-dangling.jsonl"):    filepath.Join(outside, "nothing-here.jsonl"),
		filepath.Join(sub, "agent-loop.jsonl"):        filepath.Join(sub, "agent-loop.jsonl"),
		filepath.Join(sub, "agent-updir.jsonl"):       "../../../../outside/agent-secret.jsonl",
		filepath.Join(dir, SessionID, "tool-results"): outside,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return main, outside
}

func TestSymlinksOutOfTheSessionFolder(t *testing.T) {
	main, outside := symlinks(t)
	found, err := layout.Discover(main)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range found.Agents {
		ids = append(ids, a.AgentID)
		if a.Meta != "" {
			t.Errorf("meta file %s is a link out of the folder and was taken", a.Meta)
		}
	}
	if strings.Join(ids, ",") != "alias,inside" {
		t.Errorf("agents found: %v, want only alias and inside (links out of the folder refused)", ids)
	}
	var read []string
	s, err := layout.Load(main, func(p string) ([]byte, error) {
		read = append(read, p)
		return os.ReadFile(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range read {
		real, _ := filepath.EvalSymlinks(p)
		if strings.HasPrefix(real, outside) {
			t.Errorf("read %s (%s), outside the session folder", p, real)
		}
	}
	if s.Lookup("secret") != nil {
		t.Error("a record from outside the session folder was loaded")
	}
}

// The session's own folder (<sessionId>/) or its subagents/ folder being a link out is refused too.
func TestSessionFolderItselfALink(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	os.MkdirAll(filepath.Join(outside, "subagents"), 0o755)
	os.WriteFile(filepath.Join(outside, "subagents", "agent-x.jsonl"), Lines(User("secret", "", "s")), 0o644)
	for i, link := range []string{SessionID, SessionID + "/subagents"} {
		dir := filepath.Join(root, fmt.Sprint("p", i))
		os.MkdirAll(dir, 0o755)
		main := filepath.Join(dir, SessionID+".jsonl")
		os.WriteFile(main, Lines(User("root", "", "hi")), 0o644)
		target := outside
		if i == 1 {
			os.MkdirAll(filepath.Join(dir, SessionID), 0o755)
			target = filepath.Join(outside, "subagents")
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		found, err := layout.Discover(main)
		if err != nil {
			t.Fatal(err)
		}
		if len(found.Agents) != 0 {
			t.Errorf("%s is a link out of the folder, yet %d agent logs were found through it: %v", link, len(found.Agents), found.Agents)
		}
	}
}

// Paths inside a log's content are never followed: a flat agent log's sessionId that climbs out of
// the folder, agent ids and file paths that name other places.
func TestPathsFromLogContentAreNotFollowed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "projects", "p")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(root, "secret.jsonl"), Lines(User("secret", "", "s")), 0o644)
	evilID := "../../secret"
	agent := `{"type":"user","uuid":"a1","parentUuid":null,"sessionId":` + Q(evilID) + `,"agentId":"../../secret","message":{"content":"x"}}`
	agentPath := filepath.Join(dir, "agent-evil.jsonl")
	os.WriteFile(agentPath, Lines(agent), 0o644)
	found, err := layout.Discover(agentPath)
	if err != nil {
		t.Fatal(err)
	}
	if found.Main != "" {
		t.Fatalf("a sessionId from the log's content led to %s", found.Main)
	}
	main := filepath.Join(dir, SessionID+".jsonl")
	os.WriteFile(main, Lines(
		User("root", "", "x"),
		ToolUse("s", "root", "m", "t1", "Task", `{"prompt":"see /etc/passwd","file_path":"../../secret.jsonl"}`),
		ToolResult("r", "s", "t1", "done", "../../../secret"),
	), 0o644)
	var read []string
	s, err := layout.Load(main, func(p string) ([]byte, error) {
		read = append(read, p)
		return os.ReadFile(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lookup("secret") != nil || len(read) != 1 || read[0] != main {
		t.Errorf("read %v", read)
	}
	expect(t, tally(t, check.New(s)), counts{check.MissingAgentFile: 1})
}

// Hostile meta.json files beside agent logs: deeply nested, huge, wrong types.
func TestHostileAgentMeta(t *testing.T) {
	dir := t.TempDir()
	main := writeSession(t, dir, 4, true)
	sub := filepath.Join(dir, SessionID, "subagents")
	metas := []string{
		strings.Repeat("[", 900_000),
		strings.Repeat(`{"a":`, 100_000),
		`{"agentType":5,"spawnDepth":"x","toolUseId":[]}`,
		strings.Repeat(" ", 2<<20) + `{"agentType":"Explore"}`,
	}
	for i, m := range metas {
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("agent-a%07x.meta.json", i)), []byte(m), 0o644)
	}
	s, err := layout.Load(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 5 {
		t.Fatalf("%d files", len(s.Files))
	}
	expect(t, tally(t, check.New(s)), counts{})
}

// Paths that are not regular files (a FIFO that would block for ever, /dev/zero that never ends) are
// refused, whether named directly or found where a session's files live.
func TestDevicesAndFIFOsAreNotRead(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, SessionID, "subagents")
	os.MkdirAll(sub, 0o755)
	if err := mkfifo(filepath.Join(sub, "agent-fifo.jsonl")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	os.Symlink("/dev/zero", filepath.Join(sub, "agent-zero.jsonl"))
	main := filepath.Join(dir, SessionID+".jsonl")
	os.WriteFile(main, Lines(User("root", "", "hi")), 0o644)
	s, err := layout.Load(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 1 {
		t.Errorf("%d files loaded; the FIFO and the device should be skipped", len(s.Files))
	}
	for _, p := range []string{filepath.Join(sub, "agent-fifo.jsonl"), "/dev/zero"} {
		if _, err := layout.ReadFile(p, ""); err == nil {
			t.Errorf("ReadFile(%s) read it", p)
		}
	}
	fifoMain := filepath.Join(t.TempDir(), SessionID+".jsonl")
	mkfifo(fifoMain)
	if _, err := layout.Load(fifoMain, nil); err == nil {
		t.Error("a FIFO named as the main log was read")
	}
	zeroMain := filepath.Join(t.TempDir(), SessionID+".jsonl")
	os.Symlink("/dev/zero", zeroMain)
	if _, err := layout.Load(zeroMain, nil); err == nil {
		t.Error("/dev/zero named as the main log was read")
	}
}

// Many records sharing one id: 50 000 copies of one uuid, 50 000 tool_use blocks with one id,
// 50 000 answers to one call. Checking them must stay linear (each duplicate names the first;
// nothing compares every pair), and an edit among them must stay cheap.
func TestManyDuplicates(t *testing.T) {
	const n = 50_000
	var uuids, uses, results bytes.Buffer
	results.WriteString(User("a", "", "x") + "\n" + ToolUse("b", "a", "m", "toolu_1", "Bash", "") + "\n")
	uses.WriteString(User("a", "", "x") + "\n")
	for i := 0; i < n; i++ {
		uuids.WriteString(tiny("same", "") + "\n")
		uses.WriteString(ToolUse(fmt.Sprintf("u%d", i), "a", "m", "toolu_same", "Bash", "") + "\n")
		results.WriteString(ToolResult(fmt.Sprintf("r%d", i), "b", "toolu_1", "ok", "") + "\n")
	}
	for _, c := range []struct {
		name string
		text []byte
		want counts
	}{
		{"uuid", uuids.Bytes(), counts{check.DuplicateUUID: n - 1}},
		{"tool_use id", uses.Bytes(), counts{check.DuplicateToolUseID: n - 1, check.UnmatchedToolUse: 1}},
		{"tool_result", results.Bytes(), counts{check.DuplicateToolResult: n - 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, chk, got := run(t, c.text)
			expect(t, got, c.want)
			// Removing the first of them makes the next one first: every duplicate's message changes.
			f := s.Files[0]
			first := 0
			if c.name != "uuid" {
				first = 1
			}
			if c.name == "tool_result" {
				first = 2
			}
			s.Edit(f, f.LineStart(first), f.LineStart(first+1), nil)
			agrees(t, chk)
			// Appending one more is cheap and changes nothing else.
			s.Edit(f, len(f.Text()), len(f.Text()), bytes.Clone(f.Line(f.LineCount()-1)))
			s.Edit(f, len(f.Text()), len(f.Text()), []byte("\n"))
			agrees(t, chk)
			// Everything out at once.
			s.SetText(f, nil)
			agrees(t, chk)
			expect(t, tally(t, chk), counts{})
		})
	}
}

// Whether a sub-agent's log is missing depends on the whole main log (sessions of 1.0.x keep their
// sub-agents inside it, as isSidechain records): the first sidechain record arriving, or the last
// one leaving, changes the finding of every sub-agent call.
func TestSidechainRecordTogglesMissingAgentFiles(t *testing.T) {
	s, c, n := run(t, Lines(User("a", "", "x"), ToolUse("b", "a", "m", "toolu_t", "Task", ""), ToolResult("r", "b", "toolu_t", "done", "zz"), Assistant("d", "r", "m2", "ok")))
	expect(t, n, counts{check.MissingAgentFile: 1})
	f := s.Files[0]
	sc := `{"type":"user","uuid":"sc","parentUuid":"d","isSidechain":true}` + "\n"
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(sc))
	agrees(t, c)
	expect(t, tally(t, c), counts{})
	s.Edit(f, len(f.Text())-len(sc), len(f.Text()), nil)
	agrees(t, c)
	expect(t, tally(t, c), counts{check.MissingAgentFile: 1})
}
