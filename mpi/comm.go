package mpi

import (
	"fmt"
	"sort"
)

// collective point-to-point: the communicator's second context keeps the
// messages of collective algorithms apart from the user's.

// CSend sends v to dest inside a collective algorithm and waits until the
// send is complete, as MPICH's collectives do with MPIC_Send: a message that
// goes eagerly once its data has left, a rendezvous message once the
// receiver has taken it. (An algorithm that must send before it receives
// uses CIsend or CSendrecv.)
func (c *Comm) CSend(v Value, dest, tag int) {
	q := c.post(v, dest, tag, c.ctx+1)
	c.r.pooled(q)
	if !q.done {
		c.r.wait(q, c.r.waiting(WaitInfo{Coll: c.r.coll, Call: "send", Peer: dest, Tag: tag, Comm: c.Name}))
		// Under bcs a send waits for its receive: a receiver whose call
		// disagrees wakes it with the error (agree.go).
		q.mustAgree()
	}
	c.r.sendDone(q)
}

// CIsend starts a send inside a collective algorithm.
func (c *Comm) CIsend(v Value, dest, tag int) *Request {
	q := c.post(v, dest, tag, c.ctx+1)
	c.r.sync()
	return q
}

// CIrecv posts a receive inside a collective algorithm.
func (c *Comm) CIrecv(src, tag int) *Request { return c.irecv(src, tag, c.ctx+1) }

// CRecv receives inside a collective algorithm.
func (c *Comm) CRecv(src, tag int) Value {
	q := c.collRecv(src, tag)
	if !q.done {
		c.r.wait(q, c.r.collWaiting(collRecvWait, src, tag, c.Name))
	}
	q.mustAgree()
	return c.r.recycle(q)
}

// CSendrecv exchanges with two peers inside a collective algorithm.
//
// As a program's sendrecv, it returns once both are complete: the send's
// data written out by the rank's CPU too, so that computation after the
// collective cannot hold back a peer's last receive.
func (c *Comm) CSendrecv(v Value, dest, src, tag int) Value {
	q := c.collRecv(src, tag)
	s := c.post(v, dest, tag, c.ctx+1)
	c.r.pooled(s)
	x := c.exchanged(q, s, dest, src, tag)
	c.r.sendDone(s)
	return x
}

// exchanged waits for CSendrecv's receive q and send s. (A function of its
// own, so that its WaitInfos are not in CSendrecv's frame while the send
// goes down the message layer on the rank's stack.)
//
//go:noinline
func (c *Comm) exchanged(q, s *Request, dest, src, tag int) Value {
	if !q.done {
		c.r.wait(q, c.r.collWaiting(collSendrecvWait, src, tag, c.Name))
	}
	q.mustAgree()
	if !s.done {
		c.r.wait(s, c.r.waiting(WaitInfo{Coll: c.r.coll, Call: "sendrecv (send)", Peer: dest, Tag: tag, Comm: c.Name}))
	}
	c.r.sync()
	return c.r.recycle(q)
}

// collRecv posts a receive from src with tag on the collective context for
// CRecv or CSendrecv, which hand the request to no one: the rank's spare
// one if it has it (recycle), so that a collective's messages do not each
// allocate a receive.
func (c *Comm) collRecv(src, tag int) *Request {
	r := c.r
	q := r.spare
	if q == nil {
		return c.irecv(src, tag, c.ctx+1)
	}
	r.spare = nil
	*q = Request{} // (field by field: see postIn)
	q.r, q.comm, q.src, q.tag, q.ctx = r, c, src, tag, c.ctx+1
	c.recvReq(q)
	return q
}

// recycle returns the value of q, a receive of collRecv that the rank has
// waited for, and keeps q as the rank's spare once it is complete: matching,
// the message layer and the engine are then done with it (its completion
// was its last event). Under bcs a descriptor may still point to it, and it
// is left to the garbage collector.
func (r *Rank) recycle(q *Request) Value {
	v := q.Value
	if q.done && r.w.bcs == nil {
		q.Value = Value{}
		r.spare = q
	}
	return v
}

// CWaitall waits for requests of a collective algorithm.
func (c *Comm) CWaitall(qs []*Request) {
	waited := false
	for _, q := range qs {
		if !q.done {
			c.r.wait(q, c.r.waiting(WaitInfo{Coll: c.r.coll, Call: "waitall", Peer: NoPeer, N: len(qs), Comm: c.Name, Reqs: qs}))
			waited = true
		}
		q.mustAgree()
	}
	if waited {
		c.r.waited()
	}
}

// Combine charges the CPU for combining n elements, as reductions do.
func (c *Comm) Combine(n int) {
	if n < 1 {
		n = 1
	}
	c.r.busy(int64(n) * c.r.w.m.ReduceCyclesPerElement)
}

// Enter marks the start of collective name on this rank (for deadlock reports
// and statistics) and charges the call; the returned function marks the end.
func (c *Comm) Enter(name string) func() {
	name = c.callName(name)
	r := c.r
	prev := r.coll
	r.coll = name
	r.busy(r.w.m.MPICallCycles)
	return func() {
		r.coll = prev
		if prev == "" {
			cr := r.rec()
			cr.done.n++
			cr.done.coll, cr.done.alg = name, ""
			if cr.ranColl == name {
				cr.done.alg = cr.ranAlg
			}
		}
		r.sync()
	}
}

// Dup returns a new communicator with the same group and a new context.
func (c *Comm) Dup() (*Comm, error) {
	defer c.Enter("dup")()
	if err := Barrier(c); err != nil {
		return nil, err
	}
	seq := c.seq
	c.seq++
	d := *c
	d.seq = 0
	d.collSeq, d.cur, d.outer, d.noted = 0, collSig{}, collSig{}, false
	d.ctx = c.r.context(c.ctx, seq, 0)
	d.Name = fmt.Sprintf("%s.dup%d", c.Name, seq)
	return &d, nil
}

// Split partitions the communicator by color, ordering each part by key and
// then by rank; a rank with color Undefined gets nil.
//
// MPICH splits with an allgather of every rank's (color, key). Holding that
// allgather's result on every rank would cost the host n values per rank,
// n^2 in all (64 GB at 65,536 ranks), so the ranks leave their (color, key)
// in one table of the run instead, synchronize as the allgather's rounds
// would (a dissemination barrier), and pay its data volume in copies; the
// first rank through sorts the table once, and the members of each part
// share one list of its ranks. In partitions the table is shared under a
// lock; the barrier orders every rank's entry before anyone sorts.
func (c *Comm) Split(color, key int) *Comm {
	n, err := c.SplitErr(color, key)
	if err != nil {
		panic(err)
	}
	return n
}

// SplitErr is Split with the error of ranks that disagree (agree.go).
func (c *Comm) SplitErr(color, key int) (_ *Comm, err error) {
	defer c.Enter("split")()
	defer catch(&err)
	c.begin("split", -1, nil, -1)
	w := c.r.w
	seq := c.seq
	c.seq++
	unlock := w.locked(&w.splitMu)
	t := w.splitTable(splitKey{c.ctx, seq}, c.size)
	t.color[c.rank], t.key[c.rank] = color, key
	unlock()
	if w.tellAll != nil {
		// Over processes: the members of the others learn this entry at
		// the end of the window, with the barrier's first messages.
		w.tellAll(c.r.Proc.Engine(), &splitEntry{ctx: c.ctx, seq: seq, size: c.size, rank: c.rank, color: color, key: key})
	}
	if c.r.w.bcs != nil {
		bcsBarrier(c)
	} else {
		barrierDissemination(c)
	}
	c.r.busy(w.m.CopyCycles(16 * c.size))
	unlock = w.locked(&w.splitMu)
	if t.group == nil {
		t.sortOut(c)
	}
	t.left--
	if t.left == 0 {
		delete(w.splits, splitKey{c.ctx, seq})
	}
	unlock()
	if color == Undefined {
		return nil, nil
	}
	g := t.groups[t.group[c.rank]]
	n := &Comm{r: c.r, ctx: c.r.context(c.ctx, seq, color), size: len(g), ranks: g, rank: t.pos[c.rank]}
	n.Name = fmt.Sprintf("%s.split%d(color %d)", c.Name, seq, color)
	return n, nil
}

// splitKey names one Split call: the parent's context and its split count.
type splitKey struct{ ctx, seq int }

// splitTable is what the ranks of one Split call share.
type splitTable struct {
	color, key []int
	left       int     // ranks that have not picked up their result
	group      []int32 // per rank of the parent: index into groups
	pos        []int   // per rank of the parent: rank in its part
	groups     [][]int // per part: world ranks in order
}

// splitTable is the table of split call k of a communicator of size ranks.
func (w *World) splitTable(k splitKey, size int) *splitTable {
	if w.splits == nil {
		w.splits = map[splitKey]*splitTable{}
	}
	t := w.splits[k]
	if t == nil {
		t = &splitTable{color: make([]int, size), key: make([]int, size), left: size}
		w.splits[k] = t
	}
	return t
}

// splitEntry is a member's entry of a split table, told to the other
// processes of a run over several (World.SetTell).
type splitEntry struct {
	ctx, seq, size, rank, color, key int
}

func (*splitEntry) Act(Time) { panic("mpi: a split entry is read, never run") }

// readSplitEntry writes e, a member's entry from another process, in its
// table here (with every partition at rest); that member never picks up
// its result here.
func (w *World) readSplitEntry(e *splitEntry) {
	unlock := w.locked(&w.splitMu)
	defer unlock()
	k := splitKey{e.ctx, e.seq}
	t := w.splitTable(k, e.size)
	t.color[e.rank], t.key[e.rank] = e.color, e.key
	if t.left--; t.left == 0 {
		delete(w.splits, k) // no member here
	}
}

// sortOut orders the parent's ranks by (color, key, rank) and cuts the order
// into parts of one color each.
func (t *splitTable) sortOut(c *Comm) {
	n := len(t.color)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := order[a], order[b]
		if t.color[ra] != t.color[rb] {
			return t.color[ra] < t.color[rb]
		}
		return t.key[ra] < t.key[rb]
	})
	t.group = make([]int32, n)
	t.pos = make([]int, n)
	for i := 0; i < n; {
		j := i
		for j < n && t.color[order[j]] == t.color[order[i]] {
			j++
		}
		ranks := make([]int, j-i)
		for k := i; k < j; k++ {
			r := order[k]
			ranks[k-i] = c.World(r)
			t.group[r] = int32(len(t.groups))
			t.pos[r] = k - i
		}
		t.groups = append(t.groups, ranks)
		i = j
	}
}
