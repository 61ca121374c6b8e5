package hw

import (
	"encoding/binary"
	"errors"

	"github.com/bglua/bglua/internal/wire"
)

// The wire form of a deposit-bit train between blocks (DepositTransit), as
// headwire.go is a head's, for a run whose blocks live in several
// processes. Not used by the engine yet. Times after At are written as
// differences from it.

// ErrDepositWire is the error of bytes that are no deposit transit's wire
// form.
var ErrDepositWire = errors.New("hw: not a deposit transit's wire form")

// AppendWire appends tr's wire form to b.
func (tr *DepositTransit) AppendWire(b []byte) []byte {
	b = append(b, byte(tr.dir))
	b = binary.AppendVarint(b, int64(tr.Block))
	b = binary.AppendVarint(b, tr.At)
	for _, t := range [...]int64{tr.Left, tr.arr.First, tr.arr.Last} {
		b = binary.AppendVarint(b, t-tr.At)
	}
	for _, v := range [...]int64{tr.occupy, tr.first, tr.wire} {
		b = binary.AppendVarint(b, v)
	}
	for _, v := range [...]int32{tr.node, tr.hops, tr.arr.Node, tr.label} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// ReadWire sets tr from the wire form at the start of b and returns the
// rest of b; on an error tr is left alone.
func (tr *DepositTransit) ReadWire(b []byte) ([]byte, error) {
	if len(b) < 1 || Dir(b[0]) >= NumDirs {
		return b, ErrDepositWire
	}
	var x DepositTransit
	x.dir = Dir(b[0])
	r := wire.Reader{B: b[1:]}
	x.Block = r.Int()
	x.At = r.Varint()
	for _, t := range [...]*int64{&x.Left, &x.arr.First, &x.arr.Last} {
		*t = x.At + r.Varint()
	}
	for _, v := range [...]*int64{&x.occupy, &x.first, &x.wire} {
		*v = r.Varint()
	}
	for _, v := range [...]*int32{&x.node, &x.hops, &x.arr.Node, &x.label} {
		*v = r.Int32()
	}
	if r.Bad {
		return b, ErrDepositWire
	}
	*tr = x
	return r.B, nil
}
