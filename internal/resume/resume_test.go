package resume_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

func load(t *testing.T, name string) *session.Session {
	t.Helper()
	p := filepath.Join("testdata", name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return layout.SessionOf(session.NewFile(p, b))
}

// chain returns the uuids on the chain, in file order.
func chain(s *session.Session, r *resume.Result) []string {
	var out []string
	s.Main().Recs(func(rec *session.Rec) bool {
		if r.On[rec] {
			out = append(out, rec.UUID)
		}
		return true
	})
	return out
}

type want struct {
	assumed  string
	on       []string
	complete bool
	broken   int // 1-based line, 0: none
	bridged  []int
	lost     int
}

func expect(t *testing.T, name string, era *resume.Era, w want) {
	t.Helper()
	s := load(t, name)
	r := resume.Compute(s)
	if era != nil {
		r = resume.ComputeFile(s.Main(), *era, "")
	}
	if r == nil {
		t.Fatalf("%s: no chain", name)
	}
	if got := chain(s, r); !slices.Equal(got, w.on) {
		t.Errorf("%s: chain %v, want %v", name, got, w.on)
	}
	if r.Records != len(w.on) {
		t.Errorf("%s: records %d, want %d", name, r.Records, len(w.on))
	}
	if w.assumed != "" && r.Assumed != w.assumed {
		t.Errorf("%s: assumed %q, want %q", name, r.Assumed, w.assumed)
	}
	if r.Complete != w.complete {
		t.Errorf("%s: complete %v, want %v", name, r.Complete, w.complete)
	}
	broken := 0
	if r.BrokenAt != nil {
		broken = r.BrokenAt.Line
	}
	if broken != w.broken {
		t.Errorf("%s: broken at %d, want %d", name, broken, w.broken)
	}
	var bridged []int
	for _, p := range r.Bridged {
		bridged = append(bridged, p.Line)
	}
	if !slices.Equal(bridged, w.bridged) {
		t.Errorf("%s: bridged %v, want %v", name, bridged, w.bridged)
	}
	if r.Lost != w.lost {
		t.Errorf("%s: lost %d, want %d", name, r.Lost, w.lost)
	}
}

// Rule 1: a record naming an earlier progress record takes its parent.
func TestProgressParentBefore(t *testing.T) {
	expect(t, "progress-before.jsonl", nil, want{assumed: "2.1.20+", on: []string{"u1", "a1", "u2", "a2"}, complete: true})
}

// Rule 1: a record written before the progress record it names stays dangling (no bridge before
// 2.1.101): the chain breaks there and the two earlier records are lost.
func TestProgressParentAfter(t *testing.T) {
	expect(t, "progress-after.jsonl", nil, want{assumed: "2.1.20+", on: []string{"u2", "a2"}, broken: 3, lost: 2})
}

// Rule 2: preserved records are relinked after the summary; the rest before the boundary is out.
func TestPreservedMessages(t *testing.T) {
	expect(t, "preserved-messages.jsonl", nil, want{assumed: "2.1.101+", on: []string{"u2", "a2", "b", "s", "u3", "a3"}, complete: true})
}

func TestPreservedSegment(t *testing.T) {
	expect(t, "preserved-segment.jsonl", nil, want{on: []string{"u2", "a2", "b", "s", "u3", "a3"}, complete: true})
}

// Rule 2: a named uuid is missing: nothing is relinked, the chain runs on the old parents.
func TestPreservedMissingUUIDNoRelink(t *testing.T) {
	expect(t, "preserved-missing.jsonl", nil, want{on: []string{"u1", "a1", "u2", "a2", "u3", "a3"}, complete: true})
}

// Rule 4: 2.1.101+ bridges a missing parent to a record at most 5 s older; 6 s is too far.
func TestBridgeWithinFiveSeconds(t *testing.T) {
	expect(t, "bridge-within.jsonl", nil, want{on: []string{"u1", "a1", "u2", "a2"}, complete: true, bridged: []int{3}})
	old := resume.From2120
	expect(t, "bridge-within.jsonl", &old, want{assumed: "2.1.20+", on: []string{"u2", "a2"}, broken: 3, lost: 2})
}

func TestBridgeBeyondFiveSeconds(t *testing.T) {
	expect(t, "bridge-beyond.jsonl", nil, want{on: []string{"u2", "a2"}, broken: 3, lost: 2})
}

// Rule 5: the other line of the message (a parallel call off the walk) and its result join.
func TestParallelMergeByMessageID(t *testing.T) {
	expect(t, "parallel.jsonl", nil, want{on: []string{"u1", "a1", "a1b", "r1", "r2", "a2"}, complete: true})
}

// Rule 3: a last-prompt leaf the last record does not descend from starts the walk.
func TestLastPromptLeaf(t *testing.T) {
	expect(t, "last-prompt.jsonl", nil, want{on: []string{"u1", "a1", "u2", "a2"}, complete: true})
}

// Rule 3: 2.1.101+ starts at the last record; before, at the newest-timestamp leaf.
func TestStartByVersion(t *testing.T) {
	expect(t, "leaf-order.jsonl", nil, want{on: []string{"u1", "a1", "u3"}, complete: true})
	old := resume.Before2120
	expect(t, "leaf-order.jsonl", &old, want{assumed: "before 2.1.20", on: []string{"u1", "a1", "u2", "a2"}, complete: true})
}

func TestEraOf(t *testing.T) {
	for v, e := range map[string]resume.Era{"1.0.61": resume.Before2120, "2.1.19": resume.Before2120, "2.1.20": resume.From2120,
		"2.1.100": resume.From2120, "2.1.101": resume.From21101, "2.2.0": resume.From21101, "": resume.From21101, "x": resume.From21101} {
		if got := resume.EraOf(v); got != e {
			t.Errorf("EraOf(%q) = %v, want %v", v, got, e)
		}
	}
}

type sent struct {
	ids        []string
	dropped    []resume.Drop
	answered   []resume.Drop
	noResponse bool
}

func expectSent(t *testing.T, name, loader string, w sent) *resume.Result {
	t.Helper()
	r := resume.ComputeWith(load(t, name), loader)
	if r == nil {
		t.Fatalf("%s: no chain", name)
	}
	if !slices.Equal(r.SentIDs, w.ids) {
		t.Errorf("%s (%s): sent %v, want %v", name, loader, r.SentIDs, w.ids)
	}
	if !slices.Equal(r.Dropped, w.dropped) {
		t.Errorf("%s (%s): dropped %v, want %v", name, loader, r.Dropped, w.dropped)
	}
	if !slices.Equal(r.Answered, w.answered) {
		t.Errorf("%s (%s): answered %v, want %v", name, loader, r.Answered, w.answered)
	}
	if r.NoResponse != w.noResponse {
		t.Errorf("%s (%s): noResponse %v, want %v", name, loader, r.NoResponse, w.noResponse)
	}
	return r
}

// A glued line {A}{B}: A is loaded, B dropped; B's child bridges to A (within 5 s).
func TestGluedKeepsFirst(t *testing.T) {
	r := expectSent(t, "glued.jsonl", "2.1.328", sent{ids: []string{"u1", "a1", "u2", "u3", "a3"},
		dropped: []resume.Drop{{Line: 3, What: resume.DropGlued, ID: "a2"}}})
	if !r.Complete || len(r.Bridged) != 1 || r.Bridged[0].Line != 4 {
		t.Errorf("glued: complete %v, bridged %v", r.Complete, r.Bridged)
	}
}

// API-error records are on the parent chain (the walk starts at one here) but not sent; the
// conversation then ends on a prompt, which Claude Code merges with the next one (no "No response
// requested.": that closes a turn cut off after its tool results).
func TestAPIErrorsNotSent(t *testing.T) {
	r := expectSent(t, "api-error.jsonl", "2.1.328", sent{ids: []string{"u1", "u2"},
		dropped: []resume.Drop{{Line: 2, What: resume.DropAPIError, ID: "e1"}, {Line: 4, What: resume.DropAPIError, ID: "e2"}}})
	if !r.Complete || r.Records != 4 {
		t.Errorf("api errors: complete %v, records %d", r.Complete, r.Records)
	}
}

// A call without result: removed by the loaders measured up to the change, answered with an
// error result after; a result without its call dropped by both.
func TestPairingByLoader(t *testing.T) {
	expectSent(t, "unanswered-last.jsonl", "2.1.328", sent{ids: []string{"u1", "a1"}, noResponse: true,
		answered: []resume.Drop{{Line: 2, What: resume.AnswerError, ID: "t1"}}})
	expectSent(t, "unanswered-last.jsonl", "2.1.53", sent{ids: []string{"u1", "a1"},
		dropped: []resume.Drop{{Line: 2, What: resume.DropCall, ID: "t1"}}})
	expectSent(t, "pairing.jsonl", "2.1.53", sent{ids: []string{"u1", "a1", "u2", "a2"},
		dropped: []resume.Drop{{Line: 2, What: resume.DropCall, ID: "t1"}, {Line: 3, What: resume.DropResult, ID: "t9"}}})
	expectSent(t, "pairing.jsonl", "2.1.328", sent{ids: []string{"u1", "a1", "u2", "a2"}, // goes on past the call: removed
		dropped: []resume.Drop{{Line: 2, What: resume.DropCall, ID: "t1"}, {Line: 3, What: resume.DropResult, ID: "t9"}}})
	// Ends on an unanswered call: error results, and a message of orphaned results alone becomes
	// "(no content)".
	expectSent(t, "orphan-result-then-call.jsonl", "2.1.328", sent{ids: []string{"u1", "u2", "a2"}, noResponse: true,
		dropped:  []resume.Drop{{Line: 2, What: resume.DropResultEmpty, ID: "t9"}},
		answered: []resume.Drop{{Line: 3, What: resume.AnswerError, ID: "t2"}}})
}

// 26efdcc5's faulty copies (nul-bytes, removed-child-within-5s): the record of a middle call is
// lost, its result bridged to the line before it of the same message. The result has no call: it
// is dropped and its message sent as "(no content)"; only the trailing call is answered, as Claude
// Code 2.1.328 does (internal/resume/oracle).
func TestCallLostResultBridged(t *testing.T) {
	r := expectSent(t, "call-lost-result-bridged.jsonl", "2.1.328", sent{ids: []string{"u1", "a1", "u2", "a3"}, noResponse: true,
		dropped:  []resume.Drop{{Line: 3, What: resume.DropResultEmpty, ID: "t1"}},
		answered: []resume.Drop{{Line: 4, What: resume.AnswerError, ID: "t2"}}})
	if !r.Complete || len(r.Bridged) != 1 || r.Bridged[0].Line != 3 {
		t.Errorf("complete %v, bridged %v", r.Complete, r.Bridged)
	}
}

// The preview links each line that names a record to that record's line of the log.
func TestRenderLinks(t *testing.T) {
	s := load(t, "orphan-result-then-call.jsonl")
	r := resume.ComputeWith(s, "2.1.328")
	p := resume.Render(s.Main(), r, "file:///x.jsonl")
	lines := strings.Split(p.Text, "\n")
	want := map[string]int{"  user         hi": 0, "result without call": 1, "assistant call Read t2": 2}
	for _, l := range p.Lines {
		if l.URI != "file:///x.jsonl" || l.Preview >= len(lines) {
			t.Fatalf("link %+v", l)
		}
		for frag, line := range want {
			if strings.Contains(lines[l.Preview], frag) && l.Line == line {
				delete(want, frag)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("no link for %v in %+v\n%s", want, p.Lines, p.Text)
	}
}
