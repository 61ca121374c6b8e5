package mpi

import (
	"errors"
	"fmt"
	"math"
)

// Coprocessor work units ([ML] "Coprocessor mode support"): in coprocessor
// mode the main processor hands CPU 1 transient work units and waits for
// each. CPU 1 also receives aligned rendezvous data (a permanent work unit
// of the message layer), so work units and receptions share it.

// CoUnit is one transient work unit of a rank: the work declared for it
// (Add), placed on CPU 1 when it starts (Start), waited for by Join.
type CoUnit struct {
	r      *Rank
	cycles int64 // the work declared for it
	done   Time  // when CPU 1 finishes it
	joined bool
}

// HasCoprocessor reports whether the run gives the rank a coprocessor.
func (r *Rank) HasCoprocessor() bool { return r.w.ml.ForRank(r.ID).CoCPU(r.ID) != nil }

// NewCoUnit makes a work unit of the rank, with no work yet.
func (r *Rank) NewCoUnit() *CoUnit { return &CoUnit{r: r} }

// Owner is the rank the unit belongs to.
func (u *CoUnit) Owner() int { return u.r.ID }

// Add declares c more cycles of work for the unit. Work that would add up
// past what virtual time can hold is an error, and nothing is added.
func (u *CoUnit) Add(c int64) error {
	if c > math.MaxInt64-u.cycles {
		return fmt.Errorf("the work unit's computations add up past what virtual time can hold (%d cycles)", int64(math.MaxInt64))
	}
	u.cycles += c
	return nil
}

// Start places the unit's work on the rank's CPU 1 now; the rank goes on.
func (u *CoUnit) Start() {
	u.done = u.r.w.ml.ForRank(u.r.ID).CoCPU(u.r.ID).Run(u.r.Now(), u.cycles)
}

// ErrJoined is Join's error for a unit joined before.
var ErrJoined = errors.New("work unit already joined")

// Join waits until CPU 1 has done the unit's work (and the rank's CPU its
// own). A unit is joined once.
func (u *CoUnit) Join() error {
	if u.joined {
		return ErrJoined
	}
	u.joined = true
	u.r.Sync()
	if u.done > u.r.Now() {
		u.r.Proc.SleepUntil(u.done)
	}
	return nil
}
