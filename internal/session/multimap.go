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

func (m *recIndex) add(k string, r *Rec) {
	if _, ok := m.one[k]; !ok {
		m.one[k] = r
		return
	}
	m.more[k] = append(m.more[k], r)
}

func (m *recIndex) remove(k string, r *Rec) {
	extra := m.more[k]
	if m.one[k] == r {
		if len(extra) == 0 {
			delete(m.one, k)
			return
		}
		m.one[k] = extra[0]
		extra = extra[1:]
	} else if i := slices.Index(extra, r); i >= 0 {
		extra = slices.Delete(slices.Clone(extra), i, i+1)
	}
	if len(extra) == 0 {
		delete(m.more, k)
	} else {
		m.more[k] = extra
	}
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
func (m *recIndex) first(k string) *Rec {
	f, ok := m.one[k]
	if !ok {
		return nil
	}
	for _, r := range m.more[k] {
		if Before(r, f) {
			f = r
		}
	}
	return f
}
