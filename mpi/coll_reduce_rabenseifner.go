package mpi

func init() {
	register("reduce", "rabenseifner",
		"Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the blocks to the root; for arrays of at least p numbers and predefined elementwise operators (else binomial) (MPICH, long messages)",
		reduceAlg(reduceRabenseifner))
}

// reduceRabenseifner gathers the blocks that rabenseifnerScatter leaves
// complete, one per new rank, towards new rank 0 (at step d a new rank with
// bit d set sends the blocks it holds to new rank - d), which passes the
// result to the root if it is another rank.
func reduceRabenseifner(c *Comm, v Value, op Op, root int) (Value, error) {
	n, me := c.Size(), c.Rank()
	x, ok := v.Data.([]float64)
	if !ringSplittable(v, op, max(n, 2)) || !ok {
		return reduceBinomial(c, v, op, root)
	}
	acc, p, rem, newrank, err := rabenseifnerScatter(c, x, op)
	if err != nil {
		return Value{}, err
	}
	first := rankOfNew(0, rem)
	if newrank >= 0 {
		lo, hi := newrank, newrank+1
		for d := 1; d < p; d *= 2 {
			a, b := blockRange(len(acc), p, lo, hi)
			if newrank&d != 0 {
				c.CSend(Value{Data: acc[a:b:b], Size: 8 * (b - a)}, rankOfNew(newrank-d, rem), tagRabenseifner+4)
				break
			}
			got := c.CRecv(rankOfNew(newrank+d, rem), tagRabenseifner+4)
			pa, pb := blockRange(len(acc), p, hi, hi+d)
			copy(acc[pa:pb], got.Data.([]float64))
			hi += d
		}
	}
	res := Value{Data: acc, Size: 8 * len(acc)}
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
