package mpi

func init() {
	register("allreduce", "ring",
		"ring reduce-scatter of n blocks then ring allgather: 2(n-1) steps of size/n (bandwidth-optimal); values that cannot be cut fall back to reduce_bcast",
		allreduceAlg(allreduceRing))
}

// ringSplittable reports whether the ring can cut v into n blocks and reduce
// them separately: v must be an array of at least n numbers and op a
// predefined elementwise operator (MAXLOC and MINLOC take whole pairs; a user
// operator sees whole values).
func ringSplittable(v Value, op Op, n int) bool {
	b, ok := op.(*Builtin)
	if !ok || b.loc != 0 {
		return false
	}
	x, ok := v.Data.([]float64)
	return ok && len(x) >= n
}

// allreduceRing: block b of the array is reduced along the ring starting after
// rank b: at step s rank r sends its partial of block r-s to r+1 and combines
// the partial of block r-s-1 received from r-1 (which comes first: it covers
// the ranks before r along the ring), so after n-1 steps rank r holds block
// r+1 complete; n-1 more steps circulate the complete blocks. The operators
// allowed here are commutative, so the ring order is as good as rank order.
// Values that cannot be cut (see ringSplittable) use reduce then bcast, which
// every rank decides alike since predefined operators need arrays of the same
// length everywhere.
func allreduceRing(c *Comm, v Value, op Op) (Value, error) {
	n, me := c.Size(), c.Rank()
	if !ringSplittable(v, op, n) {
		return allreduceReduceBcast(c, v, op)
	}
	x := v.Data.([]float64)
	blk := make([]Value, n)
	for b := range blk {
		lo, hi := len(x)*b/n, len(x)*(b+1)/n
		blk[b] = Value{Data: x[lo:hi:hi], Size: 8 * (hi - lo)}
	}
	right, left := (me+1)%n, (me-1+n)%n
	for s := 0; s < n-1; s++ {
		send, recv := (me-s+n)%n, (me-s-1+n)%n
		got := c.CSendrecv(blk[send], right, left, tagAllreduceRing)
		var err error
		if blk[recv], err = combine(c, op, got, blk[recv]); err != nil {
			return Value{}, err
		}
	}
	for s := 0; s < n-1; s++ {
		send, recv := (me+1-s+n)%n, (me-s+n)%n
		blk[recv] = c.CSendrecv(blk[send], right, left, tagAllreduceRing+1)
	}
	out := make([]float64, 0, len(x))
	for _, b := range blk {
		out = append(out, b.Data.([]float64)...)
	}
	return Value{Data: out, Size: 8 * len(out)}, nil
}
