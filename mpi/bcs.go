package mpi

import (
	"github.com/bglua/bglua/bcs"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// MPI over buffered coscheduling (--runtime bcs). Point-to-point calls post
// descriptors to the runtime (bcs.Sched), which matches them at the next
// strobe and moves the data in the slice after they were posted; a rank
// blocked on them restarts at the strobe after that. Collectives are posted
// whole: once every member of the communicator has posted one, the runtime
// schedules it in the next slice's broadcast-and-barrier (barrier, bcast),
// reduce (reduce, allreduce, reduce_scatter, scan, exscan) or
// point-to-point microphase (gather, scatter, allgather, alltoall: the data
// each node moves); see coll_bcs.go. The results are those of the
// rank-order reference, as the point-to-point algorithms give.

type bcsState struct {
	s   *bcs.Sched
	ops map[opKey]*bcsOp
	// colls counts the collectives the runtime scheduled (one per call,
	// not per rank).
	colls int64
}

// BCSCollectives is how many collectives the bcs runtime scheduled on the
// network side (0 under direct).
func (w *World) BCSCollectives() int64 {
	if w.bcs == nil {
		return 0
	}
	return w.bcs.colls
}

// UseBCS makes w run its point-to-point and collective calls through s.
// Call it before the ranks start, on a world of one partition.
func (w *World) UseBCS(s *bcs.Sched) {
	if w.parted {
		panic("mpi: UseBCS on a world in partitions (the bcs runtime runs in one partition)")
	}
	w.bcs = &bcsState{s: s, ops: map[opKey]*bcsOp{}}
	w.tr = bcsTransport{w, s}
	s.Restart = w.bcsWake
	s.WakeNow = w.bcsWake
	s.Exchanged = func(d *bcs.Desc) {
		r := w.ranks[d.Dst]
		if r.bcsProbing() {
			s.MarkRestart(d.Dst)
		}
		// The descriptor reached the receiver's node before any data
		// moves: as an arrival under direct, a collective's message that
		// the receiver's call will not take wakes it with the error
		// (agree.go).
		if q, ok := d.Token.(*Request); ok && q.sig != nil {
			r.disagrees(d.Ctx, d.Src, q.signature())
		}
	}
	if s.EMDS != nil {
		mp := w.ml.Map
		s.EMDS.Blocked = func(rec *bcs.SliceRecord) {
			for _, r := range w.ranks {
				if r != nil && r.Proc.State() == runtime.ProcBlocked {
					rec.AddBlocked(mp.Node(r.ID))
				}
			}
		}
	}
}

// bcsWake restarts rank at now: its process, and the progress contexts
// that run a collective's algorithm for it over the bcs transport (nbc.go),
// whose descriptors carry the rank's number. A process that is not blocked
// is left alone, and one woken for nothing blocks again.
func (w *World) bcsWake(rank int, now Time) {
	r := w.ranks[rank]
	w.Eng.Wake(r.Proc, now)
	if p := r.prog; p != nil {
		for _, x := range p.all {
			if x.nbc != nil && !x.parked {
				w.Eng.Wake(x.Proc, now)
			}
		}
	}
}

// bcsProbing reports whether the rank, or one of its progress contexts,
// blocks in a probe.
func (r *Rank) bcsProbing() bool {
	if r.probing {
		return true
	}
	if p := r.prog; p != nil {
		for _, x := range p.all {
			if x.probing {
				return true
			}
		}
	}
	return false
}

// BCS is the buffered coscheduling runtime of w, or nil under direct.
func (w *World) BCS() *bcs.Sched {
	if w.bcs == nil {
		return nil
	}
	return w.bcs.s
}

type bcsTransport struct {
	w *World
	s *bcs.Sched
}

func (t bcsTransport) send(q *Request, v Value, dst, ctx int, _ *msglayer.Message, _ runtime.Action) {
	d := &bcs.Desc{Send: true, Owner: q.r.ID, Dst: dst, Ctx: ctx, Tag: q.tag, Src: q.comm.rank,
		Bytes: v.Size, Payload: v.Data, ID: t.w.Messages, Token: q}
	d.Done = func(Time) { q.done = true }
	t.s.Post(d)
}

func (t bcsTransport) recv(q *Request) { t.recvBound(q, nil) }

// recvBound posts q, a receive that matches the send s alone (a message a
// matched probe took, mprobe.go), or any send its envelope accepts (s nil).
func (t bcsTransport) recvBound(q *Request, s *bcs.Desc) {
	d := &bcs.Desc{Owner: q.r.ID, Ctx: q.ctx, Tag: q.tag, Src: q.src, Token: q, Bound: s}
	d.Done = func(now Time) {
		m := d.Match
		if q.sig != nil {
			if s, ok := m.Token.(*Request); ok {
				q.check(s.signature(), m.Src)
			}
		}
		q.msgID = m.ID
		q.Value = Value{Data: m.Payload, Size: m.Bytes}
		q.Status = Status{Source: m.Src, Tag: m.Tag, Bytes: m.Bytes}
		q.done = true
		if tr := t.w.Tracer; tr != nil && m.ID > 0 {
			q.r.received(m.Owner, m.Tag)
			tr.Flow(false, m.ID, q.r.ID, m.Owner, now, m.Bytes, m.Tag, "", "")
		}
	}
	t.s.Post(d)
}

func (t bcsTransport) probe(r *Rank, src, tag, ctx int) (Status, bool) {
	d := t.s.Probe(r.ID, ctx, src, tag)
	if d == nil {
		return Status{}, false
	}
	return Status{Source: d.Src, Tag: d.Tag, Bytes: d.Bytes}, true
}

// bcsOp is one collective on one communicator, as its members post it.
type bcsOp struct {
	coll   string
	n      int
	posted int
	root   int
	op     Op
	vals   []Value   // contributions, by rank in the communicator
	vecs   [][]Value // scatter (root's), alltoall, reduce_scatter: per rank
	err    error
	done   bool
	sigs   []callSig // each member's call, by rank
	// started are the members' nonblocking calls of it (nbc.go), told
	// when it is done.
	started []*nbcOp

	one  Value     // the result of every rank (bcast, allreduce) or of the root (reduce)
	each []Value   // per rank (scatter, reduce_scatter, scan, exscan)
	all  []Value   // gather (root), allgather (every rank)
	a2a  [][]Value // alltoall, per rank
}

// bcsCall is what one rank brings to a collective.
type bcsCall struct {
	coll string
	name string // the call's name in the signature, if not coll ("iallreduce")
	root int    // -1 for none
	op   Op
	v    Value
	vs   []Value
}

// bcsRun posts this rank's part of a collective and blocks until the
// runtime has carried it out and restarted the rank.
func (c *Comm) bcsRun(call bcsCall) *bcsOp {
	o := c.bcsPost(call)
	info := WaitInfo{Call: call.coll + " (bcs)", Peer: NoPeer, Comm: c.Name}
	for !o.done {
		c.r.Block(info)
	}
	return o
}

// bcsPost posts this rank's part of a collective: the k-th collective
// posted on a communicator, blocking or not, is the k-th of every member
// (MPI's order; a blocking call against a nonblocking one disagrees). When
// the last member posts it, the runtime has it (Sched.Ready); o.done is set
// when its microphase has moved its data.
func (c *Comm) bcsPost(call bcsCall) *bcsOp {
	r := c.r
	st := r.w.bcs
	r.sync()
	k := opKey{c.ctx, c.bcsSeq}
	c.bcsSeq++
	o := st.ops[k]
	if o == nil {
		o = &bcsOp{coll: call.coll, n: c.size, root: call.root, op: call.op, sigs: make([]callSig, c.size)}
		st.ops[k] = o
	}
	size := -1
	if c.cur.call != nil {
		size = c.cur.call.size
	}
	name := call.name
	if name == "" {
		name = call.coll
	}
	o.sigs[c.rank] = callSig{coll: name, root: call.root, op: opLabel(call.op), size: size}
	if call.vs != nil {
		if o.vecs == nil {
			o.vecs = make([][]Value, o.n)
		}
		o.vecs[c.rank] = call.vs
	} else {
		if o.vals == nil {
			o.vals = make([]Value, o.n)
		}
		o.vals[c.rank] = call.v
	}
	if e := st.s.EMDS; e != nil {
		e.CollPosted(r.w.ml.Map.Node(r.ID))
	}
	o.posted++
	if o.posted == o.n {
		delete(st.ops, k)
		job := &bcs.Coll{Members: make([]int, o.n)}
		for i := range job.Members {
			job.Members[i] = c.World(i)
		}
		for i, sig := range o.sigs { // compared with the lowest rank's, whoever posted first
			if e := differ(c.Name, i, sig, 0, o.sigs[0]); e != nil {
				o.err = e
				break
			}
		}
		o.sigs = nil
		if o.err == nil {
			o.err = o.compute(job)
		}
		job.Done = func(now Time) {
			o.done = true
			for _, x := range o.started {
				x.bcsDone(o, now)
			}
			o.started = nil
		}
		st.colls++
		st.s.Ready(job)
	}
	return o
}
