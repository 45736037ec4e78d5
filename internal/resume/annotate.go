package resume

import (
	"fmt"
	"strings"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Annotate adds to each finding on the resumed chain what it costs a resume by the Claude Code
// assumed to resume it (docs/spec.md §13): an unbridged orphan the history lost, a bridged one the
// line it is joined to (and information, not warning, when the severity is the default), an
// unanswered call that it is removed or answered with an error result (as that version does), an
// unmatched result that it is dropped. Findings off the chain are left as they are.
//
// result is called at most once, and only when a finding has a cost to annotate: the chain costs a
// walk of the whole main log, which a live session's healthy diagnostics, published after every
// append, never pay for.
func Annotate(fs []check.Finding, result func() *Result) {
	var r *Result
	asked := false
	for i := range fs {
		fd := &fs[i]
		switch fd.Code {
		case check.Orphan, check.UnmatchedToolResult:
		case check.UnmatchedToolUse:
			if fd.Severity == check.Information { // still in flight where the log ends
				continue
			}
		default:
			continue
		}
		if !asked {
			r, asked = result(), true
		}
		if r == nil {
			return
		}
		rec := fd.File.Rec(fd.Line)
		if rec == nil || !r.On[rec] {
			if rec != nil && fd.Code == check.Orphan {
				// Off the resumed chain: say so, so that no finding contradicts the resume view.
				fd.Message += "; not on the chain claude --resume loads, which loses nothing here"
			}
			continue
		}
		var note string
		switch fd.Code {
		case check.Orphan:
			if to := r.Joins[rec]; to != nil {
				note = fmt.Sprintf("claude --resume, %s, joins it to line %d, the newest record at most 5 s older: nothing is lost on resume", r.Loader.Words(), to.Line+1)
				if fd.Severity == check.Warning {
					fd.Severity = check.Information
				}
			} else if rec == r.Broken {
				fd.Message, _, _ = strings.Cut(fd.Message, ": the chain breaks here")
				records := "records"
				if r.Lost == 1 {
					records = "record"
				}
				note = fmt.Sprintf("claude --resume, %s, stops here: the resumed conversation loses the %d earlier %s of this segment", r.Loader.Words(), r.Lost, records)
				if r.Lost == 0 { // the segment's first record: nothing before it to lose
					note = fmt.Sprintf("claude --resume, %s, starts the conversation here; no earlier record of this segment is lost", r.Loader.Words())
				}
			}
		case check.UnmatchedToolUse:
			if r.DropsCalls {
				note = fmt.Sprintf("on the resumed chain: claude --resume, %s, removes this call from its message (the model never sees it)", r.Loader.Words())
			} else {
				note = fmt.Sprintf("on the resumed chain: claude --resume, %s, sends the model an error result in its place (\"[Tool result missing due to internal error]\")", r.Loader.Words())
			}
		case check.UnmatchedToolResult:
			note = fmt.Sprintf("on the resumed chain: claude --resume, %s, drops it", r.Loader.Words())
		}
		if note != "" {
			if fd.Code == check.Orphan {
				fd.Message, _, _ = strings.Cut(fd.Message, ": the chain breaks here")
			}
			fd.Message += "; " + textsafe.Printable(note)
		}
	}
}
