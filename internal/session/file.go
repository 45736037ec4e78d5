package session

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/parallel"
	"github.com/ccdag/ccdag/internal/position"
)

// Rec is one non-blank line of a file: its skimmed record and where it is.
type Rec struct {
	jsonl.Record // by value: one allocation per line, not two
	File         *File
	Line         int    // 0-based line number, kept current across edits
	utf16Len     uint32 // the line's length in UTF-16 units, 0 until asked (a record's line is never empty)
}

// LineUTF16Len returns the length of the record's line in UTF-16 units (the LSP column of its end).
// A record's line never changes (an edit to it makes a new Rec), so it is computed once: graphs,
// rebuilt after every append to a live log, then cost the new lines only.
func (r *Rec) LineUTF16Len() uint32 {
	if r.utf16Len == 0 {
		line := r.LineBytes()
		r.utf16Len = position.UTF16Col(line, len(line))
	}
	return r.utf16Len
}

// Span returns the absolute byte range of a line-relative span.
func (r *Rec) Abs(sp jsonl.Span) (start, end int) {
	base := r.File.starts[r.Line]
	return base + int(sp.Start), base + int(sp.End)
}

// Bytes returns the bytes of a line-relative span of the record's line.
func (r *Rec) Bytes(sp jsonl.Span) []byte {
	s, e := r.Abs(sp)
	return r.File.text[s:e]
}

// LineBytes returns the record's whole line without its newline.
func (r *Rec) LineBytes() []byte { return r.File.Line(r.Line) }

// File is one log of a session: its bytes, line index and one Rec per non-blank line.
type File struct {
	Path    string // absolute path on disk (also for documents open in an editor)
	Lane    string // "main" or "agent-<id>"
	AgentID string // for sub-agent logs
	Meta    *AgentMeta

	text   []byte
	starts []int  // byte offset of each line
	recs   []*Rec // one per line, nil for blank lines
	order  int    // position of the file in the session, for "first" among duplicates

	notJSONL bool        // not JSON Lines at all: no records are kept (see NotJSONL)
	rewrites uint64      // edits that touched a line before the last one (see Rewrites)
	edits    uint64      // every edit (see Edits)
	lineErrs [3]errCount // per jsonl.ErrorKind: lines that are not records (see MaxLineErrors)
	empties  int         // lines that are objects holding nothing ccdag reads (emptyObject): no records either

	// crs are the text's bare carriage returns (BareCRs), indexed on first need (only the server
	// asks) and kept current by edits; nil until then.
	crs atomic.Pointer[[]int]
}

// MaxLineErrors is how many lines of one kind of fault (not JSON, not an object) a file keeps as
// records; past it, such lines are counted, not kept (UnkeptLineErrors). A log of one record then
// ten million lines of "1" must not cost ten million records and findings (docs/SECURITY.md,
// memory): the first ones say what is wrong as well as all of them would. The file's last line is
// always kept (incomplete-last-line).
const MaxLineErrors = 1000

type errCount struct{ kept, unkept int }

// UnkeptLineErrors returns how many lines of the kind k are faulty beyond the MaxLineErrors kept.
func (f *File) UnkeptLineErrors(k jsonl.ErrorKind) int {
	if int(k) >= len(f.lineErrs) {
		return 0
	}
	return f.lineErrs[k].unkept
}

// keepLineError counts a faulty line i of kind k and tells whether the file keeps it.
func (f *File) keepLineError(k jsonl.ErrorKind, i int, c *[3]errCount) bool {
	e := &c[k]
	if e.kept >= MaxLineErrors && (i != len(f.starts)-1 || f.Terminated(i)) {
		e.unkept++
		return false
	}
	e.kept++
	return true
}

// forgetLine uncounts line i before an edit removes it: a kept faulty record, a faulty line that
// was counted and not kept (parsed again to know which kind it was), or an empty object.
func (f *File) forgetLine(i int) {
	if r := f.recs[i]; r != nil {
		if r.LineErr() != nil {
			f.lineErrs[r.LineErr().Kind].kept--
		}
		return
	}
	line := f.Line(i)
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if err := jsonl.Fault(line); err != nil {
		f.lineErrs[err.Kind].unkept--
	} else {
		f.empties--
	}
}

// BareLines reports whether the file has lines that are neither blank nor records: objects holding
// nothing ccdag reads, and faulty lines past the MaxLineErrors it keeps. Nothing links them, but
// they are text a person or tool wrote, which the secret scan still reads (check.Checker).
func (f *File) BareLines() bool {
	return f.empties > 0 || f.lineErrs[jsonl.ErrInvalidJSON].unkept > 0 || f.lineErrs[jsonl.ErrNotAnObject].unkept > 0
}

// Rewrites counts the edits that changed a line before the file's last one: while it stays the
// same, the file only grew at its end (appends, the last line completed), so a reader that kept
// what it made of the old lines (the transcript's builder) knows they are the same records.
func (f *File) Rewrites() uint64 { return f.rewrites }

// Edits counts the edits of the file: while it stays the same, so do its text and lines.
func (f *File) Edits() uint64 { return f.edits }

// HeadLines is how many non-empty lines decide whether a file is JSON Lines at all.
const HeadLines = 8

// NotJSONL reports whether the file is not JSON Lines at all (docs/spec.md §2 not-jsonl): none of
// its first HeadLines non-empty lines is a JSON object. Such a file has no records and is not read
// past those lines: a binary file named .jsonl costs one finding, not one per line.
func (f *File) NotJSONL() bool { return f.notJSONL }

// NULObject reports whether a line is a JSON object once the NUL bytes an interrupted write left at
// its start are removed.
func NULObject(line []byte) bool {
	if len(line) == 0 || line[0] != 0 {
		return false
	}
	rest := bytes.TrimLeft(line, "\x00")
	return len(bytes.TrimSpace(rest)) > 0 && jsonl.Fault(rest) == nil
}

// GluedRecords reports whether a line that is not one JSON value holds records glued together as
// an interrupted append leaves them, which Claude Code loads (docs/spec.md §13): a whole object
// followed by another (`{A}{B}`), or a record cut inside a string with a whole object glued to it
// (`{"a":"cut te{"type":…}`: the glued record's first quote closed the cut string).
func GluedRecords(line []byte) bool {
	i := jsonscan.SkipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	end, fault := jsonscan.Value(line, i)
	if fault == nil {
		k := jsonscan.SkipSpace(line, end)
		return k < len(line) && line[k] == '{'
	}
	g := fault.Off - 2
	if g <= i || line[g] != '{' || line[g+1] != '"' {
		return false
	}
	end, fault = jsonscan.Value(line, g)
	if fault != nil {
		return false
	}
	k := jsonscan.SkipSpace(line, end)
	return k == len(line) || line[k] == '{'
}

// headVerdict decides from the first non-empty lines whether the file is JSON Lines (jsonl true),
// not JSON Lines (notJSONL true), or neither yet (fewer lines than it takes). rec(i) returns line
// i's record, parsing it when needed. A last line without newline that starts with '{' is a record
// being written and does not count.
func (f *File) headVerdict(rec func(i int) *Rec) (notJSONL bool) {
	n := 0
	for i := range f.starts {
		r := rec(i)
		if r == nil {
			continue
		}
		if r.LineErr() == nil {
			return false
		}
		line := f.Line(i)
		if i == len(f.starts)-1 && !f.Terminated(i) && bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\ufeff"), []byte("{")) {
			continue
		}
		if NULObject(line) || GluedRecords(line) {
			return false
		}
		if n++; n == HeadLines {
			return true
		}
	}
	return n > 0
}

// headRec is line i's record for headVerdict: a line kept as no record that is not blank (an
// empty object) is parsed again, so that it counts as the JSON object it is.
func (f *File) headRec(i int) *Rec {
	if r := f.recs[i]; r != nil {
		return r
	}
	if len(bytes.TrimSpace(f.Line(i))) == 0 {
		return nil
	}
	return f.parseLine(i, nil, nil)
}

// NewFile parses text into a file. The session takes ownership of text.
func NewFile(path string, text []byte) *File {
	f := &File{Path: path, Lane: "main"}
	f.text = text
	f.starts = lineStarts(text)
	f.parseAll()
	return f
}

// lineStarts indexes a large text's lines in two halves on two cores, into one array of the exact
// size (counted first: growing it by appends cost five times its size for ten million lines).
func lineStarts(text []byte) []int {
	mid := len(text) / 2
	k := bytes.IndexByte(text[mid:], '\n')
	if len(text) < parallelMin || runtime.GOMAXPROCS(0) < 2 || k < 0 {
		return jsonl.LineStarts(text)
	}
	mid += k + 1
	c1 := bytes.Count(text[:mid], []byte{'\n'}) // the first half's lines, each ending in '\n'
	n := c1 + bytes.Count(text[mid:], []byte{'\n'}) + 1
	all := make([]int, 0, n)
	var second []int
	// text may be a mapped log that shrinks meanwhile: parallel.Do faults as the caller does.
	parallel.Do(func() { second = jsonl.AppendLineStarts(all[c1:c1:n], text[mid:], mid) },
		func() { jsonl.AppendLineStarts(all[:0:c1], text[:mid], 0) })
	return all[:c1+len(second)]
}

// parseAll parses every line, unless the first ones show the file is not JSON Lines.
func (f *File) parseAll() (added []*Rec) {
	f.recs = make([]*Rec, len(f.starts))
	if f.notJSONL = f.headVerdict(func(i int) *Rec {
		r := f.parseLine(i, nil, nil)
		f.recs[i] = recOf(r)
		return r
	}); f.notJSONL {
		f.recs = nil // no records, and no room for them: Rec(i) is nil for every line
		return nil
	}
	// Each half keeps at most MaxLineErrors faulty lines of a kind; the pass below keeps the file's
	// first ones, so that at most twice that many are ever held.
	var halves [2][3]errCount
	var empties [2]int
	parse := func(lo, hi int, prev *jsonl.Record, c *[3]errCount, empty *int) {
		// Counted here, stored once: the two halves' counters share a cache line, and ten million
		// lines counted in it from both cores cost as much as parsing them.
		var counts [3]errCount
		n := 0
		defer func() { *c, *empty = counts, n }()
		for i := lo; i < hi; i++ {
			if f.recs[i] == nil {
				r := f.parseLine(i, prev, &counts)
				if r == emptyObject {
					n++
				}
				f.recs[i] = recOf(r)
			}
			if f.recs[i] != nil && f.recs[i].LineErr() == nil {
				prev = &f.recs[i].Record
			}
		}
	}
	if n := len(f.starts); len(f.text) >= parallelMin && runtime.GOMAXPROCS(0) > 1 {
		// A large file's second half is parsed on another core. Its first line shares no strings
		// with the line before (an empty prev keeps parseLine from reading the other half's slot).
		parallel.Do(func() { blank := jsonl.Zero(); parse(n/2, n, &blank, &halves[1], &empties[1]) },
			func() { parse(0, n/2, nil, &halves[0], &empties[0]) })
	} else {
		parse(0, n, nil, &halves[0], &empties[0])
	}
	f.empties = empties[0] + empties[1]
	f.lineErrs = [3]errCount{}
	for k := range f.lineErrs {
		f.lineErrs[k].unkept = halves[0][k].unkept + halves[1][k].unkept
	}
	for i, r := range f.recs {
		if r == nil {
			continue
		}
		if r.LineErr() != nil && !f.keepLineError(r.LineErr().Kind, i, &f.lineErrs) {
			f.recs[i] = nil
			continue
		}
		added = append(added, r)
	}
	return added
}

// parallelMin is the size from which a file's halves are parsed on two cores.
const parallelMin = 8 << 20

// parseLine parses line i. Strings equal to the previous record's (session id, model, message and
// request ids: the lines of one message repeat them) share its copy, so the index keeps one.
//
// A faulty line is counted in c (nil: not counted) and, past MaxLineErrors of its kind, returned as
// nil, before a record is made for it.
func (f *File) parseLine(i int, prev *jsonl.Record, c *[3]errCount) *Rec {
	s, e, _ := jsonl.LineBounds(f.text, f.starts, i)
	var parsed jsonl.Record
	var keep func(jsonl.ErrorKind) bool
	if c != nil {
		keep = func(k jsonl.ErrorKind) bool { return f.keepLineError(k, i, c) }
	}
	if !jsonl.ParseKeeping(&parsed, f.text[s:e], keep) {
		return nil
	}
	if emptyRecord(&parsed) {
		return emptyObject
	}
	rec := &Rec{Record: parsed, File: f, Line: i}
	r := &rec.Record
	if prev == nil && i > 0 && f.recs[i-1] != nil {
		prev = &f.recs[i-1].Record
	}
	if prev != nil && r.LineErr() == nil {
		share(&r.SessionID, prev.SessionID)
		share(&r.Type, prev.Type)
		share(&r.Parent, prev.UUID)           // a chain: the parent is usually the line before
		if r.HasDetail() && !prev.Dropped() { // the shared empty Detail is never written
			d, pd := r.D(), prev.D()
			share(&d.Model, pd.Model)
			share(&d.MessageID, pd.MessageID)
			share(&d.RequestID, pd.RequestID)
			share(&d.SourceToolAssistant, pd.SourceToolAssistant)
		}
	}
	if r.HasDetail() && r.LineErr() == nil && len(f.text[s:e]) < dropBelow {
		r.DropDetail()
	}
	return rec
}

// dropBelow is the length of line under which a record's Detail is not kept but parsed again from
// the line when read (Rec.D). Memory is bounded by 10 × the file + 100 MB (docs/SECURITY.md), and a
// Detail takes ~400 B before its blocks: a million 16-byte lines each setting one of its fields
// ({"subtype":"x"}) held 600 MB, and a million 66-byte tool calls ({"uuid":…,"message":{"content":
// [{"type":"tool_use","id":…}]}}) 1.22 GB where the bound is 804 MB (796 MB dropped). Real records
// are hundreds of bytes (a uuid, a session id, a timestamp, a cwd): none is this short.
// CCDAG_DROP_DETAIL=N drops the Detail of every line under N bytes, for tests that hold every
// reader to going through Rec.D (jsonl.Record.D then panics on a dropped one); lines of megabytes
// stay kept there, as each read would parse them again.
var dropBelow = func() int {
	if n, err := strconv.Atoi(os.Getenv("CCDAG_DROP_DETAIL")); err == nil && n > 0 {
		return n
	}
	return 128
}()

// D returns the record's Detail, parsed again from its line when the file dropped it (dropBelow).
// A Detail read this way is a fresh copy: compare its fields, never its pointers.
func (r *Rec) D() *jsonl.Detail {
	if r.Dropped() {
		return jsonl.DetailOf(r.LineBytes())
	}
	return r.Record.D()
}

// emptyObject is what parseLine returns for an object holding nothing ccdag reads ("{}", unknown
// keys only): it links nothing and nothing is said of it, so the file keeps no record for it (nil,
// as for a blank line) — ten million "{}" lines must not cost ten million 400-byte records. It
// only tells headVerdict that the line is a JSON object.
var emptyObject = &Rec{Record: jsonl.Zero()}

// recOf is parseLine's result as the file keeps it (nil for an empty object).
func recOf(r *Rec) *Rec {
	if r == emptyObject {
		return nil
	}
	return r
}

// emptyRecord reports whether a parsed line is an object with no field ccdag reads
// (TestEmptyRecordCoversEveryField holds it to every field of jsonl.Record).
func emptyRecord(r *jsonl.Record) bool {
	var zs jsonl.Span
	return r.LineErr() == nil && r.Type == "" && r.UUID == "" && r.Parent == "" &&
		r.UUIDSpan == zs && r.ParentSpan == zs && r.SessionID == "" && r.TimestampSpan == zs &&
		r.Flags == 0 && !r.HasDetail()
}

func share(dst *string, prev string) {
	if *dst == prev {
		*dst = prev
	}
}

// Text returns the file's bytes. Callers must not modify them.
func (f *File) Text() []byte { return f.text }

// BareCRs returns the offsets of the text's bare carriage returns, where LSP ends a line and
// ccdag does not (position.Lines). The text is read for them once; edits keep them current.
func (f *File) BareCRs() []int {
	if p := f.crs.Load(); p != nil {
		return *p
	}
	crs := position.AppendBareCRs(nil, f.text, 0, len(f.text))
	f.crs.Store(&crs)
	return crs
}

// LineCount returns the number of lines (a final line without newline counts).
func (f *File) LineCount() int { return len(f.starts) }

// LineStart returns the byte offset of line i; i == LineCount() gives len(Text()).
func (f *File) LineStart(i int) int {
	if i >= len(f.starts) {
		return len(f.text)
	}
	return f.starts[i]
}

// Line returns line i without its newline (or "\r\n").
func (f *File) Line(i int) []byte {
	s, e, _ := jsonl.LineBounds(f.text, f.starts, i)
	return f.text[s:e]
}

// Terminated reports whether line i ends with a newline.
func (f *File) Terminated(i int) bool {
	_, _, t := jsonl.LineBounds(f.text, f.starts, i)
	return t
}

// LineOf returns the line holding byte offset off (the last line for off == len(text)).
func (f *File) LineOf(off int) int {
	lo, hi := 0, len(f.starts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f.starts[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return lo - 1
}

// Rec returns the record of line i, or nil for a blank line or a line out of range.
func (f *File) Rec(i int) *Rec {
	if i < 0 || i >= len(f.recs) {
		return nil
	}
	return f.recs[i]
}

// Recs calls fn for each record in file order until fn returns false.
func (f *File) Recs(fn func(*Rec) bool) {
	for _, r := range f.recs {
		if r != nil && !fn(r) {
			return
		}
	}
}

// RecordCount counts the file's records: its non-blank lines, less a last line a live session is
// still writing (Incomplete).
func (f *File) RecordCount() int {
	n := 0
	for _, r := range f.recs {
		if r != nil {
			n++
		}
	}
	if n > 0 && f.recs[len(f.recs)-1] != nil && f.recs[len(f.recs)-1].Incomplete() {
		n--
	}
	return n
}

// Incomplete reports whether the record is a last line still being written: the file's last line,
// with no newline, not valid JSON (docs/spec.md §2 incomplete-last-line). It is not counted as a
// record yet.
func (r *Rec) Incomplete() bool {
	return r.LineErr() != nil && r.LineErr().Kind == jsonl.ErrInvalidJSON && r.Line == r.File.LineCount()-1 && !r.File.Terminated(r.Line)
}

// replace splices text[start:end] = repl and re-parses only the lines the edit touched. It returns
// the records that left and the ones that arrived; records of untouched lines keep their identity
// (their Line shifts when the edit changed the line count). Appending after a final newline parses
// only the appended bytes.
func (f *File) replace(start, end int, repl []byte) (removed, added []*Rec) {
	start = max(0, min(start, len(f.text)))
	end = max(0, min(end, len(f.text)))
	if start > end {
		start, end = end, start
	}
	f.edits++
	if f.LineOf(start) < len(f.starts)-1 {
		f.rewrites++
	}
	defer f.spliceCRs(start, end, len(repl))
	if f.notJSONL { // nothing was parsed: splice the text, then read it afresh
		f.lineErrs, f.empties = [3]errCount{}, 0
		f.text = append(append(append([]byte(nil), f.text[:start]...), repl...), f.text[end:]...)
		f.starts = jsonl.LineStarts(f.text)
		return nil, f.parseAll()
	}
	atNewLineStart := func(off int) bool {
		return off == len(f.text) && (off == 0 || f.text[off-1] == '\n')
	}
	// Lines [l0, l1) are affected: from the line holding start to the line holding end. A position
	// just past a final newline starts a line that does not exist yet.
	l0, l1 := len(f.starts), len(f.starts)
	if !atNewLineStart(start) {
		l0 = f.LineOf(start)
	}
	if !atNewLineStart(end) {
		l1 = f.LineOf(end) + 1
	}
	regionStart := len(f.text)
	if l0 < len(f.starts) {
		regionStart = f.starts[l0]
	}
	regionEnd := len(f.text)
	if l1 < len(f.starts) {
		regionEnd = f.starts[l1] // the newline before it lies at or after end, so it survives
	}
	for i := l0; i < l1; i++ {
		f.forgetLine(i)
		if r := f.recs[i]; r != nil {
			// Its line is about to change: a dropped Detail is parsed now, while it can be, for
			// the readers of removed records (the indexes forget its tool ids).
			if r.Dropped() {
				r.KeepDetail(jsonl.DetailOf(f.Line(i)))
			}
			removed = append(removed, r)
		}
	}
	delta := len(repl) - (end - start)

	// Splice the text in place when capacity allows (appends, most edits), else grow by a quarter.
	oldLen, newLen := len(f.text), len(f.text)+delta
	if newLen <= cap(f.text) {
		f.text = f.text[:max(oldLen, newLen)]
		copy(f.text[start+len(repl):newLen], f.text[end:oldLen])
		copy(f.text[start:], repl)
		f.text = f.text[:newLen]
	} else {
		nt := make([]byte, newLen, newLen+newLen/4)
		copy(nt, f.text[:start])
		copy(nt[start:], repl)
		copy(nt[start+len(repl):], f.text[end:oldLen])
		f.text = nt
	}
	newStarts := jsonl.AppendLineStarts(nil, f.text[regionStart:regionEnd+delta], regionStart)
	oldN, newN := l1-l0, len(newStarts)

	switch {
	case l1 == len(f.starts): // nothing after the region: truncate and extend
		f.starts = append(f.starts[:l0], newStarts...)
		f.recs = append(f.recs[:l0], make([]*Rec, newN)...)
	case newN == oldN: // same line count: shift the tail's offsets in place
		copy(f.starts[l0:], newStarts)
		if delta != 0 {
			for i := l1; i < len(f.starts); i++ {
				f.starts[i] += delta
			}
		}
	default:
		tail := len(f.starts) - l1
		starts := make([]int, l0+newN+tail)
		copy(starts, f.starts[:l0])
		copy(starts[l0:], newStarts)
		for i, s := range f.starts[l1:] {
			starts[l0+newN+i] = s + delta
		}
		recs := make([]*Rec, len(starts))
		copy(recs, f.recs[:l0])
		copy(recs[l0+newN:], f.recs[l1:])
		for i := l0 + newN; i < len(recs); i++ {
			if recs[i] != nil {
				recs[i].Line = i
			}
		}
		f.starts, f.recs = starts, recs
	}
	for i := l0; i < l0+newN; i++ {
		p := f.parseLine(i, nil, &f.lineErrs)
		if p == emptyObject {
			f.empties++
		}
		r := recOf(p)
		f.recs[i] = r
		if r != nil {
			added = append(added, r)
		}
	}
	if f.headVerdict(f.headRec) { // the edit made the file not JSON Lines: it keeps no records
		f.lineErrs, f.empties = [3]errCount{}, 0
		gone := map[*Rec]bool{}
		for _, r := range added {
			gone[r] = true
		}
		for _, r := range f.recs {
			if r != nil && !gone[r] {
				removed = append(removed, r)
			}
		}
		f.recs = nil
		f.notJSONL = true
		return removed, nil
	}
	return removed, added
}

// spliceCRs keeps the bare carriage returns current after text[start:end] became n bytes.
func (f *File) spliceCRs(start, end, n int) {
	if p := f.crs.Load(); p != nil {
		crs := position.SpliceBareCRs(*p, f.text, start, end, n)
		f.crs.Store(&crs)
	}
}

// CommonAffixes returns the lengths of the common prefix and suffix of a and b that do not overlap.
func CommonAffixes(a, b []byte) (prefix, suffix int) {
	n := min(len(a), len(b))
	// Compare in chunks: bytes.Equal is vectorised.
	const chunk = 4096
	for prefix+chunk <= n && bytes.Equal(a[prefix:prefix+chunk], b[prefix:prefix+chunk]) {
		prefix += chunk
	}
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix+chunk <= n-prefix && bytes.Equal(a[len(a)-suffix-chunk:len(a)-suffix], b[len(b)-suffix-chunk:len(b)-suffix]) {
		suffix += chunk
	}
	for suffix < n-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}
