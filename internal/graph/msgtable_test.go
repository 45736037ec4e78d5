package graph

import (
	"fmt"
	"testing"
)

// The table gives every key its first group, across growth from the smallest size, and keeps keys
// that differ only in file or kind apart.
func TestMsgTable(t *testing.T) {
	var keys []groupKey
	for i := range 5000 {
		id := fmt.Sprintf("msg_%d", i%2000)
		keys = append(keys, groupKey{file: i % 2, kind: "mr"[i/2000%2], id: id})
	}
	keyOf := func(rec int32) groupKey { return keys[rec] }
	tbl := newMsgTable(1)
	want := map[groupKey]int32{}
	next := int32(0)
	for i, k := range keys {
		g, found := tbl.find(k, next, int32(i), keyOf)
		w, ok := want[k]
		if found != ok || ok && g != w {
			t.Fatalf("key %d %+v: group %d found %v, want %d found %v", i, k, g, found, w, ok)
		}
		if !found {
			want[k] = next
			next++
		}
	}
	if int(next) != len(want) || tbl.n != len(want) || 2*tbl.n > len(tbl.slots) {
		t.Errorf("%d groups, %d in the table of %d slots, %d distinct keys", next, tbl.n, len(tbl.slots), len(want))
	}
}
