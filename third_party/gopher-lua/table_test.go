package lua

import (
	"fmt"
	"testing"
)

func TestTableNewLTable(t *testing.T) {
	tbl := newLTable(-1, -2)
	errorIfNotEqual(t, 0, cap(tbl.array))

	tbl = newLTable(10, 9)
	errorIfNotEqual(t, 10, cap(tbl.array))
}

func TestTableLen(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.RawSetInt(10, LNil)
	tbl.RawSetInt(9, LNumber(10))
	tbl.RawSetInt(8, LNil)
	tbl.RawSetInt(7, LNumber(10))
	// Keys far past an empty array part are in the hash part: Lua 5.1
	// gives 0 here too.
	errorIfNotEqual(t, 0, tbl.Len())
	tbl = newLTable(0, 0)
	for _, k := range []int{8, 7, 6, 5, 4, 3, 2, 1} {
		tbl.RawSetInt(k, LNumber(10))
	}
	tbl.RawSetInt(9, LNumber(10))
	tbl.RawSetInt(8, LNil)
	errorIfNotEqual(t, 9, tbl.Len())

	tbl = newLTable(0, 0)
	tbl.Append(LTrue)
	tbl.Append(LTrue)
	tbl.Append(LTrue)
	errorIfNotEqual(t, 3, tbl.Len())
}

func TestTableLenType(t *testing.T) {
	L := NewState(Options{})
	err := L.DoString(`
        mt = {
            __index = mt,
            __len = function (self)
                return {hello = "world"}
            end
        }

        v = {}
        v.__index = v

        setmetatable(v, mt)

        -- Lua 5.1 calls __len for userdata only: a table's # is its own.
        assert(#v == 0, "#v of a table ignores __len")

        print(#v)
    `)
	if err != nil {
		t.Error(err)
	}
}

func TestTableAppend(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.RawSetInt(1, LNumber(1))
	tbl.RawSetInt(2, LNumber(2))
	tbl.RawSetInt(3, LNumber(3))
	errorIfNotEqual(t, 3, tbl.Len())

	tbl.RawSetInt(1, LNil)
	tbl.RawSetInt(2, LNil)
	errorIfNotEqual(t, 3, tbl.Len())

	tbl.Append(LNumber(4))
	errorIfNotEqual(t, 4, tbl.Len())

	tbl.RawSetInt(3, LNil)
	tbl.RawSetInt(4, LNil)
	errorIfNotEqual(t, 0, tbl.Len())

	tbl.Append(LNumber(5))
	errorIfNotEqual(t, 1, tbl.Len())
}

func TestTableInsert(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.Append(LTrue)
	tbl.Append(LTrue)
	tbl.Append(LTrue)

	tbl.Insert(5, LFalse)
	errorIfNotEqual(t, LFalse, tbl.RawGetInt(5))
	errorIfNotEqual(t, 5, tbl.Len())

	tbl.Insert(-10, LFalse)
	errorIfNotEqual(t, LFalse, tbl.RawGet(LNumber(-10)))
	errorIfNotEqual(t, 5, tbl.Len())

	tbl = newLTable(0, 0)
	tbl.Append(LNumber(1))
	tbl.Append(LNumber(2))
	tbl.Append(LNumber(3))
	tbl.Insert(1, LNumber(10))
	errorIfNotEqual(t, LNumber(10), tbl.RawGetInt(1))
	errorIfNotEqual(t, LNumber(1), tbl.RawGetInt(2))
	errorIfNotEqual(t, LNumber(2), tbl.RawGetInt(3))
	errorIfNotEqual(t, LNumber(3), tbl.RawGetInt(4))
	errorIfNotEqual(t, 4, tbl.Len())

	tbl = newLTable(0, 0)
	tbl.Insert(5, LNumber(10))
	errorIfNotEqual(t, LNumber(10), tbl.RawGetInt(5))

}

func TestTableMaxN(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.Append(LTrue)
	tbl.Append(LTrue)
	tbl.Append(LTrue)
	errorIfNotEqual(t, 3, tbl.MaxN())

	tbl = newLTable(0, 0)
	errorIfNotEqual(t, 0, tbl.MaxN())

	tbl = newLTable(10, 0)
	errorIfNotEqual(t, 0, tbl.MaxN())
}

func TestTableRemove(t *testing.T) {
	tbl := newLTable(0, 0)
	errorIfNotEqual(t, LNil, tbl.Remove(10))
	tbl.Append(LTrue)
	errorIfNotEqual(t, LNil, tbl.Remove(10))

	tbl.Append(LFalse)
	tbl.Append(LTrue)
	errorIfNotEqual(t, LFalse, tbl.Remove(2))
	errorIfNotEqual(t, 2, tbl.MaxN())
	tbl.Append(LFalse)
	errorIfNotEqual(t, LFalse, tbl.Remove(-1))
	errorIfNotEqual(t, 2, tbl.MaxN())

}

func TestTableRawSetInt(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.RawSetInt(MaxArrayIndex+1, LTrue)
	errorIfNotEqual(t, 0, tbl.MaxN())
	errorIfNotEqual(t, LTrue, tbl.RawGet(LNumber(MaxArrayIndex+1)))

	tbl.RawSetInt(1, LTrue)
	tbl.RawSetInt(3, LTrue)
	errorIfNotEqual(t, 3, tbl.MaxN())
	errorIfNotEqual(t, LTrue, tbl.RawGetInt(1))
	errorIfNotEqual(t, LNil, tbl.RawGetInt(2))
	errorIfNotEqual(t, LTrue, tbl.RawGetInt(3))
	tbl.RawSetInt(2, LTrue)
	errorIfNotEqual(t, LTrue, tbl.RawGetInt(1))
	errorIfNotEqual(t, LTrue, tbl.RawGetInt(2))
	errorIfNotEqual(t, LTrue, tbl.RawGetInt(3))
}

func TestTableRawSetH(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.RawSetH(LString("key"), LTrue)
	tbl.RawSetH(LString("key"), LNil)
	errorIfNotEqual(t, LNil, tbl.RawGetH(LString("key")))

	tbl.RawSetH(LTrue, LTrue)
	tbl.RawSetH(LTrue, LNil)
	errorIfNotEqual(t, LNil, tbl.RawGetH(LTrue))
}

func TestTableRawGetH(t *testing.T) {
	tbl := newLTable(0, 0)
	errorIfNotEqual(t, LNil, tbl.RawGetH(LNumber(1)))
	errorIfNotEqual(t, LNil, tbl.RawGetH(LString("key0")))
	tbl.RawSetH(LString("key0"), LTrue)
	tbl.RawSetH(LString("key1"), LFalse)
	tbl.RawSetH(LNumber(1), LTrue)
	errorIfNotEqual(t, LTrue, tbl.RawGetH(LString("key0")))
	errorIfNotEqual(t, LTrue, tbl.RawGetH(LNumber(1)))
	errorIfNotEqual(t, LNil, tbl.RawGetH(LString("notexist")))
	errorIfNotEqual(t, LNil, tbl.RawGetH(LTrue))
}

func TestTableForEach(t *testing.T) {
	tbl := newLTable(0, 0)
	tbl.Append(LNumber(1))
	tbl.Append(LNumber(2))
	tbl.Append(LNumber(3))
	tbl.Append(LNil)
	tbl.Append(LNumber(5))

	tbl.RawSetH(LString("a"), LString("a"))
	tbl.RawSetH(LString("b"), LString("b"))
	tbl.RawSetH(LString("c"), LString("c"))

	tbl.RawSetH(LTrue, LString("true"))
	tbl.RawSetH(LFalse, LString("false"))

	tbl.ForEach(func(key, value LValue) {
		switch k := key.(type) {
		case LBool:
			switch bool(k) {
			case true:
				errorIfNotEqual(t, LString("true"), value)
			case false:
				errorIfNotEqual(t, LString("false"), value)
			default:
				t.Fail()
			}
		case LNumber:
			switch int(k) {
			case 1:
				errorIfNotEqual(t, LNumber(1), value)
			case 2:
				errorIfNotEqual(t, LNumber(2), value)
			case 3:
				errorIfNotEqual(t, LNumber(3), value)
			case 4:
				errorIfNotEqual(t, LNumber(5), value)
			default:
				t.Fail()
			}
		case LString:
			switch string(k) {
			case "a":
				errorIfNotEqual(t, LString("a"), value)
			case "b":
				errorIfNotEqual(t, LString("b"), value)
			case "c":
				errorIfNotEqual(t, LString("c"), value)
			default:
				t.Fail()
			}
		}
	})
}

// checkTableParts checks what the array and hash parts promise each other:
// used counts the array's values, and no integer key the array could hold
// next (1..len(array)+1) is in the hash part.
func checkTableParts(t *testing.T, tb *LTable) {
	t.Helper()
	n := 0
	for _, v := range tb.array {
		if v != LNil {
			n++
		}
	}
	if n != tb.used {
		t.Fatalf("used = %d, the array holds %d values", tb.used, n)
	}
	var nkeys, dead int32
	seen := map[LValue]bool{}
	for i, e := range tb.hash {
		if seen[e.key] {
			t.Fatalf("key %v twice in the hash part", e.key)
		}
		seen[e.key] = true
		if tb.find(e.key) != i {
			t.Fatalf("key %v at %d of the hash part is found at %d", e.key, i, tb.find(e.key))
		}
		if e.val == LNil {
			dead++
			continue
		}
		if _, ok := e.key.(LString); !ok {
			nkeys++
		}
		if f, ok := e.key.(LNumber); ok && f >= 1 && f <= LNumber(len(tb.array)+1) && f == LNumber(int(f)) {
			t.Fatalf("key %v is in the hash part, the array has %d slots", f, len(tb.array))
		}
	}
	if nkeys != tb.nkeys || dead != tb.dead {
		t.Fatalf("nkeys %d, dead %d; the hash part has %d and %d", tb.nkeys, tb.dead, nkeys, dead)
	}
	if tb.idx != nil && len(tb.idx.str)+len(tb.idx.other) != len(tb.hash) || tb.idx == nil && len(tb.hash) > hashScan {
		t.Fatalf("an index %v of %d keys", tb.idx, len(tb.hash))
	}
}

func TestTablePartsRandom(t *testing.T) {
	seed := uint32(1)
	rnd := func(n int) int { seed = seed*1103515245 + 12345; return int(seed>>8) % n }
	L := NewState()
	defer L.Close()
	for trial := 0; trial < 300; trial++ {
		tb := newLTable(0, 0)
		span := []int{8, 40, 300, 5000}[rnd(4)]
		for op := 0; op < 300; op++ {
			k := rnd(span) + 1
			var v LValue = LNumber(op)
			switch rnd(9) {
			case 0:
				v = LNil
				fallthrough
			case 1, 2:
				tb.RawSetInt(k, v)
			case 3:
				tb.RawSet(LNumber(k), v)
			case 4:
				tb.Append(v)
			case 5:
				if e := tb.Len(); e > 0 {
					tb.shiftDown(rnd(e)+1, e)
				}
			case 6:
				e := tb.Len() + 1
				pos := rnd(e) + 1
				tb.shiftUp(pos, e)
				tb.RawSetInt(pos, v)
			case 7:
				tb.Insert(rnd(span)+1, v)
			case 8:
				tb.Remove(rnd(span+2) - 1)
			}
			checkTableParts(t, tb)
		}
	}
}

// The hash part against a Go map: random sets and clears of string, float,
// integer and boolean keys, through every setter, with the parts' promises
// checked and every key read back after each, and a traversal with next
// after every few that must visit each key with a value once, in the
// order the keys came, even while it clears the ones it visits.
func TestTableHashRandom(t *testing.T) {
	seed := uint32(7)
	rnd := func(n int) int { seed = seed*1103515245 + 12345; return int(seed>>8) % n }
	for trial := 0; trial < 400; trial++ {
		tb := newLTable(0, 0)
		model := map[LValue]LValue{}
		span := []int{4, 12, 40, 400}[rnd(4)]
		key := func() LValue {
			switch rnd(5) {
			case 0, 1:
				return LString(fmt.Sprintf("k%d", rnd(span)))
			case 2:
				return LNumber(rnd(span) + 1)
			case 3:
				return LNumber(float64(rnd(span)) + 0.5)
			}
			return LBool(rnd(2) == 0)
		}
		for op := 0; op < 200; op++ {
			k := key()
			var v LValue = LNumber(op)
			if rnd(3) == 0 {
				v = LNil
			}
			switch s, isStr := k.(LString); {
			case isStr && rnd(2) == 0:
				tb.RawSetString(string(s), v)
			case !isArrayKeyValue(k) && rnd(2) == 0: // (RawSetH puts any key in the hash part)
				tb.RawSetH(k, v)
			default:
				tb.RawSet(k, v)
			}
			if v == LNil {
				delete(model, k)
			} else {
				model[k] = v
			}
			checkTableParts(t, tb)
			for mk, mv := range model {
				if got := tb.RawGet(mk); got != mv {
					t.Fatalf("trial %d op %d: t[%v] = %v, want %v", trial, op, mk, got, mv)
				}
			}
			if op%20 != 19 {
				continue
			}
			seen := map[LValue]bool{}
			clearing := rnd(2) == 0
			for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
				if seen[k] || model[k] != v {
					t.Fatalf("trial %d op %d: next gave %v = %v (seen %v, want %v)", trial, op, k, v, seen[k], model[k])
				}
				seen[k] = true
				if clearing {
					tb.RawSet(k, LNil)
				}
			}
			if len(seen) != len(model) {
				t.Fatalf("trial %d op %d: next visited %d keys of %d", trial, op, len(seen), len(model))
			}
			if clearing {
				clear(model)
				checkTableParts(t, tb)
			}
		}
	}
}

// A table's keys are visited in the order they came, whatever they are.
func TestTableNextOrder(t *testing.T) {
	tb := newLTable(0, 0)
	var want []LValue
	for i := 0; i < 3*hashScan; i++ {
		var k LValue = LString(fmt.Sprintf("s%d", 100-i))
		if i%3 == 1 {
			k = LNumber(1000 - i)
		}
		tb.RawSet(k, LTrue)
		want = append(want, k)
	}
	tb.RawSet(want[4], LNil) // cleared, then set again: its place is kept
	tb.RawSet(want[4], LTrue)
	var got []LValue
	for k, _ := tb.Next(LNil); k != LNil; k, _ = tb.Next(k) {
		got = append(got, k)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("next visits %v, want %v", got, want)
	}
}

func isArrayKeyValue(k LValue) bool {
	n, ok := k.(LNumber)
	return ok && isArrayKey(n)
}
