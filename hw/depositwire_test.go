package hw

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// depositFromBytes fills every field of a DepositTransit from data (zeros
// once data runs out).
func depositFromBytes(data []byte) DepositTransit {
	next := func() int64 {
		var b [8]byte
		n := copy(b[:], data)
		data = data[n:]
		return int64(binary.LittleEndian.Uint64(b[:]))
	}
	var x DepositTransit
	x.Block, x.At, x.Left = int(next()), next(), next()
	x.node, x.dir, x.hops = int32(next()), Dir(uint64(next())%NumDirs), int32(next())
	x.occupy, x.first = next(), next()
	x.arr = Arrival{Node: int32(next()), First: next(), Last: next()}
	x.wire, x.label = next(), int32(next())
	return x
}

// FuzzDepositWire: a deposit transit's wire form reads back as the same
// transit; other bytes give an error and leave it alone, or read back the
// same once written again.
func FuzzDepositWire(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3})
	real := DepositTransit{Block: 3, At: 2_000_063, Left: 1_999_000, node: 512, dir: XPlus, hops: 5, occupy: 1800, first: 1700,
		arr: Arrival{Node: 512, First: 2_000_100, Last: 2_010_000}, wire: 4096, label: 12345}
	f.Add(real.AppendWire(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := depositFromBytes(data)
		b := x.AppendWire([]byte{0xab})
		var y DepositTransit
		rest, err := y.ReadWire(b[1:])
		if err != nil || len(rest) != 0 || y != x {
			t.Fatalf("read back %+v, %d bytes left, %v; want %+v", y, len(rest), err, x)
		}
		var z DepositTransit
		z.hops = 99
		rest, err = z.ReadWire(data)
		if err != nil {
			if z.hops != 99 || len(rest) != len(data) {
				t.Fatalf("a failed read changed the transit or consumed bytes")
			}
			return
		}
		var w DepositTransit
		if again, err := w.ReadWire(z.AppendWire(nil)); err != nil || len(again) != 0 || w != z {
			t.Fatalf("%x read as %+v, written and read again as %+v (%v)", data, z, w, err)
		}
	})
}

// The wire form writes every field of DepositTransit: a field added to it
// must be added to depositwire.go (and here).
func TestDepositWireFields(t *testing.T) {
	known := map[string]bool{"Block": true, "At": true, "Left": true, "node": true, "dir": true, "hops": true,
		"occupy": true, "first": true, "arr": true, "wire": true, "label": true}
	typ := reflect.TypeOf(DepositTransit{})
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !known[name] {
			t.Errorf("DepositTransit.%s is not in its wire form (depositwire.go)", name)
		}
	}
	if n := reflect.TypeOf(Arrival{}).NumField(); n != 3 {
		t.Errorf("Arrival has %d fields, the wire form knows 3", n)
	}
}
