package lua

import (
	"sort"
)

func OpenTable(L *LState) int {
	tabmod := L.RegisterModule(TabLibName, tableFuncs)
	L.Push(tabmod)
	return 1
}

var tableFuncs = map[string]LGFunction{
	"foreach":  tableForeach,
	"foreachi": tableForeachi,
	"setn":     tableSetN,
	"getn":     tableGetN,
	"concat":   tableConcat,
	"insert":   tableInsert,
	"maxn":     tableMaxN,
	"remove":   tableRemove,
	"sort":     tableSort,
}

// tableSort sorts t[1..#t], as Lua 5.1 does: not the nil slots that may
// follow in the array part.
func tableSort(L *LState) int {
	tbl := L.CheckTable(1)
	sorter := lValueArraySorter{L, nil, tbl.array[:tbl.Len()]}
	if L.GetTop() != 1 {
		sorter.Fn = L.CheckFunction(2)
	}
	sort.Sort(sorter)
	return 0
}

func tableGetN(L *LState) int {
	L.Push(LNumber(L.CheckTable(1).Len()))
	return 1
}

// tableMaxN is the largest positive numeric key, in either part of the table.
func tableMaxN(L *LState) int {
	tb := L.CheckTable(1)
	max := LNumber(tb.MaxN())
	for _, e := range tb.hash {
		if n, ok := e.key.(LNumber); ok && n > max && e.val != LNil {
			max = n
		}
	}
	L.Push(max)
	return 1
}

// tableRemove is Lua 5.1's table.remove (ltablib.c, tremove): with n = #t,
// it removes t[pos] (pos defaults to n), moves t[pos+1..n] down and returns
// the removed value; a pos outside 1..n returns nothing.
func tableRemove(L *LState) int {
	tbl := L.CheckTable(1)
	e := tbl.Len()
	pos := L.OptInt(2, e)
	if pos < 1 || pos > e {
		return 0
	}
	L.Push(tbl.RawGetInt(pos))
	tbl.shiftDown(pos, e)
	return 1
}

// tableConcat is Lua 5.1's table.concat(t [, sep [, i [, j]]]): the strings
// and numbers t[i..j] (j defaults to #t) joined by sep. It builds the result
// in one buffer, asked of the governor first, where gopher-lua pushed every
// element on the data stack (a table of a million elements overflowed it)
// and clamped i and j to #t.
func tableConcat(L *LState) int {
	tbl := L.CheckTable(1)
	sep := L.OptString(2, "")
	first := L.OptInt(3, 1)
	last := L.OptInt(4, tbl.Len())
	if first > last {
		L.Push(emptyLString)
		return 1
	}
	field := func(k int) string {
		switch v := tbl.RawGetInt(k).(type) {
		case LString:
			return string(v)
		case LNumber:
			return v.String()
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
			return ""
		}
	}
	n := int64(len(sep)) * int64(last-first)
	for k := first; k <= last; k++ {
		n += int64(len(field(k)))
	}
	L.checkAlloc(n)
	buf := make([]byte, 0, n)
	for k := first; ; k++ {
		buf = append(buf, field(k)...)
		if k == last {
			break
		}
		buf = append(buf, sep...)
	}
	L.Push(LString(buf))
	return 1
}

// tableInsert is Lua 5.1's table.insert (ltablib.c, tinsert): t[#t+1] = v,
// or, with a position, t[pos..] moved up to make room for v at pos.
func tableInsert(L *LState) int {
	tbl := L.CheckTable(1)
	e := tbl.Len() + 1 // the first empty element
	switch L.GetTop() {
	case 2:
		tbl.RawSetInt(e, L.Get(2))
	case 3:
		pos := L.CheckInt(2)
		if pos > e {
			e = pos
		}
		tbl.shiftUp(pos, e)
		tbl.RawSetInt(pos, L.Get(3))
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	return 0
}

//

// tableForeach is Lua 5.1's table.foreach (deprecated there, but present):
// f(k, v) for every entry, until f returns a value other than nil.
func tableForeach(L *LState) int {
	tb := L.CheckTable(1)
	fn := L.CheckFunction(2)
	for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
		L.Push(fn)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableForeachi is Lua 5.1's table.foreachi: f(i, t[i]) for i = 1..#t,
// until f returns a value other than nil.
func tableForeachi(L *LState) int {
	tb := L.CheckTable(1)
	fn := L.CheckFunction(2)
	n := tb.Len()
	for i := 1; i <= n; i++ {
		L.Push(fn)
		L.Push(LNumber(i))
		L.Push(tb.RawGetInt(i))
		L.Call(2, 1)
		if r := L.Get(-1); r != LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableSetN is Lua 5.1's table.setn, which only says it is obsolete.
func tableSetN(L *LState) int {
	L.RaiseError("'setn' is obsolete")
	return 0
}
