package mpi

import (
	"sync/atomic"
	"unsafe"

	"github.com/bglua/bglua/msglayer"
)

// A collective algorithm's send (CSend, CSendrecv) drops its request once
// it has waited for it, and every send allocated a sendBox of 480 bytes:
// a third of the run's allocations, and fresh memory, out of the cache,
// for each message. Such a box goes back to a pool of its partition when
// both its ends are done with it: the sender, once the send is complete
// and the algorithm has let go of the request; the receiver, once a
// receive has taken the message (its value copied into the receive, the
// message layer done with it). Whichever end is done last gives the box
// to the pool of its own partition, so that a box is only ever touched by
// one partition's thread at a time, and the next send in that partition
// takes it, still in the cache. Only messages that nothing else can hold
// on to are pooled: eager and one-packet, not synchronous, over the
// direct transport, without a tracer or an observer of the message
// layer. Any other, or one whose request is not waited for to the end (a
// collective that fails), is left to the garbage collector as before. The
// pool changes which memory a message uses, nothing it carries.

// maxPooledBoxes bounds a partition's pool.
const maxPooledBoxes = 1 << 12

// newBox is a sendBox from c's partition's pool, or a new one. (Its
// request and message are cleared by postIn and direct.send.)
func (c *Counts) newBox() *sendBox {
	if n := len(c.boxes); n > 0 {
		b := c.boxes[n-1]
		c.boxes[n-1] = nil
		c.boxes = c.boxes[:n-1]
		return b
	}
	return new(sendBox)
}

// boxOf is the sendBox whose request is q, a pooled send (the request is
// the box's first field).
func boxOf(q *Request) *sendBox { return (*sendBox)(unsafe.Pointer(q)) }

// pooled marks q, a send a collective algorithm has just posted and will
// wait for and drop, to go back to the pool once done with, if its
// message can.
func (r *Rank) pooled(q *Request) {
	if _, ok := r.w.tr.(direct); !ok {
		return
	}
	b := boxOf(q)
	if !r.w.poolable(&b.m) {
		return
	}
	b.refs.Store(2)
	q.flags |= fPooled
}

// poolable reports whether a message just posted may go back to its
// partition's pool once both ends are done with it (a collective's
// sendBox, a program's msgBox): an eager or one-packet message, not
// synchronous, in a run that neither traces nor observes messages.
func (w *World) poolable(m *msglayer.Message) bool {
	return w.Tracer == nil && w.ml.Obs == nil && !m.Sync && (m.Protocol == msglayer.Eager || m.Protocol == msglayer.OnePacket)
}

// sendDone is the sender's end of q, a send of a collective algorithm
// that it no longer holds: a pooled one that is complete is done with.
func (r *Rank) sendDone(q *Request) {
	if q.has(fPooled) && q.done {
		r.release(boxOf(q))
	}
}

// taken is the receiver's end of m, a message a receive of r has just
// taken: the receive has its value, and the message layer is done with it.
func (r *Rank) taken(m *msglayer.Message) {
	switch s := m.Sent.(type) {
	case *Request:
		if s.has(fPooled) {
			r.release(boxOf(s))
		}
	case *msgBox:
		if s.pool {
			r.releaseMsg(s)
		}
	}
}

// release is an end done with b: the last one gives it to the pool of
// r's partition.
func (r *Rank) release(b *sendBox) {
	if b.refs.Add(-1) != 0 {
		return
	}
	if c := r.cnt; len(c.boxes) < maxPooledBoxes {
		c.boxes = append(c.boxes, b)
	}
}

// A program's nonblocking send (IsendIn: mpi.isend) has a request that the
// program holds for as long as it likes, often long after its message is
// done with; with the message in the same allocation (a sendBox), each
// such request kept 336 bytes of message alive (a halo of six sends a rank
// on 32,768 ranks: 3.3 KiB a rank of live heap in send handles). Its
// message comes instead from a second pool of its partition (msgBox) and
// goes back to it as a collective's box does, when both ends are done with
// it: the sender's once the send is complete (the box is the message's
// Sent action, and completes the request), the receiver's once a receive
// has taken it. The same messages as a collective's are pooled (pooled);
// any other is left to the garbage collector with its box, which it can
// now collect once the message layer is done with it, whoever holds the
// request. (The halo's messages of 1 KiB are rendezvous and virtual-node
// ones: none is pooled, and that is what they gain.)

// A msgBox is a message whose send request the layer above holds.
type msgBox struct {
	m msglayer.Message
	q *Request // the send, until the box is back in the pool
	// pool: the box goes back to the pool once both ends are done with it
	// (refs: the ends not done with it yet).
	pool bool
	refs atomic.Int32
}

// newMsg is a msgBox from c's partition's pool, or a new one, for q. (Its
// message is cleared by direct.send.)
func (c *Counts) newMsg(q *Request) *msgBox {
	var b *msgBox
	if n := len(c.msgs); n > 0 {
		b = c.msgs[n-1]
		c.msgs[n-1] = nil
		c.msgs = c.msgs[:n-1]
	} else {
		b = new(msgBox)
	}
	b.q, b.pool = q, false
	return b
}

// Act is the sender's part of the message over: the send is complete and
// done with its message.
func (b *msgBox) Act(now Time) {
	q := b.q
	if b.pool {
		q.r.releaseMsg(b)
	}
	q.Act(now)
}

// pooledMsg marks b, whose send q has just been posted, to go back to the
// pool once done with, if its message can (as pooled).
func (r *Rank) pooledMsg(b *msgBox) {
	if !r.w.poolable(&b.m) {
		return
	}
	b.refs.Store(2)
	b.pool = true
}

// releaseMsg is an end done with b: the last one clears it, so that it
// holds on to no request or payload, and gives it to the pool of r's
// partition.
func (r *Rank) releaseMsg(b *msgBox) {
	if b.refs.Add(-1) != 0 {
		return
	}
	b.m, b.q, b.pool = msglayer.Message{}, nil, false
	if c := r.cnt; len(c.msgs) < maxPooledBoxes {
		c.msgs = append(c.msgs, b)
	}
}
