package session

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestIDIndex: the id index against a map, the index's reference (D25.23), with repeated
// ids, growth from empty and from a reserved size, and lookups of ids never indexed.
func TestIDIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, ids, reserve int }{
		{0, 1, 0}, {1, 1, 0}, {47, 1000, 0}, {48, 1000, 0}, {49, 1000, 0}, {3000, 100000, 0},
		{3000, 50, 0}, {3000, 100000, 3000}, {5000, 100000, 100}, {20000, 100000, 1 << 14},
	} {
		var x idIndex
		if tc.reserve > 0 {
			x.reserve(nil, tc.reserve)
		}
		var entries []*Entry
		ref := map[string]int{}
		for i := range tc.n {
			id := fmt.Sprintf("%x", r.IntN(tc.ids))
			entries = append(entries, &Entry{ID: id})
			_, dup := ref[id]
			ref[id] = i
			if x.put(entries, i) != dup {
				t.Fatalf("%+v: put %d (%s) replaced %v", tc, i, id, !dup)
			}
			if 4*len(entries) > 3*len(x.slots) || len(x.slots)&(len(x.slots)-1) != 0 {
				t.Fatalf("%+v: %d entries in %d slots", tc, len(entries), len(x.slots))
			}
		}
		if x.n != len(ref) {
			t.Errorf("%+v: %d ids, want %d", tc, x.n, len(ref))
		}
		for id, p := range ref {
			if got := x.get(entries, id); got != p {
				t.Fatalf("%+v: %s at %d, want %d", tc, id, got, p)
			}
		}
		for i := range 1000 {
			if id := fmt.Sprintf("absent-%d", i); x.get(entries, id) != -1 {
				t.Fatalf("%+v: found %s", tc, id)
			}
		}
		// Every slot but the empty ones names a position, each id's last once.
		seen := map[int]bool{}
		for _, v := range x.slots {
			if v != 0 {
				seen[int(v&(1<<x.bits-1))-1] = true
			}
		}
		if len(seen) != len(ref) {
			t.Errorf("%+v: %d slots used, want %d", tc, len(seen), len(ref))
		}
	}
}

// TestIDIndexSize: the index of a loaded session is a slot of 4 bytes per entry or two,
// sized once from the file.
func TestIDIndexSize(t *testing.T) {
	var x idIndex
	x.reserve(nil, 64<<10)
	if n := uintptr(len(x.slots)) * unsafe.Sizeof(x.slots[0]); n != 512<<10 {
		t.Errorf("64k entries: %d bytes", n)
	}
}
