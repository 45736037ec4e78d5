package session

import (
	"strings"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
)

// The one linkage of sub-agents to the Task/Agent calls that spawned them (docs/spec.md §4). The
// graph's spawn and return edges, F12 and Go to Parent in the editor, hover and the diagnostics all
// ask it, so they always agree.

// SpawnLink says how a sub-agent was tied to its call, in the order the links are tried.
type SpawnLink uint8

const (
	LinkNone     SpawnLink = iota
	LinkResult             // the call's result names the agent (toolUseResult.agentId)
	LinkProgress           // a progress record's data.agentId with its parentToolUseID
	LinkMeta               // the agent's meta.json names the call (toolUseId)
	LinkParent             // an in-file sidechain's root names the call's record as its parent
	LinkPrompt             // the agent's first prompt is the call's input.prompt
)

func (l SpawnLink) String() string {
	return [...]string{"none", "its result's agentId", "a progress record's agentId", "the agent's meta.json",
		"the sidechain's parent record", "the prompt it was given"}[l]
}

// Spawn is a sub-agent's spawning call.
type Spawn struct {
	Call ToolRef // the Task/Agent tool_use block (Rec nil: none found)
	Link SpawnLink
}

type spawnCache struct {
	version uint64
	files   map[*File]Spawn
	roots   map[*Rec]Spawn
	byCall  map[*Rec][]any // the call's record -> the *File logs and *Rec sidechain roots it spawned
}

// IsAgentTool reports whether a tool spawns a sub-agent.
func IsAgentTool(name string) bool { return name == "Task" || name == "Agent" }

// AgentSpawn returns the call that spawned the sub-agent log f.
func (s *Session) AgentSpawn(f *File) Spawn { return s.spawnLinks().files[f] }

// SidechainSpawn returns the call that spawned the sub-agent inside the main log whose first record
// is root (see SidechainRoot).
func (s *Session) SidechainSpawn(root *Rec) Spawn { return s.spawnLinks().roots[root] }

// SpawnOf returns, for a sub-agent log's first record or an in-file sidechain's root, the call that
// spawned it; otherwise a zero Spawn.
func (s *Session) SpawnOf(r *Rec) Spawn {
	if r == nil || r.File == nil {
		return Spawn{}
	}
	if r.File.Lane != "main" {
		if first := r.File.first(); first == r {
			return s.AgentSpawn(r.File)
		}
		return Spawn{}
	}
	return s.SidechainSpawn(r)
}

// Spawned returns what a Task/Agent call (its tool_use record and block) spawned: sub-agent logs
// and the roots of sidechains inside the main log.
func (s *Session) Spawned(call ToolRef) (logs []*File, roots []*Rec) {
	for _, x := range s.spawnLinks().byCall[call.Rec] {
		switch v := x.(type) {
		case *File:
			if sp := s.spawns.files[v]; sp.Call == call {
				logs = append(logs, v)
			}
		case *Rec:
			if sp := s.spawns.roots[v]; sp.Call == call {
				roots = append(roots, v)
			}
		}
	}
	return logs, roots
}

// CallAgentIDs returns the agent ids a call names: its results' agentId, then the data.agentId of
// progress records reporting for it; each once.
func (s *Session) CallAgentIDs(toolUseID string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, t := range s.results[toolUseID] {
		if ri := t.Rec.D().Result; ri != nil && ri.AgentID != "" && !seen[ri.AgentID] {
			seen[ri.AgentID] = true
			ids = append(ids, ri.AgentID)
		}
	}
	s.callProgress.each(toolUseID, func(r *Rec) {
		if !seen[r.D().DataAgentID] {
			seen[r.D().DataAgentID] = true
			ids = append(ids, r.D().DataAgentID)
		}
	})
	return ids
}

// AgentProgress returns the progress records naming agentID as data.agentId, in session order.
func (s *Session) AgentProgress(agentID string) []*Rec { return s.agentProgress.all(agentID) }

// CallProgress returns the progress records reporting for a call: parentToolUseID or toolUseID
// naming it. It reads every file (References asks it, rarely; an index of every progress record
// would cost every session memory).
func (s *Session) CallProgress(toolUseID string) []*Rec {
	var out []*Rec
	for _, f := range s.Files {
		f.Recs(func(r *Rec) bool {
			if r.LineErr() == nil && (r.D().ParentToolUseID == toolUseID || ProgressToolUseID(r) == toolUseID) {
				out = append(out, r)
			}
			return true
		})
	}
	return out
}

// ProgressToolUseID is a progress record's toolUseID ("" when absent).
func ProgressToolUseID(r *Rec) string {
	if !r.D().ToolUseIDSpan.Valid() {
		return ""
	}
	raw := r.Bytes(r.D().ToolUseIDSpan)
	return jsonscan.Unescape(raw[1 : len(raw)-1])
}

// SidechainRoot reports whether r starts a sub-agent kept inside the main log (1.0.x): an
// isSidechain record of the main log whose parent is not a sidechain record of the same file.
func (s *Session) SidechainRoot(r *Rec) bool {
	if r == nil || r.LineErr() != nil || !r.Has(jsonl.FlagSidechain) || r.File == nil || r.File.Lane != "main" {
		return false
	}
	p := s.Parent(r)
	return p == nil || p.File != r.File || !p.Has(jsonl.FlagSidechain)
}

func (f *File) first() *Rec {
	for _, r := range f.recs {
		if r != nil {
			return r
		}
	}
	return nil
}

// call returns the first tool_use block with this id, if it is a Task/Agent call.
func (s *Session) agentCall(id string) ToolRef {
	if id == "" {
		return ToolRef{}
	}
	if us := s.uses[id]; len(us) > 0 && IsAgentTool(us[0].ContentBlock().Name) {
		return us[0]
	}
	return ToolRef{}
}

// spawnLinks computes every link once per version of the session.
func (s *Session) spawnLinks() *spawnCache {
	if c := s.spawns; c != nil && c.version == s.Version {
		return c
	}
	c := &spawnCache{version: s.Version, files: map[*File]Spawn{}, roots: map[*Rec]Spawn{}, byCall: map[*Rec][]any{}}
	s.spawns = c
	type pending struct {
		file *File
		root *Rec // the agent's first record
	}
	var byPrompt []pending
	linked := map[*Rec]map[int]bool{}
	link := func(t ToolRef) {
		if linked[t.Rec] == nil {
			linked[t.Rec] = map[int]bool{}
		}
		linked[t.Rec][t.Block] = true
	}
	for _, f := range s.Files {
		if f.Lane == "main" {
			continue
		}
		var sp Spawn
		if f.AgentID != "" {
			var best ToolRef
			for _, t := range s.spawned[f.AgentID] {
				if best.Rec == nil || refBefore(t, best) {
					best = t
				}
			}
			if best.Rec != nil {
				sp = Spawn{s.agentCall(best.ContentBlock().ToolUseID), LinkResult}
			}
			if sp.Call.Rec == nil {
				if p := s.agentProgress.first(f.AgentID); p != nil {
					sp = Spawn{s.agentCall(p.D().ParentToolUseID), LinkProgress}
				}
			}
		}
		if sp.Call.Rec == nil && f.Meta != nil {
			sp = Spawn{s.agentCall(f.Meta.ToolUseID), LinkMeta}
		}
		if sp.Call.Rec == nil {
			if root := f.first(); root != nil {
				byPrompt = append(byPrompt, pending{file: f, root: root})
			}
			continue
		}
		c.files[f] = sp
		link(sp.Call)
	}
	if m := s.Main(); m != nil && s.sidechain[m] > 0 {
		m.Recs(func(r *Rec) bool {
			if !s.SidechainRoot(r) {
				return true
			}
			if p := s.Parent(r); p != nil && p.File == r.File {
				for k := range p.D().Blocks {
					if b := &p.D().Blocks[k]; b.Kind == jsonl.BlockToolUse && IsAgentTool(b.Name) {
						if t := s.agentCall(b.ID); t.Rec == p && t.Block == k {
							c.roots[r] = Spawn{t, LinkParent}
							link(t)
							return true
						}
					}
				}
			}
			byPrompt = append(byPrompt, pending{root: r})
			return true
		})
	}
	if len(byPrompt) > 0 {
		// Calls not linked otherwise, by the prompt they gave, in session order.
		calls := map[string][]ToolRef{}
		for _, f := range s.Files {
			f.Recs(func(r *Rec) bool {
				for k := range r.D().Blocks {
					b := &r.D().Blocks[k]
					if b.Kind != jsonl.BlockToolUse || !IsAgentTool(b.Name) || linked[r][k] || s.agentCall(b.ID) != (ToolRef{r, k}) {
						continue
					}
					if p := callPrompt(r, b); p != "" {
						calls[p] = append(calls[p], ToolRef{r, k})
					}
				}
				return true
			})
		}
		for _, pd := range byPrompt {
			want := strings.TrimSpace(PromptText(pd.root))
			if want == "" || len(calls[want]) == 0 {
				continue
			}
			t := calls[want][0]
			calls[want] = calls[want][1:]
			if pd.file != nil {
				c.files[pd.file] = Spawn{t, LinkPrompt}
			} else {
				c.roots[pd.root] = Spawn{t, LinkPrompt}
			}
		}
	}
	for f, sp := range c.files {
		c.byCall[sp.Call.Rec] = append(c.byCall[sp.Call.Rec], f)
	}
	for r, sp := range c.roots {
		c.byCall[sp.Call.Rec] = append(c.byCall[sp.Call.Rec], r)
	}
	return c
}

// callPrompt is a Task/Agent call's input.prompt, trimmed.
func callPrompt(r *Rec, b *jsonl.Block) string {
	if !b.InputSpan.Valid() {
		return ""
	}
	var in struct {
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(r.Bytes(b.InputSpan), &in) != nil {
		return ""
	}
	return strings.TrimSpace(in.Prompt)
}

// PromptText is the whole text a user record carries (a sub-agent's prompt): its string content,
// or its text blocks joined by newlines.
func PromptText(r *Rec) string {
	if r.LineErr() != nil || r.Type != "user" {
		return ""
	}
	if r.Has(jsonl.FlagContentString) && r.D().ContentSpan.Valid() {
		return fullStr(r.Bytes(r.D().ContentSpan))
	}
	var parts []string
	for k := range r.D().Blocks {
		if blk := &r.D().Blocks[k]; blk.Kind == jsonl.BlockText && blk.BodySpan.Valid() {
			parts = append(parts, fullStr(r.Bytes(blk.BodySpan)))
		}
	}
	return strings.Join(parts, "\n")
}

func fullStr(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	return jsonscan.Unescape(raw[1 : len(raw)-1])
}
