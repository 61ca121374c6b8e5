package mpi

func init() {
	register("exscan", "linear",
		"rank r receives the prefix of ranks < r from r-1 (its result), appends its value and passes it to r+1: n-1 steps",
		scanAlg(exscanLinear))
}

func exscanLinear(c *Comm, v Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	if me == 0 {
		if n > 1 {
			c.CSend(v, 1, tagExscan)
		}
		return Value{}, nil
	}
	prev := c.CRecv(me-1, tagExscan)
	if me < n-1 {
		next, err := combine(c, op, prev, v)
		if err != nil {
			return Value{}, err
		}
		c.CSend(next, me+1, tagExscan)
	}
	return prev, nil
}
