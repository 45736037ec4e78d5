package hostile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/session"
)

// Fresh builds a new session from the current text of s's files (same paths, lanes and order), as
// if every file were read again from scratch.
func Fresh(s *session.Session) *session.Session {
	n := session.New(s.ID, s.Dir)
	for _, f := range s.Files {
		g := session.NewFile(f.Path, slices.Clone(f.Text()))
		g.Lane, g.AgentID, g.Meta = f.Lane, f.AgentID, f.Meta
		n.AddFile(g)
	}
	return n
}

// Fingerprints renders every finding of c as one comparable line: file, line, span, code,
// severity, message and related places.
func Fingerprints(c *check.Checker) []string {
	var out []string
	for _, fd := range c.All(nil) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s:%d:%d-%d %s %s %q", fd.File.Path, fd.Line+1, fd.Span.Start, fd.Span.End, fd.Severity, fd.Code, fd.Message)
		for _, r := range fd.Related {
			fmt.Fprintf(&b, " [%s:%d:%d-%d %q]", r.File.Path, r.Line+1, r.Span.Start, r.Span.End, r.Message)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// Disagreement compares c's current findings with a fresh check of the same text and describes the
// first difference, or returns "" when they agree.
func Disagreement(c *check.Checker) string {
	got := Fingerprints(c)
	want := Fingerprints(check.New(Fresh(c.Session())))
	if slices.Equal(got, want) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "incremental findings (%d) differ from a fresh parse (%d):\n", len(got), len(want))
	inGot, inWant := map[string]bool{}, map[string]bool{}
	for _, g := range got {
		inGot[g] = true
	}
	for _, w := range want {
		inWant[w] = true
	}
	shown := 0
	for _, g := range got {
		if !inWant[g] && shown < 10 {
			fmt.Fprintf(&b, "  only incremental: %s\n", g)
			shown++
		}
	}
	for _, w := range want {
		if !inGot[w] && shown < 20 {
			fmt.Fprintf(&b, "  only fresh:       %s\n", w)
			shown++
		}
	}
	return b.String()
}
