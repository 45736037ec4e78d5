package graph

// The tree stage: each record's parent in the DAG, resolved across files, and its children.

// tree resolves parents, builds the children lists (in session order) and a parents-first order,
// breaking every parent cycle at its earliest record so that nothing after this loops.
func (b *builder) tree() {
	n := len(b.rs)
	// count[p+2] counts p's children; summed, count[p+1] is where they start in childList.
	count := b.spare.zeros(n + 2)
	from := 0
	var saved *[]int32
	if m := b.opt.Memo; m != nil {
		saved = &m.parents
		if b.kept > 0 && len(m.parents) == b.kept && !b.newDefsReparent() {
			// The old records' parents are what they were: reuse their resolution.
			from = b.kept
			for i, p := range m.parents[:from] {
				if p >= 0 {
					b.rs[i].parent = p
					count[p+2]++
				}
			}
		}
	}
	for i := from; i < n; i++ {
		r := b.rs[i].rec
		if b.rs[i].flags&fBad != 0 || r.Parent == "" {
			continue
		}
		// In a chain the parent is the line before (and its uuid string is shared with r's
		// parentUuid, so the comparison is a pointer check): no map lookup.
		if i > 0 {
			if prev := b.rs[i-1].rec; prev.File == r.File && prev.UUID == r.Parent && b.s.DefinedOnce(prev) {
				b.rs[i].parent = int32(i - 1)
				count[i+1]++
				continue
			}
		}
		if p := b.s.Parent(r); p != nil {
			if pi := b.idxOf(p); pi >= 0 && pi != int32(i) {
				b.rs[i].parent = pi
				count[pi+2]++
			}
		}
	}
	if saved != nil {
		// The parents as resolved, before any cycle is cut below.
		*saved = (*saved)[:min(from, len(*saved))]
		for i := from; i < n; i++ {
			*saved = append(*saved, b.rs[i].parent)
		}
	}
	for i := 2; i <= n+1; i++ {
		count[i] += count[i-1]
	}
	// Filled in session order, count[p+1] moving from the start of p's children to their end,
	// which is where p+1's start: count[:n+1] is then each record's start.
	b.childList = b.spare.ints(n)[:count[n+1]] // room for n: reused for an array of n later
	for i := range b.rs {
		if p := b.rs[i].parent; p >= 0 {
			b.childList[count[p+1]] = int32(i)
			count[p+1]++
		}
	}
	b.childStart = count[:n+1]

	b.order = b.spare.ints(n)[:0]
	reached := make([]bool, n)
	bfs := func(root int32) {
		head := len(b.order)
		reached[root] = true
		b.order = append(b.order, root)
		for ; head < len(b.order); head++ {
			for _, c := range b.children(b.order[head]) {
				if !reached[c] {
					reached[c] = true
					b.order = append(b.order, c)
				}
			}
		}
	}
	for i := range b.rs {
		if b.rs[i].parent < 0 && !reached[i] {
			bfs(int32(i))
		}
	}
	if len(b.order) == n {
		return
	}
	// What is left hangs off parent cycles. Walk up to the cycle, cut it at its earliest record.
	stamp := make([]int32, n)
	for i := range b.rs {
		if reached[i] {
			continue
		}
		j := int32(i)
		for stamp[j] != int32(i)+1 {
			stamp[j] = int32(i) + 1
			j = b.rs[j].parent
		}
		m := j
		for k := b.rs[j].parent; k != j; k = b.rs[k].parent {
			m = min(m, k)
		}
		b.rs[m].parent = -1
		bfs(m)
	}
}

// newDefsReparent reports whether a record after the kept ones is the first to define a uuid that
// a kept record names as its parent: that record, an orphan so far, now has one.
func (b *builder) newDefsReparent() bool {
	for i := b.kept; i < len(b.rs); i++ {
		r := b.rs[i].rec
		if r.LineErr() != nil || r.UUID == "" || b.s.Lookup(r.UUID) != r {
			continue
		}
		for _, c := range b.s.Children(r) {
			if ci := b.idxOf(c); ci >= 0 && ci < int32(b.kept) {
				return true
			}
		}
	}
	return false
}

func (b *builder) children(i int32) []int32 {
	return b.childList[b.childStart[i]:b.childStart[i+1]]
}
