// Package repair computes the safe repairs of docs/spec.md §6 for a session: what each changes,
// line by line, so that every line no repair names stays byte for byte where it was. Line repairs
// (NUL padding, glued records) come first; the session is checked again and the other repairs work
// on what remains. All repairs of a pass are decided from the same checked session and applied
// together per line, so the result does not depend on their order.
package repair

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
)

// Repair is one repair: the finding it answers and the lines (0-based, of the original file) it
// changes.
type Repair struct {
	Code  check.Code
	Title string
	Line  int        // the finding's line in the original file
	Span  jsonl.Span // the finding's span on the phase's line (for matching diagnostics)
	Lines []int      // original lines this repair changes (a line it inserts after counts)
}

// File is the repaired text of one file of the session.
type File struct {
	Path    string
	Old     []byte
	New     []byte
	Repairs []Repair
	// Out maps each original line to the lines that replace it (nil: deleted); an unchanged line
	// maps to itself. Inserted lines follow the line they come after.
	Out [][][]byte
	// Changed marks original lines whose output differs.
	Changed []bool
}

// Options limits the repairs.
type Options struct {
	// Codes, when non-empty, is the set of codes to repair. incomplete-last-line is repaired only
	// when named here.
	Codes map[check.Code]bool
	// Checker, when set, holds the session's current findings (the server keeps one): used as they
	// are when no line repair changed the session, instead of checking it again.
	Checker *check.Checker
}

func (o Options) wants(c check.Code) bool {
	if c == check.IncompleteLastLine {
		return o.Codes[c]
	}
	return len(o.Codes) == 0 || o.Codes[c]
}

// Repairable reports whether ccdag has a repair for findings of code c.
func Repairable(c check.Code) bool {
	switch c {
	case check.UnmatchedToolUse, check.UnmatchedToolResult, check.DuplicateToolResult, check.Orphan,
		check.ParentAfterChild, check.DuplicateUUID, check.InvalidJSON, check.IncompleteLastLine:
		return true
	}
	return false
}

// Lines splits text into lines that keep their terminators.
func Lines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func terminator(line []byte) []byte {
	switch {
	case bytes.HasSuffix(line, []byte("\r\n")):
		return []byte("\r\n")
	case bytes.HasSuffix(line, []byte("\n")):
		return []byte("\n")
	}
	return nil
}

func body(line []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
}

// pass is one phase's plan for one file: per line, what replaces it.
type pass struct {
	f       *session.File
	lines   [][]byte // the phase's input lines, terminators kept
	out     [][][]byte
	touched []bool
	repairs []Repair
}

func newPass(f *session.File) *pass {
	ls := Lines(f.Text())
	p := &pass{f: f, lines: ls, out: make([][][]byte, len(ls)), touched: make([]bool, len(ls))}
	for i, l := range ls {
		p.out[i] = [][]byte{l}
	}
	return p
}

// Reload builds a session like s (same ids, paths and lanes) from new texts by path.
func Reload(s *session.Session, texts map[string][]byte) *session.Session {
	n := session.New(s.ID, s.Dir)
	for _, f := range s.Files {
		t, ok := texts[f.Path]
		if !ok {
			t = f.Text()
		}
		nf := session.NewFile(f.Path, slices.Clone(t))
		nf.Lane, nf.AgentID, nf.Meta = f.Lane, f.AgentID, f.Meta
		n.AddFile(nf)
	}
	return n
}

// Session repairs s (not modified) and returns one File per file of the session that changes.
func Session(s *session.Session, opt Options) []*File {
	// Phase 1: line repairs.
	p1 := map[string]*pass{}
	texts := map[string][]byte{}
	any1 := false
	for _, f := range s.Files {
		p := newPass(f)
		p1[f.Path] = p
		if !f.NotJSONL() && opt.wants(check.InvalidJSON) {
			p.lineRepairs()
		}
		if len(p.repairs) > 0 { // a copy of the text only for a file that changes
			texts[f.Path] = p.text()
			any1 = true
		}
	}
	s2 := s
	if any1 {
		s2 = Reload(s, texts)
	}
	// Phase 2: the rest, on the re-checked session.
	chk := opt.Checker
	if chk == nil || s2 != s {
		chk = check.New(s2)
	} else {
		chk.Update()
	}
	p2 := map[string]*pass{}
	for _, f := range s2.Files {
		p2[f.Path] = newPass(f)
	}
	plan(s2, chk, p2, opt)

	var out []*File
	for _, f := range s.Files {
		a, b := p1[f.Path], p2[f.Path]
		if b == nil {
			continue
		}
		rf := compose(f, a, b)
		if rf != nil {
			out = append(out, rf)
		}
	}
	return out
}

// text is the pass's output.
func (p *pass) text() []byte {
	var b bytes.Buffer
	for _, o := range p.out {
		for _, l := range o {
			b.Write(l)
		}
	}
	return b.Bytes()
}

// lineRepairs strips leading NUL bytes and splits glued records.
//
// A file keeps only the first session.MaxLineErrors invalid lines as records; past them, the lines
// it kept none for are parsed again here, so that one run repairs them all.
func (p *pass) lineRepairs() {
	f := p.f
	more := f.UnkeptLineErrors(jsonl.ErrInvalidJSON) > 0
	for i, raw := range p.lines {
		r := f.Rec(i)
		invalid := r != nil && r.LineErr() != nil && r.LineErr().Kind == jsonl.ErrInvalidJSON
		if r == nil && more {
			err := jsonl.Fault(body(raw))
			invalid = err != nil && err.Kind == jsonl.ErrInvalidJSON
		}
		if !invalid {
			continue
		}
		if i == f.LineCount()-1 && !f.Terminated(i) {
			continue // incomplete-last-line: a live session's partial record
		}
		line := body(raw)
		term := terminator(raw)
		stripped := bytes.TrimLeft(line, "\x00")
		if n := len(line) - len(stripped); n > 0 && jsonObject(stripped) {
			p.out[i] = [][]byte{join(stripped, term)}
			p.touched[i] = true
			p.repairs = append(p.repairs, Repair{Code: check.InvalidJSON, Line: i, Lines: []int{i},
				Title: fmt.Sprintf("Remove the %d NUL bytes at the start of line %d", n, i+1)})
			continue
		}
		if parts := unglue(stripped); len(parts) > 1 {
			for k := range parts {
				parts[k] = join(parts[k], term)
			}
			if term == nil { // the last line of the file: the new lines between need a newline
				for k := 0; k < len(parts)-1; k++ {
					parts[k] = append(parts[k], '\n')
				}
			}
			p.out[i] = parts
			p.touched[i] = true
			p.repairs = append(p.repairs, Repair{Code: check.InvalidJSON, Line: i, Lines: []int{i},
				Title: fmt.Sprintf("Split line %d into the %d records glued on it", i+1, len(parts))})
		}
	}
}

func join(line, term []byte) []byte {
	out := make([]byte, 0, len(line)+len(term))
	return append(append(out, line...), term...)
}

func jsonObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 1 && b[0] == '{' && json.Valid(b)
}

// unglue splits a line made of JSON objects written one after another ("}{"), or returns nil.
func unglue(line []byte) [][]byte {
	var parts [][]byte
	rest := line
	for len(rest) > 0 {
		if jsonObject(rest) {
			return append(parts, slices.Clip(rest))
		}
		found := false
		for off := 0; ; {
			k := bytes.Index(rest[off:], []byte("}{"))
			if k < 0 {
				break
			}
			cut := off + k + 1
			if jsonObject(rest[:cut]) {
				parts = append(parts, slices.Clip(rest[:cut]))
				rest = rest[cut:]
				found = true
				break
			}
			off = cut
		}
		if !found {
			return nil
		}
	}
	return nil
}

// compose joins the two phases into the original file's lines.
func compose(f *session.File, a, b *pass) *File {
	rf := &File{Path: f.Path, Old: f.Text(), Out: make([][][]byte, len(a.lines)), Changed: make([]bool, len(a.lines))}
	// Phase-1 output line j comes from original line origin[j].
	var origin []int
	for i, o := range a.out {
		for range o {
			origin = append(origin, i)
		}
	}
	if len(origin) != len(b.lines) {
		panic(fmt.Sprintf("repair: phase 1 made %d lines, phase 2 read %d", len(origin), len(b.lines)))
	}
	for j, o := range b.out {
		i := origin[j]
		rf.Out[i] = append(rf.Out[i], o...)
		if b.touched[j] {
			rf.Changed[i] = true
		}
	}
	for i := range a.out {
		if a.touched[i] {
			rf.Changed[i] = true
		}
		if len(rf.Out[i]) == 0 {
			rf.Out[i] = nil
		}
	}
	rf.Repairs = append(rf.Repairs, a.repairs...)
	for _, r := range b.repairs {
		r.Title = lineRef.ReplaceAllStringFunc(r.Title, func(m string) string {
			n, _ := strconv.Atoi(strings.Trim(m, "\x00"))
			if n >= 0 && n < len(origin) {
				n = origin[n]
			}
			return strconv.Itoa(n + 1)
		})
		r.Line = origin[r.Line]
		for k, l := range r.Lines {
			r.Lines[k] = origin[l]
		}
		rf.Repairs = append(rf.Repairs, r)
	}
	if len(rf.Repairs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, o := range rf.Out {
		for _, l := range o {
			buf.Write(l)
		}
	}
	rf.New = buf.Bytes()
	slices.SortStableFunc(rf.Repairs, func(x, y Repair) int { return x.Line - y.Line })
	return rf
}

// ln marks a line of the second pass in a title; compose writes the original file's line number
// there (a split line above it shifts the second pass's numbers).
func ln(i int) string { return "\x00" + strconv.Itoa(i) + "\x00" }

var lineRef = regexp.MustCompile("\x00[0-9]+\x00")

// lineFix gathers what the repairs of one pass do to one record.
type lineFix struct {
	parent  []byte       // new parentUuid value, raw JSON as written in the log
	drop    map[int]bool // content blocks removed
	remove  bool         // the whole line removed
	inserts [][]byte     // records inserted after the line (bodies, no terminator)
	ids     []string     // tool ids of the inserted results, to keep them in block order
}

// plan decides the second pass's repairs from the checked session, in phases: what goes
// (removals, then records left empty), where the children of what goes follow, re-parenting and
// insertions, and last the new lines.
func plan(s *session.Session, chk *check.Checker, passes map[string]*pass, opt Options) {
	pl := &planner{s: s, passes: passes, opt: opt, fixes: map[*session.Rec]*lineFix{}, gone: map[*session.Rec]bool{}}
	findings := chk.All(check.Severities{})
	pl.removals(findings)
	pl.removeEmptied()
	pl.followRemoved()
	pl.reparentAndInsert(findings)
	pl.writeLines()
	maskTitles(passes, findings)
	for _, p := range passes {
		slices.SortStableFunc(p.repairs, func(x, y Repair) int { return x.Line - y.Line })
	}
}

// maskTitles masks, in each title, the secrets found on the line it repairs: a title quotes the
// line's ids and names as they are, and no title shows a secret (docs/spec.md §15). The check's
// secret findings say which lines hold one: a title on a line without costs nothing more.
func maskTitles(passes map[string]*pass, findings []check.Finding) {
	type at struct {
		f    *session.File
		line int
	}
	var held map[at][]check.Finding
	for _, fd := range findings {
		if fd.Code == check.Secret && fd.File != nil {
			if held == nil {
				held = map[at][]check.Finding{}
			}
			held[at{fd.File, fd.Line}] = append(held[at{fd.File, fd.Line}], fd)
		}
	}
	if held == nil {
		return
	}
	masks := map[at]*secrets.Mask{}
	for _, p := range passes {
		for i := range p.repairs {
			rp := &p.repairs[i]
			k := at{p.f, rp.Line}
			if held[k] == nil {
				continue
			}
			if masks[k] == nil {
				masks[k] = check.SecretMask(slices.Values(held[k]))
			}
			rp.Title = masks[k].String(rp.Title)
		}
	}
}

// planner holds what plan's phases decide between them.
type planner struct {
	s      *session.Session
	passes map[string]*pass
	opt    Options
	fixes  map[*session.Rec]*lineFix
	gone   map[*session.Rec]bool // records removed
}

// fix returns r's lineFix, made on first use.
func (pl *planner) fix(r *session.Rec) *lineFix {
	lf := pl.fixes[r]
	if lf == nil {
		lf = &lineFix{drop: map[int]bool{}}
		pl.fixes[r] = lf
	}
	return lf
}

func (pl *planner) add(r *session.Rec, rp Repair) {
	p := pl.passes[r.File.Path]
	p.repairs = append(p.repairs, rp)
}

// blockAt returns the index of r's content block whose id is at sp, or -1.
func blockAt(r *session.Rec, sp jsonl.Span) int {
	for i, b := range r.D().Blocks {
		if b.IDSpan == sp {
			return i
		}
	}
	return -1
}

// removals decides which blocks and lines go. They decide nothing else's target but parents.
func (pl *planner) removals(findings []check.Finding) {
	for _, fd := range findings {
		r := fd.File.Rec(fd.Line)
		if r == nil || !pl.opt.wants(fd.Code) {
			continue
		}
		switch fd.Code {
		case check.UnmatchedToolResult, check.DuplicateToolResult:
			k := blockAt(r, fd.Span)
			if k < 0 {
				continue
			}
			b := r.D().Blocks[k]
			what := "the result of an unknown call " + b.ToolUseID
			if fd.Code == check.DuplicateToolResult {
				what = "the second result for " + b.ToolUseID
			}
			pl.fix(r).drop[k] = true
			pl.add(r, Repair{Code: fd.Code, Line: r.Line, Span: fd.Span, Lines: []int{r.Line},
				Title: fmt.Sprintf("Remove %s (line %s)", what, ln(r.Line))})
		case check.DuplicateUUID:
			first := pl.s.Lookup(r.UUID)
			if first == nil || !bytes.Equal(first.LineBytes(), r.LineBytes()) {
				continue
			}
			pl.fix(r).remove = true
			pl.add(r, Repair{Code: fd.Code, Line: r.Line, Span: fd.Span, Lines: []int{r.Line},
				Title: fmt.Sprintf("Remove line %s, a copy of %s", ln(r.Line), placeOf(first, r.File))})
		case check.IncompleteLastLine:
			pl.fix(r).remove = true
			pl.add(r, Repair{Code: fd.Code, Line: r.Line, Span: fd.Span, Lines: []int{r.Line},
				Title: fmt.Sprintf("Remove the partial last line %s", ln(r.Line))})
		}
	}
}

// removeEmptied marks what goes: a record whose every block goes is removed; one that cannot be
// (a root; an orphan with children and no record before it to give them, followRemoved) keeps its
// blocks.
func (pl *planner) removeEmptied() {
	var emptied []*session.Rec
	for r, lf := range pl.fixes {
		if lf.remove {
			pl.gone[r] = true
		} else if len(lf.drop) > 0 && len(lf.drop) == len(r.D().Blocks) {
			emptied = append(emptied, r)
			pl.gone[r] = true // for now: an emptied child of an emptied orphan goes with it
		}
	}
	slices.SortFunc(emptied, func(a, b *session.Rec) int { // in file and line order: the same plan every run
		return cmp.Or(strings.Compare(a.File.Path, b.File.Path), a.Line-b.Line)
	})
	for _, r := range emptied {
		lf := pl.fixes[r]
		if r.Parent == "" || pl.s.Lookup(r.Parent) == nil && pl.keptChild(r) && before(pl.s, r, pl.gone) == nil {
			delete(pl.gone, r)
			lf.drop = map[int]bool{}
			p := pl.passes[r.File.Path]
			p.repairs = slices.DeleteFunc(p.repairs, func(rp Repair) bool {
				return rp.Line == r.Line && (rp.Code == check.UnmatchedToolResult || rp.Code == check.DuplicateToolResult)
			})
			if lf.parent == nil && len(lf.inserts) == 0 {
				delete(pl.fixes, r) // nothing else to do on the line: it is not rewritten
			}
			continue
		}
		lf.remove = true
	}
}

// keptChild reports whether a record naming r as its parent stays.
func (pl *planner) keptChild(r *session.Rec) bool {
	return slices.ContainsFunc(pl.s.Children(r), func(c *session.Rec) bool { return !pl.gone[c] })
}

// survivor returns the parent of from, or the nearest one above it that is not removed: its
// id and the raw JSON of the value naming it (bytes as the log wrote them: an id need not be
// valid UTF-8).
func (pl *planner) survivor(from *session.Rec) (string, []byte, bool) {
	id, raw := from.Parent, from.Bytes(from.ParentSpan)
	for seen := 0; ; seen++ {
		p := pl.s.Lookup(id)
		if p == nil || !pl.gone[p] {
			return id, raw, id != ""
		}
		if p.Parent == "" || seen > 1_000_000 {
			return "", nil, false
		}
		id, raw = p.Parent, p.Bytes(p.ParentSpan)
	}
}

func uuidOf(r *session.Rec) []byte { return slices.Clone(r.Bytes(r.UUIDSpan)) }

// followRemoved re-parents the children of removed records to the removed record's parent.
func (pl *planner) followRemoved() {
	s := pl.s
	for r := range pl.gone {
		if r.UUID == "" || s.Lookup(r.UUID) != r {
			continue
		}
		for _, c := range s.Children(r) {
			if pl.gone[c] || c.Has(jsonl.FlagParentNull) {
				continue
			}
			id, np, ok := pl.survivor(r)
			if s.Lookup(id) == nil { // the removed record was itself an orphan: as an orphan's repair would
				ok = false
				if to := before(s, r, pl.gone); to != nil {
					np, ok = uuidOf(to), true
				}
			}
			if ok {
				pl.fix(c).parent = np
				p := pl.passes[c.File.Path]
				for k := range p.repairs {
					if lr := &p.repairs[k]; lr.Line == r.Line && !slices.Contains(lr.Lines, c.Line) {
						lr.Lines = append(lr.Lines, c.Line)
					}
				}
			}
		}
	}
}

// reparentAndInsert decides the re-parenting of orphans and of records naming a later progress
// record, and the error results inserted for calls that never got one.
func (pl *planner) reparentAndInsert(findings []check.Finding) {
	s := pl.s
	for _, fd := range findings {
		r := fd.File.Rec(fd.Line)
		if r == nil || !pl.opt.wants(fd.Code) || pl.gone[r] {
			continue
		}
		switch fd.Code {
		case check.Orphan:
			if r.Has(jsonl.FlagParentNull) || r.Type == "system" && r.D().Subtype == "compact_boundary" {
				continue
			}
			to := before(s, r, pl.gone)
			if to == nil {
				continue
			}
			pl.fix(r).parent = uuidOf(to)
			pl.add(r, Repair{Code: fd.Code, Line: r.Line, Span: fd.Span, Lines: []int{r.Line},
				Title: fmt.Sprintf("Re-parent line %s to line %s, the record before it", ln(r.Line), ln(to.Line))})
		case check.ParentAfterChild:
			p := s.Lookup(r.Parent)
			if p == nil || p.Type != "progress" {
				continue
			}
			// Rule 1: the loader drops a progress record written after the record naming it.
			from := p
			for q, hops := s.Lookup(p.Parent), 0; q != nil && q.Type == "progress" && q.File == r.File && q.Line > r.Line && hops < 1000; q, hops = s.Lookup(q.Parent), hops+1 {
				from = q
			}
			_, np, ok := pl.survivor(from)
			if !ok {
				continue
			}
			pl.fix(r).parent = np
			pl.add(r, Repair{Code: fd.Code, Line: r.Line, Span: fd.Span, Lines: []int{r.Line},
				Title: fmt.Sprintf("Re-parent line %s past the later progress record (line %s) to its parent", ln(r.Line), ln(p.Line))})
		case check.UnmatchedToolUse:
			if fd.Severity != check.Warning { // in flight where the log ends: not broken
				continue
			}
			if r.UUID == "" { // a record without a uuid is no result's parent: nothing to insert under it
				continue
			}
			k := blockAt(r, fd.Span)
			if k < 0 {
				continue
			}
			rec, err := errorResult(r, k)
			if err != nil {
				continue
			}
			lf := pl.fix(r)
			lf.inserts = append(lf.inserts, rec)
			lf.ids = append(lf.ids, r.D().Blocks[k].ID)
			pl.add(r, Repair{Code: fd.Code, Line: r.Line, Span: fd.Span, Lines: []int{r.Line},
				Title: fmt.Sprintf("Insert an error result for %s call %s after line %s", r.D().Blocks[k].Name, r.D().Blocks[k].ID, ln(r.Line))})
		}
	}
}

// writeLines writes each fixed record's new lines into its pass: the rewritten line (unless
// removed) and the inserted results after it.
func (pl *planner) writeLines() {
	for r, lf := range pl.fixes {
		p := pl.passes[r.File.Path]
		i := r.Line
		raw := p.lines[i]
		term := terminator(raw)
		if term == nil && len(lf.inserts) > 0 {
			term = []byte("\n")
		}
		var out [][]byte
		if !lf.remove {
			line := body(raw)
			if lf.parent != nil || len(lf.drop) > 0 {
				line = rewrite(r, line, lf)
			}
			if len(lf.inserts) > 0 || !bytes.Equal(line, body(raw)) {
				out = append(out, join(line, term))
			} else {
				out = append(out, raw)
			}
		}
		// Inserted results in the order of their calls in the record.
		order := make([]int, len(lf.inserts))
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(x, y int) int {
			return slices.IndexFunc(r.D().Blocks, func(b jsonl.Block) bool { return b.ID == lf.ids[x] }) -
				slices.IndexFunc(r.D().Blocks, func(b jsonl.Block) bool { return b.ID == lf.ids[y] })
		})
		for _, k := range order {
			out = append(out, join(lf.inserts[k], term))
		}
		p.out[i] = out
		p.touched[i] = true
	}
}

// before returns the record just before r in its file on the same side (main or sidechain),
// skipping progress records, records without uuid (snapshots), removed records, r's own
// descendants and a record sharing r's uuid (r would name itself as its parent, and the next fix
// would find it a copy of that record); nil when there is none.
func before(s *session.Session, r *session.Rec, gone map[*session.Rec]bool) *session.Rec {
	desc := map[*session.Rec]bool{r: true}
	queue := []*session.Rec{r}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if q.UUID == "" || s.Lookup(q.UUID) != q {
			continue
		}
		for _, c := range s.Children(q) {
			if !desc[c] {
				desc[c] = true
				queue = append(queue, c)
			}
		}
	}
	side := r.Has(jsonl.FlagSidechain)
	for i := r.Line - 1; i >= 0; i-- {
		c := r.File.Rec(i)
		if c == nil || c.LineErr() != nil || c.UUID == "" || c.Type == "progress" || c.Type == "file-history-snapshot" ||
			gone[c] || desc[c] || c.UUID == r.UUID || c.Has(jsonl.FlagSidechain) != side || s.Lookup(c.UUID) != c {
			continue
		}
		return c
	}
	return nil
}

// rewrite applies a record's parent change and block removals to its line. Spans are replaced from
// the end so earlier offsets stay valid.
func rewrite(r *session.Rec, line []byte, lf *lineFix) []byte {
	type splice struct {
		start, end int
		with       []byte
	}
	var sp []splice
	if lf.parent != nil && r.ParentSpan.Valid() {
		q := lf.parent
		sp = append(sp, splice{int(r.ParentSpan.Start), int(r.ParentSpan.End), q})
	}
	if len(lf.drop) > 0 && r.D().ContentSpan.Valid() {
		var b bytes.Buffer
		b.WriteByte('[')
		n := 0
		for k, bl := range r.D().Blocks {
			if lf.drop[k] {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			b.Write(line[bl.Span.Start:bl.Span.End])
			n++
		}
		b.WriteByte(']')
		sp = append(sp, splice{int(r.D().ContentSpan.Start), int(r.D().ContentSpan.End), b.Bytes()})
	}
	slices.SortFunc(sp, func(x, y splice) int { return y.start - x.start })
	out := slices.Clone(line)
	for _, s := range sp {
		out = slices.Concat(out[:s.start], s.with, out[s.end:])
	}
	return out
}

func placeOf(r *session.Rec, from *session.File) string {
	if r.File == from {
		return "line " + ln(r.Line)
	}
	return fmt.Sprintf("line %d of %s", r.Line+1, r.File.Lane+".jsonl")
}

// errorText is what the inserted result says.
const errorText = "No result was recorded for this call (the log has none); inserted by ccdag fix so that the conversation can be resumed."

// errorResult builds the user record answering call block k of r as Claude Code writes results:
// the call record's keys in its order (message replaced, requestId left out), then toolUseResult
// and sourceToolAssistantUUID; parentUuid the call's record, the call's timestamp, a new v4 uuid.
func errorResult(r *session.Rec, k int) ([]byte, error) {
	keys, vals, err := topLevel(r.LineBytes())
	if err != nil {
		return nil, err
	}
	b := r.D().Blocks[k]
	// Strings written as the log holds them: an id with invalid UTF-8 stays that id (json.Marshal
	// would write U+FFFD, and the result would answer no call).
	str := func(s string) json.RawMessage { return jsonscan.AppendQuote(nil, s) }
	// As Claude Code writes a result message: role, then the block with tool_use_id first.
	msg := json.RawMessage(`{"role":"user","content":[{"tool_use_id":` + string(str(b.ID)) + `,"type":"tool_result","content":` +
		string(str(errorText)) + `,"is_error":true}]}`)
	set := map[string]json.RawMessage{
		"parentUuid":              str(r.UUID),
		"type":                    str("user"),
		"message":                 msg,
		"uuid":                    str(newUUID(r.SessionID + "\x00" + r.UUID + "\x00" + b.ID)),
		"toolUseResult":           str("Error: " + errorText),
		"sourceToolAssistantUUID": str(r.UUID),
	}
	var out bytes.Buffer
	out.WriteByte('{')
	n := 0
	put := func(k string, v json.RawMessage) {
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(jsonscan.AppendQuote(nil, k))
		out.WriteByte(':')
		out.Write(v)
		n++
	}
	done := map[string]bool{}
	for i, k := range keys {
		switch k {
		case "requestId", "isApiErrorMessage", "error", "apiError":
			continue
		}
		if v, ok := set[k]; ok {
			put(k, v)
		} else {
			put(k, vals[i])
		}
		done[k] = true
	}
	for _, k := range []string{"parentUuid", "type", "message", "uuid", "toolUseResult", "sourceToolAssistantUUID"} {
		if !done[k] {
			put(k, set[k])
		}
	}
	// Newer user records name the prompt their turn answers; assistant records do not carry it.
	if pid := promptID(r); pid != nil && !done["promptId"] {
		put("promptId", pid)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// promptID returns the promptId of the nearest user record before r in its file, or nil.
func promptID(r *session.Rec) json.RawMessage {
	for i := r.Line - 1; i >= 0; i-- {
		p := r.File.Rec(i)
		if p == nil || p.LineErr() != nil || p.Type != "user" || p.Has(jsonl.FlagSidechain) != r.Has(jsonl.FlagSidechain) {
			continue
		}
		if !bytes.Contains(p.LineBytes(), []byte(`"promptId"`)) {
			return nil
		}
		keys, vals, err := topLevel(p.LineBytes())
		if err != nil {
			return nil
		}
		if k := slices.Index(keys, "promptId"); k >= 0 {
			return vals[k]
		}
		return nil
	}
	return nil
}

// topLevel returns an object's keys in order with their raw values (a later duplicate key wins, as
// in JSON.parse, at its first place).
func topLevel(line []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("not an object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if i := slices.Index(keys, k); i >= 0 {
			vals[i] = v
			continue
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}

// newUUID derives a version-4 uuid from seed: random-looking, and the same for the same call, so
// a dry run, the written file and an editor's quick fix agree.
func newUUID(seed string) string {
	h := sha256.Sum256([]byte("ccdag fix\x00" + seed))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	x := fmt.Sprintf("%x", h[:16])
	return strings.Join([]string{x[0:8], x[8:12], x[12:16], x[16:20], x[20:32]}, "-")
}
