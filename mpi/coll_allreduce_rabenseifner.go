package mpi

func init() {
	register("allreduce", "rabenseifner",
		"Rabenseifner: reduce-scatter by recursive halving, then allgather by recursive doubling, 2 log2 p steps moving 2(p-1)/p of the array; extra ranks fold in first; numbers, arrays of numbers and mpi.bytes (n/8 doubles) with a predefined elementwise operator, else an error (MPICH, long messages)",
		allreduceAlg(allreduceRabenseifner))
}

const tagRabenseifner = 420 // +0 fold, +1 halving, +2 doubling, +3 unfold, +4 to root

// foldPlan is how recursive doubling and Rabenseifner fold the extra ranks
// of a non-power-of-two size (MPICH): p is the largest power of two <= n, and the
// first 2*rem ranks pair up, the odd one of each pair taking part as new
// rank me/2. newrank is -1 for a rank that sits out.
func foldPlan(n, me int) (p, rem, newrank int) {
	p = 1
	for p*2 <= n {
		p *= 2
	}
	rem = n - p
	switch {
	case me < 2*rem && me%2 == 0:
		newrank = -1
	case me < 2*rem:
		newrank = me / 2
	default:
		newrank = me - rem
	}
	return p, rem, newrank
}

// rankOfNew is the rank that takes part as new rank nr.
func rankOfNew(nr, rem int) int {
	if nr < rem {
		return 2*nr + 1
	}
	return nr + rem
}

// rabenseifnerScatter folds in the extra ranks and reduce-scatters v by
// recursive halving among the p taking part: it returns v cut into p blocks
// (cutBlocks), of which only block newrank is complete, and the plan. A
// rank that sat out gets nil.
func rabenseifnerScatter(c *Comm, v Value, op Op) (blk []Value, p, rem, newrank int, err error) {
	n, me := c.Size(), c.Rank()
	p, rem, newrank = foldPlan(n, me)
	blk = cutBlocks(v, p)
	if newrank < 0 {
		c.CSend(pack(blk), me+1, tagRabenseifner)
		return nil, p, rem, newrank, nil
	}
	if me < 2*rem {
		got := unpack(c.CRecv(me-1, tagRabenseifner))
		if blk, err = combineBlocks(c, op, got, blk); err != nil {
			return nil, p, rem, newrank, err
		}
	}
	lo, hi := 0, p // the blocks this rank is still reducing
	for d := p / 2; d >= 1; d /= 2 {
		mid := lo + (hi-lo)/2
		partner := newrank ^ d
		keepLo, keepHi, sendLo, sendHi := lo, mid, mid, hi
		if newrank&d != 0 {
			keepLo, keepHi, sendLo, sendHi = mid, hi, lo, mid
		}
		peer := rankOfNew(partner, rem)
		got := unpack(c.CSendrecv(pack(blk[sendLo:sendHi]), peer, peer, tagRabenseifner+1))
		var merged []Value
		if partner < newrank {
			merged, err = combineBlocks(c, op, got, blk[keepLo:keepHi])
		} else {
			merged, err = combineBlocks(c, op, blk[keepLo:keepHi], got)
		}
		if err != nil {
			return nil, p, rem, newrank, err
		}
		copy(blk[keepLo:keepHi], merged)
		lo, hi = keepLo, keepHi
	}
	return blk, p, rem, newrank, nil
}

// allreduceRabenseifner: the reduce-scatter above, then recursive doubling
// of the complete blocks (d = 1, 2, ..., p/2), then the result goes back to
// the ranks that sat out. An operand that cannot be cut (blockWhyNot) is an
// error.
func allreduceRabenseifner(c *Comm, v Value, op Op) (Value, error) {
	if err := c.blockCheck("allreduce", "rabenseifner", v, op); err != nil {
		return Value{}, err
	}
	me := c.Rank()
	blk, p, rem, newrank, err := rabenseifnerScatter(c, v, op)
	if err != nil {
		return Value{}, err
	}
	if newrank < 0 {
		return c.CRecv(me+1, tagRabenseifner+3), nil
	}
	lo, hi := newrank, newrank+1
	for d := 1; d < p; d *= 2 {
		partner := newrank ^ d
		peer := rankOfNew(partner, rem)
		got := unpack(c.CSendrecv(pack(blk[lo:hi]), peer, peer, tagRabenseifner+2))
		plo := hi // the partner's blocks, next to ours
		if newrank&d != 0 {
			plo = lo - d
		}
		copy(blk[plo:plo+d], got)
		lo, hi = min(lo, plo), max(hi, plo+d)
	}
	res := joinBlocks(v, blk)
	if me < 2*rem {
		c.CSend(res, me-1, tagRabenseifner+3)
	}
	return res, nil
}
