package lua

const defaultArrayCap = 32

type lValueArraySorter struct {
	L      *LState
	Fn     *LFunction
	Values []LValue
}

func (lv lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv lValueArraySorter) Swap(i, j int) {
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv lValueArraySorter) Less(i, j int) bool {
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	tb := &LTable{}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	if hcap != 0 {
		tb.hash = make([]hashEntry, 0, hcap)
	}
	return tb
}

// Len returns length of this LTable without using __len.
func (tb *LTable) Len() int {
	if tb.array == nil {
		return 0
	}
	var prev LValue = LNil
	for i := len(tb.array) - 1; i >= 0; i-- {
		v := tb.array[i]
		if prev == LNil && v != LNil {
			return i + 1
		}
		prev = v
	}
	return 0
}

// Append appends a given LValue to this LTable.
func (tb *LTable) Append(value LValue) {
	if value == LNil {
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	tb.used++
	if len(tb.array) == 0 || tb.array[len(tb.array)-1] != LNil {
		tb.array = append(tb.array, value)
		tb.takeFromHash()
	} else {
		i := len(tb.array) - 2
		for ; i >= 0; i-- {
			if tb.array[i] != LNil {
				break
			}
		}
		tb.array[i+1] = value
	}
}

// Insert inserts a given LValue at position `i` in this table.
func (tb *LTable) Insert(i int, value LValue) {
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if i > len(tb.array) {
		tb.RawSetInt(i, value)
		return
	}
	if i <= 0 {
		tb.RawSet(LNumber(i), value)
		return
	}
	i -= 1
	tb.array = append(tb.array, LNil)
	copy(tb.array[i+1:], tb.array[i:])
	tb.array[i] = value
	if value != LNil {
		tb.used++
	}
	tb.takeFromHash()
}

// shiftDown moves t[pos+1..e] to t[pos..e-1] and clears t[e], as Lua 5.1's
// table.remove does (1 <= pos <= e).
func (tb *LTable) shiftDown(pos, e int) {
	if e <= len(tb.array) {
		if tb.array[pos-1] != LNil {
			tb.used--
		}
		copy(tb.array[pos-1:e-1], tb.array[pos:e])
		tb.array[e-1] = LNil
		return
	}
	for ; pos < e; pos++ {
		tb.RawSetInt(pos, tb.RawGetInt(pos+1))
	}
	tb.RawSetInt(e, LNil)
}

// shiftUp moves t[pos..e-1] to t[pos+1..e], as Lua 5.1's table.insert does
// before it sets t[pos] (e is #t+1 or more).
func (tb *LTable) shiftUp(pos, e int) {
	if pos >= 1 && e <= len(tb.array) {
		if tb.array[e-1] != LNil {
			tb.used--
		}
		if tb.array[pos-1] != LNil {
			tb.used++
		}
		copy(tb.array[pos:e], tb.array[pos-1:e-1])
		return
	}
	for i := e; i > pos; i-- {
		tb.RawSetInt(i, tb.RawGetInt(i-1))
	}
}

// MaxN returns a maximum number key that nil value does not exist before it.
func (tb *LTable) MaxN() int {
	if tb.array == nil {
		return 0
	}
	for i := len(tb.array) - 1; i >= 0; i-- {
		if tb.array[i] != LNil {
			return i + 1
		}
	}
	return 0
}

// Remove removes from this table the element at a given position.
func (tb *LTable) Remove(pos int) LValue {
	if tb.array == nil {
		return LNil
	}
	larray := len(tb.array)
	if larray == 0 {
		return LNil
	}
	i := pos - 1
	oldval := LNil
	switch {
	case i >= larray:
		// nothing to do
	case i == larray-1 || i < 0:
		oldval = tb.array[larray-1]
		tb.array = tb.array[:larray-1]
	default:
		oldval = tb.array[i]
		copy(tb.array[i:], tb.array[i+1:])
		tb.array[larray-1] = nil
		tb.array = tb.array[:larray-1]
	}
	if oldval != LNil {
		tb.used--
	}
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			tb.setInt(int(v)-1, value)
			return
		}
	case LString:
		tb.rawSetStr(string(v), key, value)
		return
	}

	tb.RawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	if key < 1 || key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	tb.setInt(key-1, value)
}

// setInt sets the integer key index+1 (0 <= index < MaxArrayIndex-1).
//
// The array part holds the keys 1..len(array); other integer keys are in the
// hash part, and none of them is len(array)+1. A key past the end of the
// array extends it only if more than half of the array's slots up to the
// key would hold values (tb.used counts those it holds), as Lua 5.1 sizes
// its array part (ltable.c, computesizes): t[10000000] = 1 on a small table
// is one hash entry, not an array of ten million slots, and the keys 2^i
// stay in the hash part. Keys of the hash part that the array comes to
// cover move into it.
func (tb *LTable) setInt(index int, value LValue) {
	alen := len(tb.array)
	switch {
	case index < alen:
		switch old := tb.array[index]; {
		case old == LNil && value != LNil:
			tb.used++
		case old != LNil && value == LNil:
			tb.used--
		}
		tb.array[index] = value
	case value == LNil:
		tb.hdel(LNumber(index + 1))
	case index == alen:
		if tb.array == nil {
			tb.array = make([]LValue, 0, defaultArrayCap)
		}
		tb.array = append(tb.array, value)
		tb.used++
		tb.takeFromHash()
	case 2*(tb.used+1) > index+1: // more than half of the slots used
		for i := alen; i < index; i++ {
			v, ok := tb.hget(LNumber(i + 1))
			if ok {
				tb.hdel(LNumber(i + 1))
				tb.used++
			}
			tb.array = append(tb.array, v)
		}
		tb.array = append(tb.array, value)
		tb.used++
		tb.hdel(LNumber(index + 1))
		tb.takeFromHash()
	default:
		tb.RawSetH(LNumber(index+1), value)
	}
}

// setListItem stores item key of a table constructor ({a, b, ...}): in the
// array part, holes included, as Lua 5.1 sizes a constructor's array part
// for its list items, so that #{nil, nil, 3} is 3 and unpack({nil, 2})
// gives both.
func (tb *LTable) setListItem(key int, value LValue) {
	index := key - 1
	if index < len(tb.array) {
		tb.setInt(index, value)
		return
	}
	if key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	for i := len(tb.array); i < index; i++ {
		v, ok := tb.hget(LNumber(i + 1))
		if ok {
			tb.hdel(LNumber(i + 1))
			tb.used++
		}
		tb.array = append(tb.array, v)
	}
	tb.hdel(LNumber(key))
	tb.array = append(tb.array, value)
	if value != LNil {
		tb.used++
	}
	tb.takeFromHash()
}

// takeFromHash moves the keys that follow the array part out of the hash
// part into it.
func (tb *LTable) takeFromHash() {
	for tb.nkeys != 0 {
		k := LNumber(len(tb.array) + 1)
		v, ok := tb.hget(k)
		if !ok || k >= LNumber(MaxArrayIndex) {
			return
		}
		tb.hdel(k)
		tb.array = append(tb.array, v)
		tb.used++
	}
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
func (tb *LTable) RawSetString(key string, value LValue) { tb.rawSetStr(key, nil, value) }

// rawSetStr is RawSetString with boxed, if not nil, the key already as an
// LValue (RawSet's): a new entry keeps it rather than boxing the string
// again, 16 bytes a key.
func (tb *LTable) rawSetStr(key string, boxed LValue, value LValue) {
	if i := tb.findStr(key); i >= 0 {
		tb.hset(i, value)
	} else if value != LNil {
		if boxed == nil {
			boxed = LString(key)
		}
		tb.hadd(boxed, value)
	}
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	if i := tb.find(key); i >= 0 {
		tb.hset(i, value)
	} else if value != LNil {
		tb.hadd(key, value)
	}
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			index := int(v) - 1
			if index < len(tb.array) {
				return tb.array[index]
			}
		}
	case LString:
		return tb.RawGetString(string(v))
	}
	v, _ := tb.hget(key)
	return v
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	index := key - 1
	if index < len(tb.array) && index >= 0 {
		return tb.array[index]
	}
	v, _ := tb.hget(LNumber(key))
	return v
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if s, sok := key.(LString); sok {
		return tb.RawGetString(string(s))
	}
	v, _ := tb.hget(key)
	return v
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if i := tb.findStr(key); i >= 0 {
		return tb.hash[i].val
	}
	return LNil
}

// ForEach iterates over this table of elements, yielding each in turn to a
// given function: the array part in order, then the hash part in the order
// its keys came (as next does).
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	for i, v := range tb.array {
		if v != LNil {
			cb(LNumber(i+1), v)
		}
	}
	for i := 0; i < len(tb.hash); i++ {
		if e := tb.hash[i]; e.val != LNil {
			cb(e.key, e.val)
		}
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ).
// After the array part it visits the hash part in the order its keys came;
// a key that is in neither part ends the traversal (see next).
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	k, v, _ := tb.next(key)
	return k, v
}

// next is Next, and ok false for a key the table does not have, which Lua
// 5.1's next calls an invalid key.
func (tb *LTable) next(key LValue) (LValue, LValue, bool) {
	from := 0
	if kv, ok := key.(LNumber); key == LNil || ok && isInteger(kv) && kv >= 1 && kv <= LNumber(len(tb.array)) {
		// A key of the array part, or nil to start; other integer keys are
		// in the hash part.
		index := 0
		if key != LNil {
			index = int(kv)
		}
		for ; index < len(tb.array); index++ {
			if v := tb.array[index]; v != LNil {
				return LNumber(index + 1), v, true
			}
		}
	} else {
		i := tb.find(key)
		if i < 0 {
			return LNil, LNil, false
		}
		from = i + 1
	}
	for i := from; i < len(tb.hash); i++ {
		if e := tb.hash[i]; e.val != LNil {
			return e.key, e.val, true
		}
	}
	return LNil, LNil, true
}
