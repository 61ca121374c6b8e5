package mpi

func init() {
	register("reduce", "rabenseifner",
		"Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the blocks to the root; numbers, arrays of numbers and mpi.bytes (n/8 doubles) with a predefined elementwise operator, else an error (MPICH, long messages)",
		reduceAlg(reduceRabenseifner))
}

// reduceRabenseifner gathers the blocks that rabenseifnerScatter leaves
// complete, one per new rank, towards new rank 0 (at step d a new rank with
// bit d set sends the blocks it holds to new rank - d), which passes the
// result to the root if it is another rank. An operand that cannot be cut
// (blockWhyNot) is an error.
func reduceRabenseifner(c *Comm, v Value, op Op, root int) (Value, error) {
	if err := c.blockCheck("reduce", "rabenseifner", v, op); err != nil {
		return Value{}, err
	}
	me := c.Rank()
	blk, p, rem, newrank, err := rabenseifnerScatter(c, v, op)
	if err != nil {
		return Value{}, err
	}
	first := rankOfNew(0, rem)
	if newrank >= 0 {
		lo, hi := newrank, newrank+1
		for d := 1; d < p; d *= 2 {
			if newrank&d != 0 {
				c.CSend(pack(blk[lo:hi]), rankOfNew(newrank-d, rem), tagRabenseifner+4)
				break
			}
			got := unpack(c.CRecv(rankOfNew(newrank+d, rem), tagRabenseifner+4))
			copy(blk[hi:hi+len(got)], got)
			hi += len(got)
		}
	}
	var res Value
	if me == first {
		res = joinBlocks(v, blk)
	}
	switch {
	case me == first && root != first:
		c.CSend(res, root, tagRabenseifner+5)
	case me == root && root != first:
		return c.CRecv(first, tagRabenseifner+5), nil
	}
	if me != root {
		return Value{}, nil
	}
	return res, nil
}
