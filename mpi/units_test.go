package mpi

import (
	"testing"

	"github.com/bglua/bglua/runtime"
)

// TestUnitRunCompute: computation on a unit advances its clock, not the
// rank's, with the virtual-node penalty; what virtual time cannot hold is
// an error that leaves the clock as it was.
func TestUnitRunCompute(t *testing.T) {
	for _, tc := range []struct {
		name   string
		factor float64
		clock  Time
		d      int64
		want   Time // the clock after; -1: an error
	}{
		{"plain", 1, 100, 50, 150},
		{"none", 1, 100, 0, 100},
		{"penalty", 1.5, 0, 3, 5}, // 4.5 rounds half up
		{"past Never", 1, runtime.Never - 10, 11, -1},
		{"up to Never", 1, runtime.Never - 10, 10, runtime.Never},
		{"penalty past int64", 4, 0, 1 << 62, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup := func(w *World) error { w.ComputeFactor = tc.factor; return nil }
			_, err := tryRanksWith(1, setup, func(r *Rank) {
				u := r.OnUnit(0, 0, tc.clock)
				err := u.Compute(tc.d)
				switch {
				case tc.want < 0 && err == nil:
					t.Errorf("no error; clock %d", u.Clock)
				case tc.want < 0 && u.Clock != tc.clock:
					t.Errorf("clock %d after an error, want %d", u.Clock, tc.clock)
				case tc.want >= 0 && err != nil:
					t.Error(err)
				case tc.want >= 0 && u.Clock != tc.want:
					t.Errorf("clock %d, want %d", u.Clock, tc.want)
				}
				if r.Now() != 0 {
					t.Errorf("the rank's time moved to %d", r.Now())
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
