package check

// The rules: what is wrong with one record (findings), and how messages name places. The engine
// that keeps the findings current as the session changes is check.go; the findings of lines that
// are not records are lines.go.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

func rel(r *session.Rec, sp jsonl.Span, msg string) Related {
	return Related{File: r.File, Line: r.Line, Span: sp, Message: msg, rec: r}
}

// earliestRef returns the first reference in session order: the session keeps it first, so that
// a call answered 100 000 times is not compared 100 000 times per answer.
func earliestRef(refs []session.ToolRef) session.ToolRef { return refs[0] }

// findings computes a record's findings and whether it holds an unanswered tool_use.
func (c *Checker) findings(r *session.Rec) (out []Finding, openUse bool) {
	x := &recordRules{c: c, s: c.s, r: r}
	var hits []secrets.Hit
	if !c.noSecrets {
		hits = c.lineHits(r)
		for _, h := range hits {
			x.add(Secret, jsonl.Span{Start: h.Start, End: h.End}, secretMessage(h.Rule))
		}
	}
	x.rules()
	x.maskQuoted(hits)
	return x.out, x.openUse
}

// shownValue is a string value from the log as a message may quote it: with a secret the scan
// finds in it replaced by its placeholder.
func shownValue(v string) string {
	if len(v) < 8 {
		return v // too short to show 8 bytes of a secret
	}
	return secrets.Default().RedactText(v)
}

// lineHits is the secret scan of r's line.
func (c *Checker) lineHits(r *session.Rec) []secrets.Hit {
	if c.scan != nil {
		return c.scan(r)
	}
	return secrets.Default().Line(r.LineBytes(), nil)
}

// maskQuoted masks, in the record's other findings, the secrets found on its line (hits, its secret
// findings, which come first): their messages quote its values — ids, names — as they are, and
// no message shows a secret (docs/spec.md §15). A line without other findings, or without a
// secret, costs nothing more. Without the scan (code secret set off, the server's first look at a
// large log) a line with other findings is scanned here, for them.
func (x *recordRules) maskQuoted(hits []secrets.Hit) {
	quoting := x.out[len(hits):]
	if len(quoting) == 0 {
		return
	}
	if x.c.noSecrets {
		hits = x.c.lineHits(x.r)
	}
	if len(hits) == 0 {
		return
	}
	m := secrets.NewMask()
	m.AddLine(x.r.LineBytes(), hits)
	for i := range quoting {
		fd := &quoting[i]
		fd.Message, fd.pre, fd.post, fd.agent = m.String(fd.Message), m.String(fd.pre), m.String(fd.post), m.String(fd.agent)
		for k := range fd.Related {
			fd.Related[k].Message = m.String(fd.Related[k].Message)
		}
	}
}

// rules adds the findings of the record's content (all but its secrets).
func (x *recordRules) rules() {
	r := x.r
	if r.LineErr() != nil {
		code, sp, msg := lineFault(r.LineBytes(), r.LineErr(), r.Incomplete())
		x.add(code, sp, msg)
		return
	}
	d := r.D() // once: a short line's Detail is parsed again on every call
	x.fields(d)
	x.links(d)
	for i := range d.Blocks {
		b := &d.Blocks[i]
		switch b.Kind {
		case jsonl.BlockToolUse:
			x.toolUse(i, b)
		case jsonl.BlockToolResult:
			x.toolResult(i, b)
		}
	}
}

// findingsOf is findings, found ahead on other cores while a large file is checked (ahead.go).
func (c *Checker) findingsOf(r *session.Rec) ([]Finding, bool) {
	if a := c.ahead; a != nil && a.f == r.File {
		if fs, open, ok := a.found(r.Line); ok {
			return fs, open
		}
	}
	return c.findings(r)
}

// recordRules gathers the findings of one record.
type recordRules struct {
	c       *Checker
	s       *session.Session
	r       *session.Rec
	out     []Finding
	openUse bool // the record holds an unanswered tool_use
}

func (x *recordRules) add(code Code, sp jsonl.Span, msg string, related ...Related) {
	for i := range related {
		related[i].Message = textsafe.Printable(related[i].Message)
	}
	r := x.r
	x.out = append(x.out, Finding{Code: code, Severity: Defaults[code], File: r.File, Line: r.Line, Span: sp, Message: textsafe.Printable(msg), Related: related})
}

// addAt adds a finding whose message names the place of another record: pre + place + post.
func (x *recordRules) addAt(code Code, sp jsonl.Span, pre string, at *session.Rec, lineOnly bool, post string, related ...Related) {
	x.add(code, sp, "", related...)
	fd := &x.out[len(x.out)-1]
	fd.at, fd.atLineOnly, fd.pre, fd.post = at, lineOnly, textsafe.Printable(pre), textsafe.Printable(post)
	fd.render()
}

// fields: fields of the wrong type, and a uuid missing where one is needed.
func (x *recordRules) fields(d *jsonl.Detail) {
	r := x.r
	uuidBad := false
	for _, fe := range d.FieldErrs {
		if fe.Field == "uuid" {
			uuidBad = true
		}
		x.add(InvalidField, fe.Span, fmt.Sprintf("%q should be %s; the record is read as if it had no %s", fe.Field, fe.Want, fe.Field))
	}
	if r.UUID == "" && r.NeedsUUID() && !uuidBad {
		x.add(MissingUUID, jsonl.Span{}, fmt.Sprintf("this %s record has no uuid: nothing can name it as a parent", r.Type))
	}
}

// links: the record's uuid, parentUuid and logicalParentUuid against the rest of the session.
func (x *recordRules) links(d *jsonl.Detail) {
	r, s := x.r, x.s
	if r.UUID != "" && !s.DefinedOnce(r) { // a map lookup less per record where no uuid is defined twice
		if first := s.Lookup(r.UUID); first != r {
			x.addAt(DuplicateUUID, r.UUIDSpan, fmt.Sprintf("uuid %s is already defined at ", r.UUID), first, false, "",
				rel(first, first.UUIDSpan, "first definition of "+r.UUID))
		}
	}
	if r.Parent != "" {
		if p := parentOf(s, r); p == nil {
			x.add(Orphan, r.ParentSpan, fmt.Sprintf("parentUuid %s names no record of this session (main log and sub-agent logs): the chain breaks here", r.Parent))
		} else if p.File == r.File && p.Line > r.Line {
			x.addAt(ParentAfterChild, r.ParentSpan, fmt.Sprintf("parent %s is written later in the file (", r.Parent), p, true, ")",
				rel(p, p.UUIDSpan, "the parent"))
		}
	}
	if x.c.cycles[r] {
		sp := r.ParentSpan
		x.add(ParentCycle, sp, fmt.Sprintf("following parentUuid from %s comes back to it: the chain has no root", r.UUID))
	}
	if d.LogicalParent != "" && s.Lookup(d.LogicalParent) == nil {
		x.add(UnresolvedLogicalParent, d.LogicalParentSpan, fmt.Sprintf("logicalParentUuid %s names no record of this session: the conversation before this compaction is not in these files", d.LogicalParent))
	}
}

// parentOf is s.Lookup(r.Parent), without the map where the parent is the line before, defined
// once (a chain's usual case).
func parentOf(s *session.Session, r *session.Rec) *session.Rec {
	if prev := r.File.Rec(r.Line - 1); prev != nil && prev.UUID == r.Parent && s.DefinedOnce(prev) {
		return prev
	}
	return s.Lookup(r.Parent)
}

// toolUse: block i, a tool_use, against the other calls and their results.
func (x *recordRules) toolUse(i int, b *jsonl.Block) {
	r, s := x.r, x.s
	if b.ID == "" {
		return
	}
	uses := s.Uses(b.ID)
	if len(uses) > 1 {
		if f := earliestRef(uses); f.Rec != r || f.Block != i {
			x.addAt(DuplicateToolUseID, b.IDSpan, fmt.Sprintf("tool_use id %s is used by another call at ", b.ID), f.Rec, false, "",
				rel(f.Rec, f.ContentBlock().IDSpan, "first tool_use with id "+b.ID))
			return
		}
	}
	results := s.Results(b.ID)
	if len(results) == 0 {
		x.openUse = true
		if x.c.inFlight(r) {
			f := Finding{Code: UnmatchedToolUse, Severity: Information, File: r.File, Line: r.Line, Span: b.IDSpan,
				Message: textsafe.Printable(fmt.Sprintf("%s call %s has no result yet: it was still in flight where the log ends (only its turn follows it: sibling calls, their results)", b.Name, b.ID))}
			x.out = append(x.out, f)
		} else {
			x.add(UnmatchedToolUse, b.IDSpan, fmt.Sprintf("%s call %s never got a tool_result: the conversation went on without its answer", b.Name, b.ID))
		}
		return
	}
	if session.IsAgentTool(b.Name) && !s.InFileSidechains() {
		x.missingAgents(b, results)
	}
}

// missingAgents: the agent ids an agent call's results and progress records name (the session's
// one linkage), each whose log is not in the session: not where Claude Code writes it, or there
// but not read (session.UnreadAgent: a FIFO, a log past the server's size limit), which is said
// with why, on its own (groupMissingAgents folds only the missing ones).
func (x *recordRules) missingAgents(b *jsonl.Block, results []session.ToolRef) {
	s := x.s
	for _, id := range s.CallAgentIDs(b.ID) {
		if s.Agent(id) != nil {
			continue
		}
		// The id is another record's value, not this line's (maskQuoted): its own scan (a string
		// is scanned alone, as on its line) masks a secret in it.
		shown := shownValue(id)
		var related []Related
		for _, t := range results {
			if ri := t.Rec.D().Result; ri != nil && ri.AgentID == id {
				related = append(related, rel(t.Rec, ri.AgentIDSpan, "the result naming agent "+shown))
				break
			}
		}
		if len(related) == 0 {
			if ps := s.AgentProgress(id); len(ps) > 0 {
				related = append(related, rel(ps[0], ps[0].D().DataAgentIDSpan, "the progress record naming agent "+shown))
			}
		}
		if u, ok := s.UnreadAgent(id); ok {
			x.add(MissingAgentFile, b.IDSpan, fmt.Sprintf("%s call %s ran sub-agent %s; its log %s is there but was not read: %s", b.Name, b.ID, shown, strings.ReplaceAll(underDir(s, u.Path), id, shown), u.Why), related...)
			continue
		}
		x.add(MissingAgentFile, b.IDSpan, fmt.Sprintf("%s call %s ran sub-agent %s, but its log agent-%s.jsonl is not where Claude Code writes it%s", b.Name, b.ID, shown, shown, lookedAt(s, shown)), related...)
		x.out[len(x.out)-1].agent = shown
	}
}

// toolResult: block i, a tool_result, against the calls and the other results.
func (x *recordRules) toolResult(i int, b *jsonl.Block) {
	r, s := x.r, x.s
	if b.ToolUseID == "" {
		return
	}
	if len(s.Uses(b.ToolUseID)) == 0 {
		x.add(UnmatchedToolResult, b.IDSpan, fmt.Sprintf("tool_result answers %s, but no tool_use of this session has that id", b.ToolUseID))
		return
	}
	if results := s.Results(b.ToolUseID); len(results) > 1 {
		if f := earliestRef(results); f.Rec != r || f.Block != i {
			x.addAt(DuplicateToolResult, b.IDSpan, fmt.Sprintf("tool_use %s is already answered at ", b.ToolUseID), f.Rec, false, "",
				rel(f.Rec, f.ContentBlock().IDSpan, "first tool_result for "+b.ToolUseID))
		}
	}
}

// lookedAt names the places a sub-agent's log was looked for (docs/spec.md §5), relative to the
// main log's folder: "" for a session without an id.
func lookedAt(s *session.Session, id string) string {
	if s.ID == "" {
		return ""
	}
	name := "agent-" + id + ".jsonl"
	sub := s.ID + "/subagents/"
	return fmt.Sprintf(" (looked in the main log's folder for %s, %s and %s)", sub+name, sub+"workflows/*/"+name, name)
}

// underDir names a path relative to the main log's folder, as lookedAt does, when it is under it.
func underDir(s *session.Session, p string) string {
	if rel, err := filepath.Rel(s.Dir, p); err == nil && s.Dir != "" && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// where names a record's place for messages: "line 12" or "agent-ab12.jsonl line 3".
func where(r *session.Rec) string {
	if r.File.Lane == "main" {
		return fmt.Sprintf("line %d", r.Line+1)
	}
	return fmt.Sprintf("line %d of %s", r.Line+1, r.File.Lane+".jsonl")
}
