// Package resume computes the chain `claude --resume` loads from a session's main log
// (docs/spec.md §6): which records a resumed conversation holds, whether the walk reaches a root,
// where it breaks, what Claude Code 2.1.101+ bridges over, and how much history a resume drops.
// The rules follow the log's own Claude Code version (its last versioned record's).
package resume

import (
	"slices"

	"encoding/json"
	"fmt"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"strconv"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Era is a group of Claude Code versions whose loader behaves alike.
type Era int

const (
	// Before2120: no pairing (the API refuses a call without result), newest-timestamp leaf start.
	Before2120 Era = iota
	// From2120: results paired (a missing one becomes an error result), newest-timestamp leaf start.
	From2120
	// From21101: the last record starts the walk, a missing parent is bridged within 5 s.
	From21101
)

func (e Era) String() string {
	switch e {
	case Before2120:
		return "before 2.1.20"
	case From2120:
		return "2.1.20+"
	}
	return "2.1.101+"
}

// Place is a 1-based line of a file, for output.
type Place struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

// Result is the resumed chain of one session. The JSON form is docs/spec.md §13's `"resume"` object.
type Result struct {
	Loader   Loader  `json:"loader"`
	Assumed  string  `json:"assumed"`
	Version  string  `json:"version,omitempty"` // the log's own version, "" when no record has one
	Records  int     `json:"records"`
	Complete bool    `json:"complete"`
	BrokenAt *Place  `json:"brokenAt"`
	Bridged  []Place `json:"bridged"`
	Lost     int     `json:"lost"`
	// NoResponse: the resumed conversation ends on tool results never answered (a turn cut off),
	// which Claude Code closes with a synthetic assistant "No response requested.".
	NoResponse bool `json:"noResponse"`

	Era Era `json:"-"`
	// DropsCalls: this resume removes a call without result from its message (else it sends an
	// error result in its place: from 2.1.265, when the history ends on an unanswered call).
	DropsCalls bool `json:"-"`
	answers    bool // the loader answers calls without result when the history ends on one
	// On holds every record of the chain (rule 5 included).
	On map[*session.Rec]bool `json:"-"`
	// Broken is the record whose parent is missing and not bridged (nil when complete).
	Broken *session.Rec `json:"-"`
	// Joins maps each bridged record to the record a resume joins it to.
	Joins map[*session.Rec]*session.Rec `json:"-"`
	// Sent holds the records a resume sends, in file order: On less API-error records.
	Sent []*session.Rec `json:"-"`
	// SentIDs holds the uuid of each record in Sent (a glued line's: its first record's).
	SentIDs []string `json:"-"`
	// Dropped is what a resume leaves out of what it sends; Answered the calls it sends with an
	// error result in place of the missing one. Both in line order.
	Dropped  []Drop `json:"-"`
	Answered []Drop `json:"-"`
}

// Drop is one thing a resume leaves out (or answers itself): the 1-based line it is on, what it
// is, its id (a tool_use id, a uuid).
type Drop struct {
	Line int    `json:"line"`
	What string `json:"what"`
	ID   string `json:"id"`
}

// What a resume drops.
const (
	DropCall   = "call without result"
	DropResult = "result without call"
	// DropResultEmpty: the dropped result was all its message held; a resume that answers calls
	// sends the message as the text "(no content)".
	DropResultEmpty = "result without call (its message sent as \"(no content)\")"
	DropGlued       = "glued record"
	DropAPIError    = "API error"
	AnswerError     = "call without result (sent with an error result)"
)

// Figures returns the result without its maps into the session (On, Broken, Joins), for keeping
// after the session is gone (a batch over many sessions must not keep each one's index alive).
func (r *Result) Figures() *Result {
	if r == nil {
		return nil
	}
	return &Result{Loader: r.Loader, Assumed: r.Assumed, Version: r.Version, Records: r.Records, Complete: r.Complete,
		BrokenAt: r.BrokenAt, Bridged: r.Bridged, Lost: r.Lost, NoResponse: r.NoResponse, Era: r.Era, DropsCalls: r.DropsCalls}
}

// Summary is the figure in one line, for hovers and tooltips.
func (r *Result) Summary() string {
	if r == nil {
		return "resume: nothing to resume (no conversation in the main log)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "resume, %s: %d records", r.Loader.Words(), r.Records)
	if r.Complete {
		b.WriteString(", complete")
	} else if r.BrokenAt != nil {
		fmt.Fprintf(&b, ", broken at line %d: %d earlier records lost", r.BrokenAt.Line, r.Lost)
	}
	if n := len(r.Bridged); n > 0 {
		fmt.Fprintf(&b, ", %d missing parent(s) bridged", n)
	}
	return b.String()
}

// ParseVersion reads "2.1.101" into comparable parts; ok is false for anything else.
func ParseVersion(v string) (parts [3]int, ok bool) {
	fs := strings.SplitN(v, ".", 3)
	if len(fs) != 3 {
		return parts, false
	}
	for i, f := range fs {
		end := 0
		for end < len(f) && f[end] >= '0' && f[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(f[:end])
		if err != nil {
			return parts, false
		}
		parts[i] = n
	}
	return parts, true
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// EraOf places a version; an unknown version gets today's loader (2.1.101+).
func EraOf(v string) Era {
	p, ok := ParseVersion(v)
	switch {
	case !ok:
		return From21101
	case less(p, [3]int{2, 1, 20}):
		return Before2120
	case less(p, [3]int{2, 1, 101}):
		return From2120
	}
	return From21101
}

// logVersion returns the version of f's last record that carries a valid one (RecordVersion: a
// version field holding anything else, a terminal escape say, is not one).
func logVersion(f *session.File) string {
	for i := f.LineCount() - 1; i >= 0; i-- {
		r := f.Rec(i)
		if r == nil || r.LineErr() != nil {
			continue
		}
		line := r.LineBytes()
		if !hasVersionKey(line) {
			continue
		}
		if v := RecordVersion(line); v != "" {
			return v
		}
	}
	return ""
}

// Compute returns the resumed chain of s's main log as the Claude Code assumed to resume it will
// load it (LoaderOf: the newest version under the log's config folder), or nil when the session
// has no main log or the main log holds nothing a resume starts from.
func Compute(s *session.Session) *Result { return ComputeWith(s, "") }

// ComputeWith is Compute with the loader's version set (ccdag.claudeVersion, --claude-version);
// "" decides it as Compute does.
func ComputeWith(s *session.Session, setting string) *Result {
	f := s.Main()
	if f == nil || f.NotJSONL() {
		return nil
	}
	own := logVersion(f)
	l := LoaderOf(f.Path, own, setting)
	res := computeGlued(f, EraOf(l.Version), own, DropsCalls(l.Version))
	if res != nil {
		res.Loader = l
	}
	return res
}

// preserved reads a compact_boundary's preserved records (rule 2): the uuids in order, the anchor.
func preserved(r *session.Rec, byUUID map[string]*session.Rec) (anchor string, uuids []string, named bool) {
	var m struct {
		CompactMetadata struct {
			PreservedMessages *struct {
				AnchorUUID string   `json:"anchorUuid"`
				UUIDs      []string `json:"uuids"`
			} `json:"preservedMessages"`
			PreservedSegment *struct {
				HeadUUID   string `json:"headUuid"`
				AnchorUUID string `json:"anchorUuid"`
				TailUUID   string `json:"tailUuid"`
			} `json:"preservedSegment"`
		} `json:"compactMetadata"`
	}
	if json.Unmarshal(r.LineBytes(), &m) != nil {
		return "", nil, false
	}
	if pm := m.CompactMetadata.PreservedMessages; pm != nil { // supersedes preservedSegment
		return pm.AnchorUUID, pm.UUIDs, true
	}
	ps := m.CompactMetadata.PreservedSegment
	if ps == nil {
		return "", nil, false
	}
	// The segment runs from head to tail on parentUuid: walk back from the tail.
	var rev []string
	seen := map[string]bool{}
	for id := ps.TailUUID; ; {
		rec := byUUID[id]
		if rec == nil || seen[id] {
			return ps.AnchorUUID, []string{ps.HeadUUID, ps.TailUUID, ""}, true // "" names no record: nothing is relinked
		}
		seen[id] = true
		rev = append(rev, id)
		if id == ps.HeadUUID {
			break
		}
		id = rec.Parent
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return ps.AnchorUUID, rev, true
}

const sidechainFlag = jsonl.FlagSidechain

func isCompactBoundary(r *session.Rec) bool {
	return r.Type == "system" && r.D().Subtype == "compact_boundary"
}

// ComputeFile applies the rules of era to one main log (version only labels the result). A line
// of records glued together ({A}{B}) is read as Claude Code reads it: A loaded, B dropped.
func ComputeFile(f *session.File, era Era, version string) *Result {
	return computeGlued(f, era, version, DropsCalls(version))
}

func computeGlued(f *session.File, era Era, version string, drops bool) *Result {
	view, glued := unglued(f)
	res := computeFile(view, era, version, drops)
	if res == nil || view == f {
		return res
	}
	return res.onto(f, view, glued)
}

// computeFile runs the loader's rules in turn: the map (1), the last boundary's preserved
// records (2), the start (3), the walk (4) and what each message on the chain pulls in (5).
func computeFile(f *session.File, era Era, version string, drops bool) *Result {
	res := &Result{Assumed: era.String(), Version: version, Era: era, Bridged: []Place{},
		Loader: Loader{Version: version, From: FromLog}, DropsCalls: drops, answers: !drops,
		On: make(map[*session.Rec]bool, f.LineCount()), Joins: map[*session.Rec]*session.Rec{}}
	l := loadLog(f)
	l.relinkPreserved()
	start := l.start(era)
	if start == nil { // nothing a resume sends (snapshots, summaries, hook records only)
		return nil
	}
	walk := res.walk(f, l, start, era)
	res.pullIn(l, walk)
	res.Records = len(res.On)
	res.pair(l.recs, start)

	if res.Broken == nil {
		res.Complete = true
		return res
	}
	res.BrokenAt = &Place{Path: f.Path, Line: res.Broken.Line + 1}
	res.countLost(l.recs)
	return res
}

// loaded is the log as the loader holds it.
type loaded struct {
	byUUID       map[string]*session.Rec
	recs         []*session.Rec // records with a uuid, file order
	parent       map[*session.Rec]string
	lastBoundary *session.Rec
	lastPrompt   string
}

// loadLog builds the loader's map: every record with a uuid but progress records (rule 1), first
// definition wins.
func loadLog(f *session.File) *loaded {
	// Sized for every line up front: most lines are records with a uuid, and growing the maps
	// rehashed them: ~2 % of a cold listing's CPU.
	n := f.LineCount()
	l := &loaded{byUUID: make(map[string]*session.Rec, n), parent: make(map[*session.Rec]string, n),
		recs: make([]*session.Rec, 0, n)}
	progParent := map[string]string{} // progress uuid -> its resolved parent, as seen so far
	f.Recs(func(r *session.Rec) bool {
		if r.LineErr() != nil {
			return true
		}
		if r.Type == "last-prompt" && r.D().Leaf != "" {
			l.lastPrompt = r.D().Leaf
		}
		if r.UUID == "" {
			return true
		}
		p := r.Parent
		if pp, ok := progParent[p]; ok { // only a progress record written earlier
			p = pp
		}
		if r.Type == "progress" {
			if _, dup := progParent[r.UUID]; !dup {
				progParent[r.UUID] = p
			}
			return true
		}
		if _, dup := l.byUUID[r.UUID]; dup {
			return true
		}
		l.byUUID[r.UUID] = r
		l.parent[r] = p
		l.recs = append(l.recs, r)
		if isCompactBoundary(r) {
			l.lastBoundary = r
		}
		return true
	})
	return l
}

// relinkPreserved applies rule 2: the last boundary's preserved records, relinked when every one
// exists; the records before the boundary but those are then forgotten.
func (l *loaded) relinkPreserved() {
	if l.lastBoundary == nil {
		return
	}
	anchor, uuids, ok := preserved(l.lastBoundary, l.byUUID)
	if !ok || len(uuids) == 0 {
		return
	}
	all := l.byUUID[anchor] != nil
	for _, id := range uuids {
		if l.byUUID[id] == nil {
			all = false
		}
	}
	if !all {
		return
	}
	keep := map[*session.Rec]bool{}
	prev := anchor
	for _, id := range uuids {
		r := l.byUUID[id]
		l.parent[r] = prev
		keep[r] = true
		prev = id
	}
	for _, r := range l.recs {
		if r.Line < l.lastBoundary.Line && !keep[r] {
			delete(l.byUUID, r.UUID)
		}
	}
	kept := l.recs[:0:0]
	for _, r := range l.recs {
		if l.byUUID[r.UUID] == r {
			kept = append(kept, r)
		}
	}
	l.recs = kept
}

// start applies rule 3: the record a resume starts from, nil when it sends nothing.
func (l *loaded) start(era Era) *session.Rec {
	var start *session.Rec
	if era == From21101 {
		for i := len(l.recs) - 1; i >= 0; i-- {
			if !l.recs[i].Has(sidechainFlag) {
				start = l.recs[i]
				break
			}
		}
	} else {
		named := map[string]bool{}
		for _, r := range l.recs {
			named[l.parent[r]] = true
		}
		var best time.Time
		for _, r := range l.recs {
			if r.Has(sidechainFlag) || named[r.UUID] {
				continue
			}
			if t := stamp(r); start == nil || !t.Before(best) {
				start, best = r, t
			}
		}
	}
	if start == nil {
		return nil
	}
	if l.lastPrompt != "" {
		if lp := l.byUUID[l.lastPrompt]; lp != nil && lp != start && !descends(start, lp, l.byUUID, l.parent) {
			start = lp
		}
	}
	for steps := 0; start != nil && !sent(start); steps++ {
		if steps > len(l.recs) { // a parent cycle of records that are no conversation
			return nil
		}
		start = l.byUUID[l.parent[start]]
	}
	return start
}

// walk applies rule 4: from start up the parents (bridged over a missing one in era From21101)
// to the root or the break; it marks the chain in res.On and returns it.
func (res *Result) walk(f *session.File, l *loaded, start *session.Rec, era Era) []*session.Rec {
	index := map[*session.Rec]int{}
	for i, r := range l.recs {
		index[r] = i
	}
	var walk []*session.Rec
	for r := start; r != nil; {
		if res.On[r] {
			res.Broken = r // a cycle: no root
			break
		}
		res.On[r] = true
		walk = append(walk, r)
		p := l.parent[r]
		if p == "" {
			break
		}
		next := l.byUUID[p]
		if next == nil && era == From21101 {
			if next = bridge(r, l.recs[:index[r]]); next != nil {
				res.Joins[r] = next
				res.Bridged = append(res.Bridged, Place{Path: f.Path, Line: r.Line + 1})
			}
		}
		if next == nil {
			res.Broken = r
			break
		}
		r = next
	}
	return walk
}

// pullIn applies rule 5: the other lines of each assistant message on the chain, and the results
// of its calls.
func (res *Result) pullIn(l *loaded, walk []*session.Rec) {
	msgs := map[string]bool{}
	calls := map[string]bool{}
	for _, r := range walk {
		if r.Type == "assistant" && r.D().MessageID != "" {
			msgs[r.D().MessageID] = true
		}
	}
	for _, r := range l.recs {
		if r.Type == "assistant" && (res.On[r] || r.D().MessageID != "" && msgs[r.D().MessageID]) && !r.Has(sidechainFlag) {
			res.On[r] = true
			for _, b := range r.D().Blocks {
				if b.ID != "" {
					calls[b.ID] = true
				}
			}
		}
	}
	for _, r := range l.recs {
		if r.Type != "user" || res.On[r] || r.Has(sidechainFlag) {
			continue
		}
		if r.D().SourceToolAssistant != "" && res.On[l.byUUID[r.D().SourceToolAssistant]] {
			res.On[r] = true
			continue
		}
		for _, b := range r.D().Blocks {
			if b.ToolUseID != "" && calls[b.ToolUseID] {
				res.On[r] = true
				break
			}
		}
	}
}

// countLost counts the conversational records before the break, in its compaction segment, not
// on the chain.
func (res *Result) countLost(recs []*session.Rec) {
	segStart := 0
	for _, r := range recs {
		if r.Line < res.Broken.Line && isCompactBoundary(r) {
			segStart = r.Line
		}
	}
	for _, r := range recs {
		if r.Line >= segStart && r.Line < res.Broken.Line && r.IsConversation() && !r.Has(sidechainFlag) && !res.On[r] {
			res.Lost++
		}
	}
}

// descends reports whether r has anc among its ancestors on the loader's links.
func descends(r, anc *session.Rec, byUUID map[string]*session.Rec, parent map[*session.Rec]string) bool {
	seen := map[*session.Rec]bool{}
	for p := byUUID[parent[r]]; p != nil && !seen[p]; p = byUUID[parent[p]] {
		if p == anc {
			return true
		}
		seen[p] = true
	}
	return false
}

// bridgeWindow is how far back in time 2.1.101+ looks for a missing parent's stand-in.
const bridgeWindow = 5 * time.Second

// bridge finds the newest earlier record of the orphan's side within 5 s before it (rule 4).
func bridge(orphan *session.Rec, earlier []*session.Rec) *session.Rec {
	t := stamp(orphan)
	if t.IsZero() {
		return nil
	}
	side := orphan.Has(sidechainFlag)
	var best *session.Rec
	var bestT time.Time
	for _, r := range earlier {
		if r.Has(sidechainFlag) != side {
			continue
		}
		rt := stamp(r)
		if rt.IsZero() || rt.After(t) || t.Sub(rt) > bridgeWindow {
			continue
		}
		if best == nil || !rt.Before(bestT) {
			best, bestT = r, rt
		}
	}
	return best
}

func stamp(r *session.Rec) time.Time {
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp(r.LineBytes()))
	if err != nil {
		return time.Time{}
	}
	return t
}

// pair decides what a resume sends of the chain (docs/spec.md §13): API-error records stay on the
// parent chain but are not sent; a call without a result on the chain is removed from its message
// or answered with an error result, as the loader does; a result whose call is not sent is dropped;
// a conversation ending on a turn never answered gets "No response requested.".
func (res *Result) pair(recs []*session.Rec, start *session.Rec) {
	calls := map[string]bool{}   // tool_use ids sent
	results := map[string]bool{} // tool_use ids answered on the chain
	for _, r := range recs {
		if !res.On[r] {
			continue
		}
		if r.Type == "assistant" && r.Has(jsonl.FlagAPIError) {
			res.Dropped = append(res.Dropped, Drop{Line: r.Line + 1, What: DropAPIError, ID: r.UUID})
			continue
		}
		res.Sent = append(res.Sent, r)
		res.SentIDs = append(res.SentIDs, r.UUID)
		for _, b := range r.D().Blocks {
			if b.ID != "" && r.Type == "assistant" {
				calls[b.ID] = true
			}
			if b.ToolUseID != "" && r.Type == "user" {
				results[b.ToolUseID] = true
			}
		}
	}
	// Measured (docs/resume.md): a loader that answers calls without result does so only when the
	// history ends on one (the last message sent is an assistant message with an unanswered call);
	// otherwise it, like every earlier version, removes them.
	res.DropsCalls = !res.answers || !endsOnCall(res.Sent, results)
	// Whether the conversation ends on tool results (a turn cut off after its calls): Claude Code
	// then adds "No response requested." (a prompt at the end is merged with the next one instead).
	endsOnResults := false
	for _, r := range res.Sent {
		if !r.IsConversation() {
			continue // attachments and local commands are sent as user text; they do not end a turn
		}
		texts, answered, sentResults := 0, false, false
		for _, b := range r.D().Blocks {
			switch {
			case r.Type == "assistant" && b.ID != "" && !results[b.ID]:
				if res.DropsCalls {
					res.Dropped = append(res.Dropped, Drop{Line: r.Line + 1, What: DropCall, ID: b.ID})
					continue
				}
				res.Answered = append(res.Answered, Drop{Line: r.Line + 1, What: AnswerError, ID: b.ID})
				answered = true
			case r.Type == "user" && b.ToolUseID != "" && !calls[b.ToolUseID]:
				what := DropResult
				if !res.DropsCalls && onlyResults(r, calls) {
					what = DropResultEmpty
				}
				res.Dropped = append(res.Dropped, Drop{Line: r.Line + 1, What: what, ID: b.ToolUseID})
				continue
			case r.Type == "user" && b.ToolUseID != "":
				sentResults = true
				continue
			}
			texts++
		}
		switch {
		case answered || sentResults:
			endsOnResults = true
		case texts > 0 || len(r.D().Blocks) == 0:
			endsOnResults = false
		}
	}
	res.NoResponse = endsOnResults
	slices.SortStableFunc(res.Dropped, func(a, b Drop) int { return a.Line - b.Line })
}

// DropsCalls reports whether Claude Code v removes a call without result from its message on
// resume (measured with the real packages: docs/resume.md) rather than sending an error result.
func DropsCalls(v string) bool {
	p, ok := ParseVersion(v)
	return ok && less(p, errorResultFrom)
}

// errorResultFrom is the first version measured to answer a call without result with an error
// result on resume; every earlier one measured removes the call.
var errorResultFrom = [3]int{2, 1, 265}

// unglued returns f with each line of records glued together ({A}{B}) cut to its first record, as
// Claude Code loads it (the same lines, so line numbers hold), and the records dropped; f itself
// when it has no such line.
func unglued(f *session.File) (*session.File, []Drop) {
	var cut map[int][]byte
	var drops []Drop
	f.Recs(func(r *session.Rec) bool {
		if e := r.LineErr(); e == nil || e.Kind != jsonl.ErrInvalidJSON {
			return true
		}
		line := r.LineBytes()
		if len(line) == 0 || line[0] != '{' {
			return true
		}
		end, err := jsonscan.ValueEnd(line, 0)
		if err != nil || end >= len(line) || line[end] != '{' {
			return true
		}
		second, err := jsonscan.ValueEnd(line, end)
		if err != nil {
			return true
		}
		if cut == nil {
			cut = map[int][]byte{}
		}
		cut[r.Line] = line[:end]
		var b struct {
			UUID string `json:"uuid"`
		}
		json.Unmarshal(line[end:second], &b)
		drops = append(drops, Drop{Line: r.Line + 1, What: DropGlued, ID: b.UUID})
		return true
	})
	if cut == nil {
		return f, nil
	}
	var text []byte
	for i := 0; i < f.LineCount(); i++ {
		if c, ok := cut[i]; ok {
			text = append(text, c...)
		} else {
			text = append(text, f.Line(i)...)
		}
		if f.Terminated(i) {
			text = append(text, '\n')
		}
	}
	return session.NewFile(f.Path, text), drops
}

// onto maps a result computed on view (f with glued lines cut) back onto f's records: line for
// line, a cut line's record standing for the record loaded from it.
func (res *Result) onto(f, view *session.File, glued []Drop) *Result {
	at := func(r *session.Rec) *session.Rec {
		if r == nil {
			return nil
		}
		return f.Rec(r.Line)
	}
	on := make(map[*session.Rec]bool, len(res.On))
	for r := range res.On {
		if o := at(r); o != nil {
			on[o] = true
		}
	}
	joins := make(map[*session.Rec]*session.Rec, len(res.Joins))
	for a, b := range res.Joins {
		joins[at(a)] = at(b)
	}
	sent := make([]*session.Rec, 0, len(res.Sent))
	for _, r := range res.Sent {
		sent = append(sent, at(r))
	}
	res.On, res.Joins, res.Sent, res.Broken = on, joins, sent, at(res.Broken)
	res.Dropped = append(res.Dropped, glued...)
	slices.SortStableFunc(res.Dropped, func(a, b Drop) int { return a.Line - b.Line })
	return res
}

// sent reports whether a resume sends r as a message: user and assistant records, and local
// commands (sent as the user's text; Claude Code 2.1.328 resumes a log of local commands alone).
func sent(r *session.Rec) bool {
	return r.IsConversation() || r.Type == "system" && r.D().Subtype == "local_command"
}

// endsOnCall reports whether the last message sent is an assistant message holding a call without
// result (results: the tool_use ids answered).
func endsOnCall(sent []*session.Rec, results map[string]bool) bool {
	last := -1
	for i := len(sent) - 1; i >= 0; i-- {
		if sent[i].IsConversation() {
			last = i
			break
		}
	}
	if last < 0 || sent[last].Type != "assistant" {
		return false
	}
	id := sent[last].D().MessageID
	for i := last; i >= 0; i-- {
		r := sent[i]
		if r.Type != "assistant" || i < last && (id == "" || r.D().MessageID != id) {
			if r.IsConversation() {
				break
			}
			continue
		}
		for _, b := range r.D().Blocks {
			if b.ID != "" && !results[b.ID] {
				return true
			}
		}
	}
	return false
}

// onlyResults reports whether every block of user record r is a result whose call is not sent.
func onlyResults(r *session.Rec, calls map[string]bool) bool {
	for _, b := range r.D().Blocks {
		if b.ToolUseID == "" || calls[b.ToolUseID] {
			return false
		}
	}
	return len(r.D().Blocks) > 0
}
