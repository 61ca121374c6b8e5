package mpi

func init() {
	register("allreduce", "reduce_bcast",
		"reduce to rank 0, then broadcast from rank 0, with the reduce and bcast algorithms chosen for the run",
		allreduceAlg(allreduceReduceBcast))
}

func allreduceReduceBcast(c *Comm, v Value, op Op) (Value, error) {
	r, err := c.reduceAlg()(c, v, op, 0)
	if err != nil {
		return Value{}, err
	}
	return c.bcastAlg()(c, r, 0)
}
