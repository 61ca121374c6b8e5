package mpi

import (
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// transport carries the point-to-point messages of a World, collectives'
// included: directly over the message layer (direct), or through the
// buffered coscheduling runtime (bcs.go). The MPI semantics around it
// (requests, communicators, argument checks, costs of entering a call) are
// the same for both.
type transport interface {
	// send starts q, a send of v to world rank dst on context ctx (q holds
	// the tag and the sender's rank in its communicator). m, if not nil, is
	// room for the message, allocated with q (sendBox) or from a pool
	// (msgBox); sent, if not nil, is what completes q when the sender's
	// part is over (the msgBox), instead of q itself.
	send(q *Request, v Value, dst, ctx int, m *msglayer.Message, sent runtime.Action)
	// recv posts q, a receive (q holds source, tag and context).
	recv(q *Request)
	// probe looks for a message that a receive by r would match.
	probe(r *Rank, src, tag, ctx int) (Status, bool)
}

// direct is the transport over the message layer: messages go at once,
// matching happens as they arrive, unmatched arrivals wait in the
// unexpected queue.
type direct struct{ w *World }

func (d direct) send(q *Request, v Value, dst, ctx int, m *msglayer.Message, sent runtime.Action) {
	w, r, c := d.w, q.r, q.comm
	if m == nil {
		m = new(msglayer.Message)
	}
	// Cleared, then set field by field (as postIn's request): a composite
	// literal would be built on the rank's stack first, 336 bytes of it.
	*m = msglayer.Message{}
	m.Src, m.Dst, m.Bytes, m.Header = r.ID, dst, v.Size, EnvelopeBytes
	m.To, m.Payload, m.Tag, m.Ctx, m.From, m.ID = deliverer{w}, v.Data, q.tag, ctx, c.rank, r.msgID()
	m.Sent, m.Sync, m.Co = q, q.has(fSync), r.onCo
	if sent != nil {
		m.Sent = sent
	}
	if w.labels.on {
		m.Label = r.label()
	}
	w.ml.Send(r.Proc.Now(), m)
	if w.Tracer != nil {
		r.Traffic.Protocol = m.Protocol.String()
	}
}

func (d direct) recv(q *Request) {
	r := q.r.home() // a progress context's receives match in its rank's queues
	if a := r.unexpected.find(q.ctx, q.src, q.tag); a != nil {
		r.takeArrival(a)
		receiveArrival(q, a)
		return
	}
	r.posted.add(q)
}

// takeArrival takes a out of r's unexpected messages.
func (r *Rank) takeArrival(a *arrival) {
	r.unexpected.remove(a)
	if sigOf(a.m).call != nil {
		r.collStray--
	}
}

// receiveArrival has q, a receive the rank has just started, take a, an
// unexpected message already out of the queue: the receiver acknowledges a
// synchronous send, grants a rendezvous message its data or copies an eager
// one out of its unexpected buffer.
func receiveArrival(q *Request, a *arrival) {
	r := q.r
	q.fill(a.m)
	r.w.ml.Ack(a.m, max(a.done, r.Proc.Now()))
	if a.done == msglayer.Pending {
		// Rendezvous: only the envelope is here; ask for the data.
		a.m.Token = q
		r.w.ml.Grant(a.m, r.cpuUnit().Free)
		return
	}
	// The data waits in an unexpected buffer: copy it out.
	end := r.cpuUnit().Run(max(a.done, r.Proc.Now()), r.w.m.CopyCycles(a.m.Bytes))
	r.Proc.Engine().At(end, q)
	r.taken(a.m)
}

func (d direct) probe(r *Rank, src, tag, ctx int) (Status, bool) {
	if a := r.unexpected.find(ctx, src, tag); a != nil {
		q := Request{}
		q.fill(a.m)
		return q.Status, true
	}
	return Status{}, false
}

// deliverer routes arrivals to the destination rank's matching.
type deliverer struct{ w *World }

// Deliver matches an arriving envelope against the destination's posted
// receives, in the order they were posted, or queues it as unexpected. Arrivals
// from one source come in send order, which gives MPI's non-overtaking rule.
func (d deliverer) Deliver(m *msglayer.Message, now, done Time) {
	r := d.w.ranks[m.Dst]
	cpu := d.w.ml.EndCPU(m, m.Dst)
	if done == msglayer.Pending {
		// A rendezvous envelope: match it now, grant it once matched.
		matched := cpu.Run(now, d.w.m.MPIMatchCycles)
		if q := r.posted.take(m); q != nil {
			q.fill(m)
			m.Token = q
			d.w.ml.Grant(m, matched)
			return
		}
	} else {
		done = cpu.Run(done, d.w.m.MPIMatchCycles)
		if q := r.posted.take(m); q != nil {
			q.fill(m)
			d.w.ml.Ack(m, done)
			r.Proc.Engine().At(done, q)
			r.taken(m)
			return
		}
	}
	r.unexpected.add(&arrival{m: m, done: done})
	if s := sigOf(m); s.call != nil {
		r.arrived(m, s)
	}
	if r.probing {
		r.wake()
	}
}

// Complete learns when a granted rendezvous message's data will be in.
func (d deliverer) Complete(m *msglayer.Message, done Time) {
	q := m.Token.(*Request)
	q.r.Proc.Engine().At(done, q)
}
