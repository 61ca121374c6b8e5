package mpi

func init() {
	register("barrier", "dissemination",
		"ceil(log2 n) rounds; in round k each rank signals rank+2^k and waits for rank-2^k (Hensgen et al.; MPICH)",
		barrierAlg(barrierDissemination))
}

// barrierDissemination: after round k every rank has heard, directly or not,
// from the 2^(k+1) ranks before it, so after ceil(log2 n) rounds from all.
func barrierDissemination(c *Comm) error {
	n, me := c.Size(), c.Rank()
	for d, k := 1, 0; d < n; d, k = d<<1, k+1 {
		c.CSendrecv(Value{}, (me+d)%n, (me-d+n)%n, tagBarrierDissemination+k)
	}
	return nil
}
