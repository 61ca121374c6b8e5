package mpi

import "fmt"

// Reductions cut into blocks (ring, Rabenseifner): the operand is an array
// of numbers cut into ranges of elements that are reduced apart. A number
// is an array of one, and an mpi.bytes phantom of N bytes an array of
// ceil(N/8) doubles whose blocks are phantoms of their share of the bytes,
// so that a phantom and the doubles of its size send the same messages and
// combine the same elements: the same virtual time.

// blockWhyNot says why a reduction of v with op cannot be cut into blocks,
// or "". The operator is the same on every rank; the value's kind may not
// be, and the rank that has the wrong one says so.
func blockWhyNot(v Value, op Op) string {
	b, ok := op.(*Builtin)
	switch {
	case !ok:
		return fmt.Sprintf("the operator (%s) is not a predefined one: it combines whole values in rank order, and this algorithm reduces blocks of an array apart, out of rank order (it needs a predefined elementwise operator such as mpi.SUM)", op.Name())
	case b.loc != 0:
		return fmt.Sprintf("operator %s combines {value, index} pairs whole, and this algorithm cuts the array into blocks", b.Name())
	}
	switch v.Data.(type) {
	case float64, []float64, Phantom:
		return ""
	}
	return fmt.Sprintf("the value is %s, and this algorithm cuts an array of numbers (or an mpi.bytes) into blocks", kind(v.Data))
}

// blockCheck is the error of a reduction of v with op that alg of coll
// cannot cut into blocks: the operator's own error for values no
// predefined operator takes, else an AlgorithmError.
func (c *Comm) blockCheck(coll, alg string, v Value, op Op) error {
	why := blockWhyNot(v, op)
	if why == "" {
		return nil
	}
	if b, ok := op.(*Builtin); ok && b.loc == 0 {
		if _, err := b.Combine(v, v); err != nil {
			return err
		}
	}
	return c.cannot(coll, alg, why)
}

// cutBlocks cuts v into p blocks of consecutive elements, block b holding
// elements [m*b/p, m*(b+1)/p) of its m (some empty when m < p). v must pass
// blockWhyNot.
func cutBlocks(v Value, p int) []Value {
	m := Elements(v)
	out := make([]Value, p)
	for b := range out {
		lo, hi := m*b/p, m*(b+1)/p
		switch d := v.Data.(type) {
		case float64:
			if lo < hi {
				out[b] = Value{Data: []float64{d}, Size: 8}
			} else {
				out[b] = Value{Data: []float64{}, Size: 0}
			}
		case []float64:
			out[b] = Value{Data: d[lo:hi:hi], Size: 8 * (hi - lo)}
		case Phantom:
			n := min(8*hi, d.N) - min(8*lo, d.N)
			out[b] = Value{Data: Phantom{N: n}, Size: n}
		}
	}
	return out
}

// joinBlocks puts blocks cut from a value shaped as like back together.
func joinBlocks(like Value, blks []Value) Value {
	switch like.Data.(type) {
	case Phantom:
		n := 0
		for _, b := range blks {
			n += b.Size
		}
		return Value{Data: Phantom{N: n}, Size: n}
	case float64:
		for _, b := range blks {
			if x := b.Data.([]float64); len(x) == 1 {
				return Value{Data: x[0], Size: 8}
			}
		}
	}
	out := make([]float64, 0, Elements(like))
	for _, b := range blks {
		out = append(out, b.Data.([]float64)...)
	}
	return Value{Data: out, Size: 8 * len(out)}
}

// AlgorithmError is a call that the algorithm chosen for the run (--coll)
// cannot carry out. It stops the run rather than letting another algorithm
// run in its place unseen.
type AlgorithmError struct {
	Coll, Alg string
	Comm      string // the communicator's name
	Size      int    // its ranks
	Reason    string
}

func (e *AlgorithmError) Error() string {
	return fmt.Sprintf("--coll %s=%s cannot run this call on %s (%d ranks): %s; choose another algorithm for %s ('--coll help' lists them) or leave it to auto",
		e.Coll, e.Alg, e.Comm, e.Size, e.Reason, e.Coll)
}

func (c *Comm) cannot(coll, alg, reason string) error {
	return &AlgorithmError{Coll: coll, Alg: alg, Comm: c.Name, Size: c.size, Reason: reason}
}
