package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/wire"
)

// The wire form of a message's collective signature (agree.go's sigOf,
// which in one process follows the message to its sender's request), to
// ride with the message's envelope to another process
// (docs/distributed.md): empty for a message of no collective call, else
// the call's number and its collective, root, operator and size. The
// receiver interns what it reads (World.intern), so that signatures stay
// shared. World.Crossing (crossing.go) uses it.

// errSigWire is the error of bytes that are no signature's wire form.
var errSigWire = errors.New("mpi: not a collective signature's wire form")

// appendSigWire appends s's wire form to b.
func appendSigWire(b []byte, s collSig) []byte {
	if s.call == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(s.seq))
	for _, str := range [...]string{s.call.coll, s.call.op} {
		b = wire.AppendText(b, str)
	}
	b = binary.AppendVarint(b, int64(s.call.root))
	return binary.AppendVarint(b, int64(s.call.size))
}

// readSigWire reads a signature's wire form at the start of b, the call
// interned in w (a new one if w is nil), and returns the rest of b.
func readSigWire(b []byte, w *World) (collSig, []byte, error) {
	if len(b) == 0 || b[0] > 1 {
		return collSig{}, b, errSigWire
	}
	if b[0] == 0 {
		return collSig{}, b[1:], nil
	}
	r := wire.Reader{B: b[1:]}
	seq := r.Uvarint()
	var c callSig
	for _, p := range [...]*string{&c.coll, &c.op} {
		*p = r.Text()
	}
	c.root, c.size = r.Int(), r.Int()
	if r.Bad || seq != uint64(uint32(seq)) {
		return collSig{}, b, errSigWire
	}
	rest := r.B
	s := collSig{seq: uint32(seq)}
	if w != nil {
		s.call = w.intern(c)
	} else {
		s.call = &c
	}
	return s, rest, nil
}

// CrossingCheck is the debug check (runtime.Group.Check) of what the
// events of the world and of its message layer carry between partitions:
// the message layer's forms (msglayer.CrossingForm) with each message's
// collective signature, and the I/O node's write and reply.
func (w *World) CrossingCheck() runtime.CrossingCheck { return crossingCheck{w} }

type crossingCheck struct{ w *World }

func (c crossingCheck) Form(a runtime.Action) []byte {
	switch x := a.(type) {
	case *ioWrite:
		io := ioWriteWire(x)
		return appendIOWire([]byte{'w'}, &io)
	case *ioDone:
		return appendIOWire([]byte{'d'}, &ioWire{rank: (*Rank)(x).ID})
	}
	return msglayer.CrossingForm(a, func(m *msglayer.Message) []byte { return appendSigWire(nil, sigOf(m)) })
}

func (c crossingCheck) Differ(a runtime.Action, sent, ran []byte) string {
	switch a.(type) {
	case *ioWrite, *ioDone:
		return fmt.Sprintf("%x, then %x", sent, ran)
	}
	return msglayer.CrossingDiff(sent, ran)
}
