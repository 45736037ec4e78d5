package check

// The findings of lines that are not records, and of a file that is not JSON Lines at all.

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// lineFault is the finding of a line that is not a record, given the line, why, and whether it is
// the file's unfinished last line.
func lineFault(line []byte, e *jsonl.LineError, incomplete bool) (Code, jsonl.Span, string) {
	lineLen := int32(len(line))
	sp := jsonl.Span{Start: min(e.Offset, lineLen), End: lineLen}
	if sp.End <= sp.Start {
		sp = jsonl.Span{Start: 0, End: lineLen}
	}
	switch {
	case incomplete:
		return IncompleteLastLine, sp, "the last line is not complete yet (no newline, does not parse): a live session is still writing it; " + e.Message
	case e.Kind == jsonl.ErrInvalidJSON && session.NULObject(line):
		n := len(line) - len(bytes.TrimLeft(line, "\x00"))
		return InvalidJSON, jsonl.Span{Start: 0, End: int32(n)}, fmt.Sprintf("invalid JSON: the line starts with %d NUL bytes (left by an interrupted write); it parses once the NUL bytes are removed", n)
	case e.Kind == jsonl.ErrInvalidJSON:
		return InvalidJSON, sp, "invalid JSON: " + e.Message
	}
	return NotAnObject, jsonl.Span{Start: e.Offset, End: lineLen}, e.Message
}

// FaultyLines calls fn, in line order until it returns false, with the finding of every line of a
// file's text that is not a record, severities resolved (those Off left out): where a file keeps
// only the first session.MaxLineErrors of them, `ccdag check` lists them all with it, from the
// text, one at a time.
func FaultyLines(text []byte, sev Severities, fn func(line int, code Code, severity Severity, sp jsonl.Span, msg string) bool) {
	var raw, shown string
	for i, start := 0, 0; start < len(text); i++ {
		end, next := len(text), len(text)
		if k := bytes.IndexByte(text[start:], '\n'); k >= 0 {
			end, next = start+k, start+k+1
		}
		line := bytes.TrimSuffix(text[start:end], []byte{'\r'})
		terminated := end < len(text)
		start = next
		lerr := jsonl.Fault(line)
		if lerr == nil {
			continue
		}
		incomplete := !terminated && lerr.Kind == jsonl.ErrInvalidJSON
		code, sp, msg := lineFault(line, lerr, incomplete)
		if msg != raw { // most messages are made once and repeat (not-an-object): escaped once
			raw, shown = msg, textsafe.Printable(msg)
		}
		fd := Finding{Code: code, Severity: Defaults[code]}
		if s := sev.Resolve(&fd); s != Off && !fn(i, code, s, sp, shown) {
			return
		}
	}
}

// unkept is the finding that stands for a file's faulty lines of kind k beyond the ones it keeps
// (session.MaxLineErrors), on the last kept one: the CLI and the editor list the first ones and this.
func unkept(f *session.File, k jsonl.ErrorKind) (Finding, bool) {
	n := f.UnkeptLineErrors(k)
	if n == 0 {
		return Finding{}, false
	}
	code, what := InvalidJSON, "not valid JSON"
	if k == jsonl.ErrNotAnObject {
		code, what = NotAnObject, "valid JSON but not objects"
	}
	line := 0
	for i := f.LineCount() - 1; i >= 0; i-- {
		if r := f.Rec(i); r != nil && r.LineErr() != nil && r.LineErr().Kind == k && !r.Incomplete() {
			line = i
			break
		}
	}
	return Finding{Code: code, Severity: Defaults[code], File: f, Line: line, More: n,
		Message: fmt.Sprintf("%d more lines of this file after the first %d such lines are %s; they are not shown (`ccdag check` lists them all)", n, session.MaxLineErrors, what)}, true
}

// notJSONL is the one finding of a file that is not JSON Lines at all (docs/spec.md §2): on line 1,
// in place of every other.
func notJSONL(f *session.File) Finding {
	what := "another format"
	if head := f.Text()[:min(len(f.Text()), 4096)]; bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:max(0, len(head)-3)]) {
		what = "binary data"
	}
	end := int32(min(len(f.Line(0)), 1<<20))
	return Finding{Code: NotJSONL, Severity: Defaults[NotJSONL], File: f, Line: 0, Span: jsonl.Span{Start: 0, End: end},
		Message: fmt.Sprintf("this file is not JSON Lines (it looks like %s): none of its first %d non-empty lines is a JSON object, so it is not read further", what, session.HeadLines)}
}
