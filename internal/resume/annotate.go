package resume

import (
	"fmt"
	"strings"

	"github.com/ccdag/ccdag/internal/check"
)

// Annotate adds to each finding on the resumed chain what it costs a resume in the log's version
// (docs/spec.md §6): an unbridged orphan the history lost, a bridged one the line it is joined to
// (and information, not warning, when the severity is the default), an unanswered call the error
// result the model sees (or, before 2.1.20, the API's refusal), an unmatched result that it is
// dropped. Findings off the chain are left as they are.
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
				note = fmt.Sprintf("claude --resume (%s) joins it to line %d, the newest record at most 5 s older: nothing is lost on resume", r.Assumed, to.Line+1)
				if fd.Severity == check.Warning {
					fd.Severity = check.Information
				}
			} else if rec == r.Broken {
				fd.Message, _, _ = strings.Cut(fd.Message, ": the chain breaks here")
				records := "records"
				if r.Lost == 1 {
					records = "record"
				}
				note = fmt.Sprintf("claude --resume (%s) stops here: the resumed conversation loses the %d earlier %s of this segment", r.Assumed, r.Lost, records)
				if r.Lost == 0 { // the segment's first record: nothing before it to lose
					note = fmt.Sprintf("claude --resume (%s) starts the conversation here; no earlier record of this segment is lost", r.Assumed)
				}
			}
		case check.UnmatchedToolUse:
			if r.Era >= From2120 {
				note = fmt.Sprintf("on the resumed chain: claude --resume (%s) sends the model an error result in its place (\"[Tool result missing due to internal error]\")", r.Assumed)
			} else {
				note = "on the resumed chain: before 2.1.20 the API refuses the resumed conversation (400: tool_use ids were found without tool_result blocks)"
			}
		case check.UnmatchedToolResult:
			if r.Era >= From2120 {
				note = fmt.Sprintf("on the resumed chain: claude --resume (%s) drops it", r.Assumed)
			} else {
				note = "on the resumed chain: before 2.1.20 the API refuses the resumed conversation (a tool_result without its tool_use)"
			}
		}
		if note != "" {
			if fd.Code == check.Orphan {
				fd.Message, _, _ = strings.Cut(fd.Message, ": the chain breaks here")
			}
			fd.Message += "; " + check.Printable(note)
		}
	}
}
