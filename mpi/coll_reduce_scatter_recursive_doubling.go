package mpi

func init() {
	register("reduce_scatter", "recursive_doubling",
		"recursive doubling over the whole vector of blocks, ceil(log2 n) exchanges; extra ranks of a non-power-of-two size fold into a neighbour first; rank order kept (MPICH's choice for non-commutative operators)",
		reduceScatterAlg(reduceScatterRecursiveDoubling))
}

const tagReduceScatterRD = 910 // +0 fold, +1 exchange, +2 unfold

// reduceScatterRecursiveDoubling runs the recursive doubling of
// allreduceRecursiveDoubling on the vector of n blocks (each partial covers a
// contiguous range of ranks, the lower range combined first), then keeps the
// block of this rank.
func reduceScatterRecursiveDoubling(c *Comm, vs []Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	p, rem, _ := foldPlan(n, me)
	acc := vs
	var err error
	newrank := me - rem
	if me < 2*rem {
		if me%2 == 0 {
			c.CSend(pack(acc), me+1, tagReduceScatterRD)
			return c.CRecv(me+1, tagReduceScatterRD+2), nil
		}
		got := unpack(c.CRecv(me-1, tagReduceScatterRD))
		if acc, err = combineBlocks(c, op, got, acc); err != nil {
			return Value{}, err
		}
		newrank = me / 2
	}
	for mask := 1; mask < p; mask <<= 1 {
		nd := newrank ^ mask
		dst := nd + rem
		if nd < rem {
			dst = 2*nd + 1
		}
		got := unpack(c.CSendrecv(pack(acc), dst, dst, tagReduceScatterRD+1))
		if dst < me {
			acc, err = combineBlocks(c, op, got, acc)
		} else {
			acc, err = combineBlocks(c, op, acc, got)
		}
		if err != nil {
			return Value{}, err
		}
	}
	if me < 2*rem {
		c.CSend(acc[me-1], me-1, tagReduceScatterRD+2)
	}
	return acc[me], nil
}

// combineBlocks combines two vectors of blocks block by block (a from lower
// ranks).
func combineBlocks(c *Comm, op Op, a, b []Value) ([]Value, error) {
	out := make([]Value, len(a))
	for i := range a {
		var err error
		if out[i], err = combine(c, op, a[i], b[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
