package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/wire"
)

// Crossing is MPI's side of its messages that cross processes
// (msglayer.Above, docs/distributed.md), for the layer of w: their
// payloads by PayloadCodec(leaf), their collective signature (sigOf, which
// in one process follows the message to its sender's request) in its wire
// form, and the mirror's receiver, w's deliverer. A mirror's Sent is a
// stand-in request that holds only the signature, so that matching reads it
// as it reads the sender's request in one process; it is never run (only
// the sender's process runs a message's Sent).
//
// It also marks w as one process's share of such a run: what its ranks
// share in memory (the hardware collectives, communicator splits) then
// stops the run with a *OneProcessError.
func (w *World) Crossing(leaf msglayer.PayloadCodec) msglayer.Above {
	w.across = true
	return crossing{PayloadCodec: PayloadCodec(leaf), w: w}
}

// SetTell gives w, one process's share of a run over several, the way to
// tell every other process something from the partition of engine from
// (runtime.Engine.Tell to one of each's partitions): a member's entry of a
// communicator split, read with SplitCodec.
func (w *World) SetTell(tell func(from *runtime.Engine, a runtime.Action)) { w.tellAll = tell }

// SplitCodec is the codec of the split entries told to other processes.
func (w *World) SplitCodec() runtime.Codec {
	return runtime.Codec{Type: reflect.TypeOf(&splitEntry{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
		e := a.(*splitEntry)
		for _, v := range [...]int{e.ctx, e.seq, e.size, e.rank, e.color, e.key} {
			b = binary.AppendVarint(b, int64(v))
		}
		return b, nil
	}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
		r := wire.Reader{B: b}
		var e splitEntry
		for _, p := range [...]*int{&e.ctx, &e.seq, &e.size, &e.rank, &e.color, &e.key} {
			*p = r.Int()
		}
		if r.Bad || e.size <= 0 || e.size > len(w.ranks) || e.rank < 0 || e.rank >= e.size {
			return nil, b, errors.New("mpi: not a split entry's wire form")
		}
		w.readSplitEntry(&e)
		return nil, r.B, nil
	}}
}

// IOCodecs are the codecs of the I/O node's crossings (a rank's print
// shipped to its pset's I/O node, and the node's reply), for a run over
// several processes: both name the rank by its number.
func (w *World) IOCodecs() []runtime.Codec {
	rank := func(n int) (*Rank, error) {
		if n < 0 || n >= len(w.ranks) || w.ranks[n] == nil {
			return nil, errIOWire
		}
		return w.ranks[n], nil
	}
	return []runtime.Codec{
		{Type: reflect.TypeOf(&ioWrite{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
			x := ioWriteWire(a.(*ioWrite))
			return appendIOWire(b, &x), nil
		}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
			var x ioWire
			rest, err := readIOWire(b, &x)
			if err != nil {
				return nil, b, err
			}
			if x.rank >= len(w.ranks) || x.ps*w.m.PsetNodes >= w.ml.Map.Torus.Nodes() {
				return nil, b, errIOWire
			}
			r := w.ranks[x.rank]
			if r == nil {
				r = &Rank{w: w, ID: x.rank} // another process's: the I/O node needs its number
			}
			return &ioWrite{r: r, ps: x.ps, bytes: x.bytes}, rest, nil
		}},
		{Type: reflect.TypeOf(&ioDone{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
			return appendIOWire(b, &ioWire{rank: (*Rank)(a.(*ioDone)).ID}), nil
		}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
			var x ioWire
			rest, err := readIOWire(b, &x)
			if err != nil {
				return nil, b, err
			}
			r, err := rank(x.rank)
			if err != nil {
				return nil, b, err
			}
			return (*ioDone)(r), rest, nil
		}},
	}
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
