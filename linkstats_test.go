package bglua

import (
	"context"
	"io"
	"strings"
	"testing"
)

// The busiest links name the collectives that loaded them, whichever way
// the collective drives the torus: point-to-point messages (recursive
// doubling), packet streams (the optimized alltoall) or deposit-bit lines
// (the torus broadcast); traffic outside collectives is unnamed. The
// dimensions' sums add up to what the links carried.
func TestLinkStatsNameCollectives(t *testing.T) {
	prog := Program{Name: "links.lua", Code: []byte(`
local n = mpi.size()
mpi.sendrecv(mpi.bytes(100000), (mpi.rank() + 1) % n, (mpi.rank() - 1) % n)
local t = {}
for i = 1, n do t[i] = mpi.bytes(2000) end
mpi.alltoall(t)
mpi.bcast(mpi.bytes(50000), 0)
mpi.allreduce(mpi.bytes(4096))
`)}
	for _, c := range []struct {
		coll map[string]string
		want []string
	}{
		{map[string]string{"alltoall": "optimized", "bcast": "torus", "allreduce": "recursive_doubling"},
			[]string{"alltoall (optimized)", "bcast (torus)", "allreduce (recursive_doubling)", ""}},
		{map[string]string{"alltoall": "pairwise", "bcast": "binomial", "allreduce": "ring"},
			[]string{"alltoall (pairwise)", "bcast (binomial)", "allreduce (ring)", ""}},
	} {
		res, err := Run(context.Background(), Config{Ranks: 64, Stats: true, Coll: c.coll, Stdout: io.Discard, Quiet: true}, prog)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, l := range res.Links {
			var sum int64
			for _, u := range l.Uses {
				seen[u.Name] = true
				sum += u.Bytes
			}
			if sum != l.Bytes || l.Busy <= 0 || l.Busy > 1 || !strings.HasPrefix(l.Link, "(") {
				t.Errorf("%v: link %+v: uses sum to %d", c.coll, l, sum)
			}
		}
		for _, w := range c.want {
			if !seen[w] {
				t.Errorf("%v: no busiest link used by %q (seen %v)", c.coll, w, seen)
			}
		}
		if len(res.Links) != MaxLinkRows {
			t.Errorf("%d link rows, want %d", len(res.Links), MaxLinkRows)
		}
		for i := 1; i < len(res.Links); i++ {
			a, b := res.Links[i-1], res.Links[i]
			if a.Busy < b.Busy || a.Busy == b.Busy && a.Bytes == b.Bytes && a.Index > b.Index {
				t.Errorf("links out of order: %+v before %+v", a, b)
			}
		}
		var busiest float64
		for _, d := range res.LinkDims {
			busiest = max(busiest, d.MaxBusy)
			if d.Links != 128 || d.MeanBusy <= 0 || d.MeanBusy > d.MaxBusy {
				t.Errorf("dimension %+v", d)
			}
		}
		if busiest != res.Links[0].Busy {
			t.Errorf("busiest link %v, dimensions' max %v", res.Links[0].Busy, busiest)
		}
	}
}
