package mpi

import "fmt"

// Neighbourhood collectives on a cartesian communicator
// (MPI_Neighbor_allgather, MPI_Neighbor_alltoall). A rank's neighbours are
// listed in MPI's order: for each dimension, the rank one step down, then
// the one one step up (MPI_Cart_shift by 1); past the edge of a dimension
// that does not wrap there is none (ProcNull), and that position of the
// result is empty. The exchange is point-to-point on the communicator's
// collective context, with tags of its own (tagNeighbor + position), so it
// never meets the user's messages; a rank that is its own neighbour, or
// the same neighbour on both sides (a periodic dimension of extent 1 or 2),
// is told apart by the tags.

// tagNeighbor + i is the tag of what a rank receives in position i.
const tagNeighbor = 1100

// Neighbors lists rank's neighbours in MPI's order: for each dimension the
// one a step down, then the one a step up; ProcNull past the edge of a
// dimension that does not wrap.
func (g *Cart) Neighbors(rank int) []int {
	nb := make([]int, 0, 2*len(g.dims))
	for d := range g.dims {
		src, dst, err := g.Shift(rank, d, 1)
		if err != nil {
			panic(err) // rank is in the grid and d one of its dimensions
		}
		nb = append(nb, src, dst)
	}
	return nb
}

// NeighborAllgather sends v to each neighbour of the caller in g and
// returns what each sent, in neighbour order (an empty Value where there is
// no neighbour).
func NeighborAllgather(c *Comm, g *Cart, v Value) (_ []Value, err error) {
	if err := g.fits(c); err != nil {
		return nil, err
	}
	defer c.Enter("neighbor_allgather")()
	defer catch(&err)
	c.begin("neighbor_allgather", -1, nil, bufSize(v))
	return c.neighborExchange(g, func(int) Value { return v }), nil
}

// NeighborAlltoall sends vs[i] to neighbour i of the caller in g and
// returns what each neighbour sent it, in neighbour order. vs has one value
// per position, 2 per dimension; those for missing neighbours are unused.
func NeighborAlltoall(c *Comm, g *Cart, vs []Value) (_ []Value, err error) {
	if err := g.fits(c); err != nil {
		return nil, err
	}
	if n := 2 * len(g.dims); len(vs) != n {
		return nil, fmt.Errorf("%d values for %d neighbour positions (2 per dimension of %s)", len(vs), n, g.Shape())
	}
	defer c.Enter("neighbor_alltoall")()
	defer catch(&err)
	c.begin("neighbor_alltoall", -1, nil, -1)
	return c.neighborExchange(g, func(i int) Value { return vs[i] }), nil
}

func (g *Cart) fits(c *Comm) error {
	if g.size != c.Size() {
		return fmt.Errorf("grid %s is for %d ranks, %s has %d", g.Shape(), g.size, c.Name, c.Size())
	}
	return nil
}

// neighborExchange posts a receive from each neighbour, then sends out(i)
// to neighbour i, and waits for all: what goes to neighbour i arrives there
// in the opposite position of the same dimension (i^1).
func (c *Comm) neighborExchange(g *Cart, out func(i int) Value) []Value {
	nb := g.Neighbors(c.Rank())
	recvs := make([]*Request, len(nb))
	all := make([]*Request, 0, 2*len(nb))
	for i, p := range nb {
		if p != ProcNull {
			recvs[i] = c.CIrecv(p, tagNeighbor+i)
			all = append(all, recvs[i])
		}
	}
	for i, p := range nb {
		if p != ProcNull {
			all = append(all, c.CIsend(out(i), p, tagNeighbor+(i^1)))
		}
	}
	c.CWaitall(all)
	got := make([]Value, len(nb))
	for i, q := range recvs {
		if q != nil {
			got[i] = q.Value
		}
	}
	return got
}
