package mpi

func init() {
	register("scan", "linear",
		"rank r waits for the prefix of ranks < r from r-1, combines its value and passes the result to r+1: n-1 steps",
		scanAlg(scanLinear))
}

func scanLinear(c *Comm, v Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	acc := v
	if me > 0 {
		var err error
		if acc, err = combine(c, op, c.CRecv(me-1, tagScan), v); err != nil {
			return Value{}, err
		}
	}
	if me < n-1 {
		c.CSend(acc, me+1, tagScan)
	}
	return acc, nil
}
