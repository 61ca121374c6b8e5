package mpi

import (
	"testing"

	"github.com/bglua/bglua/hw"
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
	return runOn(hw.BGL(), hw.Torus{Dims: hw.DefaultDims(n)}, 1, n, setup, body)
}
