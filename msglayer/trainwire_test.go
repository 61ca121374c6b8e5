package msglayer

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/bglua/bglua/hw"
)

// trainFromBytes fills every field of a train that travels from data (zeros
// once it runs out), its head from what is left.
func trainFromBytes(data []byte) (train, msgRef) {
	next := func() int64 {
		var b [8]byte
		n := copy(b[:], data)
		data = data[n:]
		return int64(binary.LittleEndian.Uint64(b[:]))
	}
	var x train
	ref := msgRef{src: int32(next()), seq: uint64(next())}
	x.ctl, x.more, x.left = next()&1 != 0, next()&1 != 0, next()&1 != 0
	x.kind = ctlKind(uint64(next()) % uint64(len(ctlNames)))
	x.k, x.idx, x.bytes, x.rx, x.back = int32(next()), int32(next()), int32(next()), int32(next()), int32(next())
	x.ser, x.serLast = Time(next()), Time(next())
	var h hw.Head
	// The head's own fields are fuzzed in hw; here its place in the train's
	// form: times and a key that vary.
	h.At, h.Left, h.First, h.Last, h.Key, h.Label = next(), next(), next(), next(), uint64(next()), int32(next())
	h.Ref = &x
	x.h = h
	return x, ref
}

// same compares two trains, their heads' Ref aside (each points to its own
// train).
func same(a, b *train) bool {
	x, y := *a, *b
	x.h.Ref, y.h.Ref = nil, nil
	return x == y
}

// FuzzTrainWire: a train's wire form reads back as the same train and
// message reference; other bytes give an error and leave the train alone.
func FuzzTrainWire(f *testing.F) {
	f.Add([]byte{})
	x, ref := trainFromBytes([]byte{7, 0, 0, 0, 0, 0, 0, 0, 42})
	f.Add(appendTrainWire(nil, &x, ref))
	f.Add([]byte{trainCtl | trainLeft, byte(ctlGrant), 2, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, ref := trainFromBytes(data)
		b := appendTrainWire([]byte{0xcd}, &x, ref)
		var y train
		got, rest, err := readTrainWire(b[1:], &y)
		if err != nil || len(rest) != 0 || got != ref || !same(&x, &y) || y.h.Ref != &y {
			t.Fatalf("read back %+v %+v, %d bytes left, %v; want %+v %+v", y, got, len(rest), err, x, ref)
		}
		var z train
		z.k = 99
		got, rest, err = readTrainWire(data, &z)
		if err != nil {
			if z.k != 99 || got != (msgRef{}) || len(rest) != len(data) {
				t.Fatalf("a failed read changed the train, the reference or consumed bytes")
			}
			return
		}
		var w train
		if got2, again, err := readTrainWire(appendTrainWire(nil, &z, got), &w); err != nil || len(again) != 0 || got2 != got || !same(&w, &z) {
			t.Fatalf("%x read as %+v, written and read again as %+v (%v)", data, z, w, err)
		}
	})
}

// The wire form carries every field of a train but its message (a msgRef
// instead), root (the receiver's) and a stream packet's part (st: stream
// packets stay in one partition): a field added to train must be added to
// trainwire.go (and here).
func TestTrainWireFields(t *testing.T) {
	known := map[string]bool{"h": true, "root": true, "m": true, "ctl": true, "kind": true, "k": true, "idx": true, "bytes": true, "rx": true,
		"back": true, "more": true, "left": true, "ser": true, "serLast": true, "st": true}
	typ := reflect.TypeOf(train{})
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !known[name] {
			t.Errorf("train.%s is not in its wire form (trainwire.go)", name)
		}
	}
	if typ.NumField() != len(known) {
		t.Errorf("train has %d fields, the wire form knows %d", typ.NumField(), len(known))
	}
}

// The size of the wire form of a typical train, for docs/distributed.md's
// cost model: a batch of 7 full packets of a message between neighbours,
// at 3 ms of virtual time, the head done (a trainIn).
func TestTrainWireSize(t *testing.T) {
	x := train{ctl: false, k: 7, idx: 14, bytes: 7 * 240, rx: 0, back: 7, more: true, left: true, ser: 1792, serLast: 1792}
	// The head as hw.Network leaves it (fields of another package, so
	// only the exported ones here; the others are small numbers).
	x.h.At, x.h.Left, x.h.First, x.h.Last = 2_100_000, 2_099_937, 2_100_063, 2_112_607
	x.h.Key, x.h.Label = trainKey(&Message{Src: 1234, Dst: 1235}, 14, false, 0), 3
	b := appendTrainWire(nil, &x, msgRef{src: 1234, seq: 5678})
	if n := len(b); n < 40 || n > 72 {
		t.Errorf("a typical train takes %d bytes", n)
	}
	t.Logf("a typical train: %d bytes, of which the head %d (its Key %d)", len(b), len(x.h.AppendWire(nil)), len(binary.AppendUvarint(nil, x.h.Key)))
}
