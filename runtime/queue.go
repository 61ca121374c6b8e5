package runtime

import (
	"cmp"
	"slices"
)

// Time is virtual time in cycles of the modeled clock.
type Time = int64

// Never is a time later than any event.
const Never Time = 1<<63 - 1

// Priorities order events that fall on the same cycle: lower runs first. Model
// events (a packet arriving, a link freeing) run before processes resume, so a
// process woken at time t sees everything the machine did up to and including t.
const (
	PrioModel int32 = 0
	PrioProc  int32 = 10
	PrioLate  int32 = 20
)

// An Action is something the engine does at a virtual time. Model packages
// implement it on their own types so that scheduling allocates nothing.
type Action interface {
	Act(now Time)
}

// ActionFunc adapts a function to Action.
type ActionFunc func(now Time)

// Act calls f.
func (f ActionFunc) Act(now Time) { f(now) }

// event is one entry of the queue, in (time, key) order. key packs the
// priority and then, for an event without a tie key, a zero flag and its
// sequence number (the order of scheduling), for one with a tie key
// (ScheduleKey), a one flag and the tie key: so events of one cycle and
// priority run first those without a tie key, in the order they were
// scheduled, then those with one, in tie-key order, their place among the
// events of their cycle independent of when they were scheduled. Two events
// of equal tie keys run in the order of their actions' full ties (Tied),
// looked at only then; if either has none, or they are equal, in an order
// the queue's state fixes.
type event struct {
	t   Time
	key uint64
	act Action
}

const (
	prioShift = 48
	keyedFlag = 1 << 47
	lowMask   = keyedFlag - 1
)

// eventKey is the key of an event of priority prio without a tie key,
// scheduled seq-th.
func eventKey(prio int32, seq uint64) uint64 {
	return uint64(uint32(prio))<<prioShift | seq&lowMask
}

// tiedKey is the key of an event of priority prio with tie key tie (its
// low 47 bits).
func tiedKey(prio int32, tie uint64) uint64 {
	return uint64(uint32(prio))<<prioShift | keyedFlag | tie&lowMask
}

// before reports whether a comes before b in (time, key) order. (The heap
// and the FIFO know only this order; pop tells events of equal time and
// key apart.)
func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.key < b.key
}

// same reports whether a and b have equal times and keys.
func (a *event) same(b *event) bool { return a.t == b.t && a.key == b.key }

// tieBefore reports whether a, of the same time and key as b, comes before
// it: both actions are Tied and a's full tie is the smaller.
func (a *event) tieBefore(b *event) bool {
	x, ok := a.act.(Tied)
	if !ok {
		return false
	}
	y, ok := b.act.(Tied)
	if !ok {
		return false
	}
	return x.Tie().less(y.Tie())
}

// queue holds the pending events: a 4-ary min-heap (shallower than a binary
// heap, so fewer cache misses per pop on the long queues of large runs), and
// beside it a FIFO of events due at the current time, which need no heap at
// all. Those are most of a large run's events: a process woken by what the
// machine just did (a message that arrived), and at start every process. An
// event goes to the FIFO when it is due now and after the FIFO's last event
// in (time, key) order, so the FIFO is always in order, and pop takes the
// earlier of the two heads: the order is exactly that of a single heap.
// Events of equal time and key (tie keys can be equal) are in no order
// there: when next takes a keyed event with others of its time and key
// behind it, it takes them all and gives the first by full tie (popTie).
// That costs two comparisons a keyed event, and nothing in the heap's
// loops.
type queue struct {
	ev      []event
	now     []event // events due at the current time, in key order
	nowHead int     // now[nowHead:] are pending
	tied    []event // popTie's scratch

	// Under a tie salt (SetTieSalt), events with tie keys wait here and go
	// into the queue in a salted order (settle) before the engine looks at
	// it next: after each event, and after a window's messages are merged.
	stash    []event
	stashNow Time
	settling bool
}

func (q *queue) len() int { return len(q.ev) + len(q.now) - q.nowHead }

// push queues e; now is the current time (no event is due earlier).
func (q *queue) push(e event, now Time) {
	if tieSalt != 0 && e.key&keyedFlag != 0 && !q.settling {
		q.stash = append(q.stash, e)
		q.stashNow = now
		return
	}
	if e.t == now {
		if n := len(q.now); n == q.nowHead || q.now[n-1].key < e.key {
			q.now = append(q.now, e)
			return
		}
	}
	q.ev = append(q.ev, e)
	q.up(len(q.ev) - 1)
}

// up moves the heap's event i up to its place.
func (q *queue) up(i int) {
	for i > 0 {
		p := (i - 1) / 4
		if !q.ev[i].before(&q.ev[p]) {
			break
		}
		q.ev[i], q.ev[p] = q.ev[p], q.ev[i]
		i = p
	}
}

// fromNow reports whether the next event is the head of the FIFO.
func (q *queue) fromNow() bool {
	return q.nowHead < len(q.now) && (len(q.ev) == 0 || q.now[q.nowHead].before(&q.ev[0]))
}

func (q *queue) top() *event {
	if q.fromNow() {
		return &q.now[q.nowHead]
	}
	return &q.ev[0]
}

// popTie is pop of first and the events of its time and key still queued:
// it takes them out, gives back the one whose full tie comes first (the
// earliest taken out if none comes before it) and queues the others again.
func (q *queue) popTie(first event) event {
	tied := append(q.tied[:0], first)
	for q.twin(&first) {
		tied = append(tied, q.pop())
	}
	m := 0
	for i := 1; i < len(tied); i++ {
		if tied[i].tieBefore(&tied[m]) {
			m = i
		}
	}
	e := tied[m]
	for i := range tied {
		if i != m {
			q.ev = append(q.ev, tied[i])
			q.up(len(q.ev) - 1)
		}
	}
	clear(tied)
	q.tied = tied[:0]
	return e
}

// next takes the next event: the first in (time, key) order and, of those
// of equal time and key, by full tie (popTie).
func (q *queue) next() event {
	e := q.pop()
	if e.key&keyedFlag != 0 && q.twin(&e) {
		return q.popTie(e)
	}
	return e
}

// twin reports whether an event of e's time and key is queued: then it is
// the next one.
func (q *queue) twin(e *event) bool {
	return len(q.ev) > 0 && q.ev[0].same(e) || q.nowHead < len(q.now) && q.now[q.nowHead].same(e)
}

// pop takes the next event in (time, key) order.
func (q *queue) pop() event {
	if q.fromNow() {
		top := q.now[q.nowHead]
		q.now[q.nowHead] = event{}
		q.nowHead++
		if q.nowHead == len(q.now) {
			q.now, q.nowHead = q.now[:0], 0
		}
		return top
	}
	ev := q.ev
	top := ev[0]
	n := len(ev) - 1
	last := ev[n]
	ev[n] = event{}
	ev = ev[:n]
	q.ev = ev
	if n == 0 {
		return top
	}
	// Sift last down from the root. The least child so far is kept in
	// locals (mt, mk), not read again from the heap at each comparison.
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m, mt, mk := c, ev[c].t, ev[c].key
		for j := c + 1; j < min(c+4, n); j++ {
			if e := &ev[j]; e.t < mt || e.t == mt && e.key < mk {
				m, mt, mk = j, e.t, e.key
			}
		}
		if mt > last.t || mt == last.t && mk >= last.key {
			break
		}
		ev[i] = ev[m]
		i = m
	}
	ev[i] = last
	return top
}

// settle queues the stashed events, in an order the salt gives: by their
// salted keys, and those of equal keys shuffled.
func (q *queue) settle() {
	if len(q.stash) == 0 {
		return
	}
	st := q.stash
	q.stash = nil
	for i := len(st) - 1; i > 0; i-- {
		j := saltKey(uint64(i)) % uint64(i+1)
		st[i], st[j] = st[j], st[i]
	}
	slices.SortStableFunc(st, func(a, b event) int { return cmp.Compare(saltKey(a.key), saltKey(b.key)) })
	q.settling = true
	for _, e := range st {
		q.push(e, q.stashNow)
	}
	q.settling = false
}
