package mpi

func init() {
	register("allgather", "recursive_doubling",
		"log2 n exchanges with rank^2^k, doubling the values held (MPICH); power-of-two sizes only, else an error",
		allgatherAlg(allgatherRecursiveDoubling))
}

// allgatherRecursiveDoubling: before the exchange with rank^mask a rank holds
// the values of its aligned group of mask ranks, and swaps them for the
// partner group's. MPICH's version for other sizes is intricate and is not
// modeled: they are an error (auto takes bruck there).
func allgatherRecursiveDoubling(c *Comm, v Value) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	if !isPow2(n) {
		return nil, c.cannot("allgather", "recursive_doubling", "it needs a power-of-two number of ranks (use bruck or ring)")
	}
	out := make([]Value, n)
	out[me] = v
	for mask := 1; mask < n; mask <<= 1 {
		base := me &^ (mask - 1)
		pbase := base ^ mask
		got := unpack(c.CSendrecv(pack(out[base:base+mask]), me^mask, me^mask, tagAllgatherRD))
		copy(out[pbase:pbase+mask], got)
	}
	return out, nil
}
