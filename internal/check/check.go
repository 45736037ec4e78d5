package check

import (
	"bytes"
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Related points at another record involved in a finding.
type Related struct {
	File    *session.File
	Line    int
	Span    jsonl.Span // line-relative; zero: the whole line
	Message string

	rec *session.Rec // the record pointed at: File and All refresh Line from it
}

// Finding is one problem at one place. Span is relative to the line; a zero Span means the line.
type Finding struct {
	Code     Code
	Severity Severity // default severity (Severities.Resolve applies overrides)
	File     *session.File
	Line     int
	Span     jsonl.Span
	Message  string
	Related  []Related

	// More > 0 marks a finding that stands for that many findings of its code in its file that the
	// Checker counts and does not keep (MaxPerCode; session.MaxLineErrors for lines that are not
	// records). Only Kept and File give such findings; All gives those it stands for instead.
	More int

	// A message naming another record's line ("already defined at line 4") is kept as the text
	// around that place and rendered when read, so that it follows the record when lines move.
	at         *session.Rec
	atLineOnly bool // "line N" even in an agent log (else where(at))
	pre, post  string
	agent      string // MissingAgentFile: the agent id (groupMissingAgents)
}

func (fd *Finding) render() {
	if fd.at == nil {
		return
	}
	place := where(fd.at)
	if fd.atLineOnly {
		place = fmt.Sprintf("line %d", fd.at.Line+1)
	}
	fd.Message = fd.pre + place + fd.post
}

// MaxPerCode is how many findings of one code per file a Checker keeps; past it, findings are
// counted, not kept (a crafted log of a million tiny records, each a finding, must not cost a
// million findings in an editor's server): File gives the kept ones and one finding saying how
// many more, All computes the others again.
const MaxPerCode = 1000

// Checker holds the findings of a session and keeps them current.
type Checker struct {
	s        *session.Session
	recs     map[*session.Rec][]Finding
	over     map[*session.Rec]codeN   // findings of a record counted, not kept (MaxPerCode): the first code's
	overMore map[*session.Rec][]codeN // and, rarely, the other codes'
	tally    map[*session.File]*tally
	flagged  map[*session.File]map[*session.Rec]struct{} // records with findings, per file
	openUses map[*session.File]map[*session.Rec]struct{} // records with an unanswered tool_use
	tails    map[*session.File]tailMark                  // where each file's conversation last went on
	cycles   map[*session.Rec]bool
	onePass  bool // Options.OnePass: c.over left empty

	noSecrets bool // Options.NoSecrets
}

// Options choose what a Checker looks for.
type Options struct {
	// NoSecrets leaves out the secret scan (code secret set off): its cost is then nothing.
	NoSecrets bool
	// OnePass is for a caller that lists a session's findings once (All, Each) and edits nothing
	// (`ccdag check`): a record whose findings are all counted past MaxPerCode is not indexed at
	// all (else one map entry each: 36 MB for a million, the headroom the memory bound needs under
	// load, docs/SECURITY.md), and Each computes again the findings of every record of a file that
	// counts some. File, Kept and edits are not for it.
	OnePass bool
}

// New checks the whole session.
func New(s *session.Session) *Checker { return NewOptions(s, Options{}) }

// NewOptions checks the whole session as opts say.
func NewOptions(s *session.Session, opts Options) *Checker {
	c := &Checker{
		noSecrets: opts.NoSecrets,
		onePass:   opts.OnePass,
		s:         s,
		recs:      map[*session.Rec][]Finding{},
		over:      map[*session.Rec]codeN{},
		overMore:  map[*session.Rec][]codeN{},
		tally:     map[*session.File]*tally{},
		flagged:   map[*session.File]map[*session.Rec]struct{}{},
		openUses:  map[*session.File]map[*session.Rec]struct{}{},
		tails:     map[*session.File]tailMark{},
	}
	s.TakeChanges() // everything is checked below
	c.cycles = s.Cycles()
	for _, f := range s.Files {
		c.tails[f] = tailOf(f)
		f.Recs(func(r *session.Rec) bool { c.recheck(r); return true })
	}
	return c
}

// Session returns the checked session.
func (c *Checker) Session() *session.Session { return c.s }

// Update brings the findings up to date with the session's changes since the last call. Its cost
// follows the size of the change, not of the session (cycle checks aside, which run only when a
// change could close or open a cycle).
func (c *Checker) Update() {
	ch := c.s.TakeChanges()
	for _, r := range ch.Removed {
		c.drop(r)
	}
	// The session's files as a set: a session of 1 000 sub-agent logs must not cost 1 000 x 1 000
	// comparisons per update.
	live := make(map[*session.File]bool, len(c.s.Files))
	for _, f := range c.s.Files {
		live[f] = true
	}
	for _, f := range ch.Files {
		if !live[f] {
			continue
		}
		// Compare the record, not its line: several edits between two updates can move another
		// record onto the old line number while the records around an open call change.
		tail := tailOf(f)
		if old, ok := c.tails[f]; !ok || old != tail {
			c.tails[f] = tail
			for r := range c.openUses[f] {
				ch.Dirty = append(ch.Dirty, r)
			}
		}
	}
	for f := range c.tails {
		if !live[f] {
			delete(c.tails, f)
			delete(c.flagged, f)
			delete(c.openUses, f)
			delete(c.tally, f)
		}
	}
	if ch.Cycles {
		old := c.cycles
		c.cycles = c.s.Cycles()
		for r := range old {
			if !c.cycles[r] && r.File != nil {
				ch.Dirty = append(ch.Dirty, r)
			}
		}
		for r := range c.cycles {
			ch.Dirty = append(ch.Dirty, r)
		}
	}
	for _, f := range ch.Added {
		if live[f] {
			f.Recs(func(r *session.Rec) bool { ch.Dirty = append(ch.Dirty, r); return true })
		}
	}
	for _, r := range ch.Dirty {
		if live[r.File] && r.File.Rec(r.Line) == r {
			c.recheck(r)
		}
	}
	for f, t := range c.tally {
		if t.room() {
			c.promote(f, t)
		}
	}
}

// room reports whether a code has findings counted and not kept while fewer than MaxPerCode are.
func (t *tally) room() bool {
	for code, n := range t.over {
		if n > 0 && t.kept[code] < MaxPerCode {
			return true
		}
	}
	return false
}

// promote keeps findings that were only counted, first lines first, in the places kept ones left
// (an edit removed them), so that an editor still shows the first MaxPerCode there are.
func (c *Checker) promote(f *session.File, t *tally) {
	var rs []*session.Rec
	for r := range c.over {
		if r.File == f {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b *session.Rec) int { return a.Line - b.Line })
	for _, r := range rs {
		if !t.room() {
			return
		}
		c.recheck(r)
	}
}

func (c *Checker) drop(r *session.Rec) {
	c.untally(r)
	delete(c.recs, r)
	delete(c.flagged[r.File], r)
	delete(c.openUses[r.File], r)
	delete(c.cycles, r)
}

func setAdd(m map[*session.File]map[*session.Rec]struct{}, r *session.Rec, on bool) {
	set := m[r.File]
	if !on {
		delete(set, r)
		return
	}
	if set == nil {
		set = map[*session.Rec]struct{}{}
		m[r.File] = set
	}
	set[r] = struct{}{}
}

// tally counts a file's findings by code: those kept and those only counted.
type tally struct{ kept, over map[Code]int }

// codeN counts a record's findings of one code that are counted, not kept. It is 8 bytes and the
// over map holds one inline per record: a million records with a finding past the cap each cost
// a map entry, not a slice (docs/SECURITY.md, memory).
type codeN struct {
	code uint8 // index in codes
	n    uint32
}

// codes indexes Codes() for codeN.
var codes = Codes()

func codeIndex(c Code) uint8 {
	i, _ := slices.BinarySearch(codes, c)
	return uint8(i)
}

// counted calls fn for each code of r's findings counted and not kept.
func (c *Checker) counted(r *session.Rec, fn func(code Code, n int)) {
	if cn, ok := c.over[r]; ok {
		fn(codes[cn.code], int(cn.n))
		for _, cn := range c.overMore[r] {
			fn(codes[cn.code], int(cn.n))
		}
	}
}

func (c *Checker) tallyOf(f *session.File) *tally {
	t := c.tally[f]
	if t == nil {
		t = &tally{kept: map[Code]int{}, over: map[Code]int{}}
		c.tally[f] = t
	}
	return t
}

// untally uncounts r's findings, kept and not.
func (c *Checker) untally(r *session.Rec) {
	t := c.tally[r.File]
	if t == nil {
		return
	}
	for _, fd := range c.recs[r] {
		t.kept[fd.Code]--
	}
	c.counted(r, func(code Code, n int) { t.over[code] -= n })
	delete(c.over, r)
	delete(c.overMore, r)
}

// keep counts r's findings and returns those its file keeps (MaxPerCode per code), counting the
// rest in c.over.
func (c *Checker) keep(r *session.Rec, fs []Finding) []Finding {
	if len(fs) == 0 {
		return nil
	}
	t := c.tallyOf(r.File)
	kept := fs[:0]
	var over []codeN
	for _, fd := range fs {
		if t.kept[fd.Code] < MaxPerCode {
			t.kept[fd.Code]++
			kept = append(kept, fd)
			continue
		}
		t.over[fd.Code]++
		k := codeIndex(fd.Code)
		if i := slices.IndexFunc(over, func(cn codeN) bool { return cn.code == k }); i >= 0 {
			over[i].n++
		} else {
			over = append(over, codeN{k, 1})
		}
	}
	if len(over) > 0 && !c.onePass {
		c.over[r] = over[0]
		if len(over) > 1 {
			c.overMore[r] = over[1:]
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if len(kept) < len(fs) {
		kept = slices.Clone(kept) // not the whole array of every finding of the record
	}
	return kept
}

func (c *Checker) recheck(r *session.Rec) {
	c.untally(r)
	fs, open := c.findings(r)
	fs = c.keep(r, fs)
	if len(fs) == 0 {
		delete(c.recs, r)
	} else {
		c.recs[r] = fs
	}
	setAdd(c.flagged, r, len(fs) > 0)
	setAdd(c.openUses, r, open)
}

// tailMark is a file's session.TurnTail as a record (lines move under edits, records do not).
type tailMark struct {
	rec  *session.Rec // the record at the tail line (nil: a blank line)
	line int          // -1: the whole file is the last message's turn
}

func tailOf(f *session.File) tailMark {
	l := f.TurnTail()
	return tailMark{f.Rec(l), min(l, 0)}
}

// inFlight reports whether r's unanswered calls are still in flight where its file ends.
func (c *Checker) inFlight(r *session.Rec) bool {
	t, ok := c.tails[r.File]
	if !ok {
		return r.File.InFlight(r)
	}
	if t.line < 0 {
		return true
	}
	if t.rec == nil { // a blank line: the tail is computed again
		return r.File.InFlight(r)
	}
	return r.Line > t.rec.Line
}

// File returns the findings of one file that the Checker keeps, in line order, with severities
// resolved and those turned off left out, and for each code with more than it keeps one finding
// saying how many more (More): what an editor shows.
func (c *Checker) File(f *session.File, sev Severities) []Finding { return c.file(f, sev, false) }

// file is File, or with every finding of the file (all): the ones counted and not kept computed
// again, and no findings standing for them.
func (c *Checker) file(f *session.File, sev Severities, all bool) []Finding {
	if all {
		return slices.Collect(c.Each(f, sev))
	}
	var out []Finding
	if t := c.tally[f]; t != nil { // sized once: a file can hold a million findings
		n := 0
		for _, k := range t.kept {
			n += k
		}
		out = make([]Finding, 0, n+4)
	}
	resolved := func(fd Finding) {
		if s := sev.Resolve(&fd); s != Off {
			fd.Severity = s
			out = append(out, fd)
		}
	}
	if f.NotJSONL() {
		resolved(notJSONL(f))
		return out
	}
	for r := range c.flagged[f] {
		for _, fd := range c.recs[r] {
			resolved(c.current(r, fd))
		}
	}
	if t := c.tally[f]; t != nil {
		for code, n := range t.over {
			if n > 0 {
				resolved(c.more(f, code, n))
			}
		}
	}
	for _, k := range []jsonl.ErrorKind{jsonl.ErrInvalidJSON, jsonl.ErrNotAnObject} {
		if fd, ok := unkept(f, k); ok {
			resolved(fd)
		}
	}
	// Not a stable sort: findings arrive in map order, and a million of them moved by a stable
	// sort's rotations cost seconds. Equal findings are equal in every field shown.
	slices.SortFunc(out, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return compareOnLine(a, b)
	})
	return groupMissingAgents(out)
}

// compareOnLine orders two findings of one line.
func compareOnLine(a, b Finding) int {
	if a.Span.Start != b.Span.Start {
		return int(a.Span.Start - b.Span.Start)
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	if (a.More > 0) != (b.More > 0) { // a finding standing for more comes after the ones shown
		if a.More > 0 {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.Message, b.Message)
}

// current is a kept finding of r as it reads now: records move when lines are inserted above
// them, and so do related ones, and a message may name another record's place.
func (c *Checker) current(r *session.Rec, fd Finding) Finding {
	fd.Line = r.Line
	fd.render()
	if len(fd.Related) > 0 {
		fd.Related = slices.Clone(fd.Related)
		for i := range fd.Related {
			if rr := fd.Related[i].rec; rr != nil {
				fd.Related[i].Line = rr.Line
			}
		}
	}
	return fd
}

// Each yields every finding of one file in line order, with severities resolved and those turned
// off left out: those the Checker counts and does not keep are computed again, one record at a
// time, so that `ccdag check` lists a million findings without holding them (faulty lines past
// the ones a file keeps are listed from its text: FaultyLines).
func (c *Checker) Each(f *session.File, sev Severities) iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		if f.NotJSONL() {
			fd := notJSONL(f)
			if s := sev.Resolve(&fd); s != Off {
				fd.Severity = s
				yield(fd)
			}
			return
		}
		// The file's missing-agent-file findings go out as one, where the first is (groupMissingAgents).
		missing := c.missingAgents(f, sev)
		missingDone := false
		var buf []Finding
		emit := func(r *session.Rec, fresh bool) bool {
			buf = buf[:0]
			if _, over := c.over[r]; over || fresh {
				fs, _ := c.findings(r)
				buf = append(buf, fs...)
			} else {
				for _, fd := range c.recs[r] {
					buf = append(buf, c.current(r, fd))
				}
			}
			slices.SortFunc(buf, compareOnLine)
			for _, fd := range buf {
				if s := sev.Resolve(&fd); s != Off {
					fd.Severity = s
					if fd.Code == MissingAgentFile && fd.More == 0 && len(missing) > 1 {
						if missingDone {
							continue
						}
						missingDone = true
						fd = groupMissingAgents(missing)[0]
					}
					if !yield(fd) {
						return false
					}
				}
			}
			return true
		}
		if t := c.tally[f]; t == nil || !t.counts() {
			// Few findings: the records that have them, in line order.
			rs := slices.Collect(maps.Keys(c.flagged[f]))
			slices.SortFunc(rs, func(a, b *session.Rec) int { return a.Line - b.Line })
			for _, r := range rs {
				if !emit(r, false) {
					return
				}
			}
			return
		}
		f.Recs(func(r *session.Rec) bool {
			if _, over := c.over[r]; over || c.onePass || c.recs[r] != nil {
				return emit(r, c.onePass) // NewOnePass: any record may hold counted findings
			}
			return true
		})
	}
}

// counts reports whether any finding of the file is counted and not kept.
func (t *tally) counts() bool {
	for _, n := range t.over {
		if n > 0 {
			return true
		}
	}
	return false
}

// All returns every finding of every file of the session, file by file, those the Checker counts
// and does not keep computed again (what `ccdag check` lists; faulty lines past the ones a file
// keeps are listed from its text: FaultyLines).
func (c *Checker) All(sev Severities) []Finding {
	var out []Finding
	for _, f := range c.s.Files {
		out = append(out, c.file(f, sev, true)...)
	}
	return out
}

// Len returns how many findings the session has, kept and counted, before severities apply.
func (c *Checker) Len() int {
	n := 0
	for _, t := range c.tally {
		for _, k := range t.kept {
			n += k
		}
		for _, k := range t.over {
			n += k
		}
	}
	return n
}

// Kept returns what File returns, for every file of the session.
func (c *Checker) Kept(sev Severities) []Finding {
	var out []Finding
	for _, f := range c.s.Files {
		out = append(out, c.File(f, sev)...)
	}
	return out
}

// more is the finding that stands for n findings of code in f that are counted, not kept, on the
// first record holding one of them.
func (c *Checker) more(f *session.File, code Code, n int) Finding {
	var first *session.Rec
	for r := range c.over {
		if r.File != f || first != nil && r.Line >= first.Line {
			continue
		}
		c.counted(r, func(cd Code, _ int) {
			if cd == code {
				first = r
			}
		})
	}
	line := 0
	var sp jsonl.Span
	if first != nil {
		// The first of first's findings of code past the ones it keeps (a record may straddle the cap).
		line, sp = first.Line, c.firstCounted(first, code)
	}
	return Finding{Code: code, Severity: Defaults[code], File: f, Line: line, Span: sp, More: n,
		Message: fmt.Sprintf("%d more %s findings in this file, from here on, are not shown (the first %d are); `ccdag check` lists them all", n, code, MaxPerCode)}
}

// firstCounted returns where r's first finding of code that is counted and not kept is.
func (c *Checker) firstCounted(r *session.Rec, code Code) jsonl.Span {
	skip := 0
	for _, fd := range c.recs[r] {
		if fd.Code == code {
			skip++
		}
	}
	fs, _ := c.findings(r)
	for _, fd := range fs {
		if fd.Code == code {
			if skip == 0 {
				return fd.Span
			}
			skip--
		}
	}
	return jsonl.Span{}
}

func rel(r *session.Rec, sp jsonl.Span, msg string) Related {
	return Related{File: r.File, Line: r.Line, Span: sp, Message: msg, rec: r}
}

// earliestRef returns the first reference in session order: the session keeps it first, so that
// a call answered 100 000 times is not compared 100 000 times per answer.
func earliestRef(refs []session.ToolRef) session.ToolRef { return refs[0] }

// findings computes a record's findings and whether it holds an unanswered tool_use.
func (c *Checker) findings(r *session.Rec) (out []Finding, openUse bool) {
	s := c.s
	add := func(code Code, sp jsonl.Span, msg string, related ...Related) {
		for i := range related {
			related[i].Message = textsafe.Printable(related[i].Message)
		}
		out = append(out, Finding{Code: code, Severity: Defaults[code], File: r.File, Line: r.Line, Span: sp, Message: textsafe.Printable(msg), Related: related})
	}
	// addAt adds a finding whose message names the place of another record: pre + place + post.
	addAt := func(code Code, sp jsonl.Span, pre string, at *session.Rec, lineOnly bool, post string, related ...Related) {
		add(code, sp, "", related...)
		fd := &out[len(out)-1]
		fd.at, fd.atLineOnly, fd.pre, fd.post = at, lineOnly, textsafe.Printable(pre), textsafe.Printable(post)
		fd.render()
	}
	if !c.noSecrets {
		for _, h := range secrets.Default().Line(r.LineBytes(), nil) {
			add(Secret, jsonl.Span{Start: h.Start, End: h.End}, "a secret (gitleaks rule "+h.Rule+"): anyone who reads or receives this log can use it; ccdag redact replaces it")
		}
	}
	if r.LineErr() != nil {
		code, sp, msg := lineFault(r.LineBytes(), r.LineErr(), r.Incomplete())
		add(code, sp, msg)
		return out, false
	}
	d := r.D() // once: a short line's Detail is parsed again on every call
	uuidBad := false
	for _, fe := range d.FieldErrs {
		if fe.Field == "uuid" {
			uuidBad = true
		}
		add(InvalidField, fe.Span, fmt.Sprintf("%q should be %s; the record is read as if it had no %s", fe.Field, fe.Want, fe.Field))
	}
	if r.UUID == "" && r.NeedsUUID() && !uuidBad {
		add(MissingUUID, jsonl.Span{}, fmt.Sprintf("this %s record has no uuid: nothing can name it as a parent", r.Type))
	}
	if r.UUID != "" {
		if first := s.Lookup(r.UUID); first != r {
			addAt(DuplicateUUID, r.UUIDSpan, fmt.Sprintf("uuid %s is already defined at ", r.UUID), first, false, "",
				rel(first, first.UUIDSpan, "first definition of "+r.UUID))
		}
	}
	if r.Parent != "" {
		if p := s.Lookup(r.Parent); p == nil {
			add(Orphan, r.ParentSpan, fmt.Sprintf("parentUuid %s names no record of this session (main log and sub-agent logs): the chain breaks here", r.Parent))
		} else if p.File == r.File && p.Line > r.Line {
			addAt(ParentAfterChild, r.ParentSpan, fmt.Sprintf("parent %s is written later in the file (", r.Parent), p, true, ")",
				rel(p, p.UUIDSpan, "the parent"))
		}
	}
	if c.cycles[r] {
		sp := r.ParentSpan
		add(ParentCycle, sp, fmt.Sprintf("following parentUuid from %s comes back to it: the chain has no root", r.UUID))
	}
	if d.LogicalParent != "" && s.Lookup(d.LogicalParent) == nil {
		add(UnresolvedLogicalParent, d.LogicalParentSpan, fmt.Sprintf("logicalParentUuid %s names no record of this session: the conversation before this compaction is not in these files", d.LogicalParent))
	}
	for i := range d.Blocks {
		b := &d.Blocks[i]
		switch b.Kind {
		case jsonl.BlockToolUse:
			if b.ID == "" {
				continue
			}
			uses := s.Uses(b.ID)
			if len(uses) > 1 {
				if f := earliestRef(uses); f.Rec != r || f.Block != i {
					addAt(DuplicateToolUseID, b.IDSpan, fmt.Sprintf("tool_use id %s is used by another call at ", b.ID), f.Rec, false, "",
						rel(f.Rec, f.ContentBlock().IDSpan, "first tool_use with id "+b.ID))
					continue
				}
			}
			results := s.Results(b.ID)
			if len(results) == 0 {
				openUse = true
				if c.inFlight(r) {
					f := Finding{Code: UnmatchedToolUse, Severity: Information, File: r.File, Line: r.Line, Span: b.IDSpan,
						Message: textsafe.Printable(fmt.Sprintf("%s call %s has no result yet: it was still in flight where the log ends (only its turn follows it: sibling calls, their results)", b.Name, b.ID))}
					out = append(out, f)
				} else {
					add(UnmatchedToolUse, b.IDSpan, fmt.Sprintf("%s call %s never got a tool_result: the conversation went on without its answer", b.Name, b.ID))
				}
				continue
			}
			if session.IsAgentTool(b.Name) && !s.InFileSidechains() {
				// the agent ids the call's results and progress records name (the session's one
				// linkage), each whose log is not in the session
				for _, id := range s.CallAgentIDs(b.ID) {
					if s.Agent(id) != nil {
						continue
					}
					var related []Related
					for _, t := range results {
						if ri := t.Rec.D().Result; ri != nil && ri.AgentID == id {
							related = append(related, rel(t.Rec, ri.AgentIDSpan, "the result naming agent "+id))
							break
						}
					}
					if len(related) == 0 {
						if ps := s.AgentProgress(id); len(ps) > 0 {
							related = append(related, rel(ps[0], ps[0].D().DataAgentIDSpan, "the progress record naming agent "+id))
						}
					}
					add(MissingAgentFile, b.IDSpan, fmt.Sprintf("%s call %s ran sub-agent %s, but its log agent-%s.jsonl is not where Claude Code writes it%s", b.Name, b.ID, id, id, lookedAt(s, id)), related...)
					out[len(out)-1].agent = id
				}
			}
		case jsonl.BlockToolResult:
			if b.ToolUseID == "" {
				continue
			}
			if len(s.Uses(b.ToolUseID)) == 0 {
				add(UnmatchedToolResult, b.IDSpan, fmt.Sprintf("tool_result answers %s, but no tool_use of this session has that id", b.ToolUseID))
				continue
			}
			if results := s.Results(b.ToolUseID); len(results) > 1 {
				if f := earliestRef(results); f.Rec != r || f.Block != i {
					addAt(DuplicateToolResult, b.IDSpan, fmt.Sprintf("tool_use %s is already answered at ", b.ToolUseID), f.Rec, false, "",
						rel(f.Rec, f.ContentBlock().IDSpan, "first tool_result for "+b.ToolUseID))
				}
			}
		}
	}
	return out, openUse
}

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

// where names a record's place for messages: "line 12" or "agent-ab12.jsonl line 3".
func where(r *session.Rec) string {
	if r.File.Lane == "main" {
		return fmt.Sprintf("line %d", r.Line+1)
	}
	return fmt.Sprintf("line %d of %s", r.Line+1, r.File.Lane+".jsonl")
}
