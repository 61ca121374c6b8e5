// Package runtime is the discrete-event engine: a virtual clock in cycles, an event
// queue in (time, priority, sequence) order, and processes that block and are woken
// at a virtual time. It knows nothing of Lua, MPI or the torus.
//
// Processes run as goroutines, but never two at once: exactly one goroutine holds
// the baton and runs the event loop or a process. A process that blocks runs the
// loop itself until the next process is due and hands the baton straight to it, so
// a switch costs one goroutine handoff, and none when the blocking process is the
// next one due. Because a process keeps its own goroutine stack while parked, it may
// block anywhere: inside pcall, iterators, metamethods or coroutines of the user.
// Everything that orders events is an integer; nothing depends on goroutine
// scheduling, map order or the wall clock.
package runtime

import (
	"context"
	goruntime "runtime"
)

// Engine owns virtual time and the event queue of one partition.
type Engine struct {
	now    Time
	q      queue
	seq    uint64
	events uint64

	procs []*Proc
	live  int
	drv   *Proc // the goroutine that called Run

	limit Time
	err   error
	ctx   context.Context

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
	e := &Engine{limit: Never}
	e.drv = &Proc{e: e, ID: -1, ch: make(chan signal), started: true}
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
func (e *Engine) SetLimit(t Time) { e.limit = t }

// Err is the error that stopped the run, if any.
func (e *Engine) Err() error { return e.err }

// Schedule makes a run at time t (never earlier than now) with the given priority.
func (e *Engine) Schedule(t Time, prio int32, a Action) {
	if t < e.now {
		t = e.now
	}
	e.q.push(event{t: t, key: eventKey(prio, e.seq), act: a}, e.now)
	e.seq++
}

// At is Schedule with the model priority.
func (e *Engine) At(t Time, a Action) { e.Schedule(t, PrioModel, a) }

// Stop ends the run at the current event with err; the first error wins.
func (e *Engine) Stop(err error) {
	if e.err == nil {
		e.err = err
	}
}

// Procs lists every process in spawn order.
func (e *Engine) Procs() []*Proc { return e.procs }

// Run dispatches events until none is left, a process fails, the limit is hit or
// ctx is done. Processes still parked then are stopped. A run that ends with
// blocked processes and nothing pending returns a *DeadlockError.
func (e *Engine) Run(ctx context.Context) error {
	e.ctx = ctx
	e.loop(e.drv)
	if e.Progress != nil {
		e.Progress()
	}
	if e.err == nil {
		var blocked []*Proc
		for _, p := range e.procs {
			if p.state == ProcBlocked {
				blocked = append(blocked, p)
			}
		}
		if len(blocked) > 0 {
			d := &DeadlockError{Time: e.now, Blocked: blocked}
			for _, p := range blocked {
				d.Waits = append(d.Waits, p.Wait)
			}
			if e.Locate != nil {
				for _, p := range blocked {
					d.Where = append(d.Where, e.Locate(p))
				}
			}
			e.err = d
		}
	}
	for _, p := range e.procs {
		if p.state == ProcBlocked || p.state == ProcScheduled {
			if p.started {
				p.ch <- sigKill
				<-e.drv.ch
			} else {
				p.finish()
			}
		}
	}
	return e.err
}

const ctxCheckEvery = 1 << 12

// loop runs events on behalf of self, the goroutine holding the baton, and returns
// when self is due to run again. A finished process returns as soon as it has
// handed the baton on, or with the next process to run if that one has not
// started (see Proc.run); the driver returns when the run is over.
func (e *Engine) loop(self *Proc) *Proc {
	for {
		if e.err == nil && e.events%ctxCheckEvery == 0 {
			if e.ctx != nil {
				if err := e.ctx.Err(); err != nil {
					e.err = err
				}
			}
			if e.Progress != nil {
				e.Progress()
			}
		}
		if e.err != nil || e.q.len() == 0 {
			return e.switchTo(e.drv, self)
		}
		if t := e.q.top().t; t > e.limit {
			e.err = &LimitError{Limit: e.limit, Time: t}
			continue
		}
		ev := e.q.pop()
		e.now = ev.t
		e.events++
		if p, ok := ev.act.(*Proc); ok {
			return e.switchTo(p, self)
		}
		ev.act.Act(e.now)
	}
}

// switchTo hands the baton from self to p and parks self until someone hands
// it back. When self is a finished process and p has not started, it returns
// p instead, to run on self's goroutine with self's channel; otherwise nil.
func (e *Engine) switchTo(p, self *Proc) *Proc {
	if p == self {
		if p != e.drv {
			p.state = ProcRunning
		}
		return nil
	}
	if p != e.drv {
		p.state = ProcRunning
	}
	// Read self before the handoff: afterwards it belongs to the new holder.
	done := self.state == ProcDone
	if !done && self.ch == nil {
		// A process gets its channel when it first parks; it must exist
		// before the handoff, after which anyone may resume self.
		self.ch = make(chan signal)
	}
	if !p.started {
		p.started = true
		if done {
			p.ch, self.ch = self.ch, nil
			return p
		}
		go p.run()
	} else {
		p.ch <- sigResume
	}
	if done {
		return nil
	}
	if sig := <-self.ch; sig == sigKill {
		self.killed = true
		goruntime.Goexit()
	}
	return nil
}
