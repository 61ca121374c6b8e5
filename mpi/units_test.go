package mpi

import (
	"errors"
	"slices"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
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

// heldRunner runs the items of a test on thread units: it puts aside the
// first time the items whose data is "hold", and logs what it runs.
type heldRunner struct {
	us   *msglayer.Units
	held map[*msglayer.Item]bool
	ran  []string
}

func (h *heldRunner) RunOnUnit(it *msglayer.Item, unit int, now, clock Time) Time {
	if it.Data == "hold" && !h.held[it] {
		h.held[it] = true
		h.us.Hold(it)
		return clock
	}
	h.ran = append(h.ran, it.Data.(string))
	return clock
}

// TestRankUnitItems: a task the rank posts runs on its node's units; one
// put aside stays Held until ReleaseHeld posts it again.
func TestRankUnitItems(t *testing.T) {
	m := hw.BGC()
	run := &heldRunner{held: map[*msglayer.Item]bool{}}
	setup := func(w *World) error {
		run.us = msglayer.NewUnits(m, w.ml.Map.Torus.Nodes(), w.ml.Eng, run)
		if run.us == nil {
			return errors.New("no thread units on BG/C")
		}
		return nil
	}
	_, err := runOn(m, hw.Torus{Dims: hw.DefaultDims(1)}, 1, 1, setup, func(r *Rank) {
		r.PostTask(run.us, r.Now(), msglayer.WorkerCategory, "hold")
		r.PostTask(run.us, r.Now(), msglayer.WorkerCategory, "run")
		r.Compute(100000)
		if it := r.Held(run.us); it == nil || it.Data != "hold" {
			t.Fatalf("held: %v, want the item put aside", it)
		}
		r.ReleaseHeld(run.us, r.Now(), func(it *msglayer.Item) bool { return it.Data == "hold" })
		if it := r.Held(run.us); it != nil {
			t.Errorf("still held after release: %v", it)
		}
		r.Compute(100000)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"run", "hold"}; !slices.Equal(run.ran, want) {
		t.Errorf("units ran %v, want %v", run.ran, want)
	}
}
