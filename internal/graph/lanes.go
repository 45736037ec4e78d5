package graph

import (
	"slices"
	"strconv"

	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// makeLanes puts every record in a lane (main, a sub-agent log's, or for 1.0.x logs one per
// sidechain chain), finds the call that spawned each sub-agent, and adds spawn and return edges.
func (b *builder) makeLanes() {
	b.lanes = []laneDraft{{Lane: Lane{ID: MainLane, Label: MainLane}, root: -1, action: -1, first: -1, last: -1}}
	ids := map[string]int32{MainLane: 0}
	fileLane := map[*session.File]int32{}
	for _, f := range b.s.Files {
		if f.Lane == "" || f.Lane == MainLane {
			fileLane[f] = 0
			continue
		}
		if l, ok := ids[f.Lane]; ok { // two logs of one agent id: one lane
			fileLane[f] = l
			continue
		}
		l := int32(len(b.lanes))
		ids[f.Lane] = l
		fileLane[f] = l
		b.lanes = append(b.lanes, laneDraft{Lane: Lane{ID: textsafe.Printable(f.Lane), AgentID: textsafe.Printable(f.AgentID), File: f}, file: f, root: -1, action: -1, first: -1, last: -1})
	}
	laneOfFile := make([]int32, len(b.files)) // by file number: a map lookup a record cost a 1 M-record chain 30 ms
	for _, fi := range b.files {
		laneOfFile[fi.no] = fileLane[b.s.Files[fi.no]]
	}
	for _, i := range b.order {
		st := &b.rs[i]
		l := laneOfFile[b.fileOf(i).no]
		if l == 0 && st.flags&(fBad|fSidechain) == fSidechain {
			if p := st.parent; p >= 0 && b.rs[p].rec.File == st.rec.File && b.rs[p].lane != 0 {
				l = b.rs[p].lane
			} else {
				l = b.sidechainLane(i, ids)
			}
		}
		st.lane = l
	}
	b.spawners()
	b.abandonLanes()
	// First and last node-making record of each lane (the last on the active branch if any).
	for i := range b.rs {
		st := &b.rs[i]
		if st.n == 0 && st.shared < 0 {
			continue
		}
		ln := &b.lanes[st.lane]
		if ln.first < 0 {
			ln.first = int32(i)
		}
		if st.active || !ln.lastIn {
			ln.last, ln.lastIn = int32(i), st.active
		}
	}
	for k := range b.lanes {
		ln := &b.lanes[k]
		if ln.action < 0 || ln.first < 0 {
			continue
		}
		b.edge(ln.action, b.primary(ln.first), edgeSpawn)
		blk := b.rs[b.nodes[ln.action].rec].rec.D().Blocks[b.nodes[ln.action].block]
		for _, t := range b.s.Results(blk.ID) {
			if ri := b.idxOf(t.Rec); ri >= 0 {
				if o := b.blockNode(ri, int32(t.Block)); o >= 0 {
					b.edge(b.lastNode(ln.last), o, edgeReturn)
				}
			}
		}
	}
	b.depths()
}

func (b *builder) sidechainLane(root int32, ids map[string]int32) int32 {
	r := b.rs[root].rec
	id := "sidechain-l" + strconv.Itoa(r.Line+1)
	if u := r.UUID; u != "" {
		id = "sidechain-" + u[:min(8, len(u))]
		if _, taken := ids[id]; taken {
			id = "sidechain-" + u
		}
	}
	if _, taken := ids[id]; taken {
		id += "-l" + strconv.Itoa(r.Line+1)
	}
	l := int32(len(b.lanes))
	ids[id] = l
	b.lanes = append(b.lanes, laneDraft{Lane: Lane{ID: textsafe.Printable(id)}, root: root, action: -1, first: -1, last: -1})
	return l
}

// spawners finds each sub-agent's spawning call by the session's one linkage
// (session.AgentSpawn, SidechainSpawn: docs/spec.md §4).
func (b *builder) spawners() {
	for k := 1; k < len(b.lanes); k++ {
		ln := &b.lanes[k]
		var sp session.Spawn
		switch {
		case ln.file != nil:
			sp = b.s.AgentSpawn(ln.file)
		case ln.root >= 0:
			sp = b.s.SidechainSpawn(b.rs[ln.root].rec)
		}
		if sp.Call.Rec != nil {
			if i := b.idxOf(sp.Call.Rec); i >= 0 {
				ln.action = b.blockNode(i, int32(sp.Call.Block))
			}
		}
		if ln.action >= 0 {
			nb := &b.nodes[ln.action]
			r := b.rs[nb.rec].rec
			ln.SubagentType = oneLine(str(decodeInput(r, &r.D().Blocks[nb.block]).SubagentType, 256))
		}
		if ln.SubagentType == "" && ln.file != nil && ln.file.Meta != nil {
			ln.SubagentType = oneLine(ln.file.Meta.AgentType)
		}
		switch {
		case ln.SubagentType != "":
			ln.Label = ln.SubagentType
		case ln.AgentID != "":
			ln.Label = oneLine(ln.AgentID)
		default:
			ln.Label = "sidechain"
		}
	}
}

// abandonLanes marks the records of a sub-agent inactive when the call that spawned it is on an
// abandoned branch (also through agents spawned by such agents).
func (b *builder) abandonLanes() {
	dead := make([]bool, len(b.lanes))
	for changed := true; changed; {
		changed = false
		for k := 1; k < len(b.lanes); k++ {
			if a := b.lanes[k].action; a >= 0 && !dead[k] {
				st := &b.rs[b.nodes[a].rec]
				if !st.active || dead[st.lane] {
					dead[k], changed = true, true
				}
			}
		}
	}
	if !slices.Contains(dead, true) {
		return
	}
	for i := range b.rs {
		if dead[b.rs[i].lane] {
			b.rs[i].active = false
		}
	}
}

// depths gives each sub-agent lane its depth: meta.json's spawnDepth, else one more than the lane
// of its spawning call, else 1.
func (b *builder) depths() {
	depth := make([]int, len(b.lanes))
	for k := range depth {
		depth[k] = -1
	}
	depth[0] = 0
	var chain []int
	for k := range b.lanes {
		chain = chain[:0]
		l := k
		for depth[l] < 0 && len(chain) <= len(b.lanes) {
			ln := &b.lanes[l]
			if ln.file != nil && ln.file.Meta != nil && ln.file.Meta.SpawnDepth > 0 {
				depth[l] = ln.file.Meta.SpawnDepth
				break
			}
			chain = append(chain, l)
			if ln.action < 0 {
				break
			}
			l = int(b.rs[b.nodes[ln.action].rec].lane)
		}
		base := 0
		if depth[l] >= 0 {
			base = depth[l]
		}
		for c := len(chain) - 1; c >= 0; c-- {
			if depth[chain[c]] < 0 {
				base++
				depth[chain[c]] = base
			} else {
				base = depth[chain[c]]
			}
		}
	}
	for k := 1; k < len(b.lanes); k++ {
		b.lanes[k].Depth = max(depth[k], 1)
	}
}
