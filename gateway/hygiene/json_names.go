package hygiene

import (
	"bytes"
	"hash/maphash"
	"unicode/utf8"

	"github.com/obgw/obgw/jsonscan"
)

// Duplicate member names are found in three ways, by object size: small
// objects compare each new name with the earlier ones (lengths first, so
// this is a few integer comparisons); larger ones use an open-addressing
// hash table inline in the scanner; the rare object beyond that, or a
// second large object nested in the one holding the table, uses a map.
const (
	linearMaxNames = 8                  // names compared one by one
	tableSlots     = 256                // power of two
	tableMaxNames  = tableSlots * 3 / 4 // names the inline table takes
)

// keySeed seeds the name hash; it is random per process so that a client
// cannot craft colliding names.
var keySeed = maphash.MakeSeed()

type nameSetMode uint8

const (
	namesLinear nameSetMode = iota
	namesTable
	namesMap
)

// nameSet is the per-object state of duplicate detection; the names
// themselves are s.keyAt(first) .. s.keyAt(s.nkeys-1).
type nameSet struct {
	first int
	mode  nameSetMode
	m     map[uint64]int // namesMap: name hash to key index
}

func (s *jsonScanner) keyAt(i int) *keyRef {
	if i < len(s.keyBuf) {
		return &s.keyBuf[i]
	}
	return &s.keyMore[i-len(s.keyBuf)]
}

func (s *jsonScanner) pushKey(k keyRef) {
	if s.nkeys < len(s.keyBuf) {
		s.keyBuf[s.nkeys] = k
	} else {
		s.keyMore = append(s.keyMore[:s.nkeys-len(s.keyBuf)], k)
	}
	s.nkeys++
}

// closeNames forgets the names of an object that ended.
func (s *jsonScanner) closeNames(ns *nameSet) {
	if ns.mode == namesTable {
		s.tableBusy = false
	}
	s.nkeys = ns.first
}

// addName records k as a member name of the object of ns and reports
// whether the object already had it.
func (s *jsonScanner) addName(ns *nameSet, k keyRef) bool {
	count := s.nkeys - ns.first // names before k
	switch {
	case ns.mode == namesLinear && count >= linearMaxNames:
		if s.tableBusy {
			s.toMap(ns)
		} else {
			s.toTable(ns)
		}
	case ns.mode == namesTable && count >= tableMaxNames:
		s.tableBusy = false
		s.toMap(ns)
	}
	switch ns.mode {
	case namesLinear:
		for i := ns.first; i < s.nkeys; i++ {
			if s.sameKey(s.keyAt(i), &k) {
				return true
			}
		}
	case namesTable:
		k.hash = s.hashKey(&k)
		if s.tableInsert(k.hash, s.nkeys, &k) {
			return true
		}
	case namesMap:
		k.hash = s.hashKey(&k)
		if j, taken := ns.m[k.hash]; taken {
			if s.sameKey(s.keyAt(j), &k) {
				return true
			}
			// A genuine 64-bit collision: compare with every name.
			for i := ns.first; i < s.nkeys; i++ {
				if s.sameKey(s.keyAt(i), &k) {
					return true
				}
			}
		} else {
			ns.m[k.hash] = s.nkeys
		}
	}
	s.pushKey(k)
	return false
}

// toTable moves the names so far into the inline table.
func (s *jsonScanner) toTable(ns *nameSet) {
	ns.mode = namesTable
	s.tableBusy = true
	clear(s.table[:])
	for i := ns.first; i < s.nkeys; i++ {
		k := s.keyAt(i)
		k.hash = s.hashKey(k)
		s.tableInsert(k.hash, i, k)
	}
}

// toMap moves the names so far into a map.
func (s *jsonScanner) toMap(ns *nameSet) {
	ns.mode = namesMap
	ns.m = make(map[uint64]int, 2*(s.nkeys-ns.first))
	for i := ns.first; i < s.nkeys; i++ {
		k := s.keyAt(i)
		k.hash = s.hashKey(k)
		if _, taken := ns.m[k.hash]; !taken {
			ns.m[k.hash] = i
		}
	}
}

// tableInsert looks k (with hash h) up in the table and adds it under key
// index idx when absent; it reports whether k was there.
func (s *jsonScanner) tableInsert(h uint64, idx int, k *keyRef) bool {
	const mask = tableSlots - 1
	for slot := h & mask; ; slot = (slot + 1) & mask {
		e := s.table[slot]
		if e == 0 {
			s.table[slot] = int32(idx + 1)
			return false
		}
		if p := s.keyAt(int(e - 1)); p.hash == h && s.sameKey(p, k) {
			return true
		}
	}
}

// sameKey compares two scanned strings after unescaping.
func (s *jsonScanner) sameKey(a, k *keyRef) bool {
	if a.n != k.n {
		return false
	}
	if !a.escaped && !k.escaped {
		return bytes.Equal(s.b[a.start:a.end], s.b[k.start:k.end])
	}
	i, j := int(a.start), int(k.start)
	aEnd, kEnd := int(a.end), int(k.end)
	for i < aEnd && j < kEnd {
		var r1, r2 rune
		r1, i = jsonscan.NextRune(s.b, i)
		r2, j = jsonscan.NextRune(s.b, j)
		if r1 != r2 {
			return false
		}
	}
	return i == aEnd && j == kEnd
}

// hashKey hashes the unescaped bytes of a scanned string.
func (s *jsonScanner) hashKey(k *keyRef) uint64 {
	if !k.escaped {
		return maphash.Bytes(keySeed, s.b[k.start:k.end])
	}
	var h maphash.Hash
	h.SetSeed(keySeed)
	var buf [utf8.UTFMax]byte
	for i, end := int(k.start), int(k.end); i < end; {
		var r rune
		r, i = jsonscan.NextRune(s.b, i)
		h.Write(utf8.AppendRune(buf[:0], r))
	}
	return h.Sum64()
}
