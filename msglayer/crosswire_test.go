package msglayer

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/bglua/bglua/hw"
)

// fieldsFrom gives the next 8 bytes of data as an int64 each call (zeros
// once it runs out).
func fieldsFrom(data []byte) func() int64 {
	return func() int64 {
		var b [8]byte
		n := copy(b[:], data)
		data = data[n:]
		return int64(binary.LittleEndian.Uint64(b[:]))
	}
}

// roundTrip is the fuzz test of one wire form: a value made from data
// reads back as itself after what b held; data read as a wire form either
// fails and leaves the value and data alone, or reads back the same once
// written again.
func roundTrip[T comparable](t *testing.T, data []byte, make func([]byte) T, write func([]byte, *T) []byte, read func([]byte, *T) ([]byte, error)) {
	x := make(data)
	b := write([]byte{0xcd}, &x)
	var y T
	rest, err := read(b[1:], &y)
	if err != nil || len(rest) != 0 || y != x {
		t.Fatalf("read back %+v, %d bytes left, %v; want %+v", y, len(rest), err, x)
	}
	z := make([]byte{9, 9, 9})
	was := z
	rest, err = read(data, &z)
	if err != nil {
		if z != was || len(rest) != len(data) {
			t.Fatalf("a failed read changed the value or consumed bytes")
		}
		return
	}
	var w T
	if again, err := read(write(nil, &z), &w); err != nil || len(again) != 0 || w != z {
		t.Fatalf("%x read as %+v, written and read again as %+v (%v)", data, z, w, err)
	}
}

func FuzzReleaseWire(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendReleaseWire(nil, &linkRelease{link: 3071, class: 2, k: 7, from: 123456, to: 125000}))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func(data []byte) linkRelease {
			next := fieldsFrom(data)
			x := linkRelease{link: int32(next()) & (1<<31 - 1), class: int8(next()), k: int32(next())}
			x.from = next() >> 2 // times stay far from overflow
			x.to = x.from + next()>>2
			return x
		}, appendReleaseWire, readReleaseWire)
	})
}

// bytesCodec is a PayloadCodec of strings, for the tests.
type bytesCodec struct{}

func (bytesCodec) AppendPayload(b []byte, v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return b, errors.New("not a string")
	}
	return append(binary.AppendUvarint(b, uint64(len(s))), s...), nil
}

func (bytesCodec) ReadPayload(b []byte) (any, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, b, errors.New("short")
	}
	return string(b[k : k+int(n)]), b[k+int(n):], nil
}

// depositWire is a depositTransit, its amDeposit by value, for comparing.
type depositWire struct {
	tr hw.DepositTransit
	d  amDeposit
}

func FuzzDepositTransitWire(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3})
	write := func(b []byte, x *depositWire) []byte {
		d := x.d
		b, err := appendDepositWire(b, &depositTransit{tr: x.tr, d: &d}, bytesCodec{})
		if err != nil {
			panic(err)
		}
		return b
	}
	read := func(b []byte, x *depositWire) ([]byte, error) {
		y := depositTransit{d: &amDeposit{}}
		rest, err := readDepositWire(b, &y, bytesCodec{})
		if err == nil {
			*x = depositWire{tr: y.tr, d: *y.d.(*amDeposit)}
		}
		return rest, err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func(data []byte) depositWire {
			var tr hw.DepositTransit
			tr.Block, tr.At, tr.Left = 3, 2_000_000, 1_999_000 // the transit's own fields are fuzzed in hw
			next := fieldsFrom(data)
			d := amDeposit{me: int(next()), slot: int(next()), size: int(next()), header: int(next()), total: int(next()),
				proto: Protocol(uint64(next()) % uint64(len(protocolNames))), payload: string(data[min(len(data), 48):])}
			return depositWire{tr: tr, d: d}
		}, write, read)
	})
}

// Every field of a flow is either made again at the reader from the
// message's envelope, carried by the trains, or the writer's own: a field
// added to flow must be placed (here, and in crosswire.go if it crosses).
func TestCrossWireFields(t *testing.T) {
	flowFields := map[string]string{
		// The reader's: from the envelope (Src, Dst, Bytes, Header,
		// Protocol) and the machine, as startData makes them.
		"from": "envelope", "to": "envelope", "tie": "envelope", "total": "envelope", "per": "envelope", "bytes": "envelope",
		"rx":  "train", // every train and chunk carries it
		"cpu": "writer", "w": "writer", "sent": "writer", "adaptive": "writer", "sub": "writer", "lastLeft": "writer", "nextFree": "writer",
	}
	tests := []struct {
		typ   reflect.Type
		known map[string]string
	}{
		{reflect.TypeOf(flow{}), flowFields},
		{reflect.TypeOf(linkRelease{}), map[string]string{"root": "receiver", "link": "wire", "class": "wire", "k": "wire", "from": "wire", "to": "wire"}},
		{reflect.TypeOf(depositTransit{}), map[string]string{"root": "receiver", "tr": "wire", "d": "wire"}},
		{reflect.TypeOf(amDeposit{}), map[string]string{"me": "wire", "slot": "wire", "size": "wire", "header": "wire",
			"total": "wire", "payload": "codec", "proto": "wire"}},
	}
	for _, tc := range tests {
		for i := range tc.typ.NumField() {
			if name := tc.typ.Field(i).Name; tc.known[name] == "" {
				t.Errorf("%s.%s: is it on a wire form (crosswire.go), or whose is it?", tc.typ.Name(), name)
			}
		}
		if tc.typ.NumField() != len(tc.known) {
			t.Errorf("%s has %d fields, the test knows %d", tc.typ.Name(), tc.typ.NumField(), len(tc.known))
		}
	}
}

// The sizes of the typical crossings, for docs/distributed.md's cost model.
func TestCrossWireSizes(t *testing.T) {
	r := linkRelease{link: 3071, class: 1, k: 1, from: 1234567, to: 1234567}
	rx := linkRelease{link: 3071, class: 2, k: 7, from: 1234567, to: 1236600}
	for _, c := range []struct {
		name      string
		n, lo, hi int
	}{
		{"linkRelease of a router place", len(appendReleaseWire(nil, &r)), 5, 10},
		{"linkRelease of a chunk's reception places", len(appendReleaseWire(nil, &rx)), 6, 12},
	} {
		if c.n < c.lo || c.n > c.hi {
			t.Errorf("a typical %s takes %d bytes", c.name, c.n)
		}
		t.Logf("a typical %s: %d bytes", c.name, c.n)
	}
}
