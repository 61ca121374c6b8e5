package runtime

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

// event is one entry of the queue. key packs (priority, sequence) so that the
// total order (time, priority, sequence) costs two integer comparisons.
type event struct {
	t   Time
	key uint64
	act Action
}

const seqBits = 48

func eventKey(prio int32, seq uint64) uint64 {
	return uint64(uint32(prio))<<seqBits | seq&(1<<seqBits-1)
}

func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.key < b.key
}

// queue is a 4-ary min-heap of events: shallower than a binary heap, so fewer
// cache misses per pop on the long queues of large runs.
type queue struct {
	ev []event
}

func (q *queue) len() int { return len(q.ev) }

func (q *queue) push(e event) {
	q.ev = append(q.ev, e)
	i := len(q.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !q.ev[i].before(&q.ev[p]) {
			break
		}
		q.ev[i], q.ev[p] = q.ev[p], q.ev[i]
		i = p
	}
}

func (q *queue) top() *event { return &q.ev[0] }

func (q *queue) pop() event {
	top := q.ev[0]
	n := len(q.ev) - 1
	last := q.ev[n]
	q.ev[n] = event{}
	q.ev = q.ev[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if q.ev[j].before(&q.ev[m]) {
				m = j
			}
		}
		if !q.ev[m].before(&last) {
			break
		}
		q.ev[i] = q.ev[m]
		i = m
	}
	q.ev[i] = last
	return top
}
