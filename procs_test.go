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
}
