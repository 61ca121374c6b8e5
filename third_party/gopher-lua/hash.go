package lua

import "sync/atomic"

// The hash part of a table.
//
// Upstream gopher-lua kept it in two Go maps (string keys, other keys) and,
// for next, a list of the keys and a third map from key to place in that
// list: about 70 bytes a key on top of the maps' own, and 2 KiB for a table
// of a few fields. Here it is one slice of entries in the order the keys
// first came, which next walks, and an index by key only once a table has
// more than hashScan of them: a record {x=1, y=2, z=3} is 3 entries of 32
// bytes, and a key is found by comparing the entries' keys in turn.
//
// An entry set to nil keeps its place (next may be walking past it, and
// Lua lets a traversal clear fields). Entries with nil values are dropped
// when a new key comes, if they are at least half of 16 or more entries:
// Lua leaves next undefined once a key is added during a traversal, and
// Lua 5.1 rehashes then too.

// hashScan is the most entries found by a scan rather than an index.
const hashScan = 8

type hashEntry struct {
	key, val LValue
}

// hashIndex is the place of each key in the hash part.
type hashIndex struct {
	str   map[string]int32
	other map[LValue]int32
}

// findStr is the place of string key in the hash part, -1 if none.
func (tb *LTable) findStr(key string) int {
	if tb.idx != nil {
		if i, ok := tb.idx.str[key]; ok {
			return int(i)
		}
		return -1
	}
	for i := range tb.hash {
		if s, ok := tb.hash[i].key.(LString); ok && string(s) == key {
			return i
		}
	}
	return -1
}

// rawGetStringHint is RawGetString with a hint: *hint is where key may be
// (FunctionProto.hints), checked first, and where it is found is kept there.
// A nil hint is none.
func (tb *LTable) rawGetStringHint(key string, hint *int32) LValue {
	if hint == nil {
		return tb.RawGetString(key)
	}
	if i := int(atomic.LoadInt32(hint)); i < len(tb.hash) {
		if s, ok := tb.hash[i].key.(LString); ok && string(s) == key {
			return tb.hash[i].val
		}
	}
	i := tb.findStr(key)
	if i < 0 {
		return LNil
	}
	atomic.StoreInt32(hint, int32(i))
	return tb.hash[i].val
}

// findKey is the place of key, which is no string, in the hash part, -1 if
// none.
func (tb *LTable) findKey(key LValue) int {
	if tb.idx != nil {
		if i, ok := tb.idx.other[key]; ok {
			return int(i)
		}
		return -1
	}
	for i := range tb.hash {
		if tb.hash[i].key == key {
			return i
		}
	}
	return -1
}

// find is the place of key in the hash part, -1 if none.
func (tb *LTable) find(key LValue) int {
	if s, ok := key.(LString); ok {
		return tb.findStr(string(s))
	}
	return tb.findKey(key)
}

// hget is the value of key, which is no string, in the hash part.
func (tb *LTable) hget(key LValue) (LValue, bool) {
	if tb.nkeys == 0 {
		return LNil, false
	}
	if i := tb.findKey(key); i >= 0 && tb.hash[i].val != LNil {
		return tb.hash[i].val, true
	}
	return LNil, false
}

// hset sets the hash part's entry at i to value, keeping the counts.
func (tb *LTable) hset(i int, value LValue) {
	e := &tb.hash[i]
	if (e.val == LNil) != (value == LNil) { // a value comes or goes
		d := int32(1)
		if value == LNil {
			d = -1
		}
		tb.dead -= d
		if _, str := e.key.(LString); !str {
			tb.nkeys += d
		}
	}
	e.val = value
}

// hdel clears key, which is no string, from the hash part.
func (tb *LTable) hdel(key LValue) {
	if tb.nkeys == 0 {
		return
	}
	if i := tb.findKey(key); i >= 0 {
		tb.hset(i, LNil)
	}
}

// hadd adds an entry for key, which the hash part does not have, with
// value, which is not nil.
func (tb *LTable) hadd(key, value LValue) {
	if tb.dead > 0 && 2*int(tb.dead) >= len(tb.hash) && len(tb.hash) >= 2*hashScan {
		tb.compact()
	}
	i := len(tb.hash)
	tb.hash = append(tb.hash, hashEntry{key, value})
	s, str := key.(LString)
	if !str {
		tb.nkeys++
	}
	switch {
	case tb.idx != nil:
		tb.idx.add(key, s, str, i)
	case len(tb.hash) > hashScan:
		tb.index()
	}
}

func (x *hashIndex) add(key LValue, s LString, str bool, i int) {
	if str {
		if x.str == nil {
			x.str = make(map[string]int32)
		}
		x.str[string(s)] = int32(i)
		return
	}
	if x.other == nil {
		x.other = make(map[LValue]int32)
	}
	x.other[key] = int32(i)
}

// index makes the index by key of the hash part.
func (tb *LTable) index() {
	tb.idx = &hashIndex{}
	for i, e := range tb.hash {
		s, str := e.key.(LString)
		tb.idx.add(e.key, s, str, i)
	}
}

// compact drops the entries whose value is nil, keeping the others' order.
func (tb *LTable) compact() {
	live := tb.hash[:0]
	for _, e := range tb.hash {
		if e.val != LNil {
			live = append(live, e)
		}
	}
	clear(tb.hash[len(live):])
	tb.hash = live
	tb.dead = 0
	if len(live) > hashScan {
		tb.index()
	} else {
		tb.idx = nil
	}
}

// setPresentString sets string key to value if the table has a value for
// it, and reports whether it had: one lookup where a field assignment that
// honours __newindex would otherwise take two.
func (tb *LTable) setPresentString(key string, value LValue) bool {
	i := tb.findStr(key)
	if i < 0 || tb.hash[i].val == LNil {
		return false
	}
	tb.hset(i, value)
	return true
}
