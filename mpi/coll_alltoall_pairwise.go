package mpi

func init() {
	register("alltoall", "pairwise",
		"n-1 exchange steps, one partner each (rank^k for power-of-two sizes, else send to rank+k and receive from rank-k) (MPICH, long messages)",
		alltoallAlg(alltoallPairwise))
}

func alltoallPairwise(c *Comm, vs []Value) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	out := make([]Value, n)
	out[me] = vs[me]
	pow2 := isPow2(n)
	for k := 1; k < n; k++ {
		dst, src := (me+k)%n, (me-k+n)%n
		if pow2 {
			dst, src = me^k, me^k
		}
		out[src] = c.CSendrecv(vs[dst], dst, src, tagAlltoallPairwise)
	}
	return out, nil
}
