package mpi

func init() {
	register("reduce", "binomial",
		"binomial tree, ceil(log2 n) rounds; rooted at the root for commutative operators, else at rank 0 (rank order kept) plus one message to the root (MPICH)",
		reduceAlg(reduceBinomial))
}

// reduceBinomial: in round mask a rank whose bit mask is clear receives the
// partial result of the relative ranks [rel+mask, rel+2mask) and appends it to
// its own, of [rel, rel+mask); a rank whose bit is set sends its partial to
// rel-mask and is done. For a non-commutative operator the tree is rooted at
// rank 0, so every partial covers a contiguous range of ranks and combines
// lower with higher; rank 0 then sends the result to the root. A commutative
// operator uses the tree rooted at the root, as MPICH does.
func reduceBinomial(c *Comm, v Value, op Op, root int) (Value, error) {
	n, me := c.Size(), c.Rank()
	top := 0
	if op.Commutative() {
		top = root
	}
	rel := (me - top + n) % n
	acc := v
	for mask := 1; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			c.CSend(acc, (rel-mask+top)%n, tagReduceBinomial)
			if me == root { // top is rank 0: the result comes back
				return c.CRecv(top, tagReduceBinomial+1), nil
			}
			return Value{}, nil
		}
		if src := rel | mask; src < n {
			got := c.CRecv((src+top)%n, tagReduceBinomial)
			var err error
			if acc, err = combine(c, op, acc, got); err != nil {
				return Value{}, err
			}
		}
	}
	// Here rel == 0, so me == top and acc is the result.
	if me == root {
		return acc, nil
	}
	c.CSend(acc, root, tagReduceBinomial+1)
	return Value{}, nil
}
