package mpi

func init() {
	register("scatter", "binomial",
		"binomial tree from the root: each child gets its subtree's values in one message, ceil(log2 n) rounds (MPICH)",
		scatterAlg(scatterBinomial))
}

// scatterBinomial: a rank holds the values of relative ranks [rel, rel+mask)
// (all n at the root) and hands child rel+m those of [rel+m, rel+2m).
func scatterBinomial(c *Comm, vs []Value, root int) (Value, error) {
	n := c.Size()
	rel, parent, mask := binomialPos(c.Rank(), root, n)
	var buf []Value // buf[i] belongs to relative rank rel+i
	if parent < 0 {
		buf = make([]Value, n)
		for i := range buf {
			buf[i] = vs[(i+root)%n]
		}
	} else {
		buf = unpack(c.CRecv(parent, tagScatterBinomial))
	}
	for m := mask >> 1; m > 0; m >>= 1 {
		if rel+m < n {
			hi := min(2*m, n-rel)
			c.CSend(pack(buf[m:hi]), (rel+m+root)%n, tagScatterBinomial)
		}
	}
	return buf[0], nil
}
