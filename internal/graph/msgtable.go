package graph

import "hash/maphash"

// msgTable finds the group of an assistant message by its key (groupKey): open addressing over
// 64-bit hashes, a slot holding the hash, the group and the record that made the group, whose key
// is read again to confirm a match. A Go map keyed by groupKey (hashed field by field, 40-byte
// slots and a string compare per probe) took 0.43 s to group the half a million messages of a
// million-record session; this table takes 16 bytes a slot and touches a record only on a match.
type msgTable struct {
	seed  maphash.Seed
	slots []msgSlot // a power of two long, at most half full
	n     int
}

type msgSlot struct {
	h   uint64 // 0: empty (a key hashing to 0 is stored as 1)
	g   int32  // the group
	rec int32  // the record that made the group: its key confirms a match
}

func newMsgTable(n int) *msgTable {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &msgTable{seed: maphash.MakeSeed(), slots: make([]msgSlot, size)}
}

func (t *msgTable) hash(k groupKey) uint64 {
	h := maphash.String(t.seed, k.id) ^ (uint64(k.file)<<8|uint64(k.kind))*0x9e3779b97f4a7c15
	if h == 0 {
		h = 1
	}
	return h
}

// find returns the group of key k, or adds group g for it, made by record rec (same reports
// whether it was there). keyOf gives a record's key, read only when hashes match.
func (t *msgTable) find(k groupKey, g, rec int32, keyOf func(int32) groupKey) (int32, bool) {
	h := t.hash(k)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.h == 0 {
			*s = msgSlot{h: h, g: g, rec: rec}
			if t.n++; 2*t.n > len(t.slots) {
				t.grow()
			}
			return g, false
		}
		if s.h == h && keyOf(s.rec) == k {
			return s.g, true
		}
	}
}

func (t *msgTable) grow() {
	old := t.slots
	t.slots = make([]msgSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.h == 0 {
			continue
		}
		i := s.h & mask
		for t.slots[i].h != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
