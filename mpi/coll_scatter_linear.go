package mpi

func init() {
	register("scatter", "linear",
		"the root sends each rank its value in turn",
		scatterAlg(scatterLinear))
}

func scatterLinear(c *Comm, vs []Value, root int) (Value, error) {
	n, me := c.Size(), c.Rank()
	if me != root {
		return c.CRecv(root, tagScatterLinear), nil
	}
	for k := 1; k < n; k++ {
		i := (root + k) % n
		c.CSend(vs[i], i, tagScatterLinear)
	}
	return vs[root], nil
}
