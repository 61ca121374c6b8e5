package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/bglua/bglua/msglayer"

	"github.com/bglua/bglua/internal/wire"
)

// The wire form of the payloads of MPI's messages (msglayer.Message.Payload,
// a Value's Data), to ride with a message's envelope to another process
// (docs/distributed.md). MPI's algorithms put payloads of their own there:
// pack's []Value, whose values' data are any payloads again, and the
// scatter message of the scatter-allgather broadcasts (*bcastPieces). Every
// other payload is the layer above's (a Lua value, an active message's),
// which MPI never looks into: a leaf codec it is given writes and reads
// those. World.Crossing (crossing.go) uses it.
//
// The shared state of the packet-level algorithms (shareOp's *torusBcast
// and *a2aOp) is no payload of this form: its handles are never sent, and
// the algorithms run in one partition.

// Tags of a payload's first byte.
const (
	payloadLeaf    byte = iota // the leaf codec's form follows
	payloadNil                 // nil: a message without data (a barrier's)
	payloadPhantom             // Phantom: N (uvarint)
	payloadValues              // []Value: uvarint 0 (nil) or 1+n, then each value's size (varint) and data
	payloadPieces              // *bcastPieces: total (varint), rdb (a byte, 0 or 1)
)

// payloadMaxDepth bounds the nesting of []Value in []Value that a payload's
// wire form may have: it keeps a reader of hostile bytes from deep recursion.
const payloadMaxDepth = 200

// errPayloadWire is the error of bytes that are no payload's wire form.
var errPayloadWire = errors.New("mpi: not a payload's wire form")

// PayloadCodec is the codec of the payloads of MPI's messages: MPI's own
// payload types in their wire form (no data, a phantom, pack's values, the
// broadcast's pieces), every other payload by leaf (nil: none but MPI's). A payload it cannot write is an error that names its type.
func PayloadCodec(leaf msglayer.PayloadCodec) msglayer.PayloadCodec {
	return payloadCodec{leaf: leaf}
}

type payloadCodec struct{ leaf msglayer.PayloadCodec }

func (c payloadCodec) AppendPayload(b []byte, v any) ([]byte, error) {
	return c.append(b, v, 0)
}

func (c payloadCodec) append(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, payloadNil), nil
	case Phantom:
		if x.N < 0 {
			return b, fmt.Errorf("mpi: a phantom of %d bytes", x.N)
		}
		return binary.AppendUvarint(append(b, payloadPhantom), uint64(x.N)), nil
	case []Value:
		if depth >= payloadMaxDepth {
			return b, fmt.Errorf("mpi: payload nested deeper than %d", payloadMaxDepth)
		}
		out := append(b, payloadValues)
		if x == nil {
			return append(out, 0), nil
		}
		out = binary.AppendUvarint(out, uint64(len(x))+1)
		for _, e := range x {
			var err error
			out = binary.AppendVarint(out, int64(e.Size))
			if out, err = c.append(out, e.Data, depth+1); err != nil {
				return b, err
			}
		}
		return out, nil
	case *bcastPieces:
		if x == nil {
			return b, errors.New("mpi: a nil *bcastPieces payload")
		}
		b = binary.AppendVarint(append(b, payloadPieces), int64(x.total))
		if x.rdb {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	}
	if c.leaf == nil {
		return b, fmt.Errorf("mpi: no wire form for a payload of type %T", v)
	}
	out, err := c.leaf.AppendPayload(append(b, payloadLeaf), v)
	if err != nil {
		return b, err
	}
	return out, nil
}

func (c payloadCodec) ReadPayload(b []byte) (any, []byte, error) {
	return c.read(b, 0)
}

func (c payloadCodec) read(b []byte, depth int) (any, []byte, error) {
	if len(b) == 0 {
		return nil, b, errPayloadWire
	}
	switch b[0] {
	case payloadLeaf:
		if c.leaf == nil {
			return nil, b, fmt.Errorf("mpi: a payload of the layer above, and no codec for it")
		}
		v, rest, err := c.leaf.ReadPayload(b[1:])
		if err != nil {
			return nil, b, err
		}
		return v, rest, nil
	case payloadNil:
		return nil, b[1:], nil
	case payloadPhantom:
		r := wire.Reader{B: b[1:]}
		n := r.Uvarint()
		if r.Bad || n > math.MaxInt {
			return nil, b, errPayloadWire
		}
		return Phantom{N: int(n)}, r.B, nil
	case payloadValues:
		if depth >= payloadMaxDepth {
			return nil, b, fmt.Errorf("mpi: payload nested deeper than %d", payloadMaxDepth)
		}
		r := wire.Reader{B: b[1:]}
		n := r.Uvarint()
		// Each value takes at least two bytes (its size and a tag): a
		// count beyond half the bytes left is a lie, not an allocation.
		if r.Bad || n > uint64(len(r.B)/2)+1 {
			return nil, b, errPayloadWire
		}
		if n == 0 {
			return []Value(nil), r.B, nil
		}
		vs := make([]Value, n-1)
		rest := r.B
		for i := range vs {
			r := wire.Reader{B: rest}
			vs[i].Size = r.Int()
			if r.Bad {
				return nil, b, errPayloadWire
			}
			var err error
			if vs[i].Data, rest, err = c.read(r.B, depth+1); err != nil {
				return nil, b, err
			}
		}
		return vs, rest, nil
	case payloadPieces:
		r := wire.Reader{B: b[1:]}
		p := &bcastPieces{total: r.Int()}
		rdb := r.Byte()
		if r.Bad || rdb > 1 {
			return nil, b, errPayloadWire
		}
		p.rdb = rdb == 1
		return p, r.B, nil
	}
	return nil, b, fmt.Errorf("mpi: unknown payload tag %#x", b[0])
}
