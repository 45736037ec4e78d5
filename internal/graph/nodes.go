package graph

import (
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// The nodes stage: one node per classified record or message group, per tool call block.

func (b *builder) newNode(n nodeDraft) int32 {
	b.nodes = append(b.nodes, n)
	return int32(len(b.nodes) - 1)
}

// makeNodes creates the nodes, in session order (a compaction summary joins its boundary's node).
func (b *builder) makeNodes() {
	b.nodes = b.spare.nodeDrafts(len(b.rs))
	var summaries []int32
	for i := range b.rs {
		st := &b.rs[i]
		r := st.rec
		own := func(kind nodeKind, block int32, grp int32) {
			k := b.newNode(nodeDraft{kind: kind, rec: int32(i), block: block, group: grp, aux: -1})
			if st.n == 0 {
				st.first = k
			}
			st.n++
		}
		switch st.class {
		case cUser:
			own(kUserInput, -1, -1)
		case cSystem:
			own(kSystem, -1, -1)
		case cSummary:
			summaries = append(summaries, int32(i))
		case cResults:
			for k := range r.D().Blocks {
				if r.D().Blocks[k].Kind == jsonl.BlockToolResult {
					own(kObservation, int32(k), -1)
				}
			}
		case cAssistant:
			g := &b.groups[st.group]
			thought := func() {
				if st.shared >= 0 {
					return
				}
				if g.thought < 0 {
					g.thought = b.newNode(nodeDraft{kind: kThought, rec: int32(i), block: -1, group: st.group, aux: -1})
				} else {
					b.addMore(g.thought, int32(i))
				}
				st.shared = g.thought
				st.sharedFirst = st.n == 0
			}
			for k := range r.D().Blocks {
				switch r.D().Blocks[k].Kind {
				case jsonl.BlockText, jsonl.BlockThinking:
					thought()
				case jsonl.BlockToolUse:
					own(kAction, int32(k), st.group)
					l := b.listsOf(st.group)
					l.actions = append(l.actions, st.first+st.n-1)
				}
			}
			if st.n == 0 {
				thought() // a line with no text, thinking or tool call still stands for its message
			}
		}
	}
	for _, i := range summaries {
		st := &b.rs[i]
		if p := b.flowFrom(i); p >= 0 && isCompaction(b.rs[p].rec) && b.rs[p].n > 0 {
			st.shared = b.rs[p].first
			b.addMore(st.shared, i)
			continue
		}
		st.class = cSystem
		st.first = b.newNode(nodeDraft{kind: kSystem, rec: i, block: -1, group: -1, aux: -1})
		st.n = 1
	}
}

func isCompaction(r *session.Rec) bool {
	return r.Type == "system" && (r.D().Subtype == "compact_boundary" || r.D().LogicalParent != "")
}

// blockNode returns the creation index of the node record i made for block k, or -1.
func (b *builder) blockNode(i int32, k int32) int32 {
	st := &b.rs[i]
	for n := st.first; n >= 0 && n < st.first+st.n; n++ {
		if b.nodes[n].block == k {
			return n
		}
	}
	return -1
}

// useNode returns the ACTION of the first tool_use block with this id, or -1.
func (b *builder) useNode(id string) int32 {
	var best session.ToolRef
	for _, t := range b.s.Uses(id) {
		if best.Rec == nil || session.Before(t.Rec, best.Rec) {
			best = t
		}
	}
	if best.Rec == nil {
		return -1
	}
	i := b.idxOf(best.Rec)
	if i < 0 {
		return -1
	}
	return b.blockNode(i, int32(best.Block))
}
