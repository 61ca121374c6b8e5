// Package runtime is the discrete-event engine: a virtual clock in cycles, an event
// queue in (time, priority, sequence) order, and processes that block and are woken
// at a virtual time. It knows nothing of Lua, MPI or the torus.
//
// Processes run as goroutines (iter.Pull's coroutines), but never two at once:
// exactly one goroutine holds the baton and runs the event loop or a process. The
// loop runs on the driver's goroutine, which resumes each process when it is due
// and gets the baton back when it parks, so a switch costs two coroutine switches.
// Because a process keeps its own goroutine stack while parked, it may block
// anywhere: inside pcall, iterators, metamethods or coroutines of the user.
// Everything that orders events is an integer; nothing depends on goroutine
// scheduling, map order or the wall clock.
//
// A Group splits a simulation into partitions, one Engine each, that advance
// in parallel within conservative time windows (see Group): one baton per
// partition, each passed among that partition's processes only.
package runtime

import (
	"context"
)

// Engine owns virtual time and the event queue of one partition.
type Engine struct {
	now    Time
	q      queue
	seq    uint64
	events uint64

	// The event being dispatched (a process's resumption while it runs):
	// its key and action (Current).
	cur    uint64
	curAct Action
	ended  bool // the run's events are over (Ended)
	prev   Time // the clock before the event being dispatched (Void)

	procs []*Proc
	live  int
	drv   *Proc // the goroutine that called Run (in a Group: that runs the window)

	limit Time
	err   error
	ctx   context.Context

	// horizon is the last time this engine may dispatch an event before it
	// hands the baton back to its driver: the limit for a lone engine, the
	// end of the current window (or the limit, if earlier) for a partition
	// of a Group. Events after the horizon but within the limit are left
	// for the next window.
	horizon Time

	part partition // the Group's state of this engine; zero for a lone engine

	// Progress, if set, is called every few thousand events, between
	// events, so that a caller can report how far the run has come. It must
	// not change the model.
	Progress func()

	// Locate, if set, says where a blocked process stands (for example its
	// source line); deadlock reports call it before processes are stopped.
	Locate func(p *Proc) string
}

// New returns an engine at time zero.
func New() *Engine {
	e := &Engine{limit: Never, horizon: Never}
	e.drv = &Proc{e: e, ID: -1, started: true}
	return e
}

// Now is the current virtual time.
func (e *Engine) Now() Time { return e.now }

// Events is the number of events dispatched so far (process resumptions included).
func (e *Engine) Events() uint64 { return e.events }

// Live is the number of processes that have not finished.
func (e *Engine) Live() int { return e.live }

// Pending is the number of events in the queue.
func (e *Engine) Pending() int { return e.q.len() }

// SetLimit makes the run stop with a *LimitError when virtual time would pass t.
// The partitions of a Group take their limit from Group.SetLimit instead.
func (e *Engine) SetLimit(t Time) {
	if e.part.g != nil {
		panic("runtime: SetLimit on a partition of a Group; use Group.SetLimit")
	}
	e.limit, e.horizon = t, t
}

// Err is the error that stopped the run, if any.
func (e *Engine) Err() error { return e.err }

// Schedule makes a run at time t (never earlier than now) with the given priority.
func (e *Engine) Schedule(t Time, prio int32, a Action) {
	e.schedule(t, eventKey(prio, e.seq), a)
	e.seq++
}

// ScheduleKey is Schedule with a tie key: among the events of its cycle and
// priority, a runs after those scheduled without one, and in the order of
// the tie keys' low 47 bits among those with one, wherever it was
// scheduled from and whenever. A model gives tie keys to events whose
// order within a cycle must follow from what they are (a message's batch,
// a link), not from when they were scheduled; events of equal tie keys run
// in the order of their full ties (Tied).
func (e *Engine) ScheduleKey(t Time, prio int32, tie uint64, a Action) {
	e.schedule(t, tiedKey(prio, tie), a)
}

// A Tied action tells its event apart from others of the same cycle,
// priority and tie key (ScheduleKey), whose order the tie key alone, 47
// bits, leaves open: such events run in the order of their full ties,
// compared word by word. The engine asks for the full tie only then, so a
// model may make it from everything its event is about. Events of equal
// tie keys of which either is not Tied, or whose full ties are equal, run
// in an order the queue's state fixes, which may depend on when they were
// scheduled: a model keeps that for events that do the same whatever
// their order.
type Tied interface {
	Action
	Tie() Tie
}

// Tie is a full tie (Tied), compared word by word from the first.
type Tie [3]uint64

// less reports whether a comes before b.
func (a Tie) less(b Tie) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// schedule queues a at t (never earlier than now) under key.
func (e *Engine) schedule(t Time, key uint64, a Action) {
	if t < e.now {
		t = e.now
	}
	e.q.push(event{t: t, key: key, act: a}, e.now)
}

// AtKey is ScheduleKey with the model priority.
func (e *Engine) AtKey(t Time, tie uint64, a Action) { e.ScheduleKey(t, PrioModel, tie, a) }

// At is Schedule with the model priority.
func (e *Engine) At(t Time, a Action) { e.Schedule(t, PrioModel, a) }

// Stop ends the run at the current event with err; the first error wins.
func (e *Engine) Stop(err error) {
	if e.err == nil {
		e.err = err
		e.part.errAt = e.now
	}
}

// Procs lists every process in spawn order.
func (e *Engine) Procs() []*Proc { return e.procs }

// Run dispatches events until none is left, a process fails, the limit is hit or
// ctx is done. Processes still parked then are stopped. A run that ends with
// blocked processes and nothing pending returns a *DeadlockError.
func (e *Engine) Run(ctx context.Context) error {
	if e.part.g != nil {
		panic("runtime: Run on a partition of a Group; use Group.Run")
	}
	return e.run(ctx)
}

func (e *Engine) run(ctx context.Context) error {
	e.ctx = ctx
	e.loop(e.drv)
	e.ended = true
	if e.Progress != nil {
		e.Progress()
	}
	if e.err == nil {
		if d := deadlock(e.now, e.blocked(nil), e.Locate); d != nil {
			e.err = d
		}
	}
	e.stopProcs()
	return e.err
}

// blocked appends the blocked processes to list, in spawn order; idle ones
// (Proc.Idle) are not waiting for anything.
func (e *Engine) blocked(list []*Proc) []*Proc {
	for _, p := range e.procs {
		if p.state == ProcBlocked && !p.Idle {
			list = append(list, p)
		}
	}
	return list
}

// deadlock is the report of a run that ended with the blocked processes, or
// nil if there are none.
func deadlock(now Time, blocked []*Proc, locate func(*Proc) string) *DeadlockError {
	if len(blocked) == 0 {
		return nil
	}
	d := &DeadlockError{Time: now, Blocked: blocked}
	for _, p := range blocked {
		d.Waits = append(d.Waits, p.Wait)
	}
	if locate != nil {
		for _, p := range blocked {
			d.Where = append(d.Where, locate(p))
		}
	}
	return d
}

// stopProcs stops the processes still parked at the end of a run: each
// unwinds on its own coroutine (running its deferred code) and hands the
// baton back to the driver, whose loop then runs what that code scheduled
// if the run still allows events (it does not after an error, a limit or
// a Group's end). Then the driver's spare coroutines end.
func (e *Engine) stopProcs() {
	for _, p := range e.procs {
		if p.state == ProcBlocked || p.state == ProcScheduled {
			if p.started {
				// It unwinds, then the loop runs what its deferred code
				// left to run, if the run allows it.
				p.killed = true
				e.drv.resume(p)
				e.loop(e.drv)
			} else {
				p.finish()
			}
		}
	}
	e.drv.release()
}

const ctxCheckEvery = 1 << 12

// loop runs events on home, the goroutine of a driver (the one that called
// Run, or a Group's worker), resuming each process that is due until it
// parks or ends, and returns when the run is over or its window ends.
//
// In a Group the partitions have no driver of their own: at the end of a
// partition's window the loop goes straight on with the next partition of its
// worker (see Group.next), whatever partition the processes belong to.
func (e *Engine) loop(home *Proc) {
	for {
		if tieSalt != 0 {
			e.q.settle()
		}
		if e.err == nil && e.events%ctxCheckEvery == 0 {
			if e.ctx != nil {
				if e.ctx.Err() != nil {
					e.Stop(context.Cause(e.ctx)) // why it was canceled
				}
			}
			if e.Progress != nil {
				e.Progress()
			}
		}
		if e.err != nil || e.q.len() == 0 {
			if e.part.float {
				if e = e.part.g.next(e.part.worker); e == nil {
					return
				}
				continue
			}
			return
		}
		if t := e.q.top().t; t > e.horizon {
			if t > e.limit {
				e.err = &LimitError{Limit: e.limit, Time: t}
				continue
			}
			// The end of a Group's window: the rest waits for the next one.
			if e.part.float {
				if e = e.part.g.next(e.part.worker); e == nil {
					return
				}
				continue
			}
			return
		}
		// q.next after top, written out: calls less
		var ev event
		if q := &e.q; q.fromSmall {
			ev = q.takeSmall()
		} else {
			c := q.cur
			c.head++
			q.n--
			ev = c.ev[c.head-1]
		}
		if ev.key&keyedFlag != 0 && e.q.twin(&ev) {
			ev = e.q.popTie(ev)
		}
		e.prev, e.now = e.now, ev.t
		e.events++
		e.cur, e.curAct = ev.key, ev.act
		if p, ok := ev.act.(*Proc); ok {
			home.resume(p)
			continue
		}
		ev.act.Act(e.now)
	}
}
