// Package wire reads the varint forms that the distributed engine's
// crossings are written in (encoding/binary's AppendVarint and
// AppendUvarint), for the packages that write them: hw, msglayer, runtime
// and mpi each have forms of their own, and one reader. A string is
// written the same way everywhere (AppendText, Reader.Text).
package wire

import "encoding/binary"

// A Reader reads fields from the front of B until the first that is not
// there or does not fit its type: from then on Bad is set and every read
// gives zero, so that a decoder reads all its fields and checks once.
type Reader struct {
	B   []byte
	Bad bool
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.Bad {
		return 0
	}
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.Bad = true
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Varint reads a signed (zigzag) varint.
func (r *Reader) Varint() int64 {
	u := r.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// Int32 reads a varint that must fit an int32.
func (r *Reader) Int32() int32 {
	v := r.Varint()
	if v != int64(int32(v)) {
		r.Bad = true
	}
	return int32(v)
}

// Int reads a varint that must fit an int.
func (r *Reader) Int() int {
	v := r.Varint()
	if v != int64(int(v)) {
		r.Bad = true
	}
	return int(v)
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.Bad || len(r.B) == 0 {
		r.Bad = true
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Text reads a string written by AppendText.
func (r *Reader) Text() string { return string(r.Bytes(r.Uvarint())) }

// AppendText appends s as its length, an unsigned varint, and its bytes.
func AppendText(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Bytes reads n bytes (a view of B's).
func (r *Reader) Bytes(n uint64) []byte {
	if r.Bad || n > uint64(len(r.B)) {
		r.Bad = true
		return nil
	}
	b := r.B[:n]
	r.B = r.B[n:]
	return b
}
