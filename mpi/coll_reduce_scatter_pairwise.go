package mpi

func init() {
	register("reduce_scatter", "pairwise",
		"n-1 exchange steps (send to rank+k the block for it, receive from rank-k), then a left fold in rank order (MPICH, long messages)",
		reduceScatterAlg(reduceScatterPairwise))
}

// reduceScatterPairwise collects the n contributions to this rank's block and
// folds them in rank order, so non-commutative operators are right too.
func reduceScatterPairwise(c *Comm, vs []Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	in := make([]Value, n)
	in[me] = vs[me]
	for k := 1; k < n; k++ {
		dst, src := (me+k)%n, (me-k+n)%n
		in[src] = c.CSendrecv(vs[dst], dst, src, tagReduceScatter)
	}
	acc := in[0]
	for _, x := range in[1:] {
		var err error
		if acc, err = combine(c, op, acc, x); err != nil {
			return Value{}, err
		}
	}
	return acc, nil
}
