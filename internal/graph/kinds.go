package graph

import (
	"runtime"
	"sync"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// The classify stage: what each record contributes (a node, part of a message, nothing), grouped
// by message.

// groupKey names a message group: its file, and its message id ('m') or request id ('r').
type groupKey struct {
	file int
	kind byte
	id   string
}

// classify decides what each record makes, groups assistant lines into messages, and finds each
// record's nearest node-making ancestor-or-self.
func (b *builder) classify() {
	// Message groups by id, per file; consecutive lines of one message (the usual layout) skip
	// the lookup. With a memo, the records the last build saw, unchanged and in the same places
	// (a session that only grew), keep what it made of them: only the new ones are read.
	var groups *msgTable
	last, lastG := groupKey{file: -1}, int32(-1)
	from := 0
	var cs *classState
	if m := b.opt.Memo; m != nil {
		cs = &m.cls
		if b.kept > 0 && len(cs.info) == b.kept && cs.table != nil {
			from = b.kept
			for i, in := range cs.info {
				st := &b.rs[i]
				st.class, st.turn, st.apiError, st.group = in.class, in.turn, in.apiError, in.group
			}
			b.groups = make([]group, len(cs.groups), max(len(b.rs)/4+16, len(cs.groups)+16))
			for k, h := range cs.groups {
				b.groups[k] = group{thought: -1, usage: h.usage, model: h.model}
			}
			groups, last, lastG = cs.table, cs.last, cs.lastG
		} else {
			cs.info = make([]classInfo, 0, len(b.rs))
		}
	}
	if from == 0 {
		// Sized by the assistant records, at most one group each: growing a table of half a
		// million groups by doubling cost a 1 M-record session a fifth of its build.
		n := 0
		for i := range b.rs {
			if b.rs[i].rec.Type == "assistant" {
				n++
			}
		}
		groups = newMsgTable(n)
		b.groups = make([]group, 0, n+16)
	}
	// What a record makes depends on the record alone: read on both cores for a large session
	// (a million records cost their classification mostly in reaching each record's memory).
	// Grouping an assistant message's lines depends on their order, and follows.
	if n := len(b.rs) - from; n >= parallelClassify && runtime.GOMAXPROCS(0) > 1 {
		mid := from + n/2
		var wg sync.WaitGroup
		wg.Go(func() { b.classifyRecs(mid, len(b.rs)) })
		b.classifyRecs(from, mid)
		wg.Wait()
	} else {
		b.classifyRecs(from, len(b.rs))
	}
	for i := from; i < len(b.rs); i++ {
		if b.rs[i].class == cAssistant {
			b.groupOne(int32(i), groups, &last, &lastG)
		}
	}
	if cs != nil {
		for i := from; i < len(b.rs); i++ {
			st := &b.rs[i]
			cs.info = append(cs.info, classInfo{class: st.class, turn: st.turn, apiError: st.apiError, group: st.group})
		}
		cs.groups = cs.groups[:0]
		for k := range b.groups {
			cs.groups = append(cs.groups, groupHead{usage: b.groups[k].usage, model: b.groups[k].model})
		}
		cs.table, cs.last, cs.lastG = groups, last, lastG
	}
	b.nodeAncestor = make([]int32, len(b.rs))
	for _, i := range b.order {
		switch {
		case b.rs[i].class != cNone:
			b.nodeAncestor[i] = i
		case b.rs[i].parent >= 0:
			b.nodeAncestor[i] = b.nodeAncestor[b.rs[i].parent]
		default:
			b.nodeAncestor[i] = -1
		}
	}
}

// parallelClassify is the number of records from which classify reads them on two cores.
var parallelClassify = 1 << 16 // a var: tests set it

// classifyRecs classifies records [lo, hi) by what each makes (see classify); it writes only
// their own class, turn and apiError.
func (b *builder) classifyRecs(lo, hi int) {
	for i := lo; i < hi; i++ {
		st := &b.rs[i]
		r := st.rec
		if r.LineErr() != nil {
			continue
		}
		switch r.Type {
		case "user":
			st.class, st.turn = b.classifyUser(r)
		case "system":
			st.class = cSystem
		case "assistant":
			hasUse := false
			d := r.D()
			for k := range d.Blocks {
				hasUse = hasUse || d.Blocks[k].Kind == jsonl.BlockToolUse
			}
			if r.Has(jsonl.FlagAPIError) && !hasUse {
				st.class, st.apiError = cSystem, true
				continue
			}
			st.class = cAssistant
		}
	}
}

// groupKey returns the key of assistant record i's message group (kind 0: it has no id).
func (b *builder) groupKey(i int32) groupKey {
	d := b.rs[i].rec.D()
	key := groupKey{file: b.fileOf(i).no}
	switch {
	case d.MessageID != "":
		key.kind, key.id = 'm', d.MessageID
	case d.RequestID != "":
		key.kind, key.id = 'r', d.RequestID
	}
	return key
}

// groupOne puts assistant record i in its message's group (see classify), in record order.
func (b *builder) groupOne(i int32, groups *msgTable, last *groupKey, lastG *int32) {
	st := &b.rs[i]
	d := st.rec.D()
	key := b.groupKey(i)
	var g int32
	switch {
	case key.kind == 0: // no id: the record alone
		g = int32(len(b.groups))
		b.groups = append(b.groups, group{thought: -1, usage: -1})
	case key == *last:
		g = *lastG
	default:
		var found bool
		if g, found = groups.find(key, int32(len(b.groups)), i, b.groupKey); !found {
			b.groups = append(b.groups, group{thought: -1, usage: -1})
		}
		*last, *lastG = key, g
	}
	st.group = g
	gr := &b.groups[g]
	if d.HasUsage && (gr.usage < 0 || d.Usage.Total() >= b.rs[gr.usage].rec.D().Usage.Total()) {
		gr.usage = i
	}
	if gr.model == "" && d.Model != "" && d.Model != "<synthetic>" {
		gr.model = check.Printable(d.Model) // log text in a field the viewer shows: escaped as labels are cleaned
	}
}

// flowFrom is the nearest node-making strict ancestor of i: where flow into i comes from.
func (b *builder) flowFrom(i int32) int32 {
	if p := b.rs[i].parent; p >= 0 {
		return b.nodeAncestor[p]
	}
	return -1
}

// classifyUser: the one classifier (internal/classify) decides; what a person typed (a prompt, a
// slash command, a shell command) starts a turn.
func (b *builder) classifyUser(r *session.Rec) (recClass, bool) {
	switch who := classify.User(r); {
	case who == classify.ToolResults:
		return cResults, false
	case who == classify.CompactSummary:
		return cSummary, false
	case who.Typed():
		return cUser, true
	}
	return cSystem, false
}
