package mpi

import "github.com/bglua/bglua/msglayer"

// The packet-level algorithms (bcast torus, alltoall optimized) run as
// message-layer code on every node at once rather than as point-to-point
// messages: the ranks of one call share the state of the operation, its
// packets are events of the engine, and each rank's CPU does its part as
// they come. shareOp gives the ranks of a call that state.

// shareOp returns the state the members of c share for their current call
// of the algorithm that tag names. The member that enters first makes it
// (mk) and leaves a handle to it with every other member, in that member's
// queue of unexpected messages on c's collective context, where each finds
// it when it enters the same call. Calls of one communicator come in the
// same order on every member, so the k-th handle a member finds is that of
// its k-th call. The handle stands for the setup BG/L's message layer does
// once per communicator: no packet crosses the network and nothing is
// charged. Cost: O(size of c) once per call, O(1) for the others.
func (c *Comm) shareOp(tag int, mk func() any) any {
	r := c.r
	ctx := c.ctx + 1
	q := &r.home().unexpected // a progress context's are its rank's
	if a := q.first(func(m *msglayer.Message) bool {
		return m.Ctx == ctx && m.Tag == tag && m.To == nil
	}); a != nil {
		q.remove(a)
		// The maker's call must be this member's (agree.go): the shared
		// state is made from the maker's arguments alone.
		if s := sigOf(a.m); s.call != nil && c.cur.call != nil && !s.same(c.cur) {
			panic(mismatch{describe(c.Name, a.m.From, s, c.rank, c.cur)})
		}
		return a.m.Payload
	}
	op := mk()
	now := r.Now()
	maker := &Request{r: r, comm: c, sig: c.cur.call, sigSeq: c.cur.seq} // carries the maker's signature only
	for i := 0; i < c.size; i++ {
		if i == c.rank {
			continue
		}
		w := c.World(i)
		// To stays nil: a handle, not a message any receive may match.
		h := &msglayer.Message{Src: r.ID, Dst: w, Ctx: ctx, Tag: tag, From: c.rank, Payload: op, Sent: maker}
		o := r.w.ranks[w]
		o.unexpected.add(&arrival{m: h, done: now})
	}
	return op
}
