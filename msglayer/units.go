package msglayer

import (
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Thread units, as in [EMU] "Emulator implementation details": a node of the
// cellular design has many thread units, split between communication units,
// which monitor the node's InBuffer, and worker units. Arriving active
// messages and the node's own micro-tasks queue in the InBuffer in FIFO
// order; the idle communication unit free the longest (ties: the lowest
// index) takes the next one and pays the dispatch (MLDispatchCycles). Work of
// category comm it runs itself; work of category worker it hands to the idle
// worker unit free the longest (paying HandoffCycles), or, when every worker
// is busy, waits without spinning until one is free, taking nothing else
// meanwhile. Handlers run to completion: on one unit they are serial, on
// different units of a node they overlap in virtual time.
//
// The model knows nothing of handlers: it asks the layer above (a
// UnitRunner) to run an item on a unit at a time, and the layer above says
// when the handler's work ended; the unit is free from then and takes the
// next item. Everything is ordered by integer times, FIFO order and unit
// index.

// Category says which pool of a node's thread units runs a piece of work
// ([EMU] ThreadCategory).
type Category uint8

const (
	// CommCategory work is run by the communication unit that takes it
	// (small work, such as contributing to a reduction).
	CommCategory Category = iota
	// WorkerCategory work is handed to a worker unit.
	WorkerCategory
)

var categoryNames = [...]string{"comm", "worker"}

func (c Category) String() string { return categoryNames[c] }

// CategoryNames lists the categories as ParseCategory reads them.
const CategoryNames = `"comm", "worker"`

// ParseCategory reads a category name ("comm" or "worker").
func ParseCategory(s string) (Category, bool) {
	for i, n := range categoryNames {
		if n == s {
			return Category(i), true
		}
	}
	return 0, false
}

// UnitRunner runs work on thread units: the layer above implements it.
type UnitRunner interface {
	// RunOnUnit runs it on unit of it's node (see Units.Kind). It is
	// called at now, when the unit starts on it; the work's clock starts at
	// clock (now plus the dispatch or the hand-off). It returns when the
	// work ends, at clock or later: the unit is busy until then.
	RunOnUnit(it *Item, unit int, now, clock Time) Time
}

// Item is one piece of work for a node's thread units: an active message
// whose data is in, or a micro-task.
type Item struct {
	Node     int
	Rank     int // the rank whose work it is
	Category Category
	Data     any // the layer above's: never inspected here

	u     *Units
	state uint8 // itemPosted: Act files it; itemRun: Act runs it
	unit  int
	clock Time
	next  *Item // in the InBuffer
}

const (
	itemPosted uint8 = iota
	itemRun
)

// Units are the thread units of every node.
type Units struct {
	// Comm and Worker are the units per node; Dispatch and Handoff what a
	// communication unit pays to take an item and to hand it to a worker.
	Comm, Worker      int
	Dispatch, Handoff Time

	eng   *runtime.Engine
	run   UnitRunner
	nodes []*nodeUnits // made on first use
	l     *Layer       // in partitions (SetLayer): the layer whose views give each node's engine

	// Ran counts the items run (in partitions: see Runs).
	Ran int64
}

// Hold puts aside an item that its rank cannot run yet (an active message
// that came in before its handler was registered), having paid the dispatch.
func (u *Units) Hold(it *Item) {
	n := u.node(it.Node)
	n.held = append(n.held, it)
}

// Release posts again at t, in the order they came, the items held for rank
// (on node) that match says can run now.
func (u *Units) Release(t Time, node, rank int, match func(*Item) bool) {
	n := u.nodes[node]
	if n == nil || len(n.held) == 0 {
		return
	}
	keep := n.held[:0]
	for _, it := range n.held {
		if it.Rank == rank && match(it) {
			u.Post(t, it)
		} else {
			keep = append(keep, it)
		}
	}
	clear(n.held[len(keep):])
	n.held = keep
}

// Held is the first item still held for rank (on node), or nil.
func (u *Units) Held(node, rank int) *Item {
	if n := u.nodes[node]; n != nil {
		for _, it := range n.held {
			if it.Rank == rank {
				return it
			}
		}
	}
	return nil
}

// SetLayer has the units of each node run on the engine of the node's
// partition of l (see Layer.SetPartitions), after SetPartitions. Ran is
// then not kept: Runs counts.
func (u *Units) SetLayer(l *Layer) {
	if l.views != nil {
		u.l = l
	}
}

// engOf is the engine node's units run on.
func (u *Units) engOf(node int) *runtime.Engine {
	if u.l == nil {
		return u.eng
	}
	return u.l.on(node).Eng
}

// Runs is the number of items run, summed over the nodes.
func (u *Units) Runs() int64 {
	if u.l == nil {
		return u.Ran
	}
	var k int64
	for _, n := range u.nodes {
		if n != nil {
			k += n.ran
		}
	}
	return k
}

// NewUnits builds the thread units of a machine of n nodes, or returns nil
// when the machine has none (CommThreads 0).
func NewUnits(m *hw.Machine, n int, eng *runtime.Engine, run UnitRunner) *Units {
	if m.CommThreads <= 0 {
		return nil
	}
	return &Units{
		Comm: m.CommThreads, Worker: m.WorkerThreads,
		Dispatch: m.MLDispatchCycles, Handoff: m.HandoffCycles,
		eng: eng, run: run, nodes: make([]*nodeUnits, n),
	}
}

// Kind is the pool unit belongs to: units 0..Comm-1 of a node are its
// communication units, Comm..Comm+Worker-1 its workers.
func (u *Units) Kind(unit int) Category {
	if unit < u.Comm {
		return CommCategory
	}
	return WorkerCategory
}

// Post files it in its node's InBuffer at t (not before now).
func (u *Units) Post(t Time, it *Item) {
	it.u = u
	it.state = itemPosted
	eng := u.engOf(it.Node)
	if now := eng.Now(); t > now {
		eng.At(t, it)
		return
	}
	u.file(it, eng.Now())
}

func (u *Units) file(it *Item, now Time) {
	n := u.node(it.Node)
	if n.tail == nil {
		n.head = it
	} else {
		n.tail.next = it
	}
	n.tail = it
	n.step(now)
}

func (u *Units) node(i int) *nodeUnits {
	n := u.nodes[i]
	if n == nil {
		n = &nodeUnits{u: u, eng: u.engOf(i), free: make([]Time, u.Comm), stepAt: -1}
		u.nodes[i] = n
	}
	return n
}

// Act files a posted item, or runs it on its unit.
func (it *Item) Act(now Time) {
	u := it.u
	if it.state == itemPosted {
		u.file(it, now)
		return
	}
	end := u.run.RunOnUnit(it, it.unit, now, it.clock)
	if end < it.clock {
		end = it.clock
	}
	n := u.nodes[it.Node]
	if u.l == nil {
		u.Ran++
	} else {
		n.ran++
	}
	n.free[it.unit] = end
	if n.head != nil || len(n.hand) > 0 {
		n.wake(end, now) // work waits: the unit takes it when free
	}
}

// nodeUnits are one node's units and InBuffer.
type nodeUnits struct {
	u   *Units
	eng *runtime.Engine // the engine of the node's partition
	ran int64           // in partitions: the items run
	// free is when each unit is next free: communication units first,
	// then workers; runtime.Never while its work's end is not known yet.
	// The workers' part is added (all free since 0) when the node first
	// hands work to a worker (withWorkers): most nodes never do, and 192
	// workers cost 1.5 KiB a node.
	free       []Time
	head, tail *Item     // the InBuffer
	hand       []handoff // worker work dispatched, waiting for a worker
	stepAt     Time      // the latest step scheduled and not yet run, or -1
	held       []*Item   // put aside (Hold), in the order they came
}

// handoff is a communication unit holding worker work: from ready on it
// waits for an idle worker.
type handoff struct {
	comm  int
	it    *Item
	ready Time
}

// Act is a scheduled step: a unit became free or a dispatch ended.
func (n *nodeUnits) Act(now Time) {
	if now == n.stepAt {
		n.stepAt = -1
	}
	n.step(now)
}

// wake schedules a step at t (now or later) unless one is due then.
func (n *nodeUnits) wake(t, now Time) {
	if t == n.stepAt {
		return
	}
	n.stepAt = t
	n.eng.At(t, n)
}

// step gives work to the idle units at now: first the worker work whose
// dispatch is over, in order, to idle workers; then the InBuffer, in order,
// to idle communication units. What is left waits for the first unit of its
// pool to be free: a step is scheduled then (a unit whose end is not known
// yet schedules one when its work ends, if work waits).
func (n *nodeUnits) step(now Time) {
	n.give(now)
	u := n.u
	if len(n.hand) > 0 && n.hand[0].ready <= now {
		if t := n.firstFree(u.Comm, u.Comm+u.Worker); t != runtime.Never {
			n.wake(t, now)
		}
	}
	if n.head != nil {
		if t := n.firstFree(0, u.Comm); t != runtime.Never {
			n.wake(t, now)
		}
	}
}

// firstFree is when the first unit of [lo, hi) is free (runtime.Never if
// none has a known end).
func (n *nodeUnits) firstFree(lo, hi int) Time {
	t := runtime.Never
	for _, f := range n.free[lo:hi] {
		t = min(t, f)
	}
	return t
}

func (n *nodeUnits) give(now Time) {
	u := n.u
	for {
		moved := false
		for len(n.hand) > 0 && n.hand[0].ready <= now {
			w := n.idle(u.Comm, u.Comm+u.Worker, now)
			if w < 0 {
				break
			}
			h := n.hand[0]
			n.hand[0] = handoff{}
			n.hand = n.hand[1:]
			n.free[h.comm] = now + u.Handoff
			if u.Handoff > 0 {
				n.wake(now+u.Handoff, now)
			}
			n.start(h.it, w, now, now+u.Handoff)
			moved = true
		}
		for n.head != nil {
			c := n.idle(0, u.Comm, now)
			if c < 0 {
				break
			}
			it := n.head
			n.head = it.next
			if n.head == nil {
				n.tail = nil
			}
			it.next = nil
			if it.Category == WorkerCategory && u.Worker > 0 {
				// Dispatch, then hand over (or wait for a worker).
				n.withWorkers()
				n.free[c] = runtime.Never
				n.hand = append(n.hand, handoff{comm: c, it: it, ready: now + u.Dispatch})
				if u.Dispatch > 0 {
					n.wake(now+u.Dispatch, now)
				}
			} else {
				n.start(it, c, now, now+u.Dispatch)
			}
			moved = true
		}
		if !moved {
			return
		}
	}
}

// withWorkers gives free its workers' part. Worker units are only looked
// at once work waits in hand, which comes after this.
func (n *nodeUnits) withWorkers() {
	if all := n.u.Comm + n.u.Worker; len(n.free) < all {
		n.free = append(n.free, make([]Time, all-len(n.free))...) // free since 0
	}
}

// idle is the unit of [lo, hi) free at now that has been free the longest
// (ties: the lowest index), or -1.
func (n *nodeUnits) idle(lo, hi int, now Time) int {
	best := -1
	for i := lo; i < hi; i++ {
		if f := n.free[i]; f <= now && (best < 0 || f < n.free[best]) {
			best = i
		}
	}
	return best
}

// start has unit run it from now, its clock starting at clock.
func (n *nodeUnits) start(it *Item, unit int, now, clock Time) {
	n.free[unit] = runtime.Never
	it.state = itemRun
	it.unit = unit
	it.clock = clock
	n.eng.At(now, it)
}

// Queued is how many items wait in node's InBuffer or for a worker (for
// tests and reports).
func (u *Units) Queued(node int) int {
	n := u.nodes[node]
	if n == nil {
		return 0
	}
	k := len(n.hand)
	for it := n.head; it != nil; it = it.next {
		k++
	}
	return k
}
