package mpi

func init() {
	register("allreduce", "recursive_doubling",
		"recursive doubling, ceil(log2 n) exchanges of full-size values; extra ranks of a non-power-of-two size fold into a neighbor first (MPICH, short messages)",
		allreduceAlg(allreduceRecursiveDoubling))
}

// allreduceRecursiveDoubling is MPICH's: with p the largest power of two <= n
// and rem = n-p, the first 2*rem ranks pair up (2i, 2i+1); the even one sends
// its value to the odd one, which combines and takes part as new rank i, while
// ranks >= 2*rem take part as rank-rem. New ranks then exchange partials with
// newrank^mask for mask = 1, 2, ..., p/2. New ranks map monotonically onto
// contiguous ranges of ranks, so every partial covers a contiguous range and
// the partner's goes first when its rank is lower: rank order is kept for
// non-commutative operators. At the end the odd ranks send the result back.
func allreduceRecursiveDoubling(c *Comm, v Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	p, rem, _ := foldPlan(n, me)
	acc := v
	var err error
	newrank := me - rem
	if me < 2*rem {
		if me%2 == 0 {
			c.CSend(acc, me+1, tagAllreduceRD)
			return c.CRecv(me+1, tagAllreduceRD+2), nil
		}
		got := c.CRecv(me-1, tagAllreduceRD)
		if acc, err = combine(c, op, got, acc); err != nil {
			return Value{}, err
		}
		newrank = me / 2
	}
	for mask := 1; mask < p; mask <<= 1 {
		nd := newrank ^ mask
		dst := nd + rem
		if nd < rem {
			dst = 2*nd + 1
		}
		got := c.CSendrecv(acc, dst, dst, tagAllreduceRD+1)
		if dst < me {
			acc, err = combine(c, op, got, acc)
		} else {
			acc, err = combine(c, op, acc, got)
		}
		if err != nil {
			return Value{}, err
		}
	}
	if me < 2*rem {
		c.CSend(acc, me-1, tagAllreduceRD+2)
	}
	return acc, nil
}
