package luabind

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

// wirePayloadEqual compares two payloads of PayloadCodec: Lua values
// structurally, floats bit for bit (codecPayloadEqual), through MPI's
// packs and active messages; other payloads (MPI's) by reflect.DeepEqual.
func wirePayloadEqual(a, b any) bool {
	switch x := a.(type) {
	case amPayload:
		y, ok := b.(amPayload)
		return ok && codecLuaEqual(x.handler, y.handler) && reflect.TypeOf(x.handler) == reflect.TypeOf(y.handler) &&
			codecPayloadEqual(x.data, y.data)
	case []mpi.Value:
		y, ok := b.([]mpi.Value)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if x[i].Size != y[i].Size || !wirePayloadEqual(x[i].Data, y[i].Data) {
				return false
			}
		}
		return true
	}
	return codecPayloadEqual(a, b) || reflect.DeepEqual(a, b)
}

// payloadWireCases are payloads of every type a bglua program's messages
// carry but MPI's internal ones (mpi's tests have those): Lua values,
// active messages, and packs of them.
func payloadWireCases() []struct {
	name string
	v    any
} {
	strs := &Table{Array: []any{"a", "", "c\x00d"}, Keys: []any{"k", 2.5, false}, Vals: []any{"v", "w", "x"}}
	nested := &Table{Array: []any{strs, []float64{1, math.Inf(-1)}, Phantom{N: 9}}, Keys: []any{"t"}, Vals: []any{&Table{}}}
	return []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"false", false},
		{"true", true},
		{"number", 1.5},
		{"NaN", math.NaN()},
		{"-0", math.Copysign(0, -1)},
		{"string", "a\x00b"},
		{"empty string", ""},
		{"numbers", []float64{1, 2, 3}},
		{"no numbers", []float64{}},
		{"phantom", Phantom{N: 1 << 40}},
		{"empty table", &Table{}},
		{"table of strings", strs},
		{"nested tables", nested},
		{"active message by name", amPayload{handler: lua.LString("h"), data: strs}},
		{"active message by number", amPayload{handler: lua.LNumber(7), data: nil}},
		{"active message of a phantom", amPayload{handler: lua.LString(""), data: Phantom{N: 3}}},
		{"pack", []mpi.Value{{Data: strs, Size: 10}, {Data: Phantom{N: 5}, Size: 5}, {}, {Data: 2.0, Size: 8}}},
		{"pack of packs", []mpi.Value{{Data: []mpi.Value{{Data: nested, Size: 40}}, Size: 40}, {Data: []float64{4}, Size: 8}}},
	}
}

// TestPayloadCodecRoundTrip: every payload reads back equal from its wire
// form, between other bytes, and leaves those that follow it.
func TestPayloadCodecRoundTrip(t *testing.T) {
	c := PayloadCodec()
	for _, tc := range payloadWireCases() {
		t.Run(tc.name, func(t *testing.T) {
			b, err := c.AppendPayload([]byte{0xcd}, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			v, rest, err := c.ReadPayload(append(b[1:], 0xee))
			if err != nil || !bytes.Equal(rest, []byte{0xee}) {
				t.Fatalf("read: %v, rest %x", err, rest)
			}
			if !wirePayloadEqual(v, tc.v) {
				t.Fatalf("read back %s, want %s", codecShow(v), codecShow(tc.v))
			}
		})
	}
}

// TestPayloadCodecRefuses: a payload that is no Lua value, active message
// or MPI payload, at the top or inside one, is an error that names what it
// is, and leaves b alone.
func TestPayloadCodecRefuses(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"int", 3, "of type int"},
		{"a Lua value", lua.LNumber(1), "of type lua.LNumber"},
		{"in a pack", []mpi.Value{{Data: 1.0}, {Data: struct{ X int }{}}}, "of type struct { X int }"},
		{"in a table", &Table{Array: []any{1.0, int64(2)}}, "of type int64"},
		{"as a table's value", &Table{Keys: []any{"k"}, Vals: []any{[]string{"x"}}}, "of type []string"},
		{"as a table's key", &Table{Keys: []any{int32(1)}, Vals: []any{1.0}}, "key of type int32"},
		{"in an active message", amPayload{handler: lua.LString("h"), data: 'x'}, "of type int32"},
		{"an active message's handler", amPayload{handler: lua.LTrue, data: 1.0}, "handler of type lua.LBool"},
		{"negative phantom", &Table{Array: []any{Phantom{N: -1}}}, "mpi.bytes(-1)"},
		{"nil in a table", &Table{Array: []any{nil}}, "nil in a table"},
		{"NaN key", &Table{Keys: []any{math.NaN()}, Vals: []any{1.0}}, "NaN"},
		{"key of the array part", &Table{Array: []any{1.0}, Keys: []any{2.0}, Vals: []any{1.0}}, "array part"},
		{"repeated key", &Table{Keys: []any{"k", "k"}, Vals: []any{1.0, 2.0}}, "repeated"},
		{"keys without values", &Table{Keys: []any{"k"}}, "1 keys and 0 values"},
		{"nil table", (*Table)(nil), "nil *Table"},
	}
	deep := any(&Table{})
	for range codecMaxDepth {
		deep = &Table{Array: []any{deep}}
	}
	cases = append(cases, struct {
		name string
		v    any
		want string
	}{"nested too deeply", deep, "too deeply"})
	c := PayloadCodec()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := c.AppendPayload([]byte{1, 2}, tc.v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if !bytes.Equal(b, []byte{1, 2}) {
				t.Fatalf("b is %x after an error", b)
			}
		})
	}
}

// TestPayloadCodecRejects: bytes that are no payload's wire form are an
// error, and consume nothing.
func TestPayloadCodecRejects(t *testing.T) {
	leaf := func(b ...byte) []byte { return append([]byte{0}, b...) } // mpi's tag of the leaf's forms
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"empty leaf", leaf()},
		{"unknown tag", leaf(0x7f)},
		{"short string", leaf(codecTagString, 3, 'a')},
		{"active message without data", leaf(codecTagAM, codecTagString, 1, 'h')},
		{"active message's handler a table", leaf(codecTagAM, codecTagTable, 0, 0, codecTagNil)},
		{"active message's handler nil", leaf(codecTagAM, codecTagNil, codecTagNil)},
		{"a pack's short value", []byte{3, 2, 0, 0, codecTagNumber, 1, 2}},
	}
	c := PayloadCodec()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, rest, err := c.ReadPayload(tc.b)
			if err == nil {
				t.Fatalf("read %s", codecShow(v))
			}
			if v != nil || len(rest) != len(tc.b) {
				t.Fatalf("a failed read gave %s and consumed %d bytes", codecShow(v), len(tc.b)-len(rest))
			}
		})
	}
}

// FuzzPayloadCodec: arbitrary bytes never panic; what reads as a payload
// writes to a form that reads back equal and is written again the same.
func FuzzPayloadCodec(f *testing.F) {
	c := PayloadCodec()
	for _, tc := range payloadWireCases() {
		b, err := c.AppendPayload(nil, tc.v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := c.ReadPayload(b)
		if err != nil {
			if v != nil || len(rest) != len(b) {
				t.Fatalf("a failed read gave %s and consumed %d bytes", codecShow(v), len(b)-len(rest))
			}
			return
		}
		if len(rest) > len(b) || !bytes.Equal(rest, b[len(b)-len(rest):]) {
			t.Fatalf("rest %x is not what follows the payload in %x", rest, b)
		}
		b2, err := c.AppendPayload(nil, v)
		if err != nil {
			t.Fatalf("%s read, not written: %v", codecShow(v), err)
		}
		v2, rest2, err := c.ReadPayload(b2)
		if err != nil || len(rest2) != 0 || !wirePayloadEqual(v, v2) {
			t.Fatalf("%s written as %x, read back as %s, %d bytes left (%v)", codecShow(v), b2, codecShow(v2), len(rest2), err)
		}
		if b3, _ := c.AppendPayload(nil, v2); !bytes.Equal(b2, b3) {
			t.Fatalf("written %x, then %x", b2, b3)
		}
	})
}
