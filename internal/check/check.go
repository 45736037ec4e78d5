package check

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
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
	agent      string // MissingAgentFile of a log not there: the agent id (groupMissingAgents)
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
	bare     map[*session.File]*bareFindings // the secrets of lines that are no records (bare.go)
	onePass  bool                            // Options.OnePass: c.over left empty

	noSecrets bool                             // Options.NoSecrets
	scan      func(*session.Rec) []secrets.Hit // Options.Scan
	parallel  bool                             // Options.Parallel
	ahead     *ahead                           // the findings of the file being gone through, found ahead (ahead.go)
}

// Options choose what a Checker looks for.
type Options struct {
	// NoSecrets leaves out the secret scan (code secret set off): its cost is then nothing but
	// the scan of the lines holding other findings, whose messages must not quote a secret.
	NoSecrets bool
	// OnePass is for a caller that lists a session's findings once (All, Each) and edits nothing
	// (`ccdag check`): a record whose findings are all counted past MaxPerCode is not indexed at
	// all (else one map entry each: 36 MB for a million, the headroom the memory bound needs under
	// load, docs/SECURITY.md), and Each computes again the findings of every record of a file that
	// counts some. File, Kept and edits are not for it.
	OnePass bool
	// Scan, when set, stands for the secret scan of a record's line (secrets.Default().Line): a
	// caller that kept the hits of lines it scanned before answers those lines without scanning
	// them again (a grown log read again, internal/catalog's scans.go). It must answer exactly what
	// the scan would.
	Scan func(r *session.Rec) []secrets.Hit
	// Parallel finds the findings of a large file's records on every core (ahead.go), the same
	// findings. For `ccdag check`; the server checks on its session's worker and leaves the other
	// cores to the other sessions' requests.
	Parallel bool
}

// New checks the whole session.
func New(s *session.Session) *Checker { return NewOptions(s, Options{}) }

// NewOptions checks the whole session as opts say.
func NewOptions(s *session.Session, opts Options) *Checker {
	c := &Checker{
		noSecrets: opts.NoSecrets,
		scan:      opts.Scan,
		onePass:   opts.OnePass,
		parallel:  opts.Parallel,
		s:         s,
		recs:      map[*session.Rec][]Finding{},
		over:      map[*session.Rec]codeN{},
		overMore:  map[*session.Rec][]codeN{},
		tally:     map[*session.File]*tally{},
		flagged:   map[*session.File]map[*session.Rec]struct{}{},
		openUses:  map[*session.File]map[*session.Rec]struct{}{},
		tails:     map[*session.File]tailMark{},
		bare:      map[*session.File]*bareFindings{},
	}
	s.TakeChanges() // everything is checked below
	c.cycles = s.Cycles()
	for _, f := range s.Files {
		c.tails[f] = tailOf(f)
		c.withAhead(f, func() { f.Recs(func(r *session.Rec) bool { c.recheck(r); return true }) })
		c.rescanBare(f)
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
		c.rescanBare(f) // its lines moved or changed: its bare lines' findings are found again
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
			delete(c.bare, f)
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
			c.rescanBare(f)
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
	fs, open := c.findingsOf(r)
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
	if b := c.bare[f]; b != nil {
		for _, fd := range b.kept {
			resolved(fd)
		}
		if fd, ok := c.bareMore(f, b); ok {
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
		// The secrets of the file's bare lines go out between the records', in line order: those
		// kept, or all of them scanned again when more than that (bare.go).
		var bare iter.Seq[Finding]
		if b := c.bare[f]; b != nil && b.n > 0 {
			bare = slices.Values(b.kept)
			if b.n > len(b.kept) {
				bare = c.bareSecrets(f)
			}
		}
		stopped := false // yield said stop: it is not called again
		bareBefore := func(line int) bool { return !stopped }
		if bare != nil {
			next, stop := iter.Pull(bare)
			defer stop()
			pending, ok := next()
			bareBefore = func(line int) bool {
				for ; !stopped && ok && pending.Line < line; pending, ok = next() {
					fd := pending
					if s := sev.Resolve(&fd); s != Off {
						fd.Severity = s
						stopped = !yield(fd)
					}
				}
				return !stopped
			}
		}
		var buf []Finding
		emit := func(r *session.Rec, fresh bool) bool {
			if !bareBefore(r.Line) {
				return false
			}
			buf = buf[:0]
			if _, over := c.over[r]; over || fresh {
				fs, _ := c.findingsOf(r)
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
					if fd.grouped() && len(missing) > 1 {
						if missingDone {
							continue
						}
						missingDone = true
						fd = groupMissingAgents(missing)[0]
					}
					if !yield(fd) {
						stopped = true
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
			bareBefore(f.LineCount())
			return
		}
		every := func() {
			f.Recs(func(r *session.Rec) bool {
				if _, over := c.over[r]; over || c.onePass || c.recs[r] != nil {
					return emit(r, c.onePass) // NewOnePass: any record may hold counted findings
				}
				return true
			})
		}
		if c.onePass { // every record's findings computed again: its secrets found ahead
			c.withAhead(f, every)
		} else {
			every()
		}
		bareBefore(f.LineCount())
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
	for _, b := range c.bare {
		n += b.n
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
	return Finding{Code: code, Severity: Defaults[code], File: f, Line: line, Span: sp, More: n, Message: moreMessage(n, code)}
}

// moreMessage is the message of a finding that stands for n more of code.
func moreMessage(n int, code Code) string {
	return fmt.Sprintf("%d more %s findings in this file, from here on, are not shown (the first %d are); `ccdag check` lists them all", n, code, MaxPerCode)
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
