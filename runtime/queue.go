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

// queue holds the pending events, by time in buckets: a bucket holds the
// events of one time, and the buckets wait in a min-heap by time (times),
// found by time through a small hash table (index). The earliest bucket is
// open (cur): its events sorted by key, taken from the front. A large run
// moves in lockstep, so its pending events fall on a few times, hundreds
// each (a halo of 512 ranks: 2,700 events on 6 times), and the order of a
// cycle's events is by key: a bucket is sorted once, when it opens, and
// needs no sorting at all when its events came in key order (which they
// mostly do: those without a tie key in the order they were scheduled,
// those with one from events of the cycle before, that ran in the order of
// their places). A single heap of every event, this replaced, took six
// levels of sift-down a pop on that halo.
//
// Events scheduled for the open bucket's time (most often: due now, such
// as a process woken by what the machine just did) go into it in key order:
// at its end, nearly always. Events of equal time and key (tie keys can be
// equal) are in no order there: when next takes a keyed event with others
// of its time and key behind it, it takes them all and gives the first by
// full tie (popTie). Of events of equal time, key and full tie, or without
// full ties, any may come first: Tied says why that changes nothing.
//
// A queue of few events (a ping-pong, a broadcast's sparse messages) has
// mostly one event a time, and a bucket made and opened for each cost
// more than the heap it replaced: while at most smallQueue events are
// queued, new ones go to a small 4-ary heap instead, and the next event
// is the earlier of its first and the open bucket's.
type queue struct {
	cur   *bucket   // the open bucket, or nil; its ev[head:] are pending
	times []*bucket // the other buckets, a min-heap by time
	index []*bucket // hash table of the buckets of times by time (nil: an empty place)
	last  *bucket   // of times: the bucket the latest event went to, or nil
	spare []*bucket // buckets to use again
	small []event   // a 4-ary min-heap of events queued while few were
	n     int       // pending events
	// top's event is small's first (else the open bucket's)
	fromSmall bool
	tied      []event // popTie's scratch
	buf       []event // join's and sortEvents' scratch (popTie may open a bucket)
	runs      []int   // sortEvents' scratch

	// Under a tie salt (SetTieSalt), events with tie keys wait here and go
	// into the queue in a salted order (settle) before the engine looks at
	// it next: after each event, and after a window's messages are merged.
	stash    []event
	stashNow Time
	settling bool
}

// bucket holds events of one time. Closed, it keeps them in two lists as
// they come: ev those of the priority of its first event, ev2 those of
// the priority of the first of another (and ev those of any third): the
// events of a cycle come in with their priorities interleaved (a
// link's arbitration, then a packet arriving, ...), which would break one
// list into many runs out of key order, while each priority's events come
// mostly in key order. Open, ev holds them all.
type bucket struct {
	t       Time
	ev, ev2 []event
	head    int  // when open: ev[:head] are taken
	sorted  bool // ev is in key order
	sorted2 bool // ev2 is in key order
}

// add appends e, of b's time, to b, closed.
func (b *bucket) add(e event) {
	n := len(b.ev)
	if n > 0 && (e.key^b.ev[0].key)>>prioShift != 0 {
		if m := len(b.ev2); m == 0 || (e.key^b.ev2[0].key)>>prioShift == 0 {
			if m > 0 && e.key < b.ev2[m-1].key {
				b.sorted2 = false
			}
			b.ev2 = append(b.ev2, e)
			return
		}
	}
	if n > 0 && e.key < b.ev[n-1].key {
		b.sorted = false
	}
	b.ev = append(b.ev, e)
}

// join puts b's events in key order in ev, as it opens.
func (q *queue) join(b *bucket) {
	if !b.sorted {
		q.buf = sortEvents(b.ev, q.buf, &q.runs)
		b.sorted = true
	}
	if len(b.ev2) == 0 {
		return
	}
	if !b.sorted2 {
		q.buf = sortEvents(b.ev2, q.buf, &q.runs)
		b.sorted2 = true
	}
	a, c := b.ev, b.ev2
	if a[len(a)-1].key <= c[0].key { // (most often: lists of two priorities)
		b.ev = append(a, c...)
	} else {
		var m []event
		if c[len(c)-1].key <= a[0].key {
			m = append(append(q.buf[:0], c...), a...)
		} else {
			m = slices.Grow(q.buf[:0], len(a)+len(c))[:len(a)+len(c)]
			mergeRuns(m, a, c)
		}
		clear(a)
		b.ev, q.buf = m, a[:0]
	}
	clear(c)
	b.ev2 = c[:0]
}

// insert puts e, of b's time, in its place by key among b's pending events,
// b open: after those of equal keys.
func (b *bucket) insert(e event) {
	ev := b.ev
	n := len(ev)
	if n == b.head || ev[n-1].key <= e.key {
		b.ev = append(ev, e)
		return
	}
	// The first pending event of a greater key.
	lo, hi := b.head, n-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ev[m].key <= e.key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == b.head && lo > 0 {
		b.head--
		ev[b.head] = e
		return
	}
	ev = append(ev, event{})
	copy(ev[lo+1:], ev[lo:n])
	ev[lo] = e
	b.ev = ev
}

// sortEvents puts ev in key order, with buf as scratch (its room is
// reused), and returns buf. It is a merge sort of ev's ascending runs,
// those shorter than minRun made longer by insertion: a bucket's events
// come in a few runs (events scheduled for its time from several earlier
// ones), which generic sorting ignored, at 140 instructions an event.
func sortEvents(ev, buf []event, runs *[]int) []event {
	const minRun = 8
	n := len(ev)
	ends := (*runs)[:0] // where each run ends
	for i := 0; i < n; {
		j := i + 1
		for j < n && ev[j-1].key <= ev[j].key {
			j++
		}
		if end := min(i+minRun, n); j < end {
			insertionSort(ev[i:end], j-i)
			j = end
		}
		ends = append(ends, j)
		i = j
	}
	*runs = ends[:0]
	if len(ends) == 1 {
		return buf
	}
	buf = slices.Grow(buf[:0], n)[:n]
	src, dst := ev, buf
	for len(ends) > 1 {
		k, lo := 0, 0
		for i := 0; i < len(ends); i += 2 {
			if i+1 == len(ends) {
				copy(dst[lo:], src[lo:ends[i]])
				ends[k] = ends[i]
				k++
				break
			}
			mergeRuns(dst[lo:ends[i+1]], src[lo:ends[i]], src[ends[i]:ends[i+1]])
			ends[k] = ends[i+1]
			lo = ends[i+1]
			k++
		}
		ends = ends[:k]
		src, dst = dst, src
	}
	if &src[0] != &ev[0] {
		copy(ev, src)
	}
	clear(buf)
	return buf
}

// insertionSort sorts ev by key, its first sorted events in order already.
func insertionSort(ev []event, sorted int) {
	for i := max(sorted, 1); i < len(ev); i++ {
		if e := ev[i]; e.key < ev[i-1].key {
			j := i
			for ; j > 0 && e.key < ev[j-1].key; j-- {
				ev[j] = ev[j-1]
			}
			ev[j] = e
		}
	}
}

// mergeRuns merges a and b, each in key order, into dst (of their length),
// a's events first of equal keys.
func mergeRuns(dst, a, b []event) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].key < a[i].key {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

func (q *queue) len() int { return q.n }

// smallQueue is how many events a queue holds at most in its small heap:
// a few events, each of its own time (a ping-pong, a broadcast's sparse
// messages), would each make a bucket and open it, which costs more than
// a heap that small.
const smallQueue = 32

// push queues e; now is the current time (no event is due earlier).
func (q *queue) push(e event, now Time) {
	if tieSalt != 0 && e.key&keyedFlag != 0 && !q.settling {
		q.stash = append(q.stash, e)
		q.stashNow = now
		return
	}
	q.n++
	c := q.cur
	if c != nil && e.t == c.t {
		c.insert(e)
		return
	}
	if q.n <= smallQueue {
		q.small = append(q.small, e)
		up(q.small, len(q.small)-1)
		return
	}
	if c != nil && e.t < c.t {
		q.close()
	}
	b := q.last
	if b == nil || b.t != e.t {
		b = q.bucket(e.t)
		q.last = b
	}
	b.add(e)
}

// bucket is the bucket of time t among times, made if there is none.
func (q *queue) bucket(t Time) *bucket {
	if 2*(len(q.times)+1) > len(q.index) {
		q.grow()
	}
	mask := len(q.index) - 1
	i := hashTime(t) & mask
	for b := q.index[i]; b != nil; b = q.index[i] {
		if b.t == t {
			return b
		}
		i = (i + 1) & mask
	}
	b := q.newBucket()
	b.t = t
	q.index[i] = b
	q.times = append(q.times, b)
	upTimes(q.times, len(q.times)-1)
	return b
}

// newBucket is an empty bucket, a spare one if there is one.
func (q *queue) newBucket() *bucket {
	if n := len(q.spare); n > 0 {
		b := q.spare[n-1]
		q.spare = q.spare[:n-1]
		return b
	}
	return &bucket{sorted: true, sorted2: true}
}

func hashTime(t Time) int { return int(uint64(t) * 0x9e3779b97f4a7c15 >> 40) }

// grow doubles the hash table.
func (q *queue) grow() {
	old := q.index
	q.index = make([]*bucket, max(16, 2*len(old)))
	mask := len(q.index) - 1
	for _, b := range old {
		if b != nil {
			i := hashTime(b.t) & mask
			for q.index[i] != nil {
				i = (i + 1) & mask
			}
			q.index[i] = b
		}
	}
}

// unindex takes b out of the hash table.
func (q *queue) unindex(b *bucket) {
	mask := len(q.index) - 1
	i := hashTime(b.t) & mask
	for q.index[i] != b {
		i = (i + 1) & mask
	}
	// Move back the entries after it that belong before the hole.
	for j := (i + 1) & mask; q.index[j] != nil; j = (j + 1) & mask {
		if h := hashTime(q.index[j].t) & mask; (j-h)&mask >= (j-i)&mask {
			q.index[i] = q.index[j]
			i = j
		}
	}
	q.index[i] = nil
}

// open makes the earliest bucket of times the open one; the open one, if
// any, has no events left.
func (q *queue) open() {
	if c := q.cur; c != nil {
		clear(c.ev)
		c.ev, c.head = c.ev[:0], 0
		q.spare = append(q.spare, c)
	}
	b := q.times[0]
	n := len(q.times) - 1
	q.times[0] = q.times[n]
	q.times[n] = nil
	q.times = q.times[:n]
	downTimes(q.times)
	q.unindex(b)
	if q.last == b {
		q.last = nil
	}
	if !b.sorted || len(b.ev2) > 0 {
		q.join(b)
	}
	q.cur = b
}

// close puts the open bucket back among times, before an event of an
// earlier time is queued.
func (q *queue) close() {
	c := q.cur
	q.cur = nil
	n := copy(c.ev, c.ev[c.head:])
	clear(c.ev[n:])
	c.ev, c.head = c.ev[:n], 0
	if n == 0 {
		q.spare = append(q.spare, c)
		return
	}
	if 2*(len(q.times)+1) > len(q.index) {
		q.grow()
	}
	mask := len(q.index) - 1
	i := hashTime(c.t) & mask
	for q.index[i] != nil {
		i = (i + 1) & mask
	}
	q.index[i] = c
	q.times = append(q.times, c)
	upTimes(q.times, len(q.times)-1)
}

// upTimes moves the heap h's bucket i up to its place.
func upTimes(h []*bucket, i int) {
	b := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p].t <= b.t {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = b
}

// downTimes moves the heap h's first bucket down to its place.
func downTimes(h []*bucket) {
	n := len(h)
	if n == 0 {
		return
	}
	b := h[0]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].t < h[c].t {
			c++
		}
		if b.t <= h[c].t {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = b
}

// each calls fn for every queued event, in no set order.
func (q *queue) each(fn func(*event)) {
	for i := range q.small {
		fn(&q.small[i])
	}
	if c := q.cur; c != nil {
		for i := c.head; i < len(c.ev); i++ {
			fn(&c.ev[i])
		}
	}
	for _, b := range q.times {
		for i := range b.ev {
			fn(&b.ev[i])
		}
		for i := range b.ev2 {
			fn(&b.ev2[i])
		}
	}
}

// top is the next event; the queue is not empty.
func (q *queue) top() *event {
	if c := q.cur; c != nil && c.head < len(c.ev) {
		if h := q.small; len(h) > 0 && h[0].before(&c.ev[c.head]) {
			q.fromSmall = true
			return &h[0]
		}
		q.fromSmall = false
		return &c.ev[c.head]
	}
	if len(q.times) > 0 {
		q.open()
		return q.top()
	}
	q.fromSmall = true
	return &q.small[0]
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
			if c := q.cur; c != nil && c.t == tied[i].t {
				c.insert(tied[i])
			} else {
				q.small = append(q.small, tied[i])
				up(q.small, len(q.small)-1)
			}
			q.n++
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
// the next one, in the open bucket or the small heap (e came from one of
// them, and the other buckets are of later times).
func (q *queue) twin(e *event) bool {
	c := q.cur
	return c != nil && c.head < len(c.ev) && c.ev[c.head].same(e) || len(q.small) > 0 && q.small[0].same(e)
}

// pop takes the next event in (time, key) order; the queue is not empty.
func (q *queue) pop() event {
	q.top()
	return q.take()
}

// take is pop right after top.
func (q *queue) take() event {
	if q.fromSmall {
		return q.takeSmall()
	}
	q.n--
	c := q.cur
	c.head++
	return c.ev[c.head-1]
}

// takeSmall is take of the small heap's first event.
//
//go:noinline
func (q *queue) takeSmall() event {
	q.n--
	return popHeap(&q.small)
}

// up moves the heap h's event i up to its place.
func up(h []event, i int) {
	for i > 0 {
		p := (i - 1) / 4
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// popHeap takes the first event of the heap *h, which is not empty: the
// heap's last event goes down from the root along the path of least
// children (descend walks it to its end first, then the hole climbs back
// while the event above it is not before the last).
func popHeap(h *[]event) event {
	ev := *h
	top := ev[0]
	n := len(ev) - 1
	last := ev[n]
	ev[n] = event{}
	ev = ev[:n]
	*h = ev
	if n == 0 {
		return top
	}
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
