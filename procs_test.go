package bglua

import (
	goruntime "runtime"
	"testing"
)

// TestRaiseProcs: overlapping runs in partitions raise GOMAXPROCS to the
// largest thread count under way and put back the embedder's value when the
// last one ends, in any order.
func TestRaiseProcs(t *testing.T) {
	orig := goruntime.GOMAXPROCS(1)
	defer goruntime.GOMAXPROCS(orig)
	check := func(step string, want int) {
		t.Helper()
		if got := goruntime.GOMAXPROCS(0); got != want {
			t.Errorf("%s: GOMAXPROCS %d, want %d", step, got, want)
		}
	}
	a := raiseProcs(2)
	check("a (2) started", 2)
	b := raiseProcs(3)
	check("b (3) started", 3)
	a()
	check("a ended", 3)
	c := raiseProcs(2)
	b()
	check("b ended", 2)
	c()
	check("all ended", 1)

	// A run narrowed to one thread gives its Ps back, not another run's.
	d, e := claimProcs(2), claimProcs(3)
	e.set(1)
	check("e narrowed, d (2) under way", 2)
	d.set(1)
	check("both narrowed", 1)
	e.set(3)
	check("e widened", 3)
	e.release()
	d.release()
	d.release() // twice: nothing more
	check("all ended again", 1)
}
