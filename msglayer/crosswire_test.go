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

func slotReqFrom(data []byte) slotReqWire {
	next := fieldsFrom(data)
	return slotReqWire{ref: msgRef{src: int32(next()), seq: uint64(next())}, from: int32(next()), to: int32(next()),
		w: int32(next()), rx: int32(next()), want: int32(next()), sent: next()}
}

func FuzzSlotReqWire(f *testing.F) {
	f.Add([]byte{})
	q := slotReqWire{ref: msgRef{src: 1234, seq: 5678}, from: 700, to: 1212, w: 1400, rx: 2425, want: 7, sent: 35}
	f.Add(appendSlotReqWire(nil, &q))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, slotReqFrom, appendSlotReqWire, readSlotReqWire)
	})
}

func FuzzSlotGrantWire(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendSlotGrantWire(nil, &slotGrantWire{ref: msgRef{src: 1234, seq: 5678}, granted: 7}))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func(data []byte) slotGrantWire {
			next := fieldsFrom(data)
			return slotGrantWire{ref: msgRef{src: int32(next()), seq: uint64(next())}, granted: int32(next())}
		}, appendSlotGrantWire, readSlotGrantWire)
	})
}

func FuzzReleaseWire(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendReleaseWire(nil, &linkRelease{link: 3071, class: 2}))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func(data []byte) linkRelease {
			next := fieldsFrom(data)
			return linkRelease{link: int32(next()) & (1<<31 - 1), class: int8(next())}
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

// Every field of a flow is either carried by the request or the grant for
// room, made again at the reader from the message's envelope, or the
// writer's own: a field added to flow must be placed (here, and in
// crosswire.go if it crosses).
func TestCrossWireFields(t *testing.T) {
	flowFields := map[string]string{
		"from": "slotReq", "to": "slotReq", "w": "slotReq", "rx": "slotReq", "want": "slotReq", "sent": "slotReq",
		"granted": "slotGrant",
		// The reader's: from the envelope (Src, Dst, Bytes, Header,
		// Protocol) and the machine, as startData makes them.
		"tie": "envelope", "total": "envelope", "per": "envelope", "bytes": "envelope", "remote": "envelope",
		"cpu": "writer", "adaptive": "writer", "sub": "writer", "lastLeft": "writer", "nextFree": "writer",
		"pre": "writer", "preStart": "writer", "preEnd": "writer",
	}
	tests := []struct {
		typ   reflect.Type
		known map[string]string
	}{
		{reflect.TypeOf(flow{}), flowFields},
		{reflect.TypeOf(linkRelease{}), map[string]string{"root": "receiver", "link": "wire", "class": "wire"}},
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
	// What a request carries is what setFlow sets and slotReqOf reads
	// (slotReqFrom fills every field of slotReqWire).
	var m Message
	q := slotReqFrom([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64})
	q.setFlow(&m)
	if got := slotReqOf(&m, q.ref); got != q {
		t.Errorf("set %+v on a flow, read back %+v", q, got)
	}
}

// The sizes of the typical crossings, for docs/distributed.md's cost model.
func TestCrossWireSizes(t *testing.T) {
	q := slotReqWire{ref: msgRef{src: 1234, seq: 5678}, from: 700, to: 1212, w: 1400, rx: 2425, want: 7, sent: 35}
	g := slotGrantWire{ref: q.ref, granted: 7}
	r := linkRelease{link: 3071, class: 1}
	for _, c := range []struct {
		name      string
		n, lo, hi int
	}{
		{"slotReq", len(appendSlotReqWire(nil, &q)), 10, 20},
		{"slotGrant", len(appendSlotGrantWire(nil, &g)), 4, 8},
		{"linkRelease", len(appendReleaseWire(nil, &r)), 2, 4},
	} {
		if c.n < c.lo || c.n > c.hi {
			t.Errorf("a typical %s takes %d bytes", c.name, c.n)
		}
		t.Logf("a typical %s: %d bytes", c.name, c.n)
	}
}
