package session

import "slices"

// recIndex maps a key to records. Almost every key has one record (a uuid is defined once, most
// records have one child), so the first lives in a map of pointers and only extra ones in a map of
// slices: no slice allocation per key.
type recIndex struct {
	one  map[string]*Rec
	more map[string][]*Rec
}

func newRecIndex(n int) recIndex {
	return recIndex{one: make(map[string]*Rec, n), more: map[string][]*Rec{}}
}

// cmpRecs orders records in session order (file order, then line).
func cmpRecs(a, b *Rec) int {
	switch {
	case a == b:
		return 0
	case Before(a, b):
		return -1
	case Before(b, a):
		return 1
	}
	return 0
}

// add adds r under k and reports whether r is now k's first record in session order. The first
// record always lives in one, and the others are kept in session order, so that finding the first
// is O(1) and removing records in file order (closing a file, replacing its text) is O(1) each:
// many records under one key (100 000 children of one parent, one uuid defined 100 000 times)
// must not make each change scan or copy them all.
func (m *recIndex) add(k string, r *Rec) (first bool) {
	f, ok := m.one[k]
	if !ok {
		m.one[k] = r
		return true
	}
	if Before(r, f) {
		m.one[k] = r
		m.more[k] = slices.Insert(m.more[k], 0, f)
		return true
	}
	extra := m.more[k]
	if n := len(extra); n == 0 || Before(extra[n-1], r) {
		m.more[k] = append(extra, r) // the usual case: records arrive in file order
		return false
	}
	i, _ := slices.BinarySearchFunc(extra, r, cmpRecs)
	m.more[k] = slices.Insert(extra, i, r)
	return false
}

// remove takes r from k and reports whether r was k's first record (the next one then becomes
// first).
func (m *recIndex) remove(k string, r *Rec) (wasFirst bool) {
	extra := m.more[k]
	if m.one[k] == r {
		if len(extra) == 0 {
			delete(m.one, k)
			return true
		}
		m.one[k] = extra[0]
		extra[0] = nil
		extra, wasFirst = extra[1:], true
	} else {
		// Records being removed by an edit may carry their old line numbers: when the binary
		// search misses, look at every one.
		i, found := slices.BinarySearchFunc(extra, r, cmpRecs)
		if !found || extra[i] != r {
			i = slices.Index(extra, r)
		}
		switch {
		case i < 0:
		case i == 0:
			extra[0] = nil
			extra = extra[1:]
		default:
			extra = slices.Delete(extra, i, i+1)
		}
	}
	if len(extra) == 0 {
		delete(m.more, k)
	} else {
		m.more[k] = extra
	}
	return wasFirst
}

func (m *recIndex) count(k string) int {
	if _, ok := m.one[k]; !ok {
		return 0
	}
	return 1 + len(m.more[k])
}

// all returns the records of k; it allocates only when there are several.
func (m *recIndex) all(k string) []*Rec {
	r, ok := m.one[k]
	if !ok {
		return nil
	}
	extra := m.more[k]
	if len(extra) == 0 {
		return []*Rec{r}
	}
	return append([]*Rec{r}, extra...)
}

func (m *recIndex) each(k string, fn func(*Rec)) {
	if r, ok := m.one[k]; ok {
		fn(r)
		for _, r := range m.more[k] {
			fn(r)
		}
	}
}

// first returns the earliest record of k in session order.
func (m *recIndex) first(k string) *Rec { return m.one[k] }
