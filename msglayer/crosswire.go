package msglayer

import (
	"encoding/binary"
	"errors"

	"github.com/bglua/bglua/hw"
)

// The wire forms of the message layer's other crossings between partitions
// (trainwire.go has the trains'), for a run whose blocks live in several
// processes (docs/distributed.md). Not used by the engine yet.
//
// Of a message's flow, the reader reads only what follows from the
// message's envelope and the machine (its nodes, sizes and tie) and the
// reading CPU, which every train carries: the rest is the writer's own.

// errCrossWire is the error of bytes that are no crossing's wire form.
var errCrossWire = errors.New("msglayer: not a crossing's wire form")

// appendReleaseWire appends the wire form of places given back: the link,
// the buffer class, how many and over which span (root is the receiver's).
func appendReleaseWire(b []byte, x *linkRelease) []byte {
	b = append(binary.AppendVarint(b, int64(x.link)), byte(x.class))
	b = binary.AppendVarint(b, int64(x.k))
	b = binary.AppendVarint(b, x.from)
	return binary.AppendVarint(b, x.to-x.from)
}

// readReleaseWire sets x's fields but root (the caller's).
func readReleaseWire(b []byte, x *linkRelease) ([]byte, error) {
	r := wireIn{b: b}
	link := r.int32()
	class := r.byte()
	k := r.int32()
	from := r.varint()
	span := r.varint()
	if r.bad || link < 0 {
		return b, errCrossWire
	}
	x.link, x.class, x.k, x.from, x.to = link, int8(class), k, from, from+span
	return r.b, nil
}

// A PayloadCodec writes and reads the payloads of the layer above
// (Message.Payload, an active message's), which the message layer never
// looks into: the Lua values' codec for the ml and mpi modules.
type PayloadCodec interface {
	AppendPayload(b []byte, v any) ([]byte, error)
	ReadPayload(b []byte) (v any, rest []byte, err error)
}

// appendDepositWire appends the wire form of a deposit-bit train on its
// way to another block: the transit, and the active message it leaves at
// the line's nodes (payload by pc).
func appendDepositWire(b []byte, x *depositTransit, pc PayloadCodec) ([]byte, error) {
	d, ok := x.d.(*amDeposit)
	if !ok {
		return b, errCrossWire // the only Deposits there is
	}
	b = x.tr.AppendWire(b)
	b = append(b, byte(d.proto))
	for _, v := range [...]int{d.me, d.slot, d.size, d.header, d.total} {
		b = binary.AppendVarint(b, int64(v))
	}
	return pc.AppendPayload(b, d.payload)
}

// readDepositWire sets x (but root) from the wire form at the start of b.
func readDepositWire(b []byte, x *depositTransit, pc PayloadCodec) ([]byte, error) {
	var tr hw.DepositTransit
	rest, err := tr.ReadWire(b)
	if err != nil || len(rest) < 1 || int(rest[0]) >= len(protocolNames) {
		return b, errCrossWire
	}
	d := &amDeposit{proto: Protocol(rest[0])}
	r := wireIn{b: rest[1:]}
	for _, v := range [...]*int{&d.me, &d.slot, &d.size, &d.header, &d.total} {
		*v = r.int()
	}
	if r.bad {
		return b, errCrossWire
	}
	d.payload, rest, err = pc.ReadPayload(r.b)
	if err != nil {
		return b, errCrossWire
	}
	x.tr, x.d = tr, d
	return rest, nil
}

func appendRef(b []byte, ref msgRef) []byte {
	return binary.AppendUvarint(binary.AppendVarint(b, int64(ref.src)), ref.seq)
}

// wireIn reads a wire form's fields until the first that is not there.
type wireIn struct {
	b   []byte
	bad bool
}

func (r *wireIn) varint() int64 {
	u := r.uvarint() // zigzag, as binary.AppendVarint writes it
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (r *wireIn) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *wireIn) int32() int32 {
	v := r.varint()
	if v != int64(int32(v)) {
		r.bad = true
	}
	return int32(v)
}

func (r *wireIn) int() int {
	v := r.varint()
	if v != int64(int(v)) {
		r.bad = true
	}
	return int(v)
}

func (r *wireIn) byte() byte {
	if r.bad || len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wireIn) ref() msgRef {
	return msgRef{src: r.int32(), seq: r.uvarint()}
}
