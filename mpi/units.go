package mpi

import (
	"fmt"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// Thread units ([EMU]; msglayer/units.go): on a machine with thread units
// the handlers of a rank's active messages and its micro-tasks run on the
// units of its node, each to completion, at the unit's clock.

// UnitRun is a handler or micro-task running on a thread unit for a rank.
// While it runs, the rank's time is the unit's Clock: it starts after the
// dispatch (or the hand-off) and Compute advances it.
type UnitRun struct {
	Rank  *Rank
	Unit  int  // the unit, numbered in its node
	Node  int  // the node
	Clock Time // the unit's clock
}

// OnUnit is a run on unit of node for the rank, starting at clock.
func (r *Rank) OnUnit(unit, node int, clock Time) *UnitRun {
	return &UnitRun{Rank: r, Unit: unit, Node: node, Clock: clock}
}

// Compute advances the unit's clock by d cycles of computation (with the
// virtual-node penalty, as the rank's own). A computation that would end
// past what virtual time can hold is an error, and the clock stays.
func (u *UnitRun) Compute(d int64) error {
	if f := u.Rank.w.ComputeFactor; f != 1 {
		x := float64(d)*f + 0.5
		if !(x < float64(1<<63)) {
			return fmt.Errorf("%d cycles with the virtual-node penalty are past what virtual time can hold", d)
		}
		d = int64(x)
	}
	if d > runtime.Never-u.Clock {
		return fmt.Errorf("%d cycles from cycle %d end past what virtual time can hold (%d cycles)", d, u.Clock, runtime.Never)
	}
	u.Clock += d
	return nil
}

// PostTask files a micro-task of category c (data is what the layer above
// runs) in the InBuffer of the rank's node at t: the rank's time or, from a
// handler on a unit, the unit's clock.
func (r *Rank) PostTask(us *msglayer.Units, t Time, c msglayer.Category, data any) {
	r.needOne("a thread unit task")
	us.Post(t, &msglayer.Item{Node: r.w.ml.Map.Node(r.ID), Rank: r.ID, Category: c, Data: data})
}

// ReleaseHeld posts again at t, in order, the items the units of the rank's
// node put aside for it that match (their handler has been registered).
func (r *Rank) ReleaseHeld(us *msglayer.Units, t Time, match func(*msglayer.Item) bool) {
	us.Release(t, r.w.ml.Map.Node(r.ID), r.ID, match)
}

// Held is the first item the units of the rank's node put aside for it
// (a message whose handler is not registered), or nil.
func (r *Rank) Held(us *msglayer.Units) *msglayer.Item {
	return us.Held(r.w.ml.Map.Node(r.ID), r.ID)
}
