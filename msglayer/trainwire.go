package msglayer

import (
	"encoding/binary"
	"errors"

	"github.com/bglua/bglua/internal/wire"
)

// The wire form of a train crossing into another block (trainHop, trainIn),
// the most frequent crossing between partitions, for a run whose blocks live
// in several processes (docs/distributed.md), used by Distributed
// (distributed.go).
//
// A train points to its Message, shared by the partitions of the sender and
// of the receiver within one process; between processes it names it by a
// msgRef instead, which each process resolves to its own mirror of the
// message. root is the receiving process's own view 0.

// msgRef names a message across processes: the world rank that sent it
// and its number among that rank's messages that crossed a process
// boundary.
type msgRef struct {
	src int32
	seq uint64
}

// errTrainWire is the error of bytes that are no train's wire form.
var errTrainWire = errors.New("msglayer: not a train's wire form")

// Flags of a train's wire form.
const (
	trainCtl = 1 << iota
	trainMore
	trainLeft
)

// appendTrainWire appends the wire form of x, whose message is ref, to b.
// A stream packet's train (x.st) has none: the streams' one user, the
// optimized alltoall, runs in one partition.
func appendTrainWire(b []byte, x *train, ref msgRef) []byte {
	if x.st != nil {
		panic("msglayer: a stream packet has no wire form")
	}
	f := byte(0)
	for i, on := range [...]bool{x.ctl, x.more, x.left} { // trainCtl, trainMore, trainLeft
		if on {
			f |= 1 << i
		}
	}
	b = append(b, f, byte(x.kind))
	b = binary.AppendVarint(b, int64(ref.src))
	b = binary.AppendUvarint(b, ref.seq)
	for _, v := range [...]int32{x.k, x.idx, x.bytes, x.rx, x.back} {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.AppendVarint(b, int64(x.ser))
	b = binary.AppendVarint(b, int64(x.serLast))
	return x.h.AppendWire(b)
}

// readTrainWire sets x from the wire form at the start of b (x.m and x.root
// are the caller's to set, from the msgRef returned) and returns the rest
// of b.
func readTrainWire(b []byte, x *train) (msgRef, []byte, error) {
	var ref msgRef
	if len(b) < 2 || b[0]&^(trainCtl|trainMore|trainLeft) != 0 || int(b[1]) >= len(ctlNames) {
		return ref, b, errTrainWire
	}
	var y train
	y.ctl, y.more, y.left = b[0]&trainCtl != 0, b[0]&trainMore != 0, b[0]&trainLeft != 0
	y.kind = ctlKind(b[1])
	r := wireIn{wire.Reader{B: b[2:]}}
	ref = r.ref()
	for _, p := range [...]*int32{&y.k, &y.idx, &y.bytes, &y.rx, &y.back} {
		*p = r.Int32()
	}
	y.ser = r.Varint()
	y.serLast = r.Varint()
	if r.Bad {
		return msgRef{}, b, errTrainWire
	}
	rest, err := y.h.ReadWire(r.B)
	if err != nil {
		return msgRef{}, b, errTrainWire
	}
	y.h.Ref = x // as newTrain has it
	*x = y
	return ref, rest, nil
}
