package mpi

func init() {
	register("gather", "binomial",
		"binomial tree to the root: each rank forwards its subtree's values in one message, ceil(log2 n) rounds (MPICH)",
		gatherAlg(gatherBinomial))
}

// gatherBinomial: in round mask a rank whose relative bit mask is clear
// receives the values of relative ranks [rel+mask, rel+2mask) and appends
// them to its own [rel, rel+mask); a rank whose bit is set sends them all to
// rel-mask and is done.
func gatherBinomial(c *Comm, v Value, root int) ([]Value, error) {
	n := c.Size()
	rel := (c.Rank() - root + n) % n
	buf := []Value{v}
	for mask := 1; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			c.CSend(pack(buf), (rel-mask+root)%n, tagGatherBinomial)
			return nil, nil
		}
		if src := rel | mask; src < n {
			buf = append(buf, unpack(c.CRecv((src+root)%n, tagGatherBinomial))...)
		}
	}
	out := make([]Value, n)
	for i, x := range buf {
		out[(i+root)%n] = x
	}
	return out, nil
}
