package msglayer

import (
	"encoding/binary"
	"errors"

	"github.com/bglua/bglua/hw"

	"github.com/bglua/bglua/internal/wire"
)

// The wire forms of the message layer's other crossings between partitions
// (trainwire.go has the trains'), for a run whose blocks live in several
// processes (docs/distributed.md): the places given back are used by
// Distributed (distributed.go); deposit lines do not cross processes yet.
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
	r := wireIn{wire.Reader{B: b}}
	link := r.Int32()
	class := r.Byte()
	k := r.Int32()
	from := r.Varint()
	span := r.Varint()
	if r.Bad || link < 0 {
		return b, errCrossWire
	}
	x.link, x.class, x.k, x.from, x.to = link, int8(class), k, from, from+span
	return r.B, nil
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
	r := wireIn{wire.Reader{B: rest[1:]}}
	for _, v := range [...]*int{&d.me, &d.slot, &d.size, &d.header, &d.total} {
		*v = r.Int()
	}
	if r.Bad {
		return b, errCrossWire
	}
	d.payload, rest, err = pc.ReadPayload(r.B)
	if err != nil {
		return b, errCrossWire
	}
	x.tr, x.d = tr, d
	return rest, nil
}

func appendRef(b []byte, ref msgRef) []byte {
	return binary.AppendUvarint(binary.AppendVarint(b, int64(ref.src)), ref.seq)
}

// wireIn reads a wire form's fields until the first that is not there,
// message references included.
type wireIn struct{ wire.Reader }

func (r *wireIn) ref() msgRef {
	return msgRef{src: r.Int32(), seq: r.Uvarint()}
}
