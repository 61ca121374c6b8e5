package mpi

import (
	"sort"

	"github.com/bglua/bglua/msglayer"
)

// MPI matching: a rank's posted receives are matched in the order they were
// posted, its unexpected messages in the order they arrived. Kept as plain
// lists, both cost a scan per match: a root that posts a receive from each
// of 41,616 ranks (a linear gather) scans on average half of them for each
// arrival, 10^9 comparisons. Here a queue longer than matchListMax is
// indexed by (context, source), so a match looks only at the entries that
// could match it; a short one stays a list, which is cheaper to scan than a
// map is to look up, until it is empty again.

// matchListMax is the longest queue kept as a plain list. An indexed queue
// that falls to half of it becomes a list again, and drops its map: after a
// burst from thousands of sources the map would keep its size for the rest
// of the run (Go maps do not shrink), and its lookups would cost every
// message after.
var matchListMax = 16

// matches reports whether a receive of (src, tag) on ctx takes m; src and
// tag may be AnySource and AnyTag.
func matches(ctx, src, tag int, m *msglayer.Message) bool {
	return m.Ctx == ctx && (src == AnySource || m.From == src) && (tag == AnyTag || m.Tag == tag)
}

// matchKey is a context and a source rank in the communicator (AnySource
// for receives that take any).
type matchKey struct{ ctx, src int }

// postedQueue holds a rank's posted receives, in buckets by context and
// source, each bucket in post order; seq orders receives across buckets.
type postedQueue struct {
	seq     uint64
	n       int
	list    []*Request // all of them, in post order, while not indexed
	indexed bool
	buckets map[matchKey][]*Request
}

func (p *postedQueue) add(q *Request) {
	q.seq = p.seq
	p.seq++
	p.n++
	if !p.indexed {
		if len(p.list) < matchListMax {
			p.list = append(p.list, q)
			return
		}
		p.buckets = make(map[matchKey][]*Request)
		for i, o := range p.list {
			k := matchKey{o.ctx, o.src}
			p.buckets[k] = append(p.buckets[k], o)
			p.list[i] = nil
		}
		p.list = p.list[:0]
		p.indexed = true
	}
	k := matchKey{q.ctx, q.src}
	p.buckets[k] = append(p.buckets[k], q)
}

// take removes and returns the earliest posted receive that m matches, or nil.
func (p *postedQueue) take(m *msglayer.Message) *Request {
	if p.n == 0 {
		return nil
	}
	if !p.indexed {
		for i, q := range p.list {
			if matches(q.ctx, q.src, q.tag, m) {
				p.cut(i)
				return q
			}
		}
		return nil
	}
	exact, any := matchKey{m.Ctx, m.From}, matchKey{m.Ctx, AnySource}
	bi, b := firstTag(p.buckets[exact], m.Tag)
	wi, w := firstTag(p.buckets[any], m.Tag)
	switch {
	case b == nil && w == nil:
		return nil
	case b == nil || w != nil && w.seq < b.seq:
		p.remove(any, wi)
		return w
	}
	p.remove(exact, bi)
	return b
}

// firstTag is the first receive of a bucket that takes tag, and its index.
func firstTag(qs []*Request, tag int) (int, *Request) {
	for i, q := range qs {
		if q.tag == AnyTag || q.tag == tag {
			return i, q
		}
	}
	return -1, nil
}

func (p *postedQueue) remove(k matchKey, i int) {
	qs := p.buckets[k]
	p.n--
	switch {
	case len(qs) == 1:
		delete(p.buckets, k)
		qs = nil
	case i == 0:
		// The usual case: the oldest goes. Slicing keeps this O(1) for a
		// bucket of many receives taken in order.
		qs[0] = nil
		qs = qs[1:]
	default:
		copy(qs[i:], qs[i+1:])
		qs[len(qs)-1] = nil
		qs = qs[:len(qs)-1]
	}
	if qs != nil {
		p.buckets[k] = qs
	}
	if p.n <= matchListMax/2 {
		p.unindex()
	}
}

// unindex makes the queue a list again, in post order.
func (p *postedQueue) unindex() {
	for _, qs := range p.buckets {
		p.list = append(p.list, qs...)
	}
	// Map order is random; the post order is not.
	sort.Slice(p.list, func(i, j int) bool { return p.list[i].seq < p.list[j].seq })
	p.buckets, p.indexed = nil, false
}

// arrival is a message that came before any receive matched it.
type arrival struct {
	m    *msglayer.Message
	done Time // when its data is complete at the destination

	prev, next   *arrival // the rank's unexpected messages, in arrival order
	bprev, bnext *arrival // those of the same context and source
}

// arrivals is a doubly linked list of arrivals.
type arrivals struct{ head, tail *arrival }

// unexpectedQueue holds a rank's unexpected messages in arrival order, and
// again by context and source once indexed.
type unexpectedQueue struct {
	all     arrivals
	n       int
	indexed bool
	buckets map[matchKey]arrivals
}

func (u *unexpectedQueue) len() int { return u.n }

func (u *unexpectedQueue) add(a *arrival) {
	u.n++
	a.prev, a.next = u.all.tail, nil
	if u.all.tail != nil {
		u.all.tail.next = a
	} else {
		u.all.head = a
	}
	u.all.tail = a
	switch {
	case u.indexed:
		u.file(a)
	case u.n > matchListMax:
		u.buckets = make(map[matchKey]arrivals)
		for o := u.all.head; o != nil; o = o.next {
			u.file(o)
		}
		u.indexed = true
	}
}

// file appends a to the bucket of its context and source.
func (u *unexpectedQueue) file(a *arrival) {
	k := matchKey{a.m.Ctx, a.m.From}
	b := u.buckets[k]
	a.bprev, a.bnext = b.tail, nil
	if b.tail != nil {
		b.tail.bnext = a
	} else {
		b.head = a
	}
	b.tail = a
	u.buckets[k] = b
}

// find is the earliest arrival a receive of (src, tag) on ctx would match,
// or nil; src and tag may be AnySource and AnyTag.
func (u *unexpectedQueue) find(ctx, src, tag int) *arrival {
	if u.n == 0 {
		return nil
	}
	if src != AnySource && u.indexed {
		for a := u.buckets[matchKey{ctx, src}].head; a != nil; a = a.bnext {
			if tag == AnyTag || a.m.Tag == tag {
				return a
			}
		}
		return nil
	}
	for a := u.all.head; a != nil; a = a.next {
		if matches(ctx, src, tag, a.m) {
			return a
		}
	}
	return nil
}

// first is the earliest arrival whose message ok accepts, or nil.
func (u *unexpectedQueue) first(ok func(*msglayer.Message) bool) *arrival {
	for a := u.all.head; a != nil; a = a.next {
		if ok(a.m) {
			return a
		}
	}
	return nil
}

// remove takes a out of the queue.
func (u *unexpectedQueue) remove(a *arrival) {
	u.n--
	if a.prev != nil {
		a.prev.next = a.next
	} else {
		u.all.head = a.next
	}
	if a.next != nil {
		a.next.prev = a.prev
	} else {
		u.all.tail = a.prev
	}
	if !u.indexed {
		a.prev, a.next, a.bprev, a.bnext = nil, nil, nil, nil
		return
	}
	k := matchKey{a.m.Ctx, a.m.From}
	b := u.buckets[k]
	if a.bprev != nil {
		a.bprev.bnext = a.bnext
	} else {
		b.head = a.bnext
	}
	if a.bnext != nil {
		a.bnext.bprev = a.bprev
	} else {
		b.tail = a.bprev
	}
	if b.head == nil {
		delete(u.buckets, k)
	} else {
		u.buckets[k] = b
	}
	a.prev, a.next, a.bprev, a.bnext = nil, nil, nil, nil
	if u.n <= matchListMax/2 {
		// A list again: the list of all arrivals is whole; the bucket
		// links go stale and are set afresh if it is indexed again.
		u.buckets, u.indexed = nil, false
	}
}

// Unreceived is a message that reached a rank and that no receive matched.
type Unreceived struct {
	Src, Tag, Bytes int
	Collective      bool // sent by a collective operation
}

// Unreceived lists the messages that reached r and that no receive has
// matched, in the order they came, then those that matched probes took and
// no Mrecv received, in the order they were probed.
func (r *Rank) Unreceived() []Unreceived {
	var out []Unreceived
	add := func(a *arrival) {
		out = append(out, Unreceived{Src: a.m.Src, Tag: a.m.Tag, Bytes: a.m.Bytes, Collective: a.m.Ctx%2 == 1})
	}
	for a := r.unexpected.all.head; a != nil; a = a.next {
		add(a)
	}
	for _, a := range r.probed {
		add(a)
	}
	return out
}

// drop removes q if it is still posted and reports whether it was.
func (p *postedQueue) drop(q *Request) bool {
	if p.n == 0 {
		return false
	}
	if !p.indexed {
		for i, o := range p.list {
			if o == q {
				p.cut(i)
				return true
			}
		}
		return false
	}
	k := matchKey{q.ctx, q.src}
	for i, o := range p.buckets[k] {
		if o == q {
			p.remove(k, i)
			return true
		}
	}
	return false
}

// cut removes element i of the list of a queue not indexed.
func (p *postedQueue) cut(i int) {
	copy(p.list[i:], p.list[i+1:])
	p.list[len(p.list)-1] = nil
	p.list = p.list[:len(p.list)-1]
	p.n--
}
