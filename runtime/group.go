package runtime

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// A Group is a simulation split into partitions, each an Engine with its own
// clock, queue and processes, that advance together in conservative windows.
//
// A window starts at W, the earliest event of any partition, and ends at
// W+L, where L is the lookahead: the smallest latency of anything one
// partition does to another. Within a window every partition dispatches its
// events due before W+L on its own, in its usual (time, priority, sequence)
// order, and may send events to other partitions (Send, or Wake of another
// partition's process) only for W+L or later. At the barrier that ends the
// window those messages are merged into their destinations in (time,
// priority, source partition, source order) order, and get the destination's
// sequence numbers in that order. A window with nothing to do is never run:
// the next one starts at the next event.
//
// What a partition does in a window depends only on its own state and its
// messages, never on which OS thread runs it or when: a run gives the same
// results for every thread count. A group of one partition runs exactly as a
// lone Engine does.
//
// A model run on a group keeps to these rules (nothing checks them but the
// lookahead and the race detector):
//   - Each piece of mutable model state belongs to one partition and is read
//     and written only by that partition's events and processes. Read-only
//     data (machine constants, the mapping) may be shared.
//   - An event or process reaches another partition only through Send or
//     Wake, called on the engine that runs it (Proc.Engine, or the engine the
//     action was scheduled on), for a time at least Lookahead after now.
//   - Counters are kept per partition and summed when read; output and
//     traces are recorded with a (time, partition, order) key and merged in
//     key order (in AfterWindow, and after Run up to ErrAt).
//   - Processes are spawned on the partition that owns them, before Run or
//     by that partition's own events.
//
// Run is called once.
type Group struct {
	parts []*Engine
	look  Time
	limit Time
	// lastHz is the last cycle of the last window (every partition has
	// run its events up to it, but one that failed).
	lastHz Time

	err     error
	errAt   Time
	errPart int

	// Progress, if set, is called between windows, at most every few
	// thousand events, and once at the end, so that a caller can report how
	// far the run has come (Now, Events, Live, Pending). It must not change
	// the model. It may be called from any goroutine of the run, never
	// during an event. The partitions' own Progress hooks are not used.
	Progress func()

	// Locate, if set, says where a blocked process stands; deadlock reports
	// call it before processes are stopped. The partitions' own Locate
	// hooks are not used.
	Locate func(p *Proc) string

	// AfterWindow, if set, is called after every window that ended without
	// an error, with every partition at rest: nothing can happen any more
	// before end, so what the partitions recorded before it (output lines,
	// trace events) can be merged by key and written out. It is never
	// called when a group of one partition runs as a lone engine.
	AfterWindow func(end Time)

	// Narrow, if set, is called with true when a run in windows on several
	// threads enters a long stretch of windows too small to share (one
	// worker runs them while the others sleep), and with false before the
	// next window worth sharing: the caller may lower GOMAXPROCS meanwhile,
	// so that the sleeping workers leave no P idle. It is called between
	// windows, every other worker asleep when it is called with true.
	Narrow func(on bool)

	// Check, if set, checks every event sent between partitions (a debug
	// mode, crosscheck.go). Set it before Run.
	Check CrossingCheck

	forceWindows bool         // run one partition in windows too (tests)
	dist         *distributed // partitions in other processes too (Distribute)
	endNow       Time         // a distributed run's end, agreed (Now)
	ended        bool         // a distributed run is over: its counts are the processes' sums
	endEvents    uint64
	endSent      uint64

	// Window state, written at the barrier by whichever goroutine runs it.
	windows    uint64
	end        Time      // end of the current window
	par        uint8     // outbox parity of the current window
	tasks      []int32   // partitions run in the current window, ascending
	prev       []int32   // those of the window before (they hold its messages)
	inbox      [][]int32 // per destination: sources with messages for it, ascending
	inMin      []Time    // per destination: earliest message in its inbox
	progress   uint64    // events at the last Progress call
	events     uint64    // events at the last barrier
	lastEvents uint64    // events of the window before
	ctx        context.Context

	// The workers: each claims the tasks of a window one by one and runs
	// them on whichever goroutine holds its baton. The last to finish a
	// window runs the barrier and publishes the next window by bumping gen.
	threads  int
	wdrv     []*Proc         // per worker: its own goroutine, the baton's home
	claims   []claims        // per worker: how far it looked in the window's tasks
	taken    []atomic.Uint64 // per partition: the window it was last claimed in (windows)
	gen      atomic.Uint64
	done     atomic.Int64 // workers done with the current window
	stop     atomic.Bool
	sleepers atomic.Int32
	poll     bool // a worker waiting for the next window polls rather than sleeps
	narrow   atomic.Bool
	alone    int // windows run alone in a row (barrier only)
	mu       sync.Mutex
	cond     sync.Cond
}

// partition is an Engine's part in a Group.
type partition struct {
	g      *Group
	idx    int
	worker int  // the worker that runs it in the current window
	float  bool // during a windowed Run: the baton goes on from partition to partition
	end    Time // end of the current window: the earliest time Send accepts
	errAt  Time // time of the first error (Stop)
	par    uint8
	sent   uint64 // events sent to other partitions (Send, Wake)
	keep   Time   // a window the partition asked for (Keep), if kept
	kept   bool

	// Outboxes, per parity (the window that wrote them) and destination, in
	// send order; the destination empties them at its next window.
	out     [2][][]msg
	outMin  [2][]Time
	touched [2][]int32 // destinations with messages, in first-send order
}

// msg is an event sent to another partition.
type msg struct {
	t   Time
	key uint64 // as an event's: priority and tie key
	act Action
}

// NewGroup returns a group of parts partitions at time zero whose windows are
// lookahead cycles long.
func NewGroup(parts int, lookahead Time) *Group {
	if parts < 1 {
		panic(fmt.Sprintf("runtime: NewGroup of %d partitions", parts))
	}
	if lookahead < 1 {
		panic(fmt.Sprintf("runtime: NewGroup with a lookahead of %d cycles", lookahead))
	}
	g := &Group{look: lookahead, limit: Never, errPart: -1}
	g.cond.L = &g.mu
	g.inbox = make([][]int32, parts)
	g.inMin = make([]Time, parts)
	for i := range parts {
		e := New()
		e.part = partition{g: g, idx: i}
		g.parts = append(g.parts, e)
		g.inMin[i] = Never
	}
	return g
}

// Parts is the number of partitions.
func (g *Group) Parts() int { return len(g.parts) }

// Part is partition i.
func (g *Group) Part(i int) *Engine { return g.parts[i] }

// Lookahead is the length of a window.
func (g *Group) Lookahead() Time { return g.look }

// SetLimit makes the run stop with a *LimitError when virtual time would pass t.
func (g *Group) SetLimit(t Time) { g.limit = t }

// Err is the error that stopped the run, if any.
func (g *Group) Err() error { return g.err }

// ErrAt says where the error that stopped the run was raised: at which time,
// in which partition (-1 for a limit, a cancelled context or a deadlock).
// Everything a partition p did at a time t with (t, p) after (time, part) is
// after the error; a one-partition run did none of it.
func (g *Group) ErrAt() (t Time, part int) { return g.errAt, g.errPart }

// Windows is the number of windows run so far.
func (g *Group) Windows() uint64 { return g.windows }

// Crossings is the number of events sent from one partition to another
// so far (Send, and Wake of another partition's process): what a run over
// several processes would have to carry between them, at most.
func (g *Group) Crossings() uint64 {
	if g.ended {
		return g.endSent
	}
	var n uint64
	for _, e := range g.parts {
		n += e.part.sent
	}
	return n
}

// Now is the latest time any partition has reached (once a distributed run
// is over, in any process).
func (g *Group) Now() Time {
	t := g.endNow
	for _, e := range g.parts {
		t = max(t, e.now)
	}
	return t
}

// Events is the number of events dispatched so far by all partitions (once
// a distributed run is over, in every process).
func (g *Group) Events() uint64 {
	if g.ended {
		return g.endEvents
	}
	var n uint64
	for _, e := range g.parts {
		n += e.events
	}
	return n
}

// Live is the number of processes of all partitions that have not finished.
func (g *Group) Live() int {
	n := 0
	for _, e := range g.parts {
		n += e.live
	}
	return n
}

// Pending is the number of events queued in all partitions, messages between
// partitions included. Over several processes (Distribute) it is this
// process's share: its partitions' events and the messages sent to them,
// and those they sent to other processes' partitions that the window's
// exchange has not yet taken (in AfterWindow), so that the shares add up
// to what one process counts.
func (g *Group) Pending() int {
	n := 0
	if g.dist != nil {
		n += g.dist.unsent
	}
	for i, e := range g.parts {
		n += e.q.len()
		for _, s := range g.inbox[i] {
			n += len(g.parts[s].part.out[g.par^1][i])
		}
		for _, d := range e.part.touched[g.par] {
			n += len(e.part.out[g.par][d])
		}
	}
	return n
}

// WindowEnd is the end of the window e runs (0 for a lone engine).
func (e *Engine) WindowEnd() Time { return e.part.end }

// Keep asks, in a Group, that a window start no later than t (not before
// the end of the current one), whether or not an event is due then: for a
// model that does something at the end of a window later than the one that
// asked (Group.AfterWindow), such as completing what every process of a
// distributed run learns of only at this window's end. It schedules no
// event. Alone it does nothing.
func (e *Engine) Keep(t Time) {
	p := &e.part
	if p.g == nil {
		return
	}
	t = max(t, p.end)
	if !p.kept || t < p.keep {
		p.keep, p.kept = t, true
	}
}

// Part is the index of e in its Group, or -1 for a lone engine.
func (e *Engine) Part() int {
	if e.part.g == nil {
		return -1
	}
	return e.part.idx
}

// Group is the group e belongs to, or nil.
func (e *Engine) Group() *Group { return e.part.g }

// Send schedules a on dst at t with the given priority. On e itself it is
// Schedule. On another partition of e's group it is a message, delivered at
// the end of the current window; t must not be before that end (the model's
// lookahead would be wrong): the run then stops with a *LookaheadError and
// the message is dropped.
func (e *Engine) Send(dst *Engine, t Time, prio int32, a Action) {
	if dst == e {
		e.Schedule(t, prio, a)
		return
	}
	e.send(dst, t, eventKey(prio, 0), a)
}

// SendKey is Send with a tie key (see ScheduleKey).
func (e *Engine) SendKey(dst *Engine, t Time, prio int32, tie uint64, a Action) {
	e.send(dst, t, tiedKey(prio, tie), a)
}

// send is Send under key, whose sequence number (if it has none of a tie
// key) the destination sets.
func (e *Engine) send(dst *Engine, t Time, key uint64, a Action) {
	if dst == e {
		e.schedule(t, key, a)
		return
	}
	p := &e.part
	if p.g == nil || dst.part.g != p.g {
		panic("runtime: Send between engines of different groups")
	}
	if t < p.end {
		e.Stop(&LookaheadError{From: p.idx, To: dst.part.idx, Now: e.now, Time: t, WindowEnd: p.end})
		return
	}
	if p.out[0] == nil {
		n := len(p.g.parts)
		for k := range p.out {
			p.out[k] = make([][]msg, n)
			p.outMin[k] = make([]Time, n)
			for i := range p.outMin[k] {
				p.outMin[k][i] = Never
			}
		}
	}
	d, par := dst.part.idx, p.par
	box := &p.out[par][d]
	if len(*box) == 0 {
		p.touched[par] = append(p.touched[par], int32(d))
	}
	if p.g.Check != nil {
		a = e.checkSent(dst, a)
	}
	*box = append(*box, msg{t: t, key: key, act: a})
	if key == tellKey {
		return
	}
	p.sent++
	if t < p.outMin[par][d] {
		p.outMin[par][d] = t
	}
}

// remoteWake is a Wake sent to another partition: it wakes the process there.
type remoteWake Proc

func (w *remoteWake) Act(now Time) {
	p := (*Proc)(w)
	p.e.Wake(p, now)
}

// LookaheadError says that a partition sent an event to another one for a time
// before the end of the current window: the model's lookahead is too long.
type LookaheadError struct {
	From, To  int  // partitions
	Now, Time Time // when it was sent, and for when
	WindowEnd Time
}

func (l *LookaheadError) Error() string {
	return fmt.Sprintf("runtime: partition %d sent an event for cycle %d to partition %d at cycle %d, before the window's end at %d: the lookahead is too long",
		l.From, l.Time, l.To, l.Now, l.WindowEnd)
}

// Run runs the partitions in windows until no event is left anywhere, a
// partition fails, the limit is hit or ctx is done, on up to threads OS
// threads at once (at most one per partition). Processes still parked then
// are stopped in every partition. A run that ends with processes blocked and
// nothing pending anywhere returns a *DeadlockError naming them all, in
// partition then spawn order. When partitions fail in the same window the
// first error by (time, partition) wins; the others run to the window's end.
//
// Each of the threads workers claims the partitions of a window one by one;
// a window that follows one of fewer than parallelMin events is run by one
// worker alone, since handing it out would cost more than it saves.
func (g *Group) Run(ctx context.Context, threads int) error {
	if len(g.parts) == 1 && !g.forceWindows {
		// Nothing can cross a partition boundary: the lone engine's loop,
		// unchanged.
		e := g.parts[0]
		e.limit, e.horizon = g.limit, g.limit
		e.Progress, e.Locate = g.Progress, g.Locate
		g.err = e.run(ctx)
		switch err := g.err.(type) {
		case nil:
		case *LimitError:
			g.errAt = err.Time
		case *DeadlockError:
			g.errAt = err.Time
		default:
			g.errAt, g.errPart = e.part.errAt, 0
		}
		return g.err
	}
	g.ctx = ctx
	for _, e := range g.parts {
		e.ctx = ctx
		e.limit = Never
		e.Progress = nil
	}
	g.tasks = g.tasks[:0]
	for i := range g.parts {
		g.tasks = append(g.tasks, int32(i)) // messages and errors from before Run
	}
	g.threads = max(1, min(threads, len(g.parts)))
	if g.barrier() {
		// A worker waiting for the next window polls for it rather than
		// parks, while the machine has a core for every thread: a parked
		// worker leaves its P idle, and then every process switch of the
		// others wakes an OS thread to look for work that is not there (the
		// Go scheduler's wakep), a futex call each way.
		g.poll = g.threads <= goruntime.NumCPU()
		g.wdrv = make([]*Proc, g.threads)
		g.claims = make([]claims, g.threads)
		g.taken = make([]atomic.Uint64, len(g.parts))
		for _, e := range g.parts {
			e.part.float = true
		}
		var wg sync.WaitGroup
		for w := range g.threads {
			g.wdrv[w] = &Proc{ID: -1, started: true}
			if w > 0 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					g.runWorker(w)
				}()
			}
		}
		g.runWorker(0)
		wg.Wait()
		for _, h := range g.wdrv {
			h.release()
		}
		for _, e := range g.parts {
			e.part.float = false
		}
	}
	return g.finish()
}

// runWorker runs worker w on the calling goroutine, the home of its baton,
// until the run is over.
func (g *Group) runWorker(w int) {
	self := g.wdrv[w]
	for {
		if e := g.claim(w); e != nil {
			// The baton goes from partition to partition (Group.next) and
			// comes back here when the window has no task left: on one
			// thread, only when the run is over.
			e.loop(self)
		} else if g.threads == 1 && g.dist != nil && g.endWindow() {
			continue // a window with nothing for this process's partitions
		}
		if g.threads == 1 {
			return
		}
		gen := g.gen.Load()
		if g.done.Add(1) == int64(g.threads) {
			g.done.Store(0)
			for {
				more := g.endWindow()
				if !more || g.lastEvents >= parallelMin {
					g.alone = 0
					if g.narrow.Load() {
						g.widen()
					}
					g.stop.Store(!more)
					break
				}
				if g.alone++; g.alone == narrowAfter && g.Narrow != nil && g.poll {
					g.narrowDown()
				}
				// The window before was short: run this one alone, while
				// the other workers wait, rather than pay for handing it
				// out. Who runs a window never changes what it does.
				if e := g.claim(w); e != nil {
					e.loop(self)
				}
			}
			g.gen.Store(gen + 1)
			if g.sleepers.Load() > 0 {
				g.mu.Lock()
				g.cond.Broadcast()
				g.mu.Unlock()
			}
		} else {
			g.await(gen)
		}
		if g.stop.Load() {
			return
		}
	}
}

// parallelMin is the number of events of a window under which the next one
// is run by one worker alone: handing a window out costs about as much as a
// few dozen events (measured: about 6 µs for 16 partitions on two threads).
const parallelMin = 64

// claim takes the next task of the window for worker w and merges its
// messages, or returns nil if none is left. A worker takes the partitions
// it has by their index (partition i is worker i mod threads') first, in
// order, then any left: a partition runs on the same thread window after
// window, its state in that core's caches, unless a worker is done with
// its own while another's wait (allreduces of a double on 1,024 ranks,
// two blocks, two threads: they took either one, whichever worker came
// first, and ran slower than on one thread).
//
// A window run alone (after a short one) goes in index order, as the
// partitions' own order: then a run stopped while one of them spins has
// run the others' due ranks first (TestTimeoutStopsSpinningRank).
func (g *Group) claim(w int) *Engine {
	c := &g.claims[w]
	win := g.windows + 1 // (0 never marks a claim)
	if c.win != win {
		*c = claims{win: win}
	}
	for ; c.pass < 2; c.pass, c.next = c.pass+1, 0 {
		for c.next < len(g.tasks) {
			p := g.tasks[c.next]
			c.next++
			if c.pass == 0 && (g.alone > 0 || int(p)%g.threads != w) {
				continue
			}
			t := &g.taken[p]
			if old := t.Load(); old != win && t.CompareAndSwap(old, win) {
				e := g.parts[p]
				e.part.worker = w
				g.merge(p)
				return e
			}
		}
	}
	return nil
}

// claims is where a worker is in the tasks of a window: its own (pass 0),
// then all (pass 1), from task next on.
type claims struct {
	win        uint64
	pass, next int
}

// endWindow runs the barrier and resets the claims; it reports false when
// the run is over.
func (g *Group) endWindow() bool {
	return g.barrier()
}

// next is where worker w's loop goes at the end of a partition's window: to
// the next task of the window, its messages merged; nil when there is none.
// On one thread the loop goes on through the barrier to the next window, and
// next returns nil only when the run is over. The loop runs on the worker's
// goroutine, which resumes the processes of every partition it runs:
// partitions have no drivers of their own.
func (g *Group) next(w int) *Engine {
	for {
		if e := g.claim(w); e != nil {
			return e
		}
		if g.threads == 1 && g.endWindow() {
			continue
		}
		return nil
	}
}

// spinPolls bounds the polls of a worker waiting for the next window (0.1
// to 0.2 ms on a 2-core machine, docs/scale.md), after which it sleeps:
// on a machine whose cores other programs also use, the worker that has
// the window to finish may be off its core for a scheduler's time slice
// (milliseconds), and a waiter that polled on would take the core from it. 20 recursive-doubling
// allreduces on 2,048 ranks on two threads, with one other busy program on
// the 2 cores, four alternating runs: 6.4-6.7 s polling without bound,
// 3.8-5.7 s with this bound (one thread: 3.0-3.4 s); on an idle machine
// the same within the noise (1.6-2.0 s). What sleeping costs on an idle
// machine shows in windows of a few hundred microseconds whose partitions
// end far apart: 8-16% more time a window in a test of two partitions,
// one with hundreds of processes switching and one nearly idle.
const spinPolls = 1 << 16

// narrowAfter is how many windows in a row run alone make a stretch long
// enough for Narrow: a GOMAXPROCS change stops the world for some
// microseconds, a window alone takes one or two.
const narrowAfter = 256

// narrowDown has the waiting workers sleep, then calls Narrow(true).
func (g *Group) narrowDown() {
	g.narrow.Store(true)
	for g.sleepers.Load() < int32(g.threads-1) {
		goruntime.Gosched()
	}
	g.Narrow(true)
}

// widen calls Narrow(false): the sleeping workers are woken when the next
// window is published.
func (g *Group) widen() {
	g.Narrow(false)
	g.narrow.Store(false)
}

// await returns when the window after generation gen is published. It polls
// (see Run) unless the run is in a narrow stretch, and for at most
// spinPolls polls: then it sleeps.
func (g *Group) await(gen uint64) {
	for i := 0; g.poll && !g.narrow.Load() && i < spinPolls; i++ {
		if g.gen.Load() != gen {
			return
		}
		if i&8191 == 8191 {
			goruntime.Gosched()
		}
	}
	g.mu.Lock()
	g.sleepers.Add(1)
	for g.gen.Load() == gen {
		g.cond.Wait()
	}
	g.sleepers.Add(-1)
	g.mu.Unlock()
}

// merge moves the messages sent to partition i in the window before into its
// queue.
func (g *Group) merge(i int32) {
	e := g.parts[i]
	if srcs := g.inbox[i]; len(srcs) > 0 {
		// Sources come in ascending order, each in send order, so events of
		// equal time and priority get sequence numbers in (source, source
		// order): the queue does the rest of the (time, priority, tie key)
		// order.
		old := e.part.par ^ 1
		for _, s := range srcs {
			box := &g.parts[s].part.out[old][i]
			for _, m := range *box {
				if m.key&keyedFlag == 0 {
					m.key |= e.seq & lowMask
					e.seq++
				}
				e.schedule(m.t, m.key, m.act)
			}
			clear(*box)
			*box = (*box)[:0]
		}
		g.inbox[i] = srcs[:0]
		g.inMin[i] = Never
		if tieSalt != 0 {
			e.q.settle()
		}
	}
}

// barrier ends the window just run and sets up the next one; it reports false
// when the run is over. Every partition is at rest while it runs.
func (g *Group) barrier() bool {
	g.prev, g.tasks = g.tasks, g.prev
	old := g.par
	g.par ^= 1
	for i, e := range g.parts { // all: a hook may have stopped one that did not run
		if e.err != nil && (g.err == nil || e.part.errAt < g.errAt) {
			g.err, g.errAt, g.errPart = e.err, e.part.errAt, i
		}
	}
	localErr := g.err != nil
	if localErr && g.dist == nil {
		return false
	}
	for _, s := range g.prev {
		src := &g.parts[s].part
		for _, d := range src.touched[old] {
			if g.dist != nil && !g.Local(int(d)) {
				g.dist.unsent += untold(src.out[old][d])
				continue // sent to its process below (distBarrier)
			}
			g.inbox[d] = append(g.inbox[d], s)
			g.inMin[d] = min(g.inMin[d], src.outMin[old][d])
			src.outMin[old][d] = Never
		}
		src.touched[old] = src.touched[old][:0]
	}
	if g.AfterWindow != nil && g.windows > 0 {
		g.AfterWindow(g.end) // after the inboxes: Pending counts their messages
	}
	if g.ctx != nil && !localErr {
		if g.ctx.Err() != nil {
			g.err, g.errAt = context.Cause(g.ctx), g.Now()
			if g.dist == nil {
				return false // errPart stays -1
			}
			localErr = true
		}
	}
	n := g.Events()
	g.lastEvents, g.events = n-g.events, n
	if g.Progress != nil && n-g.progress >= ctxCheckEvery {
		g.progress = n
		g.Progress()
	}
	w, found := Never, false
	for i, e := range g.parts {
		if e.q.len() > 0 {
			w, found = min(w, e.q.top().t), true
		}
		if e.part.kept {
			w, found = min(w, e.part.keep), true
			e.part.kept = false
		}
		if len(g.inbox[i]) > 0 {
			w, found = min(w, g.inMin[i]), true
		}
	}
	if g.dist != nil {
		var stop bool
		w, stop = g.distBarrier(old, localErr, w, found)
		found = w != Never
		if stop {
			return false
		}
		if g.err != nil {
			// This process stopped after the exchange: it runs nothing
			// until the next one tells the others (distBarrier).
			g.tasks = g.tasks[:0]
			g.windows++
			return true
		}
	}
	if !found {
		return false
	}
	if w > g.limit {
		g.err, g.errAt = &LimitError{Limit: g.limit, Time: w}, w
		return false
	}
	end := w + g.look
	if end < w {
		end = Never
	}
	hz := min(end-1, g.limit)
	g.end, g.lastHz = end, hz
	g.tasks = g.tasks[:0]
	for i, e := range g.parts {
		if len(g.inbox[i]) > 0 || e.q.len() > 0 && e.q.top().t <= hz {
			g.tasks = append(g.tasks, int32(i))
			e.horizon, e.part.end, e.part.par = hz, end, g.par
		}
	}
	g.windows++
	return true
}

// finish ends a windowed run: the deadlock check and the stopping of the
// processes still parked, partition by partition.
func (g *Group) finish() error {
	for _, e := range g.parts {
		e.ended = true
	}
	if g.dist != nil {
		// The run's time is the latest any process reached; its counts
		// are the sums of the processes'. A process that stopped in the
		// last window, after its exchange, tells the others here.
		errAt := int64(Never)
		if g.err != nil && !g.dist.agreed {
			errAt = int64(g.errAt)
		}
		v := []int64{-int64(g.Now()), errAt}
		c := []int64{int64(g.Events()), int64(g.Crossings())}
		err := g.dist.net.Min(v)
		if err == nil && v[1] != int64(Never) {
			err = g.agreeError(Time(v[1]))
		}
		if err == nil {
			err = g.dist.net.Sum(c)
		}
		if err != nil {
			if g.err == nil {
				g.err, g.errAt = err, g.Now()
			}
		} else {
			g.endNow = Time(-v[0])
			g.ended, g.endEvents, g.endSent = true, uint64(c[0]), uint64(c[1])
		}
	}
	if g.Progress != nil {
		g.Progress()
	}
	if g.err == nil {
		var blocked []*Proc
		for _, e := range g.parts {
			blocked = e.blocked(blocked)
		}
		// By process ID, not partition: ranks spawned in order are listed as
		// a lone engine lists them.
		sort.SliceStable(blocked, func(i, j int) bool { return blocked[i].ID < blocked[j].ID })
		if g.dist != nil {
			// Every process reports the deadlock of the whole run.
			d, err := g.gatherBlocked(blocked, g.Locate)
			switch {
			case err != nil:
				g.err, g.errAt = err, g.Now()
			case d != nil:
				g.err, g.errAt = d, d.Time
			}
		} else if d := deadlock(g.Now(), blocked, g.Locate); d != nil {
			g.err, g.errAt = d, d.Time
		}
	}
	for _, e := range g.parts {
		e.horizon = -1 // a stopped process's loop dispatches nothing
		e.stopProcs()
	}
	return g.err
}
