package hw

import (
	"encoding/binary"
	"errors"

	"github.com/bglua/bglua/internal/wire"
)

// The wire form of a Head in transit between blocks, for a run whose blocks
// live in several processes (docs/distributed.md): everything the next
// block needs to carry the head on, in a few varints. Not used by the
// engine yet.
//
// A head is in transit between its grant in one block and its arrival in
// the next: it is in no port queue then (next, prev nil) and Ref is the
// caller's to rebuild, so neither is on the wire. Times are written as
// differences from At, which the window's end bounds from below, so that
// they are short.

// ErrHeadWire is the error of bytes that are no head's wire form.
var ErrHeadWire = errors.New("hw: not a head's wire form")

// Flags of the wire form's first byte.
const (
	headPriority = 1 << iota
	headAdaptive
	headStarted
)

// AppendWire appends h's wire form to b (Ref, and the queue links of a
// head waiting at a link, are not written).
func (h *Head) AppendWire(b []byte) []byte {
	var f byte
	for i, on := range [...]bool{h.Priority, h.adaptive, h.started} { // headPriority, ...
		if on {
			f |= 1 << i
		}
	}
	b = append(b, f, byte(h.prevDim), byte(h.dir), byte(h.port), byte(h.cls), byte(h.freedCls), byte(h.reader))
	b = binary.AppendVarint(b, h.At)
	for _, t := range [...]int64{h.Left, h.First, h.Last, h.freedAt, h.occupy, h.first} {
		b = binary.AppendVarint(b, t-h.At)
	}
	b = binary.AppendUvarint(b, h.Key)
	b = binary.AppendVarint(b, h.wire)
	for _, v := range [...]int32{h.Label, h.node, h.dest, h.delta[0], h.delta[1], h.delta[2], h.hops, h.in, h.freed, h.pk, h.size} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// ReadWire sets h from the wire form at the start of b and returns the rest
// of b. Ref and the queue links are nil.
func (h *Head) ReadWire(b []byte) ([]byte, error) {
	if len(b) < 7 {
		return b, ErrHeadWire
	}
	f := b[0]
	if f&^(headPriority|headAdaptive|headStarted) != 0 {
		return b, ErrHeadWire
	}
	var x Head
	x.Priority, x.adaptive, x.started = f&headPriority != 0, f&headAdaptive != 0, f&headStarted != 0
	x.prevDim, x.dir, x.port, x.cls, x.freedCls, x.reader = int8(b[1]), int8(b[2]), int8(b[3]), int8(b[4]), int8(b[5]), int8(b[6])
	r := wire.Reader{B: b[7:]}
	x.At = r.Varint()
	for _, t := range [...]*int64{&x.Left, &x.First, &x.Last, &x.freedAt, &x.occupy, &x.first} {
		*t = x.At + r.Varint()
	}
	x.Key = r.Uvarint()
	x.wire = r.Varint()
	for _, v := range [...]*int32{&x.Label, &x.node, &x.dest, &x.delta[0], &x.delta[1], &x.delta[2], &x.hops, &x.in, &x.freed, &x.pk, &x.size} {
		*v = r.Int32()
	}
	if r.Bad {
		return b, ErrHeadWire
	}
	*h = x
	return r.B, nil
}
