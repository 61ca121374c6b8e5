package mpi

func init() {
	register("allreduce", "rabenseifner",
		"Rabenseifner: reduce-scatter by recursive halving, then allgather by recursive doubling, 2 log2 p steps moving 2(p-1)/p of the array; extra ranks fold in first; for arrays of at least p numbers and predefined elementwise operators (else recursive_doubling) (MPICH, long messages)",
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

// rabenseifnerScatter folds in the extra ranks and reduce-scatters x by
// recursive halving among the p taking part: it returns this rank's array,
// in which only the elements of block newrank are complete (blocks cut the
// array into p ranges), and the plan. A rank that sat out gets nil.
func rabenseifnerScatter(c *Comm, x []float64, op Op) (acc []float64, p, rem, newrank int, err error) {
	n, me := c.Size(), c.Rank()
	p, rem, newrank = foldPlan(n, me)
	acc = append([]float64(nil), x...)
	if newrank < 0 {
		c.CSend(Value{Data: acc, Size: 8 * len(acc)}, me+1, tagRabenseifner)
		return nil, p, rem, newrank, nil
	}
	if me < 2*rem {
		got := c.CRecv(me-1, tagRabenseifner)
		if acc, err = combineFloats(c, op, got.Data.([]float64), acc); err != nil {
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
		a, b := blockRange(len(acc), p, sendLo, sendHi)
		part := acc[a:b:b]
		got := c.CSendrecv(Value{Data: part, Size: 8 * len(part)}, rankOfNew(partner, rem), rankOfNew(partner, rem), tagRabenseifner+1)
		ka, kb := blockRange(len(acc), p, keepLo, keepHi)
		var merged []float64
		if partner < newrank {
			merged, err = combineFloats(c, op, got.Data.([]float64), acc[ka:kb])
		} else {
			merged, err = combineFloats(c, op, acc[ka:kb], got.Data.([]float64))
		}
		if err != nil {
			return nil, p, rem, newrank, err
		}
		copy(acc[ka:kb], merged)
		lo, hi = keepLo, keepHi
	}
	return acc, p, rem, newrank, nil
}

// blockRange is the range of elements of blocks [lo, hi) of an array of m
// elements cut into p blocks.
func blockRange(m, p, lo, hi int) (int, int) { return m * lo / p, m * hi / p }

func combineFloats(c *Comm, op Op, a, b []float64) ([]float64, error) {
	v, err := combine(c, op, Value{Data: a, Size: 8 * len(a)}, Value{Data: b, Size: 8 * len(b)})
	if err != nil {
		return nil, err
	}
	return v.Data.([]float64), nil
}

// allreduceRabenseifner: the reduce-scatter above, then recursive doubling
// of the complete blocks (d = 1, 2, ..., p/2), then the result goes back to
// the ranks that sat out.
func allreduceRabenseifner(c *Comm, v Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	x, ok := v.Data.([]float64)
	if !ringSplittable(v, op, max(n, 2)) || !ok {
		return allreduceRecursiveDoubling(c, v, op)
	}
	acc, p, rem, newrank, err := rabenseifnerScatter(c, x, op)
	if err != nil {
		return Value{}, err
	}
	if newrank < 0 {
		return c.CRecv(me+1, tagRabenseifner+3), nil
	}
	lo, hi := newrank, newrank+1
	for d := 1; d < p; d *= 2 {
		partner := newrank ^ d
		a, b := blockRange(len(acc), p, lo, hi)
		got := c.CSendrecv(Value{Data: acc[a:b:b], Size: 8 * (b - a)}, rankOfNew(partner, rem), rankOfNew(partner, rem), tagRabenseifner+2)
		plo, phi := lo+d, hi+d // the partner's blocks, next to ours
		if newrank&d != 0 {
			plo, phi = lo-d, hi-d
		}
		pa, pb := blockRange(len(acc), p, plo, phi)
		copy(acc[pa:pb], got.Data.([]float64))
		lo, hi = min(lo, plo), max(hi, phi)
	}
	res := Value{Data: acc, Size: 8 * len(acc)}
	if me < 2*rem {
		c.CSend(res, me-1, tagRabenseifner+3)
	}
	return res, nil
}
