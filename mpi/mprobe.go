package mpi

import (
	"errors"
	"slices"

	"github.com/bglua/bglua/bcs"
)

// Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv): a probe
// that finds a message also takes it out of matching, so that no other
// receive can match it, and returns a handle by which exactly that message
// is received. Only messages already at the rank (unexpected) can be
// probed, as with Probe. The receive starts at Mrecv: that is when a
// synchronous sender is acknowledged and a rendezvous message granted its
// data. Under the bcs runtime the messages at the rank are the sends whose
// descriptors were exchanged to it: a matched probe takes one out of the
// runtime's matching (bcs.Sched.Take), and Mrecv posts a receive bound to
// it, which the next strobe matches and whose data moves in that slice.

// Message is a message taken out of matching by a matched probe.
type Message struct {
	comm *Comm
	a    *arrival  // nil: the probe was of mpi.PROC_NULL, or under bcs
	d    *bcs.Desc // under bcs: the send taken
	st   Status
	used bool
}

// Status is the probed message's status.
func (m *Message) Status() Status { return m.st }

// Received reports whether the message was received already (Mrecv, Imrecv).
func (m *Message) Received() bool { return m.used }

// errReceived is the error of a handle used twice.
var errReceived = errors.New("message handle already received")

// Improbe takes a message that a receive from src with tag would match, if
// one is there: ok is false when none is.
func (c *Comm) Improbe(src, tag int) (msg *Message, ok bool, err error) {
	if err := c.checkPeer("source", src, true); err != nil {
		return nil, false, err
	}
	c.r.Call()
	msg, ok = c.mtake(src, tag)
	return msg, ok, nil
}

// Mprobe blocks until a message that a receive from src with tag would
// match is there, and takes it.
func (c *Comm) Mprobe(src, tag int) (*Message, error) {
	if err := c.checkPeer("source", src, true); err != nil {
		return nil, err
	}
	c.r.Call()
	var msg *Message
	c.probeLoop("mprobe", src, tag, func() (ok bool) {
		msg, ok = c.mtake(src, tag)
		return ok
	})
	return msg, nil
}

// mtake takes the earliest unexpected message matching src and tag out of
// the queue, as a Message.
func (c *Comm) mtake(src, tag int) (*Message, bool) {
	if src == ProcNull {
		return &Message{comm: c, st: Status{Source: ProcNull, Tag: AnyTag}}, true
	}
	r := c.r
	if b := r.w.bcs; b != nil {
		d := b.s.Take(r.ID, c.ctx, src, tag)
		if d == nil {
			return nil, false
		}
		return &Message{comm: c, d: d, st: Status{Source: d.Src, Tag: d.Tag, Bytes: d.Bytes}}, true
	}
	a := r.unexpected.find(c.ctx, src, tag)
	if a == nil {
		return nil, false
	}
	r.takeArrival(a)
	r.probed = append(r.probed, a)
	q := Request{}
	q.fill(a.m)
	return &Message{comm: c, a: a, st: q.Status}, true
}

// Imrecv starts the receive of msg; its request completes when the data is in.
func (r *Rank) Imrecv(msg *Message) (*Request, error) {
	if msg.used {
		return nil, errReceived
	}
	msg.used = true
	c := msg.comm
	r.busy(r.w.m.MPICallCycles)
	q := &Request{r: r, comm: c, src: msg.st.Source, tag: msg.st.Tag, ctx: c.ctx}
	switch {
	case msg.d != nil:
		s := c.sigFor(c.ctx)
		q.sig, q.sigSeq = s.call, s.seq
		r.w.tr.(bcsTransport).recvBound(q, msg.d)
		msg.d = nil
	case msg.a == nil:
		q.done = true
		q.Status = msg.st
	default:
		s := c.sigFor(c.ctx)
		q.sig, q.sigSeq = s.call, s.seq
		r.probed = slices.DeleteFunc(r.probed, func(a *arrival) bool { return a == msg.a })
		receiveArrival(q, msg.a)
		msg.a = nil
	}
	r.sync()
	return q, nil
}

// Mrecv receives msg.
func (r *Rank) Mrecv(msg *Message) (Value, Status, error) {
	q, err := r.Imrecv(msg)
	if err != nil {
		return Value{}, Status{}, err
	}
	c := msg.comm
	r.wait(q, r.waiting(WaitInfo{Call: "mrecv", Peer: q.src, Tag: q.tag, Comm: c.Name}))
	r.sync()
	return q.Value, q.Status, q.Err()
}
