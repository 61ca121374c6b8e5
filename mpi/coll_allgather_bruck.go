package mpi

func init() {
	register("allgather", "bruck",
		"Bruck et al.: ceil(log2 n) steps for any n, step k sends the 2^k values held to rank-2^k (MPICH, short messages, other sizes)",
		allgatherAlg(allgatherBruck))
}

// allgatherBruck: buf[j] holds the value of rank me+j. At step d a rank
// receives from me+d the first min(d, n-d) values it holds, which are those of
// ranks me+d, me+d+1, ...
func allgatherBruck(c *Comm, v Value) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	buf := make([]Value, 1, n)
	buf[0] = v
	for d, k := 1, 0; d < n; d, k = d<<1, k+1 {
		cnt := min(d, n-d)
		got := c.CSendrecv(pack(buf[:cnt]), (me-d+n)%n, (me+d)%n, tagAllgatherBruck+k)
		buf = append(buf, unpack(got)...)
	}
	out := make([]Value, n)
	for j, x := range buf {
		out[(me+j)%n] = x
	}
	return out, nil
}
