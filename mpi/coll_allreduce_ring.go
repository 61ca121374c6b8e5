package mpi

func init() {
	register("allreduce", "ring",
		"ring reduce-scatter of n blocks then ring allgather: 2(n-1) steps of size/n (bandwidth-optimal); numbers, arrays of numbers and mpi.bytes (n/8 doubles) with a predefined elementwise operator, else an error",
		allreduceAlg(allreduceRing))
}

// ringSplittable reports whether the automatic choice may take the ring for
// v: an operand that can be cut into blocks (blockWhyNot), of at least n
// numbers.
func ringSplittable(v Value, op Op, n int) bool {
	return blockWhyNot(v, op) == "" && Elements(v) >= n
}

// allreduceRing: block b of the array is reduced along the ring starting after
// rank b: at step s rank r sends its partial of block r-s to r+1 and combines
// the partial of block r-s-1 received from r-1 (which comes first: it covers
// the ranks before r along the ring), so after n-1 steps rank r holds block
// r+1 complete; n-1 more steps circulate the complete blocks. The operators
// allowed here are commutative, so the ring order is as good as rank order.
// An operand that cannot be cut (blockWhyNot) is an error: every rank
// decides alike, since the operator is the same on every rank.
func allreduceRing(c *Comm, v Value, op Op) (Value, error) {
	if err := c.blockCheck("allreduce", "ring", v, op); err != nil {
		return Value{}, err
	}
	n, me := c.Size(), c.Rank()
	blk := cutBlocks(v, n)
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
	return joinBlocks(v, blk), nil
}
