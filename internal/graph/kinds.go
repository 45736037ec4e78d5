package graph

import (
	"hash/maphash"
	"slices"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// The classify stage: what each record contributes (a node, part of a message, nothing), grouped
// by message.

// lastGroup is the message group of the last keyed assistant line: the next line of the same
// message (the usual layout) finds its group without a lookup.
type lastGroup struct {
	file *session.File
	kind byte
	id   string
	g    int32
}

// msgKey names the message group of an assistant record within its file: its message id ('m'),
// else its request id ('r'); kind 0 when it has neither (the record is a message of its own).
func msgKey(r *session.Rec) (kind byte, id string) {
	d := r.D()
	switch {
	case d.MessageID != "":
		return 'm', d.MessageID
	case d.RequestID != "":
		return 'r', d.RequestID
	}
	return 0, ""
}

// classifyRecords decides what each record makes and groups assistant lines into messages. It
// reads no parent: it runs beside tree.
func (b *builder) classifyRecords() {
	// With a memo, the records the last build saw, unchanged and in the same places (a session
	// that only grew), keep what it made of them: only the new ones are read, their messages found
	// in the table of the last build's.
	from := 0
	var cs *classState
	if m := b.opt.Memo; m != nil {
		cs = &m.cls
		if b.kept > 0 && len(cs.info) == b.kept && cs.table != nil {
			from = b.kept
			for i, in := range cs.info {
				st := &b.rs[i]
				st.class, st.turn, st.apiError, st.group, st.usage = in.class, in.turn, in.apiError, in.group, in.usage
			}
			b.groups = make([]group, len(cs.groups), max(len(b.rs)/4+16, len(cs.groups)+16))
			for k, h := range cs.groups {
				b.groups[k] = group{thought: -1, usage: h.usage, entry: -1, lists: -1}
				if h.model != "" {
					b.groups[k].model = b.modelIndex(h.model)
				}
			}
		} else {
			cs.info = make([]classInfo, 0, len(b.rs))
		}
	}
	if from == 0 {
		// Sized by the assistant records, at most one group each: grown by doubling, the groups of
		// a 1 M-record session cost a fifth of its build.
		b.groups = b.spare.groupArray(b.assistants + 16)
		tab, last := b.classifyAll(cs != nil)
		if cs != nil {
			cs.table, cs.last = tab, last
		}
	} else {
		for i := from; i < len(b.rs); i++ {
			if b.classOf(int32(i)) {
				b.joinGroup(int32(i), cs.table, &cs.last)
			}
		}
	}
	if cs != nil {
		for i := from; i < len(b.rs); i++ {
			st := &b.rs[i]
			cs.info = append(cs.info, classInfo{class: st.class, turn: st.turn, apiError: st.apiError, group: st.group, usage: st.usage})
		}
		cs.groups = cs.groups[:0]
		for k := range b.groups {
			cs.groups = append(cs.groups, groupHead{usage: b.groups[k].usage, model: b.modelOf(&b.groups[k])})
		}
	}
}

// ancestors finds each record's nearest node-making ancestor-or-self (nodeAncestor).
func (b *builder) ancestors() {
	b.nodeAncestor = b.spare.ints(len(b.rs))
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

// classOf classifies record i, and reports whether it is an assistant line of a message group
// (joinGroup puts it in one).
func (b *builder) classOf(i int32) bool {
	st := &b.rs[i]
	r := st.rec
	if st.flags&fBad != 0 {
		return false
	}
	switch r.Type {
	case "user":
		st.class, st.turn = b.classifyUser(r)
	case "system":
		st.class = cSystem
	case "assistant":
		d := r.D()
		hasUse := false
		for k := range d.Blocks {
			hasUse = hasUse || d.Blocks[k].Kind == jsonl.BlockToolUse
		}
		if r.Has(jsonl.FlagAPIError) && !hasUse {
			st.class, st.apiError = cSystem, true
			return false
		}
		st.class = cAssistant
		st.usage = r.Has(jsonl.FlagUsage) || d.Model != ""
		return true
	}
	return false
}

// joinGroup puts assistant record i in its message group, found in tab (consecutive lines of one
// message, the usual layout, skip the lookup), made when new.
func (b *builder) joinGroup(i int32, tab *groupTable, last *lastGroup) {
	r := b.rs[i].rec
	kind, id := msgKey(r)
	var g int32
	switch {
	case kind == 0: // no id: the record alone
		g = b.newGroup()
	case last.g >= 0 && r.File == last.file && kind == last.kind && id == last.id:
		g = last.g
	default:
		h := tab.hash(r.File, kind, id)
		if j := tab.find(h, func(j int32) bool { return b.sameKey(j, r, kind, id) }); j >= 0 {
			g = b.rs[j].group
		} else {
			g = b.newGroup()
			tab.add(h, i)
		}
		*last = lastGroup{file: r.File, kind: kind, id: id, g: g}
	}
	b.setGroup(i, g)
}

// sameKey reports whether record j's message key is (r's file, kind, id).
func (b *builder) sameKey(j int32, r *session.Rec, kind byte, id string) bool {
	rj := b.rs[j].rec
	kj, idj := msgKey(rj)
	return rj.File == r.File && kj == kind && idj == id
}

// setGroup puts assistant record i in message group g: its usage may be the message's, its model
// the message's model.
func (b *builder) setGroup(i, g int32) {
	st := &b.rs[i]
	st.group = g
	if !st.usage {
		return
	}
	d := st.rec.D()
	gr := &b.groups[g]
	if st.rec.Has(jsonl.FlagUsage) && (gr.usage < 0 || d.Usage.Total() >= b.rs[gr.usage].rec.D().Usage.Total()) {
		gr.usage = i
	}
	if gr.model == 0 && d.Model != "" && d.Model != "<synthetic>" {
		gr.model = b.modelIndex(textsafe.Printable(d.Model)) // log text in a field the viewer shows: escaped as labels are cleaned
	}
}

// Until classifyAll numbers the groups, an assistant record's group says how it is grouped.
const (
	groupAlone = -2 // no message id: a group of its own
	groupRep   = -4 // groupRep - j: in the group of record j, the first line of its message
)

// classifyAll classifies every record and groups the assistant lines by message as joinGroup
// does, with a sort of the keys' hashes instead of a table: a table of 500 000 messages (a 1 M-record
// chain) cost a cache miss a lookup, about 100 ms; the sort takes a few. With a memo (withTable) it
// also returns the table and last group that joinGroup goes on from.
func (b *builder) classifyAll(withTable bool) (*groupTable, lastGroup) {
	kh := keyHasher{seed: maphash.MakeSeed()}
	keys := b.spare.uint64s(b.assistants)[:0] // hash<<32 | record, in session order
	defer func() { b.spare.doneWords(keys) }()
	for i := range b.rs {
		if !b.classOf(int32(i)) {
			continue
		}
		r := b.rs[i].rec
		kind, id := msgKey(r)
		if kind == 0 {
			b.rs[i].group = groupAlone
			continue
		}
		keys = append(keys, uint64(kh.hash(r.File, kind, id))<<32|uint64(i))
	}
	if len(keys) >= 4096 {
		tmp := b.spare.uint64s(len(keys))
		sortByHigh32(keys, tmp)
		b.spare.doneWords(tmp)
	} else {
		slices.Sort(keys)
	}
	var tab *groupTable
	if withTable {
		tab = newGroupTable(len(keys))
		tab.keyHasher = kh
	}
	// Records of one hash, in session order: usually the lines of one message. Each joins the
	// first with its key.
	var firsts []int32
	for k := 0; k < len(keys); {
		e := k + 1
		for e < len(keys) && keys[e]>>32 == keys[k]>>32 {
			e++
		}
		firsts = firsts[:0]
		for _, x := range keys[k:e] {
			i := int32(uint32(x))
			first := i
			if e > k+1 {
				r := b.rs[i].rec
				kind, id := msgKey(r)
				for _, j := range firsts {
					if b.sameKey(j, r, kind, id) {
						first = j
						break
					}
				}
				if first == i {
					firsts = append(firsts, i)
				}
			}
			if first == i && tab != nil {
				tab.add(uint32(x>>32), i)
			}
			b.rs[i].group = groupRep - first
		}
		k = e
	}
	// Groups numbered in session order: a message's group is made at its first line.
	lastKeyed := int32(-1)
	for i := range b.rs {
		st := &b.rs[i]
		if st.class != cAssistant {
			continue
		}
		var g int32
		switch j := groupRep - st.group; {
		case st.group == groupAlone || j == int32(i):
			g = b.newGroup()
		default:
			g = b.rs[j].group
		}
		if st.group != groupAlone {
			lastKeyed = int32(i)
		}
		b.setGroup(int32(i), g)
	}
	last := lastGroup{g: -1}
	if tab != nil && lastKeyed >= 0 {
		r := b.rs[lastKeyed].rec
		kind, id := msgKey(r)
		last = lastGroup{file: r.File, kind: kind, id: id, g: b.rs[lastKeyed].group}
	}
	return tab, last
}

func (b *builder) newGroup() int32 {
	b.groups = append(b.groups, group{thought: -1, usage: -1, entry: -1, lists: -1})
	return int32(len(b.groups) - 1)
}

// groupTable finds a message group by its key (file, kind, id): open addressing over the groups'
// first records, each slot holding the key's hash beside the record. A map keyed by the strings
// took a 1 M-record chain (500 000 messages) about 45 MB and a third of its graph's first pass;
// this takes 8 MB, and compares keys only where the hashes match.
type groupTable struct {
	keyHasher
	slots []uint64 // hash<<32 | 1+record, 0 when empty
	n     int
}

// keyHasher hashes message keys (file, kind, id).
type keyHasher struct {
	seed  maphash.Seed
	file  *session.File // the file last hashed, and its hash
	fileH uint64
}

func newGroupTable(n int) *groupTable {
	size := 16
	for size < n+n/2 {
		size *= 2
	}
	return &groupTable{keyHasher: keyHasher{seed: maphash.MakeSeed()}, slots: make([]uint64, size)}
}

func (t *keyHasher) hash(f *session.File, kind byte, id string) uint32 {
	if f != t.file {
		t.file, t.fileH = f, maphash.Comparable(t.seed, f)
	}
	h := maphash.String(t.seed, id) ^ t.fileH ^ uint64(kind)
	return uint32(h ^ h>>32)
}

// find returns the record of the group with hash h whose key same reports equal, or -1.
func (t *groupTable) find(h uint32, same func(rec int32) bool) int32 {
	mask := uint32(len(t.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := t.slots[k]
		if s == 0 {
			return -1
		}
		if uint32(s>>32) == h && same(int32(uint32(s))-1) {
			return int32(uint32(s)) - 1
		}
	}
}

// add enters the group whose first record is rec (not in the table).
func (t *groupTable) add(h uint32, rec int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		old := t.slots
		t.slots = make([]uint64, 2*len(old))
		for _, s := range old {
			if s != 0 {
				t.put(s)
			}
		}
	}
	t.put(uint64(h)<<32 | uint64(uint32(rec+1)))
	t.n++
}

func (t *groupTable) put(s uint64) {
	mask := uint32(len(t.slots) - 1)
	k := uint32(s>>32) & mask
	for t.slots[k] != 0 {
		k = (k + 1) & mask
	}
	t.slots[k] = s
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

// sortByHigh32 sorts keys by their upper 32 bits, equal ones kept in their order, with tmp (as
// long) as room: a radix sort, a few milliseconds for half a million keys where a comparison sort
// takes tens. Keys that come in order of their lower bits end in the order of the whole keys.
func sortByHigh32(keys, tmp []uint64) {
	src, dst := keys, tmp
	for shift := 32; shift < 64; shift += 8 {
		var at [256]int
		for _, k := range src {
			at[k>>shift&0xff]++
		}
		n := 0
		for d, c := range at {
			at[d] = n
			n += c
		}
		for _, k := range src {
			d := k >> shift & 0xff
			dst[at[d]] = k
			at[d]++
		}
		src, dst = dst, src
	}
	// Four passes: the keys are back in keys.
}
