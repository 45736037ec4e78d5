package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// MaxGroupedMessage bounds the message of the one finding that stands for a file's missing
// sub-agent logs (docs/spec.md §10): a session copied without its sub-agents gave a notice of
// ~300 characters per call, burying the warnings that matter.
const MaxGroupedMessage = 120

// groupMissingAgents folds a file's missing-agent-file findings (fs sorted by line, severities
// resolved) into the first of them: its message names the missing agents in under 120 characters,
// and its related information points at each call with what was looked for.
func groupMissingAgents(fs []Finding) []Finding {
	first, n := -1, 0
	for i := range fs {
		if fs[i].grouped() {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n < 2 {
		return fs
	}
	g := fs[first]
	g.Related = make([]Related, 0, n)
	var ids []string
	out := fs[:first+1]
	for _, fd := range fs[first:] {
		if !fd.grouped() {
			out = append(out, fd)
			continue
		}
		ids = append(ids, fd.agent)
		g.Related = append(g.Related, Related{File: fd.File, Line: fd.Line, Span: fd.Span, Message: fd.Message, rec: fd.File.Rec(fd.Line)})
	}
	g.Message = groupedMessage(ids)
	out[first] = g
	return out
}

// grouped reports whether fd is one of the missing-agent-file findings folded into one: a log not
// where Claude Code writes it (one there but not read says so on its own).
func (fd *Finding) grouped() bool {
	return fd.Code == MissingAgentFile && fd.More == 0 && fd.agent != ""
}

// groupedMessage is "7 sub-agent logs are missing: ac1, ab2, … (see each call)" within
// fewer than MaxGroupedMessage characters.
func groupedMessage(ids []string) string {
	head := fmt.Sprintf("%d sub-agent logs are not where Claude Code writes them: ", len(ids))
	tail := " (each call below)"
	var b strings.Builder
	b.WriteString(head)
	for i, id := range ids {
		id = textsafe.Printable(id)
		sep := ""
		if i > 0 {
			sep = ", "
		}
		rest := ""
		if i < len(ids)-1 {
			rest = ", …"
		}
		if utf8.RuneCountInString(b.String()+sep+id+rest+tail) >= MaxGroupedMessage {
			if i == 0 {
				b.WriteString("…")
			} else {
				b.WriteString(", …")
			}
			break
		}
		b.WriteString(sep + id)
	}
	return b.String() + tail
}

// missingAgents is every missing-agent-file finding of f with severities resolved, in line
// order (the counted ones computed again): what Each folds into one.
func (c *Checker) missingAgents(f *session.File, sev Severities) []Finding {
	var out []Finding
	take := func(fd Finding) {
		if fd.grouped() {
			if s := sev.Resolve(&fd); s != Off {
				fd.Severity = s
				out = append(out, fd)
			}
		}
	}
	for r := range c.flagged[f] {
		for _, fd := range c.recs[r] {
			take(c.current(r, fd))
		}
	}
	for _, r := range slices.Collect(maps.Keys(c.over)) {
		if r.File != f {
			continue
		}
		has := false
		c.counted(r, func(code Code, _ int) { has = has || code == MissingAgentFile })
		if has {
			fs, _ := c.findings(r)
			for _, fd := range fs {
				take(fd)
			}
		}
	}
	slices.SortFunc(out, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return compareOnLine(a, b)
	})
	return out
}
