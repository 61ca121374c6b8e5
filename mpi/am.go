package mpi

import "github.com/bglua/bglua/msglayer"

// AMLoop is a rank's active-message advance loop ([ML] advance): the queues
// it runs from, and the blocking of a rank that waits for them. F is what
// the layer above runs for a send completion or a micro-task (a Lua function
// for luabind); the messages stay in the rank's msglayer.Inbox.
//
// Pass takes what one run of the loop runs, in order.
type AMLoop[F any] struct {
	r  *Rank
	ib *msglayer.Inbox
	// done holds the send-completion callbacks to run, tasks the queued
	// micro-tasks.
	done, tasks []F
	waiting     bool // blocked in Await or Block
	// seen is when the latest handler or task that thread units ran for
	// the rank ended: its effects are visible to the rank from when it
	// starts, so a wait returns no earlier than that.
	seen Time
}

// NewAMLoop makes the advance loop of rank r over its inbox ib, which wakes
// the rank when a message becomes ready while it waits.
func NewAMLoop[F any](r *Rank, ib *msglayer.Inbox) *AMLoop[F] {
	a := &AMLoop[F]{r: r, ib: ib}
	ib.OnReady = func() {
		if a.waiting {
			r.Wake()
		}
	}
	return a
}

// Complete queues a send's completion callback, and wakes the rank if it
// waits.
func (a *AMLoop[F]) Complete(f F) {
	a.done = append(a.done, f)
	if a.waiting {
		a.r.Wake()
	}
}

// Post queues a micro-task for the loop to run.
func (a *AMLoop[F]) Post(f F) { a.tasks = append(a.tasks, f) }

// AMPass is one run of the advance loop: every completion callback,
// including those the callbacks add; then every message whose data was
// complete when the callbacks were done; then every micro-task, including
// those the tasks add. A pass started inside another (a handler that
// advances) takes what is left then.
type AMPass[F any] struct {
	a     *AMLoop[F]
	phase int // 0: callbacks, 1: messages, 2: tasks
	msgs  []*msglayer.Message
}

// Pass starts a run of the loop.
func (a *AMLoop[F]) Pass() *AMPass[F] { return &AMPass[F]{a: a} }

// Next takes what the pass runs next: a callback or task f, or a message m
// (then f is the zero F); ok is false when the pass is over.
func (p *AMPass[F]) Next() (f F, m *msglayer.Message, ok bool) {
	if p.phase == 0 {
		if f, ok = pop(&p.a.done); ok {
			return f, nil, true
		}
		p.phase, p.msgs = 1, p.a.ib.Take()
	}
	if p.phase == 1 {
		if m, ok = pop(&p.msgs); ok {
			return f, m, true
		}
		p.phase = 2
	}
	f, ok = pop(&p.a.tasks)
	return f, nil, ok
}

func pop[F any](q *[]F) (f F, ok bool) {
	if len(*q) == 0 {
		return f, false
	}
	f = (*q)[0]
	*q = (*q)[1:]
	return f, true
}

// HasWork reports whether the loop has something to run.
func (a *AMLoop[F]) HasWork() bool {
	return len(a.done) > 0 || len(a.tasks) > 0 || len(a.ib.Ready) > 0
}

// Ended records that a handler or task thread units ran for the rank ended
// at t, and wakes the rank then if it waits (to look again at what it
// waits for).
func (a *AMLoop[F]) Ended(t Time) {
	a.seen = max(a.seen, t)
	if a.waiting {
		a.r.Proc.Engine().Wake(a.r.Proc, t)
	}
}

// Await blocks the rank in call until something concerns its loop: a
// message, a send completion, a task, or the end of a handler or task that
// thread units ran for it (whose effects the rank sees from then on).
func (a *AMLoop[F]) Await(call string) {
	if a.seen > a.r.Now() {
		a.r.Proc.SleepUntil(a.seen)
		return
	}
	if !a.HasWork() {
		a.Block(call)
	}
}

// Block parks the rank in call until the loop is woken: a message ready, a
// send complete, a unit's handler ended.
func (a *AMLoop[F]) Block(call string) {
	a.waiting = true
	a.r.Block(WaitInfo{Call: call, Peer: NoPeer})
	a.waiting = false
}

// CatchUp lets the rank's time pass until the handlers thread units ran for
// it so far have ended: what it saw includes their work.
func (a *AMLoop[F]) CatchUp() {
	for a.seen > a.r.Now() {
		a.r.Proc.SleepUntil(a.seen)
	}
}
