package mpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// stringLeaf is a leaf PayloadCodec of strings, for the tests: every
// other payload is an error that names its type.
type stringLeaf struct{}

func (stringLeaf) AppendPayload(b []byte, v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return b, fmt.Errorf("test leaf: no wire form for a payload of type %T", v)
	}
	return append(binary.AppendUvarint(b, uint64(len(s))), s...), nil
}

func (stringLeaf) ReadPayload(b []byte) (any, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, b, errors.New("test leaf: short")
	}
	return string(b[k : k+int(n)]), b[k+int(n):], nil
}

// payloadWireCases are payloads of every type MPI's codec writes itself,
// nested ones included, and the leaf's.
func payloadWireCases() []struct {
	name string
	v    any
} {
	return []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"phantom", Phantom{N: 1 << 40}},
		{"empty phantom", Phantom{}},
		{"leaf", "a string"},
		{"nil values", []Value(nil)},
		{"no values", []Value{}},
		{"pack", []Value{{Data: "ab", Size: 2}, {}, {Data: Phantom{N: 5}, Size: 5}, {Data: "", Size: -3}}},
		{"pack of packs", []Value{{Data: []Value{{Data: "x", Size: 1}, {Data: []Value{}}}, Size: 1}, {Data: &bcastPieces{total: 7}, Size: 7}}},
		{"pieces", &bcastPieces{total: 1 << 20, rdb: true}},
		{"no pieces", &bcastPieces{}},
	}
}

// TestPayloadWireRoundTrip: every payload reads back equal from its wire
// form, between other bytes, and leaves those that follow it.
func TestPayloadWireRoundTrip(t *testing.T) {
	c := PayloadCodec(stringLeaf{})
	for _, tc := range payloadWireCases() {
		t.Run(tc.name, func(t *testing.T) {
			b, err := c.AppendPayload([]byte{0xcd}, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if b[0] != 0xcd {
				t.Fatalf("the bytes before were changed")
			}
			v, rest, err := c.ReadPayload(append(b[1:], 0xee))
			if err != nil || !bytes.Equal(rest, []byte{0xee}) {
				t.Fatalf("read: %v, rest %x", err, rest)
			}
			if !reflect.DeepEqual(v, tc.v) {
				t.Fatalf("read back %#v, want %#v", v, tc.v)
			}
		})
	}
}

// TestPayloadWireUnknown: a payload the codec cannot write, at the top or
// inside a pack, is an error that names its type, and leaves b alone.
func TestPayloadWireUnknown(t *testing.T) {
	cases := []struct {
		name string
		c    any // the codec's leaf: stringLeaf or none
		v    any
		want string
	}{
		{"leaf's error", stringLeaf{}, 3, "int"},
		{"in a pack", stringLeaf{}, []Value{{Data: "ok"}, {Data: []Value{{Data: struct{ X int }{}}}}}, "struct { X int }"},
		{"shared state", stringLeaf{}, &torusBcast{}, "*mpi.torusBcast"},
		{"no leaf", nil, "a string", "string"},
		{"negative phantom", nil, Phantom{N: -1}, "phantom of -1"},
		{"nil pieces", nil, (*bcastPieces)(nil), "nil *bcastPieces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := PayloadCodec(nil)
			if tc.c != nil {
				c = PayloadCodec(stringLeaf{})
			}
			b, err := c.AppendPayload([]byte{1, 2}, tc.v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			if !bytes.Equal(b, []byte{1, 2}) {
				t.Fatalf("b is %x after an error", b)
			}
		})
	}
}

// TestPayloadWireRejects: bytes that are no payload's wire form are an
// error, and consume nothing.
func TestPayloadWireRejects(t *testing.T) {
	deep := bytes.Repeat([]byte{payloadValues, 2, 0}, payloadMaxDepth+1)
	deep = append(deep, payloadNil)
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"unknown tag", []byte{0x7f}},
		{"short leaf", []byte{payloadLeaf, 5, 'a'}},
		{"short phantom", []byte{payloadPhantom, 0x80}},
		{"phantom too large", append([]byte{payloadPhantom}, binary.AppendUvarint(nil, 1<<63)...)},
		{"count beyond the bytes", []byte{payloadValues, 0xff, 0xff, 0xff, 0x0f, 0, 1}},
		{"short values", []byte{payloadValues, 3, 0, payloadNil}},
		{"value without data", []byte{payloadValues, 2, 4}},
		{"short pieces", []byte{payloadPieces, 8}},
		{"pieces' rdb not a bool", []byte{payloadPieces, 8, 2}},
		{"nested too deep", deep},
	}
	c := PayloadCodec(stringLeaf{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, rest, err := c.ReadPayload(tc.b)
			if err == nil {
				t.Fatalf("read %#v", v)
			}
			if v != nil || len(rest) != len(tc.b) {
				t.Fatalf("a failed read gave %#v and consumed %d bytes", v, len(tc.b)-len(rest))
			}
		})
	}
	if _, _, err := c.ReadPayload(deep[3:]); err != nil {
		t.Fatalf("nested as deep as allowed: %v", err)
	}
	v := any(nil)
	for range payloadMaxDepth + 1 {
		v = []Value{{Data: v}}
	}
	if _, err := c.AppendPayload(nil, v); err == nil {
		t.Fatalf("wrote a payload nested deeper than %d", payloadMaxDepth)
	}
}

// FuzzPayloadWire: arbitrary bytes never panic; what reads as a payload
// writes to a form that reads back equal and is written again the same.
func FuzzPayloadWire(f *testing.F) {
	c := PayloadCodec(stringLeaf{})
	for _, tc := range payloadWireCases() {
		b, err := c.AppendPayload(nil, tc.v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{payloadValues, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := c.ReadPayload(b)
		if err != nil {
			if v != nil || len(rest) != len(b) {
				t.Fatalf("a failed read gave %#v and consumed %d bytes", v, len(b)-len(rest))
			}
			return
		}
		if len(rest) > len(b) || !bytes.Equal(rest, b[len(b)-len(rest):]) {
			t.Fatalf("rest %x is not what follows the payload in %x", rest, b)
		}
		b2, err := c.AppendPayload(nil, v)
		if err != nil {
			t.Fatalf("%#v read, not written: %v", v, err)
		}
		v2, rest2, err := c.ReadPayload(b2)
		if err != nil || len(rest2) != 0 || !reflect.DeepEqual(v, v2) {
			t.Fatalf("%#v written as %x, read back as %#v, %d bytes left (%v)", v, b2, v2, len(rest2), err)
		}
		if b3, _ := c.AppendPayload(nil, v2); !bytes.Equal(b2, b3) {
			t.Fatalf("written %x, then %x", b2, b3)
		}
	})
}
