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
// A slotReq and a slotGrant are the message itself (one process's
// partitions share it); between processes they name it by a msgRef and
// carry the fields of its flow that the other end reads: the request what
// the reader's FIFO needs to take room and to answer, the grant the room
// granted. The rest of the flow is the writer's own, or follows at the
// reader from the message's envelope (slotReqRecomputed).

// errCrossWire is the error of bytes that are no crossing's wire form.
var errCrossWire = errors.New("msglayer: not a crossing's wire form")

// slotReqWire is what a slotReq carries: the writer's and the reader's
// nodes and CPUs, the room wanted and the packets written before it.
type slotReqWire struct {
	ref                   msgRef
	from, to, w, rx, want int32
	sent                  int64
}

// slotReqOf is the wire form's content of m's request for room.
func slotReqOf(m *Message, ref msgRef) slotReqWire {
	f := &m.f
	return slotReqWire{ref: ref, from: f.from, to: f.to, w: f.w, rx: f.rx, want: f.want, sent: int64(f.sent)}
}

// setFlow sets the fields of m's flow that a request carries (on the
// reader's mirror of m).
func (q *slotReqWire) setFlow(m *Message) {
	f := &m.f
	f.from, f.to, f.w, f.rx, f.want, f.sent = q.from, q.to, q.w, q.rx, q.want, int(q.sent)
}

func appendSlotReqWire(b []byte, q *slotReqWire) []byte {
	b = appendRef(b, q.ref)
	for _, v := range [...]int32{q.from, q.to, q.w, q.rx, q.want} {
		b = binary.AppendVarint(b, int64(v))
	}
	return binary.AppendVarint(b, q.sent)
}

func readSlotReqWire(b []byte, q *slotReqWire) ([]byte, error) {
	r := wireIn{b: b}
	var x slotReqWire
	x.ref = r.ref()
	for _, v := range [...]*int32{&x.from, &x.to, &x.w, &x.rx, &x.want} {
		*v = r.int32()
	}
	x.sent = r.varint()
	if r.bad {
		return b, errCrossWire
	}
	*q = x
	return r.b, nil
}

// slotGrantWire is what a slotGrant carries: the room granted.
type slotGrantWire struct {
	ref     msgRef
	granted int32
}

func appendSlotGrantWire(b []byte, g *slotGrantWire) []byte {
	return binary.AppendVarint(appendRef(b, g.ref), int64(g.granted))
}

func readSlotGrantWire(b []byte, g *slotGrantWire) ([]byte, error) {
	r := wireIn{b: b}
	var x slotGrantWire
	x.ref = r.ref()
	x.granted = r.int32()
	if r.bad {
		return b, errCrossWire
	}
	*g = x
	return r.b, nil
}

// appendReleaseWire appends the wire form of a place given back: the link
// and the buffer class (root is the receiver's).
func appendReleaseWire(b []byte, x *linkRelease) []byte {
	return append(binary.AppendVarint(b, int64(x.link)), byte(x.class))
}

// readReleaseWire sets x's link and class (x.root is the caller's).
func readReleaseWire(b []byte, x *linkRelease) ([]byte, error) {
	r := wireIn{b: b}
	link := r.int32()
	class := r.byte()
	if r.bad || link < 0 {
		return b, errCrossWire
	}
	x.link, x.class = link, int8(class)
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
