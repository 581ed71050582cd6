package session

import "hash/maphash"

// idIndex finds an entry by its id: a table of positions in the session's entries (which
// only grow), open addressing with linear probing, at most three quarters full. A slot is
// 0 (empty) or the position plus one in its low bits (bits of them) and, above, bits of the
// id's hash that say, without reading the entry, that most ids probed on the way are not
// the one sought. An id indexed again (a duplicate) has its slot moved to the later entry,
// as a map's assignment did.
//
// It replaced a map[string]*Entry (D25.23): a Go map of 67k entries is 128 tables of 1,024
// slots of 25 bytes whatever its hint, 3.3 MiB of a loaded 64 MB session; this is 2^17 slots
// of 4 bytes, 0.5 MiB. The key is the entry's own ID, so the table keeps no strings.
type idIndex struct {
	seed  maphash.Seed
	slots []uint32
	bits  uint
	n     int // distinct ids
}

// reserve makes room for n entries in all without growing again.
func (x *idIndex) reserve(entries []*Entry, n int) {
	b := uint(6)
	for 3<<b>>2 < n {
		b++
	}
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
		x.bits, x.slots = b, make([]uint32, 1<<b)
		return
	}
	if b > x.bits {
		x.rehash(entries, b)
	}
}

// rehash moves every indexed position into a table of 2^b slots.
func (x *idIndex) rehash(entries []*Entry, b uint) {
	if b >= 32 {
		panic("session: more entries than the id index holds")
	}
	old, oldBits := x.slots, x.bits
	x.bits, x.slots = b, make([]uint32, 1<<b)
	low := uint32(1)<<oldBits - 1
	for _, v := range old {
		if v != 0 {
			p := int(v&low) - 1
			h := maphash.String(x.seed, entries[p].ID)
			x.slots[x.empty(h)] = x.slot(h, p)
		}
	}
}

// slot is the slot's value for position p of an id hashed h.
func (x *idIndex) slot(h uint64, p int) uint32 {
	return uint32(p+1) | uint32(h>>32)>>x.bits<<x.bits
}

// empty is the first empty slot on h's probe sequence.
func (x *idIndex) empty(h uint64) uint64 {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

// find is the slot of id (ok) or the empty slot where it would go; h is its hash.
func (x *idIndex) find(entries []*Entry, id string) (i, h uint64, ok bool) {
	h = maphash.String(x.seed, id)
	mask := uint64(len(x.slots) - 1)
	tag := uint32(h>>32) >> x.bits
	low := uint32(mask)
	for i = h & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return i, h, false
		}
		if v>>x.bits == tag && entries[int(v&low)-1].ID == id {
			return i, h, true
		}
	}
}

// get is the position of the last entry with the id, or -1.
func (x *idIndex) get(entries []*Entry, id string) int {
	if x.slots == nil {
		return -1
	}
	i, _, ok := x.find(entries, id)
	if !ok {
		return -1
	}
	return int(x.slots[i]&(uint32(1)<<x.bits-1)) - 1
}

// put indexes entries[p], the last entry, under its id; replaced says that the id was
// indexed before (the slot now names p).
func (x *idIndex) put(entries []*Entry, p int) (replaced bool) {
	if x.slots == nil || 3<<x.bits>>2 < p+1 {
		// Positions, not distinct ids, bound the table: a position must fit below its tag.
		x.reserve(entries, max(2*(p+1), 48))
	}
	i, h, ok := x.find(entries, entries[p].ID)
	x.slots[i] = x.slot(h, p)
	if !ok {
		x.n++
	}
	return ok
}

// byID is the last entry with the id, or nil.
func (s *Session) byID(id string) *Entry {
	if p := s.ids.get(s.entries, id); p >= 0 {
		return s.entries[p]
	}
	return nil
}
