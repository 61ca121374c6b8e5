package mpi

func init() {
	register("alltoall", "bruck",
		"Bruck et al.: rotate, then ceil(log2 n) steps, step k sends every block whose index has bit k set to rank+2^k, then rotate back (MPICH's short-message choice: log n latencies, n/2 log n blocks moved)",
		alltoallAlg(alltoallBruck))
}

const tagAlltoallBruck = 830

// alltoallBruck: buf[j] starts as the value this rank sends to rank me+j. At
// step k, every block whose index has bit k set goes to me+2^k, and the same
// blocks come from me-2^k; after all steps buf[j] holds what rank me-j sent
// to this rank.
func alltoallBruck(c *Comm, vs []Value) ([]Value, error) {
	n, me := c.Size(), c.Rank()
	buf := make([]Value, n)
	for j := range buf {
		buf[j] = vs[(me+j)%n]
	}
	var idx []int
	var sel []Value
	for k, d := 0, 1; d < n; k, d = k+1, d<<1 {
		idx, sel = idx[:0], nil
		for j := d; j < n; j++ {
			if j&d != 0 {
				idx = append(idx, j)
				sel = append(sel, buf[j])
			}
		}
		got := unpack(c.CSendrecv(pack(sel), (me+d)%n, (me-d+n)%n, tagAlltoallBruck+k))
		for i, j := range idx {
			buf[j] = got[i]
		}
	}
	out := make([]Value, n)
	for j, v := range buf {
		out[(me-j+n)%n] = v
	}
	return out, nil
}
