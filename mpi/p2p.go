package mpi

import (
	"fmt"
	"sync/atomic"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// Status describes a received or probed message.
type Status struct {
	Source, Tag, Bytes int
}

// Value is a payload with its modeled size in bytes.
type Value struct {
	Data any
	Size int
}

// Request is a nonblocking operation.
//
// Its fields are ordered so that it fits a 128-byte size class: the
// collectives' messages make two of them each.
type Request struct {
	r     *Rank
	comm  *Comm
	src   int // for receives: rank in comm, or AnySource
	tag   int
	ctx   int
	msgID int64          // of the matched message, for traces
	seq   uint64         // receives: when it was posted, in the rank's postedQueue
	sig   *callSig       // the collective call it belongs to, if any (agree.go),
	bad   *MismatchError // the sender's call disagreed with it
	// sigSeq numbers that call among the rank's on the communicator.
	sigSeq uint32
	isSend bool
	done   bool
	freed  bool
	flags  reqFlags

	Value  Value
	Status Status
}

// reqFlags are a request's rarer properties, in one byte.
type reqFlags uint8

const (
	fSync       reqFlags = 1 << iota // a synchronous send (Ssend, Issend)
	fPersistent                      // made by SendInit or RecvInit (persist.go)
	fActive                          // persistent: started, not yet returned complete
	fCancelled                       // a receive that Cancel took back
	fPooled                          // a send of a sendBox that goes back to a pool when done with (pool.go)
)

func (q *Request) has(f reqFlags) bool { return q.flags&f != 0 }

// Done reports whether the operation is complete.
func (q *Request) Done() bool { return q.done }

// IsSend reports whether q is a send.
func (q *Request) IsSend() bool { return q.isSend }

// Comm is one rank's handle on a communicator.
type Comm struct {
	r      *Rank
	ctx    int
	ranks  []int // comm rank -> world rank; nil means identity (COMM_WORLD)
	rank   int
	size   int
	seq    int    // splits and dups done so far, to name child contexts
	hwSeq  uint32 // calls on the collective network or global interrupt so far
	bcsSeq uint32 // collectives scheduled by the bcs runtime so far
	// Agreement checks (agree.go): collectives called so far, the
	// signature of the latest, and on a Lua algorithm's view the
	// signature of the call it serves.
	collSeq uint32
	cur     collSig
	outer   collSig
	noted   bool // the rank's handle on ctx for those checks (noteComm)
	// nbc is, on the private communicator of a nonblocking collective
	// (nbc.go), the communicator it was started on.
	nbc  *Comm
	Name string
}

// Rank is the caller's rank in the communicator.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the communicator.
func (c *Comm) Size() int { return c.size }

// Owner is the rank holding this handle.
func (c *Comm) Owner() *Rank { return c.r }

// World translates a communicator rank to a world rank.
func (c *Comm) World(rank int) int {
	if c.ranks == nil {
		return rank
	}
	return c.ranks[rank]
}

// RankError is a bad rank argument, reported as a Lua error at the call site.
type RankError struct {
	What string
	Rank int
	Size int
	Comm string
}

func (e *RankError) Error() string {
	return fmt.Sprintf("%s rank %d out of range for %s of size %d", e.What, e.Rank, e.Comm, e.Size)
}

func (c *Comm) checkPeer(what string, rank int, wild bool) error {
	if wild && rank == AnySource || rank == ProcNull {
		return nil
	}
	if rank < 0 || rank >= c.size {
		return &RankError{What: what, Rank: rank, Size: c.size, Comm: c.Name}
	}
	return nil
}

// The envelope is the message's Ctx, Tag and From (the sender's rank in the
// communicator, MPI's status.source); Payload and Bytes are the value.

func (q *Request) fill(m *msglayer.Message) {
	if q.sig != nil {
		q.check(sigOf(m), m.From)
	}
	q.msgID = m.ID
	q.Value = Value{Data: m.Payload, Size: m.Bytes}
	q.Status = Status{Source: m.From, Tag: m.Tag, Bytes: m.Bytes}
}

// Act completes a receive whose data has arrived.
func (q *Request) Act(now Time) {
	q.done = true
	if t := q.r.w.Tracer; t != nil && q.msgID > 0 {
		q.r.received(q.comm.World(q.Status.Source), q.Status.Tag)
		t.Flow(false, q.msgID, q.r.ID, q.comm.World(q.Status.Source), now, q.Status.Bytes, q.Status.Tag, "", "")
	}
	if a := q.r.awaiting; a == nil || a == q {
		q.r.wake()
	}
}

// post starts sending v to dest on context ctx: the rank's CPU pays the MPI
// and message-layer costs. The returned request completes when the data has
// left the send buffer: when the CPU has written it (eager protocols), or
// after the receiver granted it and the data was written (rendezvous).
func (c *Comm) post(v Value, dest, tag, ctx int) *Request { return c.postIn(nil, v, dest, tag, ctx) }

// postIn is post with the request and its message in b (nil: allocated).
func (c *Comm) postIn(b *sendBox, v Value, dest, tag, ctx int) *Request {
	_, direct := c.r.w.tr.(direct)
	var q *Request
	switch {
	case b != nil:
		q = &b.q
	case direct:
		b = c.r.cnt.newBox()
		q = &b.q
	default: // the message, if any, is the transport's: the request alone
		q = new(Request)
	}
	// Cleared, then set field by field: assigned a composite literal
	// through a pointer, a struct is built in a temporary on the stack
	// and copied, and this runs on the rank's stack, whose lines at this
	// depth have left the cache since the rank's last message.
	*q = Request{}
	q.r, q.comm, q.isSend, q.tag, q.src = c.r, c, true, tag, dest
	if direct {
		c.postMsg(q, v, ctx, &b.m, nil)
	} else {
		c.postReq(q, v, ctx)
	}
	return q
}

// postHeld is post with the request in q, which the layer above holds
// (SendSlot): over the direct transport the message is a msgBox from the
// partition's pool, which goes back to it once done with (pool.go).
func (c *Comm) postHeld(q *Request, v Value, dest, tag, ctx int) *Request {
	*q = Request{}
	q.r, q.comm, q.isSend, q.tag, q.src = c.r, c, true, tag, dest
	if _, direct := c.r.w.tr.(direct); !direct || dest == ProcNull {
		c.postReq(q, v, ctx)
		return q
	}
	b := c.r.cnt.newMsg(q)
	c.postMsg(q, v, ctx, &b.m, b)
	c.r.pooledMsg(b)
	return q
}

// A sendBox is a send request and the message it sends over the message
// layer, in one allocation instead of two: every message of a collective
// algorithm makes one. The message points to its request (Sent) for as long
// as it is referenced, so the two live about as long as each other. A
// collective's own sends give theirs back to a pool (pool.go).
type sendBox struct {
	q    Request // first: a pooled request is its box (boxOf)
	m    msglayer.Message
	refs atomic.Int32 // pooled: the ends not done with it yet
}

// postReq starts q, a send to q.src with q.tag, as post does.
func (c *Comm) postReq(q *Request, v Value, ctx int) { c.postMsg(q, v, ctx, nil, nil) }

// postMsg is postReq with m, if not nil, room for the message (sendBox,
// msgBox), and sent, if not nil, the message's Sent action instead of q.
func (c *Comm) postMsg(q *Request, v Value, ctx int, m *msglayer.Message, sent runtime.Action) {
	r := c.r
	w := r.w
	s := c.sigFor(ctx)
	q.sig, q.sigSeq = s.call, s.seq
	dest := q.src
	if dest == ProcNull {
		r.busy(w.m.MPICallCycles)
		q.done = true
		return
	}
	r.cnt.Messages++
	r.home().sent++
	var id int64
	var now Time
	if w.Tracer != nil {
		id, now = r.msgID(), r.Proc.Now()
		r.Traffic.Protocol = ""
	}
	r.cnt.Bytes += int64(v.Size)
	r.SentBytes += int64(v.Size)
	r.busy(w.m.MPICallCycles + w.m.MPISendCycles)
	w.tr.send(q, v, c.World(dest), ctx, m, sent)
	if w.Tracer != nil {
		c.traceSent(q, v, id, now)
	}
}

// traceSent draws the start of the arrow of q, a send of v that got
// message id at now. (Out of postReq, whose frame is on the rank's stack
// all the way down the message layer.)
//
//go:noinline
func (c *Comm) traceSent(q *Request, v Value, id int64, now Time) {
	r := c.r
	t := &r.Traffic
	t.Sent++
	t.To, t.SendTag = c.World(q.src), q.tag
	r.w.Tracer.Flow(true, id, r.ID, t.To, now, v.Size, q.tag, t.Protocol, r.collName())
}

// msgID is the id of the message r has just started: the run's message count
// in one partition, and in partitions (rank+1)<<32 plus the rank's own count,
// which does not depend on how the partitions interleave.
func (r *Rank) msgID() int64 {
	if !r.w.parted {
		return r.w.Messages
	}
	return int64(r.ID+1)<<32 | r.home().sent
}

// Send is a blocking standard send of v to dest with tag.
func (c *Comm) Send(v Value, dest, tag int) error {
	if err := c.checkPeer("destination", dest, false); err != nil {
		return err
	}
	return c.waitSent(c.post(v, dest, tag, c.ctx), dest, tag)
}

// waitSent waits for q, Send's send to dest with tag. (A function of its
// own, so that its WaitInfo is not in the frame of Send while the send
// goes down the message layer on the rank's stack.)
//
//go:noinline
func (c *Comm) waitSent(q *Request, dest, tag int) error {
	info := WaitInfo{Call: "send", Peer: dest, Tag: tag, Comm: c.Name}
	if c.r.w.bcs != nil {
		info.Note = "under bcs a send waits for its receive: post receives first, or use isend"
	}
	c.r.wait(q, c.r.waiting(info))
	c.r.sync()
	return q.Err() // a Lua algorithm's send, whose receiver's call disagrees
}

// Isend starts a send; its request completes when the data has left.
func (c *Comm) Isend(v Value, dest, tag int) (*Request, error) { return c.IsendIn(nil, v, dest, tag) }

// A SendSlot is room for a nonblocking send's request, and a RecvSlot for
// a receive's, that the layer above allocates in one with its own handle
// of the request (a Lua userdata): one allocation a request instead of
// two. The send's message is not in it: over the direct transport it
// comes from a pool (msgBox). A slot is used once.
type SendSlot struct{ q Request }

// RecvSlot: see SendSlot.
type RecvSlot struct{ q Request }

// IsendIn is Isend with the request and its message in s (nil: allocated).
func (c *Comm) IsendIn(s *SendSlot, v Value, dest, tag int) (*Request, error) {
	if err := c.checkPeer("destination", dest, false); err != nil {
		return nil, err
	}
	var q *Request
	if s == nil {
		q = c.postIn(nil, v, dest, tag, c.ctx)
	} else {
		q = c.postHeld(&s.q, v, dest, tag, c.ctx)
	}
	c.r.sync()
	return q, nil
}

// Irecv posts a receive from src (or AnySource) with tag (or AnyTag).
func (c *Comm) Irecv(src, tag int) (*Request, error) { return c.IrecvIn(nil, src, tag) }

// IrecvIn is Irecv with the request in s (nil: allocated).
func (c *Comm) IrecvIn(s *RecvSlot, src, tag int) (*Request, error) {
	if err := c.checkPeer("source", src, true); err != nil {
		return nil, err
	}
	c.r.busy(c.r.w.m.MPICallCycles)
	var q *Request
	if s != nil {
		q = &s.q
	} else {
		q = new(Request)
	}
	c.irecvIn(q, src, tag, c.ctx)
	c.r.sync()
	return q, nil
}

func (c *Comm) irecv(src, tag, ctx int) *Request { return c.irecvIn(new(Request), src, tag, ctx) }

// irecvIn posts q, a receive from src with tag on ctx.
func (c *Comm) irecvIn(q *Request, src, tag, ctx int) *Request {
	*q = Request{} // (field by field: see postIn)
	q.r, q.comm, q.src, q.tag, q.ctx = c.r, c, src, tag, ctx
	c.recvReq(q)
	return q
}

// recvReq posts q, a receive from q.src with q.tag on q.ctx, as irecv does.
func (c *Comm) recvReq(q *Request) {
	s := c.sigFor(q.ctx)
	q.sig, q.sigSeq = s.call, s.seq
	if q.src == ProcNull {
		q.done = true
		q.Status = Status{Source: ProcNull, Tag: AnyTag}
		return
	}
	c.r.w.tr.recv(q)
}

// Recv blocks until a message from src with tag arrives.
func (c *Comm) Recv(src, tag int) (Value, Status, error) {
	q, err := c.Irecv(src, tag)
	if err != nil {
		return Value{}, Status{}, err
	}
	if !q.done {
		c.r.wait(q, c.r.waiting(WaitInfo{Call: "recv", Peer: src, Tag: tag, Comm: c.Name}))
	}
	c.r.sync()
	return q.Value, q.Status, q.Err()
}

// wait blocks until q completes. A rank blocked here is inside an MPI
// call: its nonblocking collectives progress under inline progress (nbc.go).
// The hot callers look at q.done first: a request already complete, as a
// collective's send mostly is by the time it is waited for, needs no
// WaitInfo built and copied into r.wi (112 bytes, a cache line or two of a
// rank that other ranks' work has pushed out of the cache).
func (r *Rank) wait(q *Request, info fmt.Stringer) {
	if q.done {
		return
	}
	open := r.openGate()
	r.awaiting = q
	for !q.done {
		if q.sig != nil && r.collBad != nil {
			break // the call cannot complete: the ranks disagree (agree.go)
		}
		r.Proc.Block(info)
		r.gate()
	}
	r.awaiting = nil
	r.closeGate(open)
}

// Wait blocks until q completes and returns its value and status.
func (r *Rank) Wait(q *Request) (Value, Status) {
	r.busy(r.w.m.MPICallCycles)
	q.idle()
	r.wait(q, q.waitInfo())
	r.sync()
	q.completed()
	return q.Value, q.Status
}

func (q *Request) waitInfo() *WaitInfo {
	if op := q.collective(); op != nil {
		return q.r.waiting(WaitInfo{Call: "wait (" + op.coll + ")", Peer: NoPeer, Comm: q.comm.Name})
	}
	k := q.kindIndex()
	if q.isSend && !q.has(fSync) {
		return q.r.waiting(WaitInfo{Call: waitCalls[k], Peer: NoPeer, Comm: q.comm.Name})
	}
	return q.r.waiting(WaitInfo{Call: waitCalls[k], Peer: q.src, Tag: q.tag, Comm: q.comm.Name})
}

// reqKinds name what a request does, for deadlock reports, by kindIndex;
// waitCalls name a wait for it. (Constants: a wait builds no string.)
var (
	reqKinds  = [...]string{"recv", "send", "ssend", "persistent recv", "persistent send", "persistent ssend"}
	waitCalls = [...]string{"wait (recv)", "wait (send)", "wait (ssend)", "wait (persistent recv)", "wait (persistent send)", "wait (persistent ssend)"}
)

// kindIndex is q's kind: 0 a receive, 1 a send, 2 a synchronous send; 3 more
// if persistent.
func (q *Request) kindIndex() int {
	k := 0
	switch {
	case q.has(fSync):
		k = 2
	case q.isSend:
		k = 1
	}
	if q.has(fPersistent) {
		k += 3
	}
	return k
}

// kind names what q does: "send", "ssend", "recv", "persistent send", ...
func (q *Request) kind() string { return reqKinds[q.kindIndex()] }

// Test reports whether q is complete, without blocking.
func (r *Rank) Test(q *Request) bool {
	r.Call()
	r.poll()
	q.idle()
	q.completed()
	return q.done
}

// Waitall blocks until every request completes.
func (r *Rank) Waitall(qs []*Request) {
	r.busy(r.w.m.MPICallCycles)
	for _, q := range qs {
		q.idle()
	}
	waited := false
	for _, q := range qs {
		if !q.done {
			r.wait(q, r.waiting(WaitInfo{Call: "waitall", Peer: NoPeer, N: len(qs), Reqs: qs}))
			waited = true
		}
	}
	if waited {
		r.waited()
	}
	r.sync()
	for _, q := range qs {
		q.completed()
	}
}

// Waitany blocks until one request completes and returns its index; the
// lowest index wins among those complete. Inactive persistent requests do
// not count: it returns -1 for a list without any other.
func (r *Rank) Waitany(qs []*Request) int {
	r.busy(r.w.m.MPICallCycles)
	live := 0
	for _, q := range qs {
		if !q.inactive() {
			live++
		}
	}
	if live == 0 {
		return -1
	}
	open := r.openGate()
	defer r.closeGate(open)
	for {
		for i, q := range qs {
			if q.done && !q.inactive() {
				r.sync()
				q.completed()
				return i
			}
		}
		r.Proc.Block(&WaitInfo{Call: "waitany", Peer: NoPeer, N: len(qs), Reqs: qs})
	}
}

// Testall reports whether every request is complete.
func (r *Rank) Testall(qs []*Request) bool {
	r.Call()
	r.poll()
	for _, q := range qs {
		q.idle()
	}
	for _, q := range qs {
		if !q.done {
			return false
		}
	}
	for _, q := range qs {
		q.completed()
	}
	return true
}

// Iprobe looks for a message that could be received from src with tag.
func (c *Comm) Iprobe(src, tag int) (bool, Status, error) {
	if err := c.checkPeer("source", src, true); err != nil {
		return false, Status{}, err
	}
	c.r.Call()
	c.r.poll()
	st, ok := c.probe(src, tag)
	return ok, st, nil
}

func (c *Comm) probe(src, tag int) (Status, bool) {
	return c.r.w.tr.probe(c.r, src, tag, c.ctx)
}

// Probe blocks until a message from src with tag can be received.
func (c *Comm) Probe(src, tag int) (Status, error) {
	if err := c.checkPeer("source", src, true); err != nil {
		return Status{}, err
	}
	c.r.Call()
	var st Status
	c.probeLoop("probe", src, tag, func() (ok bool) {
		st, ok = c.probe(src, tag)
		return ok
	})
	return st, nil
}

// probeLoop blocks the rank, woken by each arrival, until try succeeds.
// (The rank is in an MPI call: its progress contexts may run meanwhile.)
func (c *Comm) probeLoop(call string, src, tag int, try func() bool) {
	open := c.r.openGate()
	defer c.r.closeGate(open)
	for !try() {
		c.r.probing = true
		c.r.Proc.Block(&WaitInfo{Call: call, Peer: src, Tag: tag, Comm: c.Name})
		c.r.probing = false
	}
	c.r.sync()
}

// Sendrecv sends v to dest and receives from src, without deadlock between
// pairs that exchange.
func (c *Comm) Sendrecv(v Value, dest, sendtag, src, recvtag int) (Value, Status, error) {
	if err := c.checkPeer("destination", dest, false); err != nil {
		return Value{}, Status{}, err
	}
	if err := c.checkPeer("source", src, true); err != nil {
		return Value{}, Status{}, err
	}
	q := c.irecv(src, recvtag, c.ctx)
	s := c.post(v, dest, sendtag, c.ctx)
	if !q.done {
		c.r.wait(q, c.r.waiting(WaitInfo{Call: "sendrecv", Peer: src, Tag: recvtag, Comm: c.Name}))
	}
	if !s.done {
		c.r.wait(s, c.r.waiting(WaitInfo{Call: "sendrecv (send)", Peer: dest, Tag: sendtag, Comm: c.Name}))
	}
	c.r.sync()
	return q.Value, q.Status, q.Err()
}
