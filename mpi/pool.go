package mpi

import (
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
	w := r.w
	if _, ok := w.tr.(direct); !ok || w.Tracer != nil || w.ml.Obs != nil {
		return
	}
	b := boxOf(q)
	if m := &b.m; m.Sync || m.Protocol != msglayer.Eager && m.Protocol != msglayer.OnePacket {
		return
	}
	b.refs.Store(2)
	q.flags |= fPooled
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
	if s, ok := m.Sent.(*Request); ok && s.has(fPooled) {
		r.release(boxOf(s))
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
