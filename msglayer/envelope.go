package msglayer

import (
	"encoding/binary"

	"github.com/bglua/bglua/internal/wire"
)

// A message's mirror across processes (docs/distributed.md). A message is
// made by its sender and read and written by both ends; when they are in
// different processes each keeps its own copy, found by a msgRef, and the
// first event of the message to reach the other process carries its
// envelope: the fields the sender set that the receiver reads (the
// ranks, sizes, protocol, MPI's tag, context, rank in the communicator,
// id, label, coprocessor mark, and the payload), and the layer above's
// signature of the call it belongs to (MPI's collective signature, which
// the receiver compares with its own call's). Distributed (distributed.go)
// uses them.

// Flags of an envelope's first byte.
const (
	envSync = 1 << iota
	envCo
)

// appendEnvelopeWire appends m's envelope to b: its fields, the layer
// above's signature sig, and the payload by pc.
func appendEnvelopeWire(b []byte, m *Message, sig []byte, pc PayloadCodec) ([]byte, error) {
	f := byte(0)
	if m.Sync {
		f |= envSync
	}
	if m.Co {
		f |= envCo
	}
	b = append(b, f, byte(m.Protocol))
	for _, v := range [...]int{m.Src, m.Dst, m.Bytes, m.Header, m.Tag, m.Ctx, m.From} {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.AppendVarint(b, m.ID)
	b = binary.AppendVarint(b, int64(m.Label))
	b = binary.AppendUvarint(b, uint64(len(sig)))
	b = append(b, sig...)
	return pc.AppendPayload(b, m.Payload)
}

// readEnvelopeWire sets m's envelope fields from the wire form at the start
// of b and returns the signature (a slice of b) and the rest of b; on an
// error m is left alone.
func readEnvelopeWire(b []byte, m *Message, pc PayloadCodec) (sig, rest []byte, err error) {
	if len(b) < 2 || b[0]&^(envSync|envCo) != 0 || int(b[1]) >= len(protocolNames) {
		return nil, b, errCrossWire
	}
	var x Message
	x.Sync, x.Co, x.Protocol = b[0]&envSync != 0, b[0]&envCo != 0, Protocol(b[1])
	r := wireIn{wire.Reader{B: b[2:]}}
	for _, v := range [...]*int{&x.Src, &x.Dst, &x.Bytes, &x.Header, &x.Tag, &x.Ctx, &x.From} {
		*v = r.Int()
	}
	x.ID = r.Varint()
	x.Label = r.Int32()
	n := r.Uvarint()
	if r.Bad || n > uint64(len(r.B)) {
		return nil, b, errCrossWire
	}
	sig, r.B = r.B[:n:n], r.B[n:]
	x.Payload, rest, err = pc.ReadPayload(r.B)
	if err != nil {
		return nil, b, errCrossWire
	}
	m.Src, m.Dst, m.Bytes, m.Header, m.Protocol, m.Sync = x.Src, x.Dst, x.Bytes, x.Header, x.Protocol, x.Sync
	m.Payload, m.Tag, m.Ctx, m.From, m.ID, m.Label, m.Co = x.Payload, x.Tag, x.Ctx, x.From, x.ID, x.Label, x.Co
	return sig, rest, nil
}

// msgRefs names the messages that cross a process boundary (their sender
// numbers them, per sending rank) and finds the copies a process holds,
// the sender's own or its mirror, by their names, for as long as something
// of the message may still come. The counters are per rank, each written
// only by its rank's partition.
type msgRefs struct {
	next []uint64 // per rank: how many of its messages were named
	by   map[msgRef]*heldMsg
}

// heldMsg is a message a process keeps to be found by its name, and why.
type heldMsg struct {
	m     *Message
	await int8 // control packets still to come back to the sender, here
	recv  bool // its destination is here and its data are not all read
}

// name gives m, sent by a rank of this process, its msgRef (the one it has
// if it has one).
func (t *msgRefs) name(m *Message) msgRef {
	if m.ref.seq != 0 {
		return m.ref
	}
	t.next[m.Src]++
	m.ref = msgRef{src: int32(m.Src), seq: t.next[m.Src]}
	return m.ref
}

// keep makes e's message found by ref.
func (t *msgRefs) keep(ref msgRef, e heldMsg) {
	if t.by == nil {
		t.by = map[msgRef]*heldMsg{}
	}
	t.by[ref] = &e
}

// find is what this process holds of the message named ref (nil: nothing).
func (t *msgRefs) find(ref msgRef) *heldMsg { return t.by[ref] }

// drop forgets the message named ref.
func (t *msgRefs) drop(ref msgRef) { delete(t.by, ref) }
