package mpi

func init() {
	register("alltoall", "postall",
		"post all n-1 receives, send to rank+1, rank+2, ... then wait for all (MPICH, medium messages)",
		alltoallAlg(alltoallPostall))
}

func alltoallPostall(c *Comm, vs []Value) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	qs := make([]*Request, 0, 2*(n-1))
	for k := 1; k < n; k++ {
		qs = append(qs, c.CIrecv((me-k+n)%n, tagAlltoallPostall))
	}
	for k := 1; k < n; k++ {
		dst := (me + k) % n
		qs = append(qs, c.CIsend(vs[dst], dst, tagAlltoallPostall))
	}
	c.CWaitall(qs)
	out := make([]Value, n)
	out[me] = vs[me]
	for k := 1; k < n; k++ {
		out[(me-k+n)%n] = qs[k-1].Value
	}
	return out, nil
}
