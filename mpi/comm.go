package mpi

import (
	"fmt"
	"sort"
)

// collective point-to-point: the communicator's second context keeps the
// messages of collective algorithms apart from the user's.

// CSend sends v to dest inside a collective algorithm. It does not wait for
// the data to leave (a rendezvous message leaves when the receiver asks for
// it): collective algorithms may send before they receive, as a buffered
// send would let them.
func (c *Comm) CSend(v Value, dest, tag int) { c.post(v, dest, tag, c.ctx+1) }

// CIsend starts a send inside a collective algorithm.
func (c *Comm) CIsend(v Value, dest, tag int) *Request {
	return c.post(v, dest, tag, c.ctx+1)
}

// CIrecv posts a receive inside a collective algorithm.
func (c *Comm) CIrecv(src, tag int) *Request { return c.irecv(src, tag, c.ctx+1) }

// CRecv receives inside a collective algorithm.
func (c *Comm) CRecv(src, tag int) Value {
	q := c.irecv(src, tag, c.ctx+1)
	c.r.wait(q, &WaitInfo{Call: c.r.coll + " (recv)", Peer: src, Tag: tag, Comm: c.Name})
	return q.Value
}

// CSendrecv exchanges with two peers inside a collective algorithm.
func (c *Comm) CSendrecv(v Value, dest, src, tag int) Value {
	q := c.irecv(src, tag, c.ctx+1)
	c.post(v, dest, tag, c.ctx+1)
	c.r.wait(q, &WaitInfo{Call: c.r.coll + " (sendrecv)", Peer: src, Tag: tag, Comm: c.Name})
	return q.Value
}

// CWaitall waits for requests of a collective algorithm.
func (c *Comm) CWaitall(qs []*Request) {
	for _, q := range qs {
		c.r.wait(q, &WaitInfo{Call: c.r.coll + " (waitall)", Peer: NoPeer, N: len(qs), Comm: c.Name})
	}
}

// Combine charges the CPU for combining n elements, as reductions do.
func (c *Comm) Combine(n int) {
	if n < 1 {
		n = 1
	}
	c.r.busy(int64(n) * c.r.w.M.ReduceCyclesPerElement)
}

// Enter marks the start of collective name on this rank (for deadlock reports
// and statistics) and charges the call; the returned function marks the end.
func (c *Comm) Enter(name string) func() {
	prev := c.r.coll
	c.r.coll = name
	c.r.busy(c.r.w.M.MPICallCycles)
	return func() {
		c.r.coll = prev
		c.r.sync()
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
	d.ctx = c.r.w.context(c.ctx, seq, 0)
	d.Name = fmt.Sprintf("%s.dup%d", c.Name, seq)
	return &d, nil
}

// Split partitions the communicator by color, ordering each part by key and
// then by rank; a rank with color Undefined gets nil.
func (c *Comm) Split(color, key int) *Comm {
	defer c.Enter("split")()
	all := Allgather(c, Value{Data: []float64{float64(color), float64(key)}, Size: 16})
	seq := c.seq
	c.seq++
	if color == Undefined {
		return nil
	}
	type member struct{ key, rank int }
	var ms []member
	for i, v := range all {
		p := v.Data.([]float64)
		if int(p[0]) == color {
			ms = append(ms, member{int(p[1]), i})
		}
	}
	sort.SliceStable(ms, func(a, b int) bool { return ms[a].key < ms[b].key })
	n := &Comm{r: c.r, ctx: c.r.w.context(c.ctx, seq, color), size: len(ms), ranks: make([]int, len(ms))}
	for i, m := range ms {
		n.ranks[i] = c.World(m.rank)
		if m.rank == c.rank {
			n.rank = i
		}
	}
	n.Name = fmt.Sprintf("%s.split%d(color %d)", c.Name, seq, color)
	return n
}
