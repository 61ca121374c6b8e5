package hw

// Network holds the busy times of every torus link. A packet is routed with
// virtual cut-through: its head enters the first link when the link is free,
// moves one hop per HopCycles, waits at a busy link, and holds each link for its
// serialization time. Reservations are made when the packet is injected, in the
// order the engine injects them, so the outcome is deterministic.
type Network struct {
	M     *Machine
	Torus Torus

	linkFree []int64 // per LinkIndex: cycle at which the link is next free

	// Packets and WireBytes count what crossed the network (for statistics).
	Packets   int64
	WireBytes int64
	// LinkBusy is the total serialization time summed over links.
	LinkBusy int64
}

// NewNetwork returns an idle network for torus t.
func NewNetwork(m *Machine, t Torus) *Network {
	return &Network{M: m, Torus: t, linkFree: make([]int64, t.Nodes()*NumDirs)}
}

// Route appends the route from node a to node b to buf (deterministic x, y, z
// order; the only routing of this issue).
func (n *Network) Route(buf []Hop, a, b int) []Hop {
	return n.Torus.RouteDeterministic(buf, a, b)
}

// Send reserves the links of route for one packet of b bytes whose head is
// ready at the source at cycle t. It returns when the packet left the source
// (its head entered the first link, which frees its injection FIFO slot) and
// when its tail reached the destination's reception FIFO. An empty route is a
// packet to the node itself: it goes through the FIFOs but no link.
func (n *Network) Send(route []Hop, t int64, b int) (left, arrived int64) {
	ser := n.M.SerializeCycles(b)
	n.Packets++
	n.WireBytes += int64(b + n.M.WireOverhead)
	if len(route) == 0 {
		return t, t + n.M.NetworkCycles
	}
	s := t
	prevDim := -1
	for i, h := range route {
		if i > 0 {
			s += n.M.HopCycles
			if d := h.Dir.Dim(); d != prevDim {
				s += n.M.CornerTurnCycles
			}
		}
		prevDim = h.Dir.Dim()
		l := LinkIndex(int(h.Node), h.Dir)
		if f := n.linkFree[l]; f > s {
			s = f
		}
		n.linkFree[l] = s + ser
		if i == 0 {
			left = s
		}
	}
	n.LinkBusy += ser * int64(len(route))
	return left, s + ser + n.M.NetworkCycles
}

// SendTrain reserves the links of route for n packets sent back to back, all
// of payload size full but the last (last bytes), whose head is ready at t:
// each link is held for the whole train from when the train's head reaches
// it. For n packets this costs one pass over the route instead of n, and on
// a path nobody else uses gives the same times as n calls of Send.
func (n *Network) SendTrain(route []Hop, t int64, count, full, last int) (left, firstArrived, lastArrived int64) {
	ser := n.M.SerializeCycles(full)
	serLast := n.M.SerializeCycles(last)
	occupy := int64(count-1)*ser + serLast
	n.Packets += int64(count)
	n.WireBytes += int64(count-1)*int64(full+n.M.WireOverhead) + int64(last+n.M.WireOverhead)
	if len(route) == 0 {
		return t, t + n.M.NetworkCycles, t + occupy - serLast + n.M.NetworkCycles
	}
	s := t
	prevDim := -1
	for i, h := range route {
		if i > 0 {
			s += n.M.HopCycles
			if d := h.Dir.Dim(); d != prevDim {
				s += n.M.CornerTurnCycles
			}
		}
		prevDim = h.Dir.Dim()
		l := LinkIndex(int(h.Node), h.Dir)
		if f := n.linkFree[l]; f > s {
			s = f
		}
		n.linkFree[l] = s + occupy
		if i == 0 {
			left = s
		}
	}
	n.LinkBusy += occupy * int64(len(route))
	first := ser
	if count == 1 {
		first = serLast
	}
	return left, s + first + n.M.NetworkCycles, s + occupy + n.M.NetworkCycles
}

// LinkFree is the cycle at which a link is next free.
func (n *Network) LinkFree(node int, d Dir) int64 { return n.linkFree[LinkIndex(node, d)] }

// CPU is one processor of a node: software steps occupy it one after another.
type CPU struct {
	Free int64 // cycle at which the CPU is next free
	Busy int64 // total cycles of work done
}

// Until records work cycles of CPU time ending at end (the CPU waited for
// something in between, such as a full injection FIFO).
func (c *CPU) Until(end, work int64) {
	if end > c.Free {
		c.Free = end
	}
	c.Busy += work
}

// Run occupies the CPU for d cycles starting no earlier than t and returns
// when the work ends.
func (c *CPU) Run(t, d int64) int64 {
	if c.Free > t {
		t = c.Free
	}
	c.Free = t + d
	c.Busy += d
	return c.Free
}
