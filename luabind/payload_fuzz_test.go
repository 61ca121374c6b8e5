package luabind

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func codecFuzzSeeds() []any {
	return []any{
		nil, true, false, 1.5, math.NaN(), math.Copysign(0, -1), "", "a\x00b",
		[]float64{1, 2, 3}, Phantom{N: 1 << 40},
		&Table{},
		&Table{Array: []any{1.0, "x", &Table{}}, Keys: []any{"k", 10.0, true}, Vals: []any{[]float64{2}, Phantom{N: 3}, false}},
	}
}

// FuzzUnmarshal: arbitrary bytes never panic; what decodes re-encodes canonically to
// an equal value no longer than the input.
func FuzzUnmarshal(f *testing.F) {
	for _, p := range codecFuzzSeeds() {
		f.Add(Marshal(p))
	}
	f.Add([]byte{0x07, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{0x05, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Unmarshal(b)
		if err != nil {
			if p != nil {
				t.Fatalf("Unmarshal returned %s with error %v", codecShow(p), err)
			}
			return
		}
		b2 := Marshal(p)
		if len(b2) > len(b) {
			t.Fatalf("re-encoding grew: %d > %d bytes", len(b2), len(b))
		}
		if len(b2) != codecLen(p) {
			t.Fatalf("codecLen = %d, len(Marshal) = %d", codecLen(p), len(b2))
		}
		p2, err := Unmarshal(b2)
		if err != nil {
			t.Fatalf("Unmarshal(Marshal(p)): %v", err)
		}
		if !codecPayloadEqual(p, p2) {
			t.Fatalf("round trip: %s != %s", codecShow(p), codecShow(p2))
		}
		if b3 := Marshal(p2); !bytes.Equal(b2, b3) {
			t.Fatalf("Marshal not canonical: % x != % x", b2, b3)
		}
		if PayloadSize(p) < 0 {
			t.Fatalf("negative size")
		}
	})
}

// codecFuzzBuilder turns fuzz bytes into a Lua value, reading one choice per byte and
// returning zeros once the input runs out.
type codecFuzzBuilder struct {
	L   *lua.LState
	b   []byte
	off int
}

func (g *codecFuzzBuilder) byte() byte {
	if g.off >= len(g.b) {
		return 0
	}
	c := g.b[g.off]
	g.off++
	return c
}

func (g *codecFuzzBuilder) number() lua.LNumber {
	switch g.byte() % 4 {
	case 0:
		return lua.LNumber(int(g.byte()) - 8)
	case 1:
		var x [8]byte
		for i := range x {
			x[i] = g.byte()
		}
		return lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(x[:])))
	case 2:
		return lua.LNumber(float64(g.byte()) / 4)
	default:
		return lua.LNumber(1e9 + float64(g.byte())) // beyond gopher-lua's array part
	}
}

func (g *codecFuzzBuilder) str() lua.LString {
	n := int(g.byte() % 8)
	s := make([]byte, n)
	for i := range s {
		s[i] = g.byte() % 4 // few distinct strings, so keys repeat; includes zero bytes
	}
	return lua.LString(s)
}

func (g *codecFuzzBuilder) key() lua.LValue {
	switch g.byte() % 4 {
	case 0:
		return lua.LNumber(int(g.byte()%24) - 3) // array part, holes, 0 and negatives
	case 1:
		if n := g.number(); n == n {
			return n
		}
		return lua.LNumber(0.25)
	case 2:
		return g.str()
	default:
		return lua.LBool(g.byte()%2 == 0)
	}
}

func (g *codecFuzzBuilder) value(depth int) lua.LValue {
	c := g.byte()
	if depth >= 6 {
		c %= 5 // scalars only
	}
	switch c % 8 {
	case 0:
		return g.number()
	case 1:
		return g.str()
	case 2:
		return lua.LBool(g.byte()%2 == 0)
	case 3:
		return NewPhantom(g.L, int(g.byte())*100)
	case 4:
		if depth == 0 {
			return lua.LNil
		}
		return g.number()
	case 5: // an array of numbers, sometimes spoiled by one other entry
		tb := g.L.NewTable()
		n := int(g.byte() % 12)
		for i := 1; i <= n; i++ {
			tb.RawSetInt(i, g.number())
		}
		if g.byte()%3 == 0 {
			tb.RawSet(g.key(), g.value(depth+1))
		}
		return tb
	default: // a general table: keys set in any order, some overwritten or deleted
		tb := g.L.NewTable()
		n := int(g.byte() % 10)
		for i := 0; i < n; i++ {
			k := g.key()
			if g.byte()%8 == 0 {
				tb.RawSet(k, lua.LNil)
				continue
			}
			tb.RawSet(k, g.value(depth+1))
		}
		return tb
	}
}

// FuzzEncodeRoundTrip: for a Lua value built from the input, Decode(Encode(v)) in
// another state is structurally equal to v, in the same pairs() order, and the sizes
// and binary encoding agree.
func FuzzEncodeRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{6, 5, 2, 1, 3, 'a', 'b', 'c', 0, 0, 7})
	f.Add([]byte{5, 4, 0, 1, 0, 2, 0, 3, 0, 4, 0})
	f.Add([]byte{7, 9, 0, 20, 5, 3, 0, 1, 2, 1, 1, 6, 3, 0, 7, 3, 0, 1, 2, 3, 1, 2})
	f.Add([]byte{6, 3, 0, 3, 0, 6, 2, 2, 0, 3, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f})
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L2 := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L2.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &codecFuzzBuilder{L: L, b: b}
		v := g.value(0)
		p, size, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if got := PayloadSize(p); got != size {
			t.Fatalf("PayloadSize = %d, Encode size = %d", got, size)
		}
		d := Decode(L2, p)
		if !codecLuaEqual(v, d) {
			t.Fatalf("Decode(Encode(v)) differs from v; payload %s", codecShow(p))
		}
		p2, size2, err := Encode(d)
		if err != nil || size2 != size || !codecPayloadEqual(p, p2) {
			t.Fatalf("Encode(Decode(p)) = %s, %d, %v; want %s, %d", codecShow(p2), size2, err, codecShow(p), size)
		}
		u, err := Unmarshal(Marshal(p))
		if err != nil {
			t.Fatalf("Unmarshal(Marshal(p)): %v; payload %s", err, codecShow(p))
		}
		if !codecPayloadEqual(p, u) {
			t.Fatalf("Unmarshal(Marshal(p)) = %s, want %s", codecShow(u), codecShow(p))
		}
	})
}
