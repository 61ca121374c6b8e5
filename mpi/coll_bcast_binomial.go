package mpi

func init() {
	register("bcast", "binomial",
		"binomial tree from the root: ceil(log2 n) rounds of full-size messages (MPICH, short messages)",
		bcastAlg(bcastBinomial))
}

func bcastBinomial(c *Comm, v Value, root int) (Value, error) {
	rel, parent, mask := binomialPos(c.Rank(), root, c.Size())
	if parent >= 0 {
		v = c.CRecv(parent, tagBcast)
	}
	bcastBinomialForward(c, v, root, rel, mask)
	return v, nil
}

// bcastBinomialForward sends v to the children of relative rank rel, largest
// subtree first.
func bcastBinomialForward(c *Comm, v Value, root, rel, mask int) {
	n := c.Size()
	for m := mask >> 1; m > 0; m >>= 1 {
		if rel+m < n {
			c.CSend(v, (rel+m+root)%n, tagBcast)
		}
	}
}
