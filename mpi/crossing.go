package mpi

import (
	"fmt"

	"github.com/bglua/bglua/msglayer"
)

// Crossing is MPI's side of its messages that cross processes
// (msglayer.Above, docs/distributed.md), for the layer of w: their
// payloads by PayloadCodec(leaf), their collective signature (sigOf, which
// in one process follows the message to its sender's request) in its wire
// form, and the mirror's receiver, w's deliverer. A mirror's Sent is a
// stand-in request that holds only the signature, so that matching reads it
// as it reads the sender's request in one process; it is never run (only
// the sender's process runs a message's Sent).
func (w *World) Crossing(leaf msglayer.PayloadCodec) msglayer.Above {
	return crossing{PayloadCodec: PayloadCodec(leaf), w: w}
}

type crossing struct {
	msglayer.PayloadCodec
	w *World
}

func (crossing) AppendSig(b []byte, m *msglayer.Message) []byte {
	return appendSigWire(b, sigOf(m))
}

func (c crossing) Mirror(m *msglayer.Message, sig []byte) error {
	s, rest, err := readSigWire(sig, c.w)
	if err != nil || len(rest) != 0 {
		return fmt.Errorf("mpi: the signature of a message from rank %d to rank %d does not read back", m.Src, m.Dst)
	}
	if s.call != nil {
		m.Sent = &Request{sig: s.call, sigSeq: s.seq}
	}
	m.To = deliverer{c.w}
	return nil
}
