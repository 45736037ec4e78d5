package resume_test

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/resume"
)

func annotated(t *testing.T, name string, era *resume.Era) []check.Finding {
	t.Helper()
	s := load(t, name)
	r := resume.Compute(s)
	if era != nil {
		r = resume.ComputeFile(s.Main(), *era, "")
	}
	fs := check.New(s).All(check.Severities{})
	resume.Annotate(fs, func() *resume.Result { return r })
	return fs
}

func find(t *testing.T, fs []check.Finding, code check.Code) check.Finding {
	t.Helper()
	for _, f := range fs {
		if f.Code == code {
			return f
		}
	}
	t.Fatalf("no %s in %v", code, fs)
	return check.Finding{}
}

func TestAnnotateOrphan(t *testing.T) {
	o := find(t, annotated(t, "bridge-within.jsonl", nil), check.Orphan)
	if o.Severity != check.Information || !strings.Contains(o.Message, "joins it to line 2") || strings.Contains(o.Message, "breaks") {
		t.Errorf("bridged orphan: %v %q", o.Severity, o.Message)
	}
	o = find(t, annotated(t, "bridge-beyond.jsonl", nil), check.Orphan)
	if o.Severity != check.Warning || !strings.Contains(o.Message, "loses the 2 earlier records") {
		t.Errorf("broken orphan: %v %q", o.Severity, o.Message)
	}
	// The segment's first record: the message does not count "the 0 earlier records".
	o = find(t, annotated(t, "orphan-first.jsonl", nil), check.Orphan)
	if !strings.Contains(o.Message, "starts the conversation here; no earlier record of this segment is lost") || strings.Contains(o.Message, "loses the 0") {
		t.Errorf("orphan on the first record: %q", o.Message)
	}
}

// An orphan off the resumed chain does not say a resume loses history (the resume view says the
// resume is complete): it says it is not on the chain.
func TestAnnotateOrphanOffTheChain(t *testing.T) {
	s := load(t, "orphan-off-chain.jsonl")
	if r := resume.Compute(s); r == nil || !r.Complete {
		t.Fatalf("the fixture's resume is not complete: %+v", r)
	}
	o := find(t, annotated(t, "orphan-off-chain.jsonl", nil), check.Orphan)
	if strings.Contains(o.Message, "loses") && !strings.Contains(o.Message, "loses nothing") || !strings.Contains(o.Message, "not on the chain claude --resume loads") {
		t.Errorf("orphan off the chain: %q", o.Message)
	}
}

// Pairing as measured with the real packages (docs/resume.md): up to 2.1.263 a resume removes a
// call without result from its message; from 2.1.265 on (2.1.264 was never published) it sends an error result in its place. A
// result without its call is dropped by both. The loader assumed, not the log's version, decides.
func TestAnnotatePairing(t *testing.T) {
	for _, tc := range []struct{ loader, call string }{
		{"2.1.328", "sends the model an error result"},
		{"2.1.53", "removes this call from its message"},
		{"2.1.19", "removes this call from its message"},
	} {
		s := load(t, "pairing.jsonl")
		r := resume.ComputeWith(s, tc.loader)
		fs := check.New(s).All(check.Severities{})
		resume.Annotate(fs, func() *resume.Result { return r })
		m := find(t, fs, check.UnmatchedToolUse).Message
		if !strings.Contains(m, tc.call) || !strings.Contains(m, "as Claude Code "+tc.loader+" will load it") {
			t.Errorf("%s: unmatched call: %q", tc.loader, m)
		}
		if m := find(t, fs, check.UnmatchedToolResult).Message; !strings.Contains(m, "drops it") {
			t.Errorf("%s: unmatched result: %q", tc.loader, m)
		}
	}
}

// The chain is computed only for a finding it could annotate: a live session's diagnostics are
// published after every append, and a walk of the whole main log each time starved the server.
func TestAnnotateComputesOnlyWhenAFindingCosts(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"leaf-order.jsonl", false},   // healthy: nothing to annotate
		{"bridge-within.jsonl", true}, // an orphan
		{"pairing.jsonl", true},       // an unanswered call the conversation went past
	} {
		s := load(t, tc.name)
		fs := check.New(s).All(check.Severities{})
		calls := 0
		resume.Annotate(fs, func() *resume.Result { calls++; return resume.Compute(s) })
		if got := calls > 0; got != tc.want || calls > 1 {
			t.Errorf("%s: the chain was computed %d times, want it computed: %v (findings %v)", tc.name, calls, tc.want, fs)
		}
	}
}
