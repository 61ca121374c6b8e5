package hw

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// headFromBytes fills every field of a Head that travels from data (zeros
// once data runs out).
func headFromBytes(data []byte) Head {
	next := func() int64 {
		var b [8]byte
		n := copy(b[:], data)
		data = data[n:]
		return int64(binary.LittleEndian.Uint64(b[:]))
	}
	var h Head
	h.Left, h.First, h.Last, h.At = next(), next(), next(), next()
	h.Key = uint64(next())
	h.Priority, h.adaptive, h.started = next()&1 != 0, next()&1 != 0, next()&1 != 0
	h.Label, h.node, h.dest = int32(next()), int32(next()), int32(next())
	h.delta = [3]int32{int32(next()), int32(next()), int32(next())}
	h.hops = int32(next())
	h.prevDim, h.dir, h.port, h.cls, h.freedCls = int8(next()), int8(next()), int8(next()), int8(next()), int8(next())
	h.in, h.freed = int32(next()), int32(next())
	h.freedAt, h.occupy, h.first, h.wire = next(), next(), next(), next()
	h.reader, h.pk = int8(next()), int32(next())
	h.size = int32(next())
	return h
}

// FuzzHeadWire: a head's wire form reads back as the same head, from any
// field values; bytes that are not a wire form give an error, and those
// that are read back the same once written again.
func FuzzHeadWire(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	var real Head
	real.At, real.Left, real.First, real.Last, real.Key, real.node, real.dest, real.hops, real.in, real.freed = 1_000_063, 999_873, -1, -1, 0x9e3779b97f4a7c15, 511, 520, 3, -1, 77
	real.delta = [3]int32{2, -1, 0}
	f.Add(real.AppendWire(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := headFromBytes(data)
		b := h.AppendWire([]byte{0xab}) // after what is there already
		var g Head
		rest, err := g.ReadWire(b[1:])
		if err != nil || len(rest) != 0 || g != h {
			t.Fatalf("read back %+v, %d bytes left, %v; want %+v", g, len(rest), err, h)
		}
		// Arbitrary bytes.
		var x Head
		rest, err = x.ReadWire(data)
		if err != nil {
			if x != (Head{}) || len(rest) != len(data) {
				t.Fatalf("a failed read changed the head or consumed bytes")
			}
			return
		}
		var y Head
		if again, err := y.ReadWire(x.AppendWire(nil)); err != nil || len(again) != 0 || y != x {
			t.Fatalf("%x read as %+v, written and read again as %+v (%v)", data, x, y, err)
		}
	})
}

// The wire form writes every field of Head but Ref and the queue links: a
// field added to Head must be added to AppendWire and ReadWire (and here).
func TestHeadWireFields(t *testing.T) {
	onWire := []string{"Left", "First", "Last", "At", "Key", "Priority", "Label", "node", "dest", "delta", "hops",
		"prevDim", "dir", "port", "adaptive", "started", "cls", "in", "freed", "freedCls", "freedAt", "occupy", "first", "wire", "reader", "pk", "size"}
	notOnWire := map[string]bool{"Ref": true, "next": true, "prev": true}
	want := map[string]bool{}
	for _, f := range onWire {
		want[f] = true
	}
	typ := reflect.TypeOf(Head{})
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if !want[name] && !notOnWire[name] {
			t.Errorf("Head.%s is not in its wire form (headwire.go)", name)
		}
		delete(want, name)
	}
	for f := range want {
		t.Errorf("the wire form lists %s, which Head no longer has", f)
	}
	// And each of them travels: a head whose every field differs from zero
	// (each word odd, for the flags).
	b := make([]byte, 8*32)
	for j := range 32 {
		b[8*j] = byte(2*j + 1)
	}
	h := headFromBytes(b)
	v := reflect.ValueOf(h)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if !notOnWire[name] && v.Field(i).IsZero() {
			t.Errorf("the test's head leaves %s zero", name)
		}
	}
	var g Head
	if _, err := g.ReadWire(h.AppendWire(nil)); err != nil || g != h {
		t.Errorf("read back %+v (%v), want %+v", g, err, h)
	}
}
