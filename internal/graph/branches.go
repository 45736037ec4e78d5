package graph

// The branches stage: real forks found, abandoned branches marked inactive.

// activeBranches finds the real forks and marks the records of abandoned branches inactive.
func (b *builder) activeBranches() {
	n := len(b.rs)
	// turnKey: a person's prompt is its own turn; an assistant line that starts its message along
	// the chain starts the message's turn. 0: the record starts no turn.
	turnKey := func(i int32) int32 {
		st := &b.rs[i]
		switch {
		case st.turn:
			return i + 1
		case st.class == cAssistant:
			if p := b.flowFrom(i); p < 0 || !b.sameMessage(p, st.group) {
				return -st.group - 1
			}
		}
		return 0
	}
	// ft: the turn a record's subtree starts with (its own, else its first child's that has one).
	ft := b.spare.ints(n)
	defer b.spare.done(ft)
	for k := len(b.order) - 1; k >= 0; k-- {
		i := b.order[k]
		ft[i] = turnKey(i)
		if ft[i] != 0 {
			continue
		}
		for _, c := range b.children(i) {
			if ft[c] != 0 && !b.rs[c].apiError {
				ft[i] = ft[c]
				break
			}
		}
	}
	ownTurn := func(p int32) int32 {
		if b.rs[p].class == cAssistant {
			return -b.rs[p].group - 1
		}
		return 0
	}
	// eligible: a child that starts a turn of its own at p (API-error retries, other files'
	// records, the continuation of p's own message and a sub-agent kept in the main log starting
	// at its call's record are structure).
	eligible := func(p, c int32) bool {
		return ft[c] != 0 && ft[c] != ownTurn(p) && !b.rs[c].apiError && b.fileOf(c) == b.fileOf(p) &&
			b.rs[c].flags&fSidechain == b.rs[p].flags&fSidechain
	}
	forkFiles := map[*fileIndex]bool{}
	for i := range b.rs {
		kids := b.children(int32(i))
		if len(kids) < 2 {
			continue
		}
		var seen int32
		for _, c := range kids {
			if !eligible(int32(i), c) {
				continue
			}
			if seen == 0 {
				seen = ft[c]
			} else if ft[c] != seen {
				b.rs[i].fork = true
				forkFiles[b.fileOf(int32(i))] = true
				break
			}
		}
	}
	winner := map[int32]int32{}
	if len(forkFiles) > 0 {
		// The child of a fork that stays active is the one whose subtree holds the latest record
		// of the fork's file: walk up from the file's records, latest first; the first eligible
		// child to reach the fork wins.
		stamp := make([]int32, n)
		for _, fi := range b.files {
			if !forkFiles[fi] {
				continue
			}
			mark := int32(fi.no) + 1
			for i := fi.end - 1; i >= fi.start; i-- {
				if stamp[i] == mark {
					continue
				}
				stamp[i] = mark
				for c, j := i, b.rs[i].parent; j >= 0; c, j = j, b.rs[j].parent {
					if b.rs[j].fork && eligible(j, c) {
						if _, ok := winner[j]; !ok && b.fileOf(j) == fi {
							winner[j] = c
						}
					}
					if stamp[j] == mark {
						break
					}
					stamp[j] = mark
				}
			}
		}
	}
	for _, i := range b.order {
		st := &b.rs[i]
		p := st.parent
		if p < 0 {
			st.active = true
			continue
		}
		st.active = b.rs[p].active
		if w, ok := winner[p]; ok && st.active && eligible(p, i) && ft[i] != ft[w] {
			st.active = false
		}
	}
}
