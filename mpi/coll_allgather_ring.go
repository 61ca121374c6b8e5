package mpi

func init() {
	register("allgather", "ring",
		"n-1 steps around the ring, each passing on the value received in the step before (MPICH, long messages)",
		allgatherAlg(allgatherRing))
}

func allgatherRing(c *Comm, v Value) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	out := make([]Value, n)
	out[me] = v
	right, left := (me+1)%n, (me-1+n)%n
	for s := 0; s < n-1; s++ {
		out[(me-s-1+n)%n] = c.CSendrecv(out[(me-s+n)%n], right, left, tagAllgatherRing)
	}
	return out, nil
}
