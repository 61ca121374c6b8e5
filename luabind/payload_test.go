package luabind

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// payloadTestState returns a Lua state with two test globals: payload_bytes(n) makes an
// mpi.bytes userdata and payload_udata() a plain userdata.
func payloadTestState(tb testing.TB) *lua.LState {
	L := lua.NewState()
	tb.Cleanup(L.Close)
	L.SetGlobal("payload_bytes", L.NewFunction(func(L *lua.LState) int {
		L.Push(NewPhantom(L, L.CheckInt(1)))
		return 1
	}))
	L.SetGlobal("payload_udata", L.NewFunction(func(L *lua.LState) int {
		L.Push(L.NewUserData())
		return 1
	}))
	return L
}

// payloadEval evaluates a Lua expression.
func payloadEval(tb testing.TB, L *lua.LState, expr string) lua.LValue {
	tb.Helper()
	if err := L.DoString("return " + expr); err != nil {
		tb.Fatalf("eval %q: %v", expr, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// codecFloatEqual compares float64s bit for bit, so NaN equals NaN with the same bits
// and 0 differs from -0: the codec must preserve bits exactly.
func codecFloatEqual(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b)
}

// codecPayloadEqual compares two payloads structurally, floats bit for bit.
func codecPayloadEqual(a, b any) bool { return codecPayloadCompare(a, b, false) }

// codecPayloadCompare compares two payloads structurally; with anyNaN, all NaNs are
// equal whatever their bits (Lua's 0/0 and math.NaN() differ in sign).
func codecPayloadCompare(a, b any, anyNaN bool) bool {
	feq := func(x, y float64) bool {
		return codecFloatEqual(x, y) || anyNaN && x != x && y != y
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && feq(x, y)
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Phantom:
		y, ok := b.(Phantom)
		return ok && x == y
	case []float64:
		y, ok := b.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !feq(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Table:
		y, ok := b.(*Table)
		if !ok || len(x.Array) != len(y.Array) || len(x.Keys) != len(y.Keys) ||
			len(x.Vals) != len(x.Keys) || len(y.Vals) != len(y.Keys) {
			return false
		}
		for i := range x.Array {
			if !codecPayloadCompare(x.Array[i], y.Array[i], anyNaN) {
				return false
			}
		}
		for i := range x.Keys {
			if !codecPayloadCompare(x.Keys[i], y.Keys[i], anyNaN) || !codecPayloadCompare(x.Vals[i], y.Vals[i], anyNaN) {
				return false
			}
		}
		return true
	}
	return false
}

// codecLuaEqual compares two Lua values structurally: tables entry by entry in pairs()
// order, numbers bit for bit, mpi.bytes by size.
func codecLuaEqual(a, b lua.LValue) bool {
	switch x := a.(type) {
	case lua.LNumber:
		y, ok := b.(lua.LNumber)
		return ok && codecFloatEqual(float64(x), float64(y))
	case *lua.LTable:
		y, ok := b.(*lua.LTable)
		if !ok {
			return false
		}
		ka, va := x.Next(lua.LNil)
		kb, vb := y.Next(lua.LNil)
		for ka != lua.LNil || kb != lua.LNil {
			if !codecLuaEqual(ka, kb) || !codecLuaEqual(va, vb) {
				return false
			}
			ka, va = x.Next(ka)
			kb, vb = y.Next(kb)
		}
		return true
	case *lua.LUserData:
		pa, oka := CheckPhantom(x)
		pb, okb := CheckPhantom(b)
		return oka && okb && pa == pb
	}
	return a == b
}

func codecShow(p any) string {
	if t, ok := p.(*Table); ok {
		var s []string
		for _, e := range t.Array {
			s = append(s, codecShow(e))
		}
		for i, k := range t.Keys {
			s = append(s, "["+codecShow(k)+"]="+codecShow(t.Vals[i]))
		}
		return "&Table{" + strings.Join(s, ", ") + "}"
	}
	return fmt.Sprintf("%#v", p)
}

func TestPayloadEncodeRoundTrip(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		expr string
		want any
		size int
	}{
		{"nil", "nil", nil, 0},
		{"true", "true", true, 1},
		{"false", "false", false, 1},
		{"integer", "42", 42.0, 8},
		{"fraction", "-2.5", -2.5, 8},
		{"NaN", "0/0", nan, 8},
		{"inf", "1/0", math.Inf(1), 8},
		{"string", `"abc"`, "abc", 3},
		{"empty string", `""`, "", 0},
		{"zero bytes", `"a\0b\0"`, "a\x00b\x00", 4},
		{"number array", "{1, 2, 3}", []float64{1, 2, 3}, 24},
		{"number array with NaN", "{0/0, 1}", []float64{nan, 1}, 16},
		{"empty table", "{}", &Table{}, 3},
		// tag, na=3, 9 + 3 + 9, nk=0
		{"array with a string", `{1, "x", 3}`, &Table{Array: []any{1.0, "x", 3.0}}, 24},
		// tag, na=0, nk=1, "x" 3, 1 9
		{"hash", "{x = 1}", &Table{Keys: []any{"x"}, Vals: []any{1.0}}, 15},
		{"array and hash", `{1, 2, x = "y"}`,
			&Table{Array: []any{1.0, 2.0}, Keys: []any{"x"}, Vals: []any{"y"}}, 1 + 1 + 18 + 1 + 3 + 3},
		{"integer key beyond the array", "{1, 2, [10] = 5}",
			&Table{Array: []any{1.0, 2.0}, Keys: []any{10.0}, Vals: []any{5.0}}, 1 + 1 + 18 + 1 + 18},
		{"hole", "{1, nil, 3}",
			&Table{Array: []any{1.0}, Keys: []any{3.0}, Vals: []any{3.0}}, 1 + 1 + 9 + 1 + 18},
		{"odd number keys", "{[0] = 1, [-1] = 2, [1.5] = 3, [1e9] = 4}",
			&Table{Keys: []any{0.0, -1.0, 1.5, 1e9}, Vals: []any{1.0, 2.0, 3.0, 4.0}}, 3 + 4*18},
		{"boolean keys", `{[true] = "t", [false] = "f"}`,
			&Table{Keys: []any{true, false}, Vals: []any{"t", "f"}}, 3 + 2*(1+3)},
		{"string key that looks like a number", `{["1"] = 1}`,
			&Table{Keys: []any{"1"}, Vals: []any{1.0}}, 3 + 3 + 9},
		{"nested", `{3, a = {b = {1, 2}}}`,
			&Table{Array: []any{3.0}, Keys: []any{"a"}, Vals: []any{
				&Table{Keys: []any{"b"}, Vals: []any{[]float64{1, 2}}}}},
			1 + 1 + 9 + 1 + 3 + (3 + 3 + (2 + 16))},
		{"array of arrays", "{{1}, {2, 3}}",
			&Table{Array: []any{[]float64{1}, []float64{2, 3}}}, 3 + 10 + 18},
		{"mixed values", `{true, "s", {}, 0.5}`,
			&Table{Array: []any{true, "s", &Table{}, 0.5}}, 3 + 1 + 3 + 3 + 9},
		{"phantom", "payload_bytes(1000)", Phantom{N: 1000}, 1000},
		{"empty phantom", "payload_bytes(0)", Phantom{N: 0}, 0},
		// A phantom inside a table costs its full size: encoding 3+2, plus 100.
		{"phantom in a table", "{payload_bytes(100)}", &Table{Array: []any{Phantom{N: 100}}}, 5 + 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			L := payloadTestState(t)
			v := payloadEval(t, L, c.expr)
			p, size, err := Encode(v)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !codecPayloadCompare(p, c.want, true) {
				t.Fatalf("Encode = %s, want %s", codecShow(p), codecShow(c.want))
			}
			if size != c.size {
				t.Errorf("size = %d, want %d", size, c.size)
			}
			if got := PayloadSize(p); got != size {
				t.Errorf("PayloadSize = %d, Encode size %d", got, size)
			}
			if tb, ok := p.(*Table); ok {
				if got, want := len(Marshal(tb)), size-payloadPhantoms(tb); got != want {
					t.Errorf("len(Marshal) = %d, want size minus phantoms %d", got, want)
				}
			}

			// Decode into another state, as the receiving rank does.
			L2 := payloadTestState(t)
			d := Decode(L2, p)
			if !codecLuaEqual(v, d) {
				t.Errorf("Decode(Encode(v)) differs from v")
			}
			if _, isTable := v.(*lua.LTable); isTable && d == v {
				t.Errorf("Decode returned the source table")
			}
			p2, size2, err := Encode(d)
			if err != nil || !codecPayloadEqual(p, p2) || size2 != size {
				t.Errorf("Encode(Decode(p)) = %s, %d, %v", codecShow(p2), size2, err)
			}

			b := Marshal(p)
			if len(b) != codecLen(p) {
				t.Errorf("len(Marshal) = %d, codecLen %d", len(b), codecLen(p))
			}
			u, err := Unmarshal(b)
			if err != nil {
				t.Fatalf("Unmarshal(% x): %v", b, err)
			}
			if !codecPayloadEqual(p, u) {
				t.Errorf("Unmarshal(Marshal(p)) = %s", codecShow(u))
			}
		})
	}
}

func TestPayloadSizeRules(t *testing.T) {
	L := payloadTestState(t)
	for expr, want := range map[string]int{
		"{1, 2, 3}":           24,
		`"abc"`:               3,
		"true":                1,
		"nil":                 0,
		"3.25":                8,
		"payload_bytes(1000)": 1000,
	} {
		_, size, err := Encode(payloadEval(t, L, expr))
		if err != nil || size != want {
			t.Errorf("Encode(%s) size = %d, %v; want %d", expr, size, err, want)
		}
	}
	if got := PayloadSize(Phantom{N: math.MaxInt}); got != math.MaxInt {
		t.Errorf("PayloadSize(huge phantom) = %d", got)
	}
	huge := &Table{Array: []any{Phantom{N: math.MaxInt}, Phantom{N: math.MaxInt}}}
	if got := PayloadSize(huge); got != math.MaxInt {
		t.Errorf("PayloadSize(two huge phantoms) = %d, want saturation at MaxInt", got)
	}
}

func TestPayloadEncodeErrors(t *testing.T) {
	cases := []struct {
		name string
		expr string
		want string
	}{
		{"function", "print", "cannot send a function"},
		{"Lua function", "function() end", "cannot send a function"},
		{"function in a table", "{1, f = print}", "cannot send a function"},
		{"thread", "coroutine.create(function() end)", "cannot send a thread"},
		{"userdata", "payload_udata()", "cannot send a userdata"},
		{"userdata in a table", "{payload_udata()}", "cannot send a userdata"},
		{"self cycle", "(function() local t = {} t.self = t return t end)()", "cannot send a cyclic table"},
		{"long cycle", "(function() local a, b = {}, {} a[1] = b b.x = {a} return a end)()", "cannot send a cyclic table"},
		{"function key", "{[print] = 1}", "cannot send a table key of type function"},
		{"table key", "{[{}] = 1}", "cannot send a table key of type table"},
		{"userdata key", "{[payload_bytes(1)] = 1}", "cannot send a table key of type userdata"},
		{"too deep", "(function() local t = {} for i = 1, 200 do t = {t} end return t end)()", "table nested too deeply"},
		{"too deep number array", "(function() local t = {1} for i = 1, 200 do t = {t} end return t end)()", "table nested too deeply"},
		{"negative phantom", "payload_bytes(-1)", "cannot send mpi.bytes(-1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			L := payloadTestState(t)
			p, size, err := Encode(payloadEval(t, L, c.expr))
			if err == nil || err.Error() != c.want {
				t.Fatalf("Encode error = %v, want %q", err, c.want)
			}
			if p != nil || size != 0 {
				t.Errorf("Encode returned %v, %d with an error", p, size)
			}
		})
	}
}

func TestPayloadDepthLimit(t *testing.T) {
	L := payloadTestState(t)
	// 200 nested tables are fine, as are 199 tables around a number array.
	for _, expr := range []string{
		"(function() local t = {} for i = 1, 199 do t = {t} end return t end)()",
		"(function() local t = {1} for i = 1, 199 do t = {t} end return t end)()",
	} {
		p, _, err := Encode(payloadEval(t, L, expr))
		if err != nil {
			t.Fatalf("Encode 200 levels: %v", err)
		}
		if _, err := Unmarshal(Marshal(p)); err != nil {
			t.Fatalf("Unmarshal 200 levels: %v", err)
		}
	}
}

func TestPayloadDAGIsCopied(t *testing.T) {
	L := payloadTestState(t)
	v := payloadEval(t, L, `(function() local s = {x = 1} return {s, s, k = s} end)()`)
	p, _, err := Encode(v)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	d := Decode(L, p).(*lua.LTable)
	a, b, k := d.RawGetInt(1), d.RawGetInt(2), d.RawGetString("k")
	if a == b || a == k {
		t.Errorf("a shared table should arrive as separate copies")
	}
	if !codecLuaEqual(a, b) || !codecLuaEqual(a, k) {
		t.Errorf("copies differ")
	}
}

func TestPayloadCopySemantics(t *testing.T) {
	L := payloadTestState(t)
	if err := L.DoString(`orig = {1, 2, {x = "a"}, n = {5, 6}}`); err != nil {
		t.Fatal(err)
	}
	orig := L.GetGlobal("orig")
	p, _, err := Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	// Changing the source after the send leaves the payload alone.
	if err := L.DoString(`orig[1] = 100; orig[3].x = "changed"; orig.n[1] = 0; orig.extra = true`); err != nil {
		t.Fatal(err)
	}
	want := &Table{
		Array: []any{1.0, 2.0, &Table{Keys: []any{"x"}, Vals: []any{"a"}}},
		Keys:  []any{"n"}, Vals: []any{[]float64{5, 6}},
	}
	if !codecPayloadEqual(p, want) {
		t.Fatalf("payload changed with its source: %s", codecShow(p))
	}

	// Each Decode makes new tables; changing one leaves the others and the payload alone.
	L2 := payloadTestState(t)
	d1 := Decode(L2, p)
	d2 := Decode(L2, p)
	L2.SetGlobal("d1", d1)
	if err := L2.DoString(`d1[1] = -1; d1[3].x = "mutated"; d1.n[2] = 0; d1.new = 1`); err != nil {
		t.Fatal(err)
	}
	if !codecPayloadEqual(p, want) {
		t.Fatalf("payload changed with a decoded copy: %s", codecShow(p))
	}
	if !codecLuaEqual(d2, Decode(L2, want)) {
		t.Errorf("second decoded copy changed with the first")
	}
	if got := L.GetGlobal("orig").(*lua.LTable).RawGetInt(3).(*lua.LTable).RawGetString("x"); got != lua.LString("changed") {
		t.Errorf("source table changed by receiver: x = %v", got)
	}
}

func TestPayloadPairsOrder(t *testing.T) {
	L := payloadTestState(t)
	v := payloadEval(t, L, `(function()
		local t = {}
		for i = 50, 1, -1 do t["k" .. i] = i end
		t[true] = 0; t[0.5] = 0; t.k7 = 70
		return t end)()`)
	p, _, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	tb := p.(*Table)
	if len(tb.Keys) != 52 {
		t.Fatalf("%d keys, want 52", len(tb.Keys))
	}
	for i := 0; i < 50; i++ {
		if want := fmt.Sprintf("k%d", 50-i); tb.Keys[i] != want {
			t.Fatalf("key %d = %v, want %s (insertion order)", i, tb.Keys[i], want)
		}
	}
	if tb.Keys[50] != true || tb.Keys[51] != 0.5 || tb.Vals[43] != 70.0 {
		t.Errorf("tail keys %v %v, k7 = %v", tb.Keys[50], tb.Keys[51], tb.Vals[43])
	}
	// Encoding is deterministic across runs and across a decode.
	for i := 0; i < 10; i++ {
		p2, _, _ := Encode(Decode(L, p))
		if !bytes.Equal(Marshal(p), Marshal(p2)) {
			t.Fatalf("encoding not deterministic")
		}
	}
}

func TestPayloadPhantom(t *testing.T) {
	L := payloadTestState(t)
	if err := L.DoString(`
		local b = payload_bytes(1000)
		assert(tostring(b) == "mpi.bytes(1000)", tostring(b))
		assert(#b == 1000, #b)
		assert(type(b) == "userdata")
		assert(getmetatable(b) == "mpi.bytes")
		assert(getmetatable(payload_bytes(1)) == getmetatable(b))
	`); err != nil {
		t.Fatal(err)
	}
	ud := NewPhantom(L, 7)
	if ph, ok := CheckPhantom(ud); !ok || ph.N != 7 {
		t.Errorf("CheckPhantom = %v, %v", ph, ok)
	}
	if ud.Metatable != L.GetTypeMetatable(phantomTypeName) {
		t.Errorf("metatable not registered under %q", phantomTypeName)
	}
	for _, v := range []lua.LValue{lua.LNil, lua.LNumber(7), L.NewUserData(), L.NewTable()} {
		if _, ok := CheckPhantom(v); ok {
			t.Errorf("CheckPhantom(%v) = true", v)
		}
	}
	d := Decode(L, Phantom{N: 12})
	if ph, ok := CheckPhantom(d); !ok || ph.N != 12 {
		t.Errorf("Decode(Phantom) = %v", d)
	}
}

func TestPayloadMarshalFormat(t *testing.T) {
	for _, c := range []struct {
		p    any
		want []byte
	}{
		{nil, []byte{0x00}},
		{false, []byte{0x01}},
		{true, []byte{0x02}},
		{1.0, []byte{0x03, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{"ab", []byte{0x04, 2, 'a', 'b'}},
		{[]float64{2}, []byte{0x05, 1, 0, 0, 0, 0, 0, 0, 0, 0x40}},
		{Phantom{N: 300}, []byte{0x06, 0xac, 0x02}},
		{&Table{}, []byte{0x07, 0, 0}},
		{&Table{Array: []any{true}, Keys: []any{"k"}, Vals: []any{false}}, []byte{0x07, 1, 0x02, 1, 0x04, 1, 'k', 0x01}},
	} {
		if got := Marshal(c.p); !bytes.Equal(got, c.want) {
			t.Errorf("Marshal(%s) = % x, want % x", codecShow(c.p), got, c.want)
		}
		got := AppendMarshal([]byte("hdr"), c.p)
		if !bytes.Equal(got, append([]byte("hdr"), c.want...)) {
			t.Errorf("AppendMarshal(%s) = % x", codecShow(c.p), got)
		}
		u, err := Unmarshal(c.want)
		if err != nil || !codecPayloadEqual(u, c.p) {
			t.Errorf("Unmarshal(% x) = %s, %v", c.want, codecShow(u), err)
		}
	}
}

func TestPayloadUnmarshalRejects(t *testing.T) {
	nested := func(n int) []byte {
		b := bytes.Repeat([]byte{0x07, 1}, n)
		b = append(b, 0x07, 0, 0)
		return append(b, bytes.Repeat([]byte{0}, n)...)
	}
	if _, err := Unmarshal(nested(199)); err != nil {
		t.Fatalf("200 nested tables: %v", err)
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"unknown tag", []byte{0x08}},
		{"high tag", []byte{0xff}},
		{"trailing", []byte{0x00, 0x00}},
		{"short number", []byte{0x03, 1, 2, 3}},
		{"string too long", []byte{0x04, 5, 'a'}},
		{"string length overflow", []byte{0x04, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"bad varint", []byte{0x04, 0x80}},
		{"array too long", []byte{0x05, 2, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"huge array", []byte{0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{"phantom beyond MaxInt", []byte{0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"phantom truncated", []byte{0x06}},
		{"huge table", []byte{0x07, 0xff, 0xff, 0xff, 0xff, 0x0f, 0}},
		{"huge key count", []byte{0x07, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"table truncated", []byte{0x07, 1}},
		{"nil in array", []byte{0x07, 1, 0x00, 0}},
		{"nil key", []byte{0x07, 0, 1, 0x00, 0x02}},
		{"nil value", []byte{0x07, 0, 1, 0x02, 0x00}},
		{"NaN key", append(append([]byte{0x07, 0, 1}, Marshal(math.NaN())...), 0x02)},
		{"table key", []byte{0x07, 0, 1, 0x07, 0, 0, 0x02}},
		{"phantom key", []byte{0x07, 0, 1, 0x06, 1, 0x02}},
		{"key in array part", append(append([]byte{0x07, 1, 0x02, 1}, Marshal(1.0)...), 0x02)},
		{"key that extends the array", append(append([]byte{0x07, 1, 0x02, 1}, Marshal(2.0)...), 0x02)},
		{"repeated key", []byte{0x07, 0, 2, 0x04, 1, 'k', 0x02, 0x04, 1, 'k', 0x01}},
		{"repeated zero key", append(append(append(append([]byte{0x07, 0, 2}, Marshal(0.0)...), 0x02),
			Marshal(math.Copysign(0, -1))...), 0x02)},
		{"too deep", nested(200)},
		{"too deep number array", append(append(bytes.Repeat([]byte{0x07, 1}, 200), 0x05, 0), bytes.Repeat([]byte{0}, 200)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Unmarshal(c.b)
			if err == nil {
				t.Fatalf("Unmarshal(% x) = %s, want an error", c.b, codecShow(p))
			}
			if p != nil {
				t.Errorf("Unmarshal returned %s with an error", codecShow(p))
			}
		})
	}
}

func TestPayloadDecodeRejectsNonPayload(t *testing.T) {
	L := payloadTestState(t)
	for _, f := range []func(){
		func() { Decode(L, 3) },
		func() { PayloadSize(struct{}{}) },
		func() { Marshal([]int{1}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic on a non-payload")
				}
			}()
			f()
		}()
	}
}

func BenchmarkEncodeNumber(b *testing.B) {
	v := lua.LValue(lua.LNumber(3.5))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := Encode(v); err != nil {
			b.Fatal(err)
		}
	}
}

func payloadBenchArray(n int) *lua.LTable {
	tb := &lua.LTable{Metatable: lua.LNil}
	for i := 1; i <= n; i++ {
		tb.RawSetInt(i, lua.LNumber(float64(i)*0.5))
	}
	return tb
}

func BenchmarkEncodeArray1000(b *testing.B) {
	tb := payloadBenchArray(1000)
	b.ReportAllocs()
	b.SetBytes(8000)
	for i := 0; i < b.N; i++ {
		if _, _, err := Encode(tb); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeArray1000(b *testing.B) {
	p, _, err := Encode(payloadBenchArray(1000))
	if err != nil {
		b.Fatal(err)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	b.ReportAllocs()
	b.SetBytes(8000)
	for i := 0; i < b.N; i++ {
		Decode(L, p)
	}
}

func BenchmarkEncodeMixedTable(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	v := payloadEval(b, L, `{1, 2, "three", name = "x", pos = {1.5, 2.5, 3.5}, ok = true}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := Encode(v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPhantomsAreValues: in a rank, mpi.bytes values of one size are equal
// (one userdata a size from the rank's cache), those of different sizes are
// not, and received phantoms are the rank's own, over more sizes than the
// cache holds.
func TestPhantomsAreValues(t *testing.T) {
	out, err := runRanks(t, 2, `
		local me = mpi.rank()
		assert(mpi.bytes(8) == mpi.bytes(8))
		assert(mpi.bytes(8) ~= mpi.bytes(9))
		local sizes = {}
		for i = 1, 40 do sizes[i] = mpi.bytes(i * 1000 + me) end
		for i = 1, 40 do assert(#sizes[i] == i * 1000 + me and tostring(sizes[i]) == "mpi.bytes(" .. (i * 1000 + me) .. ")") end
		local got = mpi.sendrecv(mpi.bytes(64), 1 - me, 1 - me)
		assert(got == mpi.bytes(64) and #got == 64)
		local t = mpi.sendrecv({ mpi.bytes(3), mpi.bytes(3), mpi.bytes(5) }, 1 - me, 1 - me)
		assert(t[1] == t[2] and t[1] ~= t[3] and #t[3] == 5)
		print(me, "ok")
	`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "0\tok") || !strings.Contains(out, "1\tok") {
		t.Fatalf("output %q", out)
	}
}

// TestStatusOnlyWhenTaken: the status a receive returns is built for callers
// that take it, in every form of call, and nil stands in for it otherwise.
func TestStatusOnlyWhenTaken(t *testing.T) {
	out, err := runRanks(t, 2, `
		local me, other = mpi.rank(), 1 - mpi.rank()
		local v, st = mpi.sendrecv(me * 10, other, other, 4, 4)
		assert(v == other * 10 and st.source == other and st.tag == 4 and st.bytes == 8)
		assert(mpi.sendrecv(me, other, other) == other)
		local t = { mpi.sendrecv(me, other, other, 5, 5) }
		assert(#t == 2 and t[2].tag == 5)
		local ok, v2, st2 = pcall(mpi.sendrecv, me, other, other, 6, 6)
		assert(ok and v2 == other and st2.tag == 6)
		local q = mpi.irecv(other, 7)
		mpi.send(me, other, 7)
		local v3, st3 = mpi.wait(q)
		assert(v3 == other and st3.tag == 7)
		local qs = { mpi.irecv(other, 8), mpi.isend(me, other, 8) }
		local data, sts = mpi.waitall(qs)
		assert(data[1] == other and sts[1].tag == 8)
		qs = { mpi.irecv(other, 9), mpi.isend(me, other, 9) }
		assert(mpi.waitall(qs)[1] == other)
		print(me, "ok")
	`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "0\tok") || !strings.Contains(out, "1\tok") {
		t.Fatalf("output %q", out)
	}
}

// TestWaitallDiscarded: mpi.waitall as a statement completes its requests
// and decodes nothing, and a request's error is raised as when the caller
// takes the results.
func TestWaitallDiscarded(t *testing.T) {
	out, err := runRanks(t, 2, `
		local me, other = mpi.rank(), 1 - mpi.rank()
		local qs = { mpi.irecv(other, 1), mpi.isend({me, "x"}, other, 1) }
		mpi.waitall(qs)
		assert(mpi.test(qs[1]) and mpi.test(qs[2]))
		local t = { mpi.waitall({ mpi.irecv(other, 2), mpi.isend(me, other, 2) }) }
		assert(t[1][1] == other and t[2][1].tag == 2)
		local op = me == 0 and mpi.SUM or mpi.MAX
		local ok1, e1 = pcall(function() mpi.waitall({ mpi.iallreduce(1, op) }) end)
		local ok2, e2 = pcall(function() local d = mpi.waitall({ mpi.iallreduce(1, op) }) return d end)
		assert(not ok1 and not ok2, "a disagreement is an error")
		local function strip(e) return (tostring(e):gsub("^[^:]*:%d+: ", ""):gsub("call %d+", "call N")) end
		print(me, strip(e1) == strip(e2) and "same" or ("differ: " .. tostring(e1) .. " | " .. tostring(e2)))
	`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "0\tsame") || !strings.Contains(out, "1\tsame") {
		t.Fatalf("output %q", out)
	}
}
