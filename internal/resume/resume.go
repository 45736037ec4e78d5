// Package resume computes the chain `claude --resume` loads from a session's main log
// (docs/spec.md §6): which records a resumed conversation holds, whether the walk reaches a root,
// where it breaks, what Claude Code 2.1.101+ bridges over, and how much history a resume drops.
// The rules follow the log's own Claude Code version (its last versioned record's).
package resume

import (
	"encoding/json"
	"fmt"
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

// Result is the resumed chain of one session. The JSON form is docs/spec.md §6's `"resume"` object.
type Result struct {
	Assumed  string  `json:"assumed"`
	Version  string  `json:"version,omitempty"` // the log's own version, "" when no record has one
	Records  int     `json:"records"`
	Complete bool    `json:"complete"`
	BrokenAt *Place  `json:"brokenAt"`
	Bridged  []Place `json:"bridged"`
	Lost     int     `json:"lost"`

	Era Era `json:"-"`
	// On holds every record of the chain (rule 5 included).
	On map[*session.Rec]bool `json:"-"`
	// Broken is the record whose parent is missing and not bridged (nil when complete).
	Broken *session.Rec `json:"-"`
	// Joins maps each bridged record to the record a resume joins it to.
	Joins map[*session.Rec]*session.Rec `json:"-"`
}

// Figures returns the result without its maps into the session (On, Broken, Joins), for keeping
// after the session is gone (a batch over many sessions must not keep each one's index alive).
func (r *Result) Figures() *Result {
	if r == nil {
		return nil
	}
	return &Result{Assumed: r.Assumed, Version: r.Version, Records: r.Records, Complete: r.Complete,
		BrokenAt: r.BrokenAt, Bridged: r.Bridged, Lost: r.Lost, Era: r.Era}
}

// Summary is the figure in one line, for hovers and tooltips.
func (r *Result) Summary() string {
	if r == nil {
		return "resume: nothing to resume (no conversation in the main log)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "resume (rules of %s): %d records", r.Assumed, r.Records)
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

// logVersion returns the version of f's last record that carries one.
func logVersion(f *session.File) string {
	for i := f.LineCount() - 1; i >= 0; i-- {
		r := f.Rec(i)
		if r == nil || r.LineErr() != nil {
			continue
		}
		line := r.LineBytes()
		if !strings.Contains(string(line), `"version"`) {
			continue
		}
		var v struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(line, &v) == nil && v.Version != "" {
			return v.Version
		}
	}
	return ""
}

// Compute returns the resumed chain of s's main log, or nil when the session has no main log or
// the main log holds nothing a resume starts from.
func Compute(s *session.Session) *Result {
	f := s.Main()
	if f == nil || f.NotJSONL() {
		return nil
	}
	v := logVersion(f)
	return ComputeFile(f, EraOf(v), v)
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

// ComputeFile applies the rules of era to one main log (version only labels the result).
func ComputeFile(f *session.File, era Era, version string) *Result {
	res := &Result{Assumed: era.String(), Version: version, Era: era, Bridged: []Place{},
		On: map[*session.Rec]bool{}, Joins: map[*session.Rec]*session.Rec{}}

	// The loader's map: every record with a uuid but progress records (rule 1), first definition wins.
	byUUID := map[string]*session.Rec{}
	var recs []*session.Rec // records with a uuid, file order
	parent := map[*session.Rec]string{}
	progParent := map[string]string{} // progress uuid -> its resolved parent, as seen so far
	var lastBoundary *session.Rec
	var lastPrompt string
	f.Recs(func(r *session.Rec) bool {
		if r.LineErr() != nil {
			return true
		}
		if r.Type == "last-prompt" && r.D().Leaf != "" {
			lastPrompt = r.D().Leaf
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
		if _, dup := byUUID[r.UUID]; dup {
			return true
		}
		byUUID[r.UUID] = r
		parent[r] = p
		recs = append(recs, r)
		if isCompactBoundary(r) {
			lastBoundary = r
		}
		return true
	})

	// Rule 2: the last boundary's preserved records, relinked when every one exists.
	if lastBoundary != nil {
		if anchor, uuids, ok := preserved(lastBoundary, byUUID); ok && len(uuids) > 0 {
			all := byUUID[anchor] != nil
			for _, id := range uuids {
				if byUUID[id] == nil {
					all = false
				}
			}
			if all {
				keep := map[*session.Rec]bool{}
				prev := anchor
				for _, id := range uuids {
					r := byUUID[id]
					parent[r] = prev
					keep[r] = true
					prev = id
				}
				for _, r := range recs {
					if r.Line < lastBoundary.Line && !keep[r] {
						delete(byUUID, r.UUID)
					}
				}
				kept := recs[:0:0]
				for _, r := range recs {
					if byUUID[r.UUID] == r {
						kept = append(kept, r)
					}
				}
				recs = kept
			}
		}
	}

	// Rule 3: the start.
	var start *session.Rec
	if era == From21101 {
		for i := len(recs) - 1; i >= 0; i-- {
			if !recs[i].Has(sidechainFlag) {
				start = recs[i]
				break
			}
		}
	} else {
		named := map[string]bool{}
		for _, r := range recs {
			named[parent[r]] = true
		}
		var best time.Time
		for _, r := range recs {
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
	if lastPrompt != "" {
		if lp := byUUID[lastPrompt]; lp != nil && lp != start && !descends(start, lp, byUUID, parent) {
			start = lp
		}
	}
	for steps := 0; start != nil && !start.IsConversation(); steps++ {
		if steps > len(recs) { // a parent cycle of records that are no conversation
			start = nil
			break
		}
		start = byUUID[parent[start]]
	}
	if start == nil { // no user or assistant record to resume (a local command alone)
		return nil
	}

	// Rule 4: the walk.
	index := map[*session.Rec]int{}
	for i, r := range recs {
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
		p := parent[r]
		if p == "" {
			break
		}
		next := byUUID[p]
		if next == nil && era == From21101 {
			if next = bridge(r, recs[:index[r]]); next != nil {
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

	// Rule 5: the other lines of each assistant message on the chain, and the results of its calls.
	msgs := map[string]bool{}
	calls := map[string]bool{}
	for _, r := range walk {
		if r.Type == "assistant" && r.D().MessageID != "" {
			msgs[r.D().MessageID] = true
		}
	}
	for _, r := range recs {
		if r.Type == "assistant" && (res.On[r] || r.D().MessageID != "" && msgs[r.D().MessageID]) && !r.Has(sidechainFlag) {
			res.On[r] = true
			for _, b := range r.D().Blocks {
				if b.ID != "" {
					calls[b.ID] = true
				}
			}
		}
	}
	for _, r := range recs {
		if r.Type != "user" || res.On[r] || r.Has(sidechainFlag) {
			continue
		}
		if r.D().SourceToolAssistant != "" && res.On[byUUID[r.D().SourceToolAssistant]] {
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
	res.Records = len(res.On)

	if res.Broken == nil {
		res.Complete = true
		return res
	}
	res.BrokenAt = &Place{Path: f.Path, Line: res.Broken.Line + 1}
	// Lost: conversational records before the break, in its compaction segment, not on the chain.
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
	return res
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
