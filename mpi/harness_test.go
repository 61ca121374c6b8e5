package mpi

import (
	"context"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// runRanks runs body on n ranks of a default-shaped torus and returns the
// world after the run. A run error fails the test unless wantErr is set.
func runRanks(t testing.TB, n int, body func(r *Rank)) *World {
	t.Helper()
	w, err := tryRanks(n, body)
	if err != nil {
		t.Fatalf("run of %d ranks: %v", n, err)
	}
	return w
}

func tryRanks(n int, body func(r *Rank)) (*World, error) {
	return tryRanksWith(n, nil, body)
}

// tryRanksWith is tryRanks with a setup step (choosing algorithms) between
// creating the world and running it.
func tryRanksWith(n int, setup func(*World) error, body func(r *Rank)) (*World, error) {
	m := hw.BGL()
	tor := hw.Torus{Dims: hw.DefaultDims(n)}
	mp, err := hw.MapXYZT(tor, n, 1)
	if err != nil {
		return nil, err
	}
	eng := runtime.New()
	w := NewWorld(msglayer.New(m, mp, eng), n)
	if setup != nil {
		if err := setup(w); err != nil {
			return nil, err
		}
	}
	for i := 0; i < n; i++ {
		eng.Spawn(i, 0, func(p *runtime.Proc) { body(w.Rank(p.ID)) })
		w.Attach(i, eng.Procs()[i])
	}
	return w, eng.Run(context.Background())
}
