package mpi

import (
	"encoding/binary"
	"errors"

	"github.com/bglua/bglua/internal/wire"
)

// The wire forms of the I/O node's crossings between partitions (a rank's
// print shipped to its pset's I/O node, ioWrite, and the node's reply,
// ioDone), for a run whose blocks live in several processes
// (docs/distributed.md). Not used by the engine yet. Both name the rank by
// its number: the receiving process finds its partition from its node.

// errIOWire is the error of bytes that are no I/O crossing's wire form.
var errIOWire = errors.New("mpi: not an I/O crossing's wire form")

// ioWire is the content of an ioWrite (rank, pset, bytes) or of an ioDone
// (rank; the rest 0).
type ioWire struct {
	rank, ps, bytes int
}

// ioWriteWire is x's wire content.
func ioWriteWire(x *ioWrite) ioWire { return ioWire{rank: x.r.ID, ps: x.ps, bytes: x.bytes} }

func appendIOWire(b []byte, x *ioWire) []byte {
	for _, v := range [...]int{x.rank, x.ps, x.bytes} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

func readIOWire(b []byte, x *ioWire) ([]byte, error) {
	var y ioWire
	r := wire.Reader{B: b}
	for _, p := range [...]*int{&y.rank, &y.ps, &y.bytes} {
		if *p = r.Int(); *p < 0 {
			return b, errIOWire
		}
	}
	if r.Bad {
		return b, errIOWire
	}
	*x = y
	return r.B, nil
}
