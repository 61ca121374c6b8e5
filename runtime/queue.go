package runtime

import (
	"cmp"
	"math/bits"
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
	// Sift last down from the root, where a plain sift-down puts it: down
	// the path of least children (of equal ones the first) to the first
	// node none of whose children is before last, so that the heap, equal
	// events included, is the same. descend walks the path to its end
	// first, moving each least child up without comparing with last (the
	// heap's last leaf, whose place is nearly always at or near the
	// bottom); then the hole climbs back while the event above it is not
	// before last: the path's events never decrease, so that is the same
	// place.
	i := descend(ev)
	for i > 0 {
		p := (i - 1) / 4
		if e := &ev[p]; e.t < last.t || e.t == last.t && e.key < last.key {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = last
	return top
}

// descend takes the hole at the root of the heap ev down the path of least
// children, moving each up, and returns where the path ends. A node with
// four children finds the least without a branch: which child wins is as
// good as random, so such a branch is mispredicted half the time, which
// cost more than the few instructions that choose without one (on a
// broadcast of 1 MiB on 512 ranks, 20 million of 31 million mispredicted
// branches).
func descend(ev []event) int {
	n := len(ev)
	i := 0
	hole := &ev[0]
	c := 1
	for ; c+3 < n; c = 4*i + 1 {
		// The lesser of each pair, then the lesser of the two (the first
		// of equal ones), each comparison a borrow and each choice an
		// index.
		e := (*[4]event)(ev[c : c+4])
		ja := int(less(e[1].t, e[1].key, e[0].t, e[0].key))     // 1 if e[1] is before e[0]
		jb := 2 + int(less(e[3].t, e[3].key, e[2].t, e[2].key)) // 3 if e[3] is before e[2]
		a, b := &e[ja&3], &e[jb&3]
		j := (ja + (jb-ja)&-int(less(b.t, b.key, a.t, a.key))) & 3 // the later pair's only if strictly before
		*hole = e[j]
		hole = &e[j]
		i = c + j
	}
	if c < n {
		m, mt, mk := c, ev[c].t, ev[c].key
		for j := c + 1; j < n; j++ {
			if e := &ev[j]; e.t < mt || e.t == mt && e.key < mk {
				m, mt, mk = j, e.t, e.key
			}
		}
		*hole = ev[m]
		i = m
	}
	return i
}

// less is 1 if (at, ak) is before (bt, bk), else 0: the borrow out of the
// 128-bit subtraction of (bt, bk) from (at, ak). (Times are never
// negative, schedule sees to it, so their order is that of unsigned
// numbers.)
func less(at Time, ak uint64, bt Time, bk uint64) uint64 {
	_, borrow := bits.Sub64(ak, bk, 0)
	_, borrow = bits.Sub64(uint64(at), uint64(bt), borrow)
	return borrow
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
