package mpi

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzIOWire: an I/O crossing's wire form reads back as itself; other
// bytes give an error and leave it alone, or read back the same once
// written again.
func FuzzIOWire(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendIOWire(nil, &ioWire{rank: 65535, ps: 1023, bytes: 80}))
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			var b [8]byte
			n := copy(b[:], data)
			data = data[n:]
			return int(binary.LittleEndian.Uint64(b[:]) >> 1) // not negative
		}
		orig := data
		x := ioWire{rank: next(), ps: next(), bytes: next()}
		b := appendIOWire([]byte{0xcd}, &x)
		var y ioWire
		if rest, err := readIOWire(b[1:], &y); err != nil || len(rest) != 0 || y != x {
			t.Fatalf("read back %+v, %d bytes left, %v; want %+v", y, len(rest), err, x)
		}
		z := ioWire{rank: 9}
		rest, err := readIOWire(orig, &z)
		if err != nil {
			if z != (ioWire{rank: 9}) || len(rest) != len(orig) {
				t.Fatalf("a failed read changed the value or consumed bytes")
			}
			return
		}
		var w ioWire
		if again, err := readIOWire(appendIOWire(nil, &z), &w); err != nil || len(again) != 0 || w != z {
			t.Fatalf("%x read as %+v, written and read again as %+v (%v)", orig, z, w, err)
		}
	})
}

// An ioWrite crosses as its rank's number, pset and bytes (ioDone is the
// rank: its number): a field added to ioWrite must be added to iowire.go
// (and here).
func TestIOWireFields(t *testing.T) {
	known := map[string]bool{"r": true, "ps": true, "bytes": true}
	typ := reflect.TypeOf(ioWrite{})
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !known[name] {
			t.Errorf("ioWrite.%s is not in its wire form (iowire.go)", name)
		}
	}
	if typ.NumField() != len(known) {
		t.Errorf("ioWrite has %d fields, the wire form knows %d", typ.NumField(), len(known))
	}
	x := ioWrite{r: &Rank{ID: 77}, ps: 3, bytes: 120}
	if got := ioWriteWire(&x); got != (ioWire{rank: 77, ps: 3, bytes: 120}) {
		t.Errorf("ioWriteWire gives %+v", got)
	}
}

// FuzzSigWire: a collective signature's wire form reads back as the same
// signature, interned; other bytes give an error, or read back the same
// once written again.
func FuzzSigWire(f *testing.F) {
	f.Add(uint32(0), "", "", 0, 0, true)
	f.Add(uint32(3), "allreduce", "sum", -1, 8, false)
	f.Fuzz(func(t *testing.T, seq uint32, coll, op string, root, size int, none bool) {
		s := collSig{seq: seq, call: &callSig{coll: coll, op: op, root: root, size: size}}
		if none {
			s = collSig{}
		}
		w := &World{}
		b := appendSigWire([]byte{7}, s)
		got, rest, err := readSigWire(b[1:], w)
		if err != nil || len(rest) != 0 || (s.call == nil) != (got.call == nil) || s.call != nil && !got.same(s) {
			t.Fatalf("read back %+v (%v), %d bytes left; want %+v", got, err, len(rest), s)
		}
		if got.call != nil {
			again, _, _ := readSigWire(b[1:], w)
			if again.call != got.call {
				t.Errorf("the same signature read twice is not interned")
			}
		}
		// Its bytes as a wire form.
		data := []byte(coll)
		if x, rest, err := readSigWire(data, nil); err == nil {
			y, again, err := readSigWire(appendSigWire(nil, x), nil)
			if err != nil || len(again) != 0 || (x.call == nil) != (y.call == nil) || x.call != nil && !x.same(y) {
				t.Fatalf("%x read as %+v (%d left), written and read again as %+v (%v)", data, x, len(rest), y, err)
			}
		} else if len(rest) != len(data) {
			t.Fatalf("a failed read consumed bytes")
		}
	})
}
