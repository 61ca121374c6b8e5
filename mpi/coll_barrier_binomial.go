package mpi

func init() {
	register("barrier", "binomial",
		"empty messages gathered up a binomial tree to rank 0, then released down the same tree: 2 ceil(log2 n) steps",
		barrierAlg(barrierBinomial))
}

func barrierBinomial(c *Comm) error {
	n, me := c.Size(), c.Rank()
	_, parent, mask := binomialPos(me, 0, n)
	// Gather: wait for every child (smallest subtree first), then tell the parent.
	for m := 1; m < mask; m <<= 1 {
		if me+m < n {
			c.CRecv(me+m, tagBarrierBinomial)
		}
	}
	if parent >= 0 {
		c.CSend(Value{}, parent, tagBarrierBinomial)
		c.CRecv(parent, tagBarrierBinomial+1)
	}
	// Release: largest subtree first.
	for m := mask >> 1; m > 0; m >>= 1 {
		if me+m < n {
			c.CSend(Value{}, me+m, tagBarrierBinomial+1)
		}
	}
	return nil
}
