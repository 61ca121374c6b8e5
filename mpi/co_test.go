package mpi

import (
	"errors"
	"math"
	"testing"

	"github.com/bglua/bglua/hw"
)

// TestCoUnit: a work unit's cycles run on CPU 1 while the rank goes on;
// Join waits for whichever ends later, the unit or the rank's own work.
func TestCoUnit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		unit, compute []int64 // work declared for the unit; the rank's own, after Start
		want          Time    // when Join returns
	}{
		{"no work", nil, nil, 0},
		{"unit only", []int64{300, 700}, nil, 1000},
		{"rank longer", []int64{100}, []int64{500}, 500},
		{"unit longer", []int64{800}, []int64{200}, 800},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup := func(w *World) error { w.ml.Coprocessor = true; return nil }
			_, err := runOn(hw.BGL(), hw.Torus{Dims: hw.DefaultDims(1)}, 1, 1, setup, func(r *Rank) {
				if !r.HasCoprocessor() {
					t.Fatal("no coprocessor in coprocessor mode")
				}
				u := r.NewCoUnit()
				for _, c := range tc.unit {
					if err := u.Add(c); err != nil {
						t.Fatal(err)
					}
				}
				u.Start()
				for _, c := range tc.compute {
					r.Compute(c)
				}
				if err := u.Join(); err != nil {
					t.Fatal(err)
				}
				if r.Now() != tc.want {
					t.Errorf("joined at %d, want %d", r.Now(), tc.want)
				}
				if err := u.Join(); !errors.Is(err, ErrJoined) {
					t.Errorf("second Join: %v, want %v", err, ErrJoined)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCoUnitAddOverflow: work past what virtual time holds is refused and
// leaves the unit's work as it was.
func TestCoUnitAddOverflow(t *testing.T) {
	runRanks(t, 1, func(r *Rank) {
		u := r.NewCoUnit()
		if err := u.Add(math.MaxInt64 - 10); err != nil {
			t.Fatal(err)
		}
		if err := u.Add(11); err == nil {
			t.Error("Add past MaxInt64: no error")
		}
		if err := u.Add(10); err != nil {
			t.Errorf("Add up to MaxInt64: %v", err)
		}
		if r.HasCoprocessor() {
			t.Error("a coprocessor outside coprocessor mode")
		}
	})
}
