package runtime

import (
	"fmt"
	"iter"
	goruntime "runtime"
	"runtime/debug"
)

// ProcState is where a process is in its life.
type ProcState uint8

const (
	ProcScheduled ProcState = iota // a resumption is in the queue (also: not yet started)
	ProcRunning                    // holds the baton
	ProcBlocked                    // parked until someone calls Wake
	ProcDone                       // returned, failed or was stopped
)

// Proc is a process: a body that runs in virtual time and blocks on the engine.
type Proc struct {
	e       *Engine
	ID      int
	body    func(*Proc)
	co      *coroutine // the coroutine it runs on, once started
	state   ProcState
	started bool
	killed  bool // stopped by the driver: deferred code still runs, but must not wait

	free []*coroutine // a home's coroutines whose processes have finished, to start others on

	// Wait describes what a blocked process waits for; deadlock reports print it.
	Wait any
	// Idle marks a process that, while blocked, waits for work rather than
	// for an event (a helper process with nothing to do): a run that ends
	// with only idle processes blocked has not deadlocked, and they are
	// stopped as any process left parked.
	Idle bool
	// OnRun, if set, is called each time the process gets the baton back
	// after it parked (Block, or SleepUntil when it had to yield), before it
	// goes on: for a layer whose processes share state that must follow the
	// one running (several processes acting for one rank).
	OnRun func()
	// Data is free for the layer that owns the process.
	Data any
}

// Spawn creates a process that starts at time t. IDs are the caller's (ranks).
func (e *Engine) Spawn(id int, t Time, body func(*Proc)) *Proc {
	p := &Proc{e: e, ID: id, body: body}
	e.procs = append(e.procs, p)
	e.live++
	e.Schedule(t, PrioProc, p)
	return p
}

// Act is never called: the loop resumes processes itself.
func (p *Proc) Act(Time) { panic("runtime: process dispatched as an action") }

// Engine is the engine the process runs on.
func (p *Proc) Engine() *Engine { return p.e }

// State is the process's state.
func (p *Proc) State() ProcState { return p.state }

// Now is the current virtual time.
func (p *Proc) Now() Time { return p.e.now }

// A coroutine is the goroutine of processes: iter.Pull's coroutine, which a
// home (the goroutine that called Run, or a Group's worker) switches to and
// which switches back to it, without the Go scheduler. The home runs the
// event loop; a process that parks switches back to it, and it resumes the
// next process due: a switch between two processes is two coroutine
// switches, rather than a channel handoff between their goroutines, which
// parks one goroutine and readies the other (and with more than one P wakes
// an OS thread to look for work, at every switch). BenchmarkProcessSwitch on
// the 2-core machine of 2026-11-27: 240-470 ns a switch over channels,
// 113-116 ns over coroutines. And the events run on the home's stack, whose
// lines are in the cache, not on the stack of whichever rank parked last.
//
// A coroutine whose process returned goes back to its home, which starts
// the next new process on it: a run whose ranks start, run and end one
// after the other without parking uses one coroutine, not one a rank. A
// process that ends with Goexit (Exit, or stopped by the driver) ends its
// coroutine: the home lets it finish on a goroutine of its own, so that the
// Goexit, which iter.Pull passes on to whoever resumed the coroutine, ends
// that goroutine rather than the home.
type coroutine struct {
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	p       *Proc // the process it runs; nil: end
	exiting bool  // p ended with Goexit: the coroutine ends when resumed
}

func newCoroutine() *coroutine {
	c := new(coroutine)
	c.next, c.stop = iter.Pull(c.run)
	return c
}

// run is the coroutine's body: the processes given to it, one after the
// other, until it is given none.
func (c *coroutine) run(yield func(struct{}) bool) {
	c.yield = yield
	growStack()
	for c.p != nil {
		c.p.live()
		yield(struct{}{}) // resumed: c has another process, or none (stop)
	}
}

// resume runs p, from its home, until it parks or ends.
func (home *Proc) resume(p *Proc) {
	c := p.co
	if c == nil {
		if n := len(home.free); n > 0 {
			c = home.free[n-1]
			home.free = home.free[:n-1]
		} else {
			c = newCoroutine()
		}
		c.p, p.co = p, c
		p.started = true
	}
	p.state = ProcRunning
	c.next()
	if p.state == ProcDone {
		p.co = nil
		if c.exiting {
			end(c)
		} else {
			c.p = nil
			home.free = append(home.free, c)
		}
	}
}

// park hands the baton back to p's home until p is resumed; p must be
// Blocked or Scheduled. A process stopped meanwhile unwinds.
func (p *Proc) park() {
	p.co.yield(struct{}{})
	if p.killed {
		goruntime.Goexit()
	}
}

// end lets c, whose process ended with Goexit, finish its deferred calls and
// end, on a goroutine of its own that the Goexit then ends.
func end(c *coroutine) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.next()
	}()
	<-done
}

// release ends the coroutines a home keeps for new processes.
func (home *Proc) release() {
	for _, c := range home.free {
		c.stop()
	}
	home.free = nil
}

// procStack is the size of the frame growStack takes: the stack of a new
// process's goroutine grows to the power of two that holds it.
const procStack = 2 << 10

// growStack takes a frame of procStack bytes, so that a new process's
// goroutine grows its stack in one step while it is one frame deep. Left to
// grow on demand, it starts at 2 KiB and doubles in the middle of a rank's
// Lua call chain, copying and adjusting every frame of it: 4 us a rank, a
// fifth of the start-up of ranks that park (41,616 ranks of bench/idle.lua).
// 4 KiB hold a rank parked in an MPI or ml call, as before.
//
//go:noinline
func growStack() byte {
	var frame [procStack]byte
	return touch(&frame)
}

//go:noinline
func touch(frame *[procStack]byte) byte { return frame[len(frame)-1] }

// live runs p's body; then p's coroutine hands the baton back to its home.
func (p *Proc) live() {
	defer func() {
		if p.state == ProcDone {
			return
		}
		// Stopped by the driver, by Exit, or by a Go panic in the body: the
		// baton goes back as from a finished process.
		r := recover()
		if r != nil {
			p.e.Stop(fmt.Errorf("internal error in process %d: %v\n%s", p.ID, r, debug.Stack()))
			p.finish() // the panic is over: live returns normally
			return
		}
		// Goexit: the coroutine ends after its deferred calls.
		p.finish()
		p.co.exiting = true
		p.co.yield(struct{}{})
	}()
	p.body(p)
	p.finish()
}

func (p *Proc) finish() {
	p.state = ProcDone
	p.e.live--
}

// Block parks the process until Wake. wait says what it waits for.
func (p *Proc) Block(wait any) {
	if p.killed {
		return
	}
	p.state = ProcBlocked
	p.Wait = wait
	p.park()
	p.Wait = nil
	if p.OnRun != nil {
		p.OnRun()
	}
}

// Wake schedules a blocked process to resume at t. It reports false, and does
// nothing, if p is not blocked (already woken, running or done).
//
// If p belongs to another partition of e's Group, its state cannot be read
// from here: the wake is sent as a message due at t (which must not be before
// the end of the current window, see Send) and delivered among the model
// events of that cycle; it resumes p then, at t, if p is blocked at that
// moment. Wake then reports true.
func (e *Engine) Wake(p *Proc, t Time) bool {
	if p.e != e {
		e.Send(p.e, t, PrioModel, (*remoteWake)(p))
		return true
	}
	if p.state != ProcBlocked {
		return false
	}
	p.state = ProcScheduled
	e.Schedule(t, PrioProc, p)
	return true
}

// SleepUntil parks the process until virtual time t. When nothing else is due up
// to t the clock simply moves on: the same order of events as a queued wake-up,
// without a switch.
func (p *Proc) SleepUntil(t Time) {
	if p.killed {
		return // unwinding after the run stopped: time no longer moves
	}
	e := p.e
	if t < e.now {
		t = e.now
	}
	if tieSalt != 0 {
		e.q.settle()
	}
	if e.err == nil && t <= e.horizon && (e.q.len() == 0 || e.ahead(t)) &&
		(e.ctx == nil && e.Progress == nil || e.events%ctxCheckEvery != 0) {
		e.now = t
		e.events++
		e.cur, e.curAct = eventKey(PrioProc, e.seq), p
		e.seq++
		return
	}
	p.state = ProcScheduled
	p.Wait = nil
	e.Schedule(t, PrioProc, p)
	p.park()
	if p.OnRun != nil && !p.killed {
		p.OnRun()
	}
}

// Sleep parks the process for d cycles.
func (p *Proc) Sleep(d Time) { p.SleepUntil(p.e.now + d) }

// ahead reports whether the earliest queued event comes after a process wake-up
// queued now for time t.
func (e *Engine) ahead(t Time) bool {
	top := e.q.top()
	return top.t > t || top.t == t && top.key > eventKey(PrioProc, e.seq)
}

// Exit ends the calling process at once, from anywhere in its body (for example
// after it stopped the run with an error): the baton goes to the driver.
func (p *Proc) Exit() {
	goruntime.Goexit()
}
