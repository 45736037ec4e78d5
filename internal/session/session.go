// Package session holds a Claude Code session: its files (main log and sub-agent logs), one Rec per
// line, and a cross-file index of the DAG (uuids, parents, tool calls and results, agent logs) that
// is kept current as files are edited, so that checks and the graph never re-read unchanged lines.
//
// A Session is not safe for concurrent use: callers serialise access (in the language server, one
// worker goroutine per session owns it).
package session

import (
	"maps"
	"slices"

	"github.com/ccdag/ccdag/internal/jsonl"
)

// AgentMeta is the content of an `agent-<id>.meta.json` beside a sub-agent log.
type AgentMeta struct {
	AgentType   string `json:"agentType"`
	Description string `json:"description"`
	ToolUseID   string `json:"toolUseId"`
	SpawnDepth  int    `json:"spawnDepth"`
}

// ToolRef names one content block of a record.
type ToolRef struct {
	Rec   *Rec
	Block int
}

// ContentBlock returns the content block the reference names (Block is its index).
func (t ToolRef) ContentBlock() *jsonl.Block { return &t.Rec.D().Blocks[t.Block] }

// Session is one main log and its sub-agent logs, indexed as one DAG.
type Session struct {
	ID    string
	Dir   string // folder of the main log (or of the agent logs when there is no main log)
	Files []*File

	byUUID    recIndex
	children  recIndex          // by parentUuid value, resolved or not
	logical   map[string][]*Rec // by logicalParentUuid value
	uses      map[string][]ToolRef
	results   map[string][]ToolRef
	spawned   map[string][]ToolRef // toolUseResult.agentId -> the tool_result blocks naming it
	agents    map[string]*File     // agentId -> sub-agent log
	unread    map[string]Unread    // agentId -> its log, there but not read (SetUnread)
	sidechain map[*File]int        // count of isSidechain records per file
	// progress records naming a sub-agent (data.agentId) with the call it runs for
	// (parentToolUseID), by either
	callProgress, agentProgress recIndex
	spawns                      *spawnCache // the links of sub-agents to their calls, per Version

	dirty        map[*Rec]struct{}
	added        []*File
	bulk         bool
	removed      []*Rec
	dirtyFiles   map[*File]struct{}
	cycleSuspect bool

	// Version counts changes; caches derived from the DAG compare it.
	Version uint64
}

// New returns an empty session.
func New(id, dir string) *Session {
	return &Session{
		ID: id, Dir: dir,
		byUUID:        newRecIndex(0),
		children:      newRecIndex(0),
		logical:       map[string][]*Rec{},
		uses:          map[string][]ToolRef{},
		results:       map[string][]ToolRef{},
		spawned:       map[string][]ToolRef{},
		agents:        map[string]*File{},
		sidechain:     map[*File]int{},
		agentProgress: newRecIndex(0),
		callProgress:  newRecIndex(0),
		dirty:         map[*Rec]struct{}{},
		dirtyFiles:    map[*File]struct{}{},
	}
}

// AddFile brings a file into the session and indexes its records. The main log comes first in
// Files; sub-agent logs follow in the order they were added.
func (s *Session) AddFile(f *File) {
	if f.Lane == "main" {
		s.Files = slices.Insert(s.Files, 0, f)
	} else {
		s.Files = append(s.Files, f)
		if f.AgentID != "" {
			s.agents[f.AgentID] = f
			for _, t := range s.spawned[f.AgentID] {
				s.markUses(t.ContentBlock().ToolUseID)
			}
		}
	}
	for i, g := range s.Files {
		g.order = i
	}
	if len(s.byUUID.one) == 0 && f.LineCount() > 64 {
		// Size the maps once for a large first file instead of growing them step by step: by the
		// ids its records carry, not its lines (ten million blank lines or "{}" need no index).
		uuids, parents := 0, 0
		f.Recs(func(r *Rec) bool {
			if r.UUID != "" {
				uuids++
			}
			if r.Parent != "" {
				parents++
			}
			return true
		})
		s.byUUID, s.children = newRecIndex(uuids), newRecIndex(parents)
	}
	s.dirtyFiles[f] = struct{}{}
	s.added = append(s.added, f)
	s.bulk = true // the file's own records are reported through Changes.Added, not one by one
	f.Recs(func(r *Rec) bool { s.add(r); return true })
	s.bulk = false
	s.Version++
}

// RemoveFile takes a file and its records out of the session.
func (s *Session) RemoveFile(f *File) {
	i := slices.Index(s.Files, f)
	if i < 0 {
		return
	}
	var rs []*Rec
	f.Recs(func(r *Rec) bool { rs = append(rs, r); return true })
	s.removeAll(rs)
	s.Files = slices.Delete(s.Files, i, i+1)
	for i, g := range s.Files {
		g.order = i
	}
	if f.AgentID != "" && s.agents[f.AgentID] == f {
		delete(s.agents, f.AgentID)
		for _, t := range s.spawned[f.AgentID] {
			s.markUses(t.ContentBlock().ToolUseID)
		}
	}
	delete(s.dirtyFiles, f)
	s.Version++
}

// File returns the session's file at path, or nil.
func (s *Session) File(path string) *File {
	for _, f := range s.Files {
		if f.Path == path {
			return f
		}
	}
	return nil
}

// Main returns the main log, or nil when the session has only sub-agent logs.
func (s *Session) Main() *File {
	if len(s.Files) > 0 && s.Files[0].Lane == "main" {
		return s.Files[0]
	}
	return nil
}

// Edit replaces f's bytes [start, end) with repl, re-parsing only the touched lines.
func (s *Session) Edit(f *File, start, end int, repl []byte) {
	removed, added := f.replace(start, end, repl)
	s.apply(f, removed, added)
}

// SetText replaces f's whole text. What the new text shares with the old at either end is not
// parsed again: an editor that reloads a growing log and sends it whole costs the appended bytes.
func (s *Session) SetText(f *File, text []byte) {
	p, q := CommonAffixes(f.text, text)
	if p == len(f.text) && p == len(text) {
		return
	}
	s.Edit(f, p, len(f.text)-q, text[p:len(text)-q])
}

func (s *Session) apply(f *File, removed, added []*Rec) {
	s.removeAll(removed)
	for _, r := range added {
		s.add(r)
	}
	s.dirtyFiles[f] = struct{}{}
	s.Version++
}

func (s *Session) mark(r *Rec) {
	if s.bulk && s.added[len(s.added)-1] == r.File {
		return // reported with the whole file
	}
	s.dirty[r] = struct{}{}
}

func (s *Session) markAll(rs []*Rec) {
	for _, r := range rs {
		s.mark(r)
	}
}

func (s *Session) markUses(id string) {
	for _, t := range s.uses[id] {
		s.mark(t.Rec)
	}
	for _, t := range s.results[id] {
		s.mark(t.Rec)
	}
}

func (s *Session) add(r *Rec) {
	if !s.bulk {
		s.dirty[r] = struct{}{}
	}
	if r.LineErr() != nil {
		return
	}
	d := r.D() // once: a dropped Detail is parsed again on every call
	if r.Has(jsonl.FlagSidechain) {
		s.sidechain[r.File]++
		if s.sidechain[r.File] == 1 && r.File == s.Main() {
			s.markSpawns() // the main log keeps its sub-agents inside now: no agent file is missing
		}
	}
	if r.UUID != "" && s.byUUID.add(r.UUID, r) {
		// r is the uuid's first definition now. (A later duplicate changes nothing but itself:
		// parents resolve to the first definition, and every duplicate names the first.)
		if len(s.byUUID.more) == 0 {
			s.mark(r) // no uuid is defined twice: r is its uuid's one record (a map lookup less)
		} else {
			s.byUUID.each(r.UUID, s.mark)
		}
		if s.children.count(r.UUID) > 0 {
			s.children.each(r.UUID, s.mark)
			s.cycleSuspect = true // a forward reference resolved: it may close a cycle
		}
		s.markAll(s.logical[r.UUID])
	}
	if r.Parent != "" {
		s.children.add(r.Parent, r)
		if r.Parent == r.UUID {
			s.cycleSuspect = true
		}
	}
	if d.LogicalParent != "" {
		s.logical[d.LogicalParent] = append(s.logical[d.LogicalParent], r)
	}
	if d.ParentToolUseID != "" && d.DataAgentID != "" {
		s.callProgress.add(d.ParentToolUseID, r)
		s.agentProgress.add(d.DataAgentID, r)
		s.markUses(d.ParentToolUseID) // the call's sub-agent is known now
	}
	for i := range d.Blocks {
		b := &d.Blocks[i]
		switch b.Kind {
		case jsonl.BlockToolUse:
			if b.ID != "" {
				if addRef(s.uses, b.ID, ToolRef{r, i}) {
					s.markRefs(s.uses[b.ID]) // the duplicates name the first call
				}
				if len(s.uses[b.ID]) == 1 {
					s.markRefs(s.results[b.ID]) // its results found their call
				}
			}
		case jsonl.BlockToolResult:
			if b.ToolUseID != "" {
				if addRef(s.results, b.ToolUseID, ToolRef{r, i}) {
					s.markRefs(s.results[b.ToolUseID]) // the duplicates name the first result
				}
				s.markRefs(s.uses[b.ToolUseID]) // the call is answered
				if d.Result != nil && d.Result.AgentID != "" {
					s.spawned[d.Result.AgentID] = append(s.spawned[d.Result.AgentID], ToolRef{r, i})
				}
			}
		}
	}
}

func removeRec(m map[string][]*Rec, k string, r *Rec) {
	rs := m[k]
	if i := slices.Index(rs, r); i >= 0 {
		rs = slices.Delete(rs, i, i+1)
	}
	if len(rs) == 0 {
		delete(m, k)
	} else {
		m[k] = rs
	}
}

func refBefore(a, b ToolRef) bool { return Before(a.Rec, b.Rec) || a.Rec == b.Rec && a.Block < b.Block }

// addRef adds t to m[k], keeping the earliest reference at index 0 (Uses and Results return it
// first), and reports whether t is now the first.
func addRef(m map[string][]ToolRef, k string, t ToolRef) (first bool) {
	rs := append(m[k], t)
	last := len(rs) - 1
	first = last == 0 || refBefore(t, rs[0])
	if first && last > 0 {
		rs[0], rs[last] = rs[last], rs[0]
	}
	m[k] = rs
	return first
}

// markSpawns marks every sub-agent call and its results (whether an agent's log is missing
// depends on InFileSidechains).
func (s *Session) markSpawns() {
	for _, ts := range s.spawned {
		for _, t := range ts {
			s.markUses(t.ContentBlock().ToolUseID)
		}
	}
}

func (s *Session) markRefs(ts []ToolRef) {
	for _, t := range ts {
		s.mark(t.Rec)
	}
}

// removeAll takes records out of the index. They are all taken out first, and the records whose
// findings change are marked after, once per key: removing many records that share a key (closing a
// file with 100 000 children of one parent, 100 000 copies of one uuid or 100 000 answers to one
// call) stays linear.
func (s *Session) removeAll(rs []*Rec) {
	if len(rs) == 0 {
		return
	}
	gone := make(map[*Rec]struct{}, len(rs))
	for _, r := range rs {
		gone[r] = struct{}{}
	}
	firstDef := map[string]*Rec{}       // uuid -> its first definition before the removal
	firstUse := map[string]ToolRef{}    // tool_use id -> its first call before
	firstResult := map[string]ToolRef{} // tool_use id -> its first result before
	spawned := map[string]bool{}
	progressCalls := map[string]bool{} // calls whose sub-agent a removed progress record named
	first := func(ts []ToolRef) ToolRef {
		if len(ts) == 0 {
			return ToolRef{}
		}
		return ts[0]
	}
	for _, r := range rs {
		delete(s.dirty, r)
		s.removed = append(s.removed, r)
		if r.LineErr() != nil {
			continue
		}
		d := r.D() // once: a dropped Detail is parsed again on every call
		if r.Has(jsonl.FlagSidechain) {
			s.sidechain[r.File]--
			if s.sidechain[r.File] == 0 && r.File == s.Main() {
				s.markSpawns() // the main log no longer keeps its sub-agents inside
			}
		}
		if r.UUID != "" {
			if _, seen := firstDef[r.UUID]; !seen {
				firstDef[r.UUID] = s.byUUID.first(r.UUID)
			}
			s.byUUID.remove(r.UUID, r)
		}
		if r.Parent != "" {
			s.children.remove(r.Parent, r)
		}
		if d.LogicalParent != "" {
			removeRec(s.logical, d.LogicalParent, r)
		}
		if d.ParentToolUseID != "" && d.DataAgentID != "" {
			s.callProgress.remove(d.ParentToolUseID, r)
			s.agentProgress.remove(d.DataAgentID, r)
			progressCalls[d.ParentToolUseID] = true
		}
		for i := range d.Blocks {
			b := &d.Blocks[i]
			switch {
			case b.Kind == jsonl.BlockToolUse && b.ID != "":
				if _, seen := firstUse[b.ID]; !seen {
					firstUse[b.ID] = first(s.uses[b.ID])
				}
			case b.Kind == jsonl.BlockToolResult && b.ToolUseID != "":
				if _, seen := firstResult[b.ToolUseID]; !seen {
					firstResult[b.ToolUseID] = first(s.results[b.ToolUseID])
				}
				if d.Result != nil && d.Result.AgentID != "" {
					spawned[d.Result.AgentID] = true
				}
			}
		}
	}
	for id := range firstUse {
		filterRefs(s.uses, id, gone)
	}
	for id := range firstResult {
		filterRefs(s.results, id, gone)
	}
	for id := range spawned {
		filterRefs(s.spawned, id, gone)
	}
	for id := range progressCalls {
		for _, t := range s.uses[id] {
			if _, g := gone[t.Rec]; !g {
				s.mark(t.Rec)
			}
		}
	}
	// What changed for the records that stay.
	for k, f := range firstDef {
		if s.byUUID.first(k) == f {
			continue // the first definition stays: parents resolve and duplicates read as before
		}
		s.byUUID.each(k, s.mark)
		if s.children.count(k) > 0 {
			s.children.each(k, s.mark)
			s.cycleSuspect = true // a cycle through a removed record is broken
		}
		s.markAll(s.logical[k])
	}
	for id, f := range firstUse {
		us := s.uses[id]
		if len(us) > 0 && us[0] != f {
			s.markRefs(us) // the duplicates name another first call
		}
		if len(us) == 0 {
			s.markRefs(s.results[id]) // the results lost their call
		}
	}
	for id, f := range firstResult {
		s.markRefs(s.uses[id]) // the call lost an answer
		if res := s.results[id]; len(res) > 0 && res[0] != f {
			s.markRefs(res)
		}
	}
}

// filterRefs drops the references of removed records from m[k], once for all of them, and keeps
// the earliest of the rest first.
func filterRefs(m map[string][]ToolRef, k string, gone map[*Rec]struct{}) {
	rs := slices.DeleteFunc(m[k], func(t ToolRef) bool { _, g := gone[t.Rec]; return g })
	if len(rs) == 0 {
		delete(m, k)
		return
	}
	bi := 0
	for i := range rs {
		if refBefore(rs[i], rs[bi]) {
			bi = i
		}
	}
	rs[0], rs[bi] = rs[bi], rs[0]
	m[k] = rs
}

// Changes is what happened to the index since the last TakeChanges.
type Changes struct {
	Dirty   []*Rec  // records whose findings may have changed (all present in the session)
	Removed []*Rec  // records that left the session
	Added   []*File // files added whole: every record of theirs needs checking
	Files   []*File // files edited, added, or whose conversation tail may have moved
	Cycles  bool    // a change may have made or broken a parent cycle
}

// TakeChanges returns and clears the pending changes.
func (s *Session) TakeChanges() Changes {
	c := Changes{Removed: s.removed, Cycles: s.cycleSuspect, Added: s.added}
	c.Dirty = make([]*Rec, 0, len(s.dirty))
	for r := range s.dirty {
		c.Dirty = append(c.Dirty, r)
	}
	for f := range s.dirtyFiles {
		c.Files = append(c.Files, f)
	}
	clear(s.dirty)
	clear(s.dirtyFiles)
	s.removed, s.cycleSuspect, s.added = nil, false, nil
	return c
}

// Before reports whether a comes before b in session order (file order, then line).
func Before(a, b *Rec) bool {
	if a.File != b.File {
		return a.File.order < b.File.order
	}
	return a.Line < b.Line
}

// Lookup returns the record defining uuid (the first, when several do), or nil.
func (s *Session) Lookup(uuid string) *Rec { return s.byUUID.first(uuid) }

// Defs returns every record defining uuid.
func (s *Session) Defs(uuid string) []*Rec { return s.byUUID.all(uuid) }

// DefinedOnce reports whether no record but def defines def's uuid, so that Lookup(def.UUID) is
// def when def is in the session: a cheap check where a chain's parent is usually the line
// before.
func (s *Session) DefinedOnce(def *Rec) bool {
	if def.LineErr() != nil || def.UUID == "" {
		return false
	}
	if len(s.byUUID.more) > 0 {
		if _, dup := s.byUUID.more[def.UUID]; dup {
			return false
		}
	}
	return true
}

// Parent returns the record r.Parent names, or nil.
func (s *Session) Parent(r *Rec) *Rec {
	if r.LineErr() != nil || r.Parent == "" {
		return nil
	}
	return s.Lookup(r.Parent)
}

// Children returns the records whose parentUuid is r's uuid, in session order. Only the first
// definition of a duplicated uuid has children.
func (s *Session) Children(r *Rec) []*Rec {
	if r.LineErr() != nil || r.UUID == "" || s.Lookup(r.UUID) != r {
		return nil
	}
	kids := s.children.all(r.UUID)
	slices.SortFunc(kids, cmpRecs)
	return kids
}

// LogicalChildren returns the compactions whose logicalParentUuid is r's uuid.
func (s *Session) LogicalChildren(r *Rec) []*Rec {
	if r.LineErr() != nil || r.UUID == "" {
		return nil
	}
	return s.logical[r.UUID]
}

// Uses returns the tool_use blocks with this id, the earliest first.
func (s *Session) Uses(id string) []ToolRef { return s.uses[id] }

// Results returns the tool_result blocks answering this id, the earliest first.
func (s *Session) Results(id string) []ToolRef { return s.results[id] }

// Agent returns the sub-agent log of agentId, or nil.
func (s *Session) Agent(agentID string) *File { return s.agents[agentID] }

// Unread is a sub-agent log that is where Claude Code writes it but was not read, and why
// ("not a regular file", past a file-size limit): its calls say so, not that the log is missing.
type Unread struct {
	Path string
	Why  string
}

// SetUnread records that the log of agentID is there but was not read (u zero: it no longer is);
// the agent's calls are checked again.
func (s *Session) SetUnread(agentID string, u Unread) {
	if s.unread[agentID] == u {
		return
	}
	if u == (Unread{}) {
		delete(s.unread, agentID)
	} else {
		if s.unread == nil {
			s.unread = map[string]Unread{}
		}
		s.unread[agentID] = u
	}
	for _, t := range s.spawned[agentID] {
		s.markUses(t.ContentBlock().ToolUseID)
	}
	s.Version++
}

// UnreadAgent is the log of agentID that is there but was not read (SetUnread); false: none.
func (s *Session) UnreadAgent(agentID string) (Unread, bool) {
	u, ok := s.unread[agentID]
	return u, ok
}

// UnreadAgents are the agent ids SetUnread holds, in no order.
func (s *Session) UnreadAgents() []string { return slices.Collect(maps.Keys(s.unread)) }

// SpawnResults returns the tool_result blocks whose toolUseResult names agentID.
func (s *Session) SpawnResults(agentID string) []ToolRef { return s.spawned[agentID] }

// RecordCount counts the records of all files.
func (s *Session) RecordCount() int {
	n := 0
	for _, f := range s.Files {
		n += f.RecordCount()
	}
	return n
}

// InFileSidechains reports whether the main log keeps its sub-agents inside itself (1.0.x).
func (s *Session) InFileSidechains() bool {
	m := s.Main()
	return m != nil && s.sidechain[m] > 0
}

// Cycles returns the records that lie on a parentUuid cycle. It walks each chain once. Each
// record's state is a byte of its file's array (a map of every record cost 150 ms for 250 000), and
// a parent that is the line before, defined once, is found without the uuid map (a chain's usual
// case). It reads the session as it stands between changes (check calls it after TakeChanges).
func (s *Session) Cycles() map[*Rec]bool {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([][]uint8, len(s.Files))
	for i, f := range s.Files {
		state[i] = make([]uint8, len(f.recs))
	}
	at := func(r *Rec) *uint8 { return &state[r.File.order][r.Line] }
	parent := func(r *Rec) *Rec {
		if r.LineErr() != nil || r.Parent == "" {
			return nil
		}
		if prev := r.File.Rec(r.Line - 1); prev != nil && prev.UUID == r.Parent && s.DefinedOnce(prev) {
			return prev
		}
		return s.Lookup(r.Parent)
	}
	onCycle := map[*Rec]bool{}
	var path []*Rec
	for _, f := range s.Files {
		f.Recs(func(start *Rec) bool {
			path = path[:0]
			r := start
			for r != nil && *at(r) == unseen {
				*at(r) = onPath
				path = append(path, r)
				r = parent(r)
			}
			if r != nil && *at(r) == onPath {
				// r is where the walk met itself: r and everything after it on the path is a cycle.
				i := slices.Index(path, r)
				for _, c := range path[i:] {
					onCycle[c] = true
				}
			}
			for _, p := range path {
				*at(p) = done
			}
			return true
		})
	}
	return onCycle
}
