package mpi

func init() {
	register("gather", "linear",
		"every rank sends to the root, which posts all n-1 receives at once",
		gatherAlg(gatherLinear))
}

func gatherLinear(c *Comm, v Value, root int) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	if me != root {
		c.CSend(v, root, tagGatherLinear)
		return nil, nil
	}
	qs := make([]*Request, 0, n-1)
	for i := 0; i < n; i++ {
		if i != root {
			qs = append(qs, c.CIrecv(i, tagGatherLinear))
		}
	}
	c.CWaitall(qs)
	out := make([]Value, n)
	out[root] = v
	for _, q := range qs {
		out[q.Status.Source] = q.Value
	}
	return out, nil
}
