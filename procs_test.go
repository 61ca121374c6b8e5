package bglua

import (
	"context"
	"io"
	goruntime "runtime"
	"testing"

	lua "github.com/yuin/gopher-lua"
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

// A run in partitions raises GOMAXPROCS for its threads with Tuning.Procs
// only: without, it leaves the process's setting alone.
func TestTuneProcs(t *testing.T) {
	orig := goruntime.GOMAXPROCS(1)
	defer goruntime.GOMAXPROCS(orig)
	for _, tune := range []bool{false, true} {
		var during int
		cfg := Config{Ranks: 16, Torus: "16x1x1", Threads: 2, Tune: Tuning{Procs: tune}, Stdout: io.Discard,
			GoModules: map[string]lua.LGFunction{"procs": func(L *lua.LState) int {
				during = goruntime.GOMAXPROCS(0)
				return 0
			}}}
		res, err := Run(context.Background(), cfg, Program{Name: "p.lua", Code: []byte(`if mpi.rank() == 0 then require "procs" end`)})
		if err != nil || res.Partitions != 2 {
			t.Fatalf("tune %v: %v, %d partitions, want 2", tune, err, res.Partitions)
		}
		want := 1
		if tune {
			want = 2
		}
		if during != want || goruntime.GOMAXPROCS(0) != 1 {
			t.Errorf("tune %v: GOMAXPROCS %d during the run, %d after; want %d, 1", tune, during, goruntime.GOMAXPROCS(0), want)
		}
	}
}
