package hw

// Network holds the busy times of every torus link. A packet is routed with
// virtual cut-through: its head enters the first link when the link is free,
// moves one hop per HopCycles, waits at a busy link, and holds each link for its
// serialization time.
//
// The message layer moves its packets with Head (arbiter.go): each link is
// taken when the head gets there, in round-robin order among the heads
// waiting for it, so that traffic sharing links shares their bandwidth.
// Send, SendTrain, SendTrainTo, SendPath, SendAdaptiveTrain and the walks of
// Inject reserve a whole route at once, when the packet is injected, in the
// order the engine injects them: exact for a route of one link reserved when
// its head is there (the optimized alltoall's hop-by-hop packets), and kept
// for the layers that model their own traffic (buffered coscheduling's
// microphases, Layer.Carry); a later packet whose head would reach a shared
// link sooner still goes after the ones reserved before it.
//
// Routing is deterministic (Route, Send, SendTrain: dimension-ordered, so the
// packets between two nodes stay in order) or minimal adaptive (SendAdaptive:
// at each hop the packet takes, among the directions that bring it closer,
// the link that is free soonest; ties are broken by the network's own
// seeded generator, so packets may overtake each other but a run stays
// reproducible).
type Network struct {
	M     *Machine
	Torus Torus

	links    []link            // per LinkIndex (link.go), shared by every block's view
	armed    bool              // the links' room is set from the machine (initArbiters, at the first Enqueue)
	bounded  bool              // the buffers or the reception FIFOs are finite: room counts
	full     [numClasses]int32 // a link's room per class when nothing holds any
	rerouted []*Head           // heads the last Grant moved to another link (Rerouted)
	coord    [][3]int32        // per node: its coordinates (SendTrainTo; made on first use)
	rng      uint64            // xorshift64* state for adaptive routing's ties
	serB     int               // the packet size serC is the serialization time of
	serC     int64

	// Blocks (see SetBlocks): the cut, this view's block, every block's
	// view (nil: one block, n itself) and the seed they were seeded from.
	blocks *Blocks
	block  int
	views  []*Network
	seed   int64

	// Packets and WireBytes count what crossed the network (for statistics).
	Packets   int64
	WireBytes int64
	// LinkBusy is the total serialization time summed over links.
	LinkBusy int64

	// Link accounting (linkuse.go), on when counting. Label is the label
	// of the traffic the next whole-route reservation carries.
	Label    int32
	counting bool
	dimBusy  [3]int64

	// Watched links (lease.go): how many are watched (each link keeps its
	// watcher), and whom to tell of a touch.
	watched int
	OnTouch func(link int)
	ties    int64 // adaptive choices broken by the tie hash
}

// NewNetwork returns an idle network for torus t, its adaptive routing
// seeded with 1 (see SetSeed).
func NewNetwork(m *Machine, t Torus) *Network {
	n := &Network{M: m, Torus: t, links: make([]link, t.Nodes()*NumDirs)}
	n.SetSeed(1)
	return n
}

// SetSeed seeds the choices adaptive routing makes between links that are
// free at the same time (the run's --seed).
//
// On a network cut into blocks, each block has a generator of its own,
// seeded from seed and the block's index (block 0 as a network of one
// block).
func (n *Network) SetSeed(seed int64) {
	if n.views == nil {
		n.seed = seed
		n.rng = seedRNG(seed, 0)
		return
	}
	for b, v := range n.views {
		v.seed = seed
		v.rng = seedRNG(seed, b)
	}
}

// seedRNG is the generator state of block b for seed: splitmix64 of the
// seed (and, for b > 0, of the block), never zero, which xorshift cannot
// leave.
func seedRNG(seed int64, b int) uint64 {
	z := uint64(seed) + 0x9e3779b97f4a7c15
	if b > 0 {
		z ^= uint64(b) * 0xd1b54a32d192ed03
	}
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31 | 1
}

// next is xorshift64*: one multiply per draw, good enough to break ties.
func (n *Network) next() uint64 {
	x := n.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	n.rng = x
	return x * 0x2545f4914f6cdd1d
}

// Route appends the deterministic route from node a to node b to buf
// (dimension-ordered x, y, z: see Torus.RouteDeterministic).
func (n *Network) Route(buf []Hop, a, b int) []Hop {
	return n.Torus.RouteDeterministic(buf, a, b)
}

// Send reserves the links of route for one packet of b bytes whose head is
// ready at the source at cycle t. It returns when the packet left the source
// (its head entered the first link, which frees its injection FIFO slot) and
// when its tail reached the destination's reception FIFO. An empty route is a
// packet to the node itself: it goes through the FIFOs but no link.
func (n *Network) Send(route []Hop, t int64, b int) (left, arrived int64) {
	if n.views != nil {
		n.ownRoute(route)
	}
	ser := n.M.SerializeCycles(b)
	n.Packets++
	n.WireBytes += int64(b + n.M.WireOverhead)
	if len(route) == 0 {
		return t, t + n.M.NetworkCycles
	}
	left, s := n.reserve(route, t, ser, int64(b+n.M.WireOverhead))
	return left, s + ser + n.M.NetworkCycles
}

// reserve holds each link of route for occupy cycles from when a head ready
// at the source at t reaches it (or the link is free, whichever is later),
// and returns when the head entered the first link and the last.
func (n *Network) reserve(route []Hop, t, occupy, wire int64) (left, last int64) {
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
		n.touch(l)
		lk := &n.links[l]
		if f := lk.free; f > s {
			s = f
		}
		lk.free = s + occupy
		if n.counting {
			n.count(l, occupy, wire, n.Label)
		}
		if i == 0 {
			left = s
		}
	}
	n.LinkBusy += occupy * int64(len(route))
	return left, s
}

// SendTrain reserves the links of route for n packets sent back to back, all
// of payload size full but the last (last bytes), whose head is ready at t:
// each link is held for the whole train from when the train's head reaches
// it. For n packets this costs one pass over the route instead of n, and on
// a path nobody else uses gives the same times as n calls of Send.
func (n *Network) SendTrain(route []Hop, t int64, count, full, last int) (left, firstArrived, lastArrived int64) {
	if n.views != nil {
		n.ownRoute(route)
	}
	first, serLast, occupy := n.train(count, full, last)
	if len(route) == 0 {
		return t, t + n.M.NetworkCycles, t + occupy - serLast + n.M.NetworkCycles
	}
	left, s := n.reserve(route, t, occupy, n.wireOf(count, full, last))
	return left, s + first + n.M.NetworkCycles, s + occupy + n.M.NetworkCycles
}

// SendTrainTo is SendTrain along the deterministic route from node a to
// node c (Route), walked as it is reserved instead of built first.
func (n *Network) SendTrainTo(a, c int, t int64, count, full, last int) (left, firstArrived, lastArrived int64) {
	if n.views != nil {
		n.ownEnds(a, c)
	}
	m := n.M
	first, serLast, occupy := n.train(count, full, last)
	tor := n.Torus
	if n.coord == nil {
		n.coord = make([][3]int32, tor.Nodes())
		for i := range n.coord {
			x, y, z := tor.NodeCoord(i)
			n.coord[i] = [3]int32{int32(x), int32(y), int32(z)}
		}
	}
	ca, cc := &n.coord[a], &n.coord[c]
	stride := [3]int{1, tor.X, tor.X * tor.Y}
	size := [3]int{tor.X, tor.Y, tor.Z}
	node, s, hops := a, t, 0
	lf := n.links
	for dim := range 3 {
		delta, sz := int(cc[dim]-ca[dim]), size[dim]
		if !tor.Mesh {
			if delta < 0 {
				delta += sz
			}
			if 2*delta > sz {
				delta -= sz
			}
		}
		if delta == 0 {
			continue
		}
		d := DirOf(dim, delta)
		step, x := d.Sign(), int(ca[dim])
		for i := 0; i < abs(delta); i++ {
			if hops > 0 {
				s += m.HopCycles
				if i == 0 {
					s += m.CornerTurnCycles
				}
			}
			l := node*NumDirs + int(d)
			if f := lf[l].free; f > s {
				s = f
			}
			lf[l].free = s + occupy
			if n.counting {
				n.count(l, occupy, n.wireOf(count, full, last), n.Label)
			}
			if hops == 0 {
				left = s
			}
			hops++
			next := x + step
			switch {
			case next == sz:
				next = 0
			case next < 0:
				next = sz - 1
			}
			node += (next - x) * stride[dim]
			x = next
		}
	}
	if hops == 0 {
		return t, t + m.NetworkCycles, t + occupy - serLast + m.NetworkCycles
	}
	n.LinkBusy += occupy * int64(hops)
	return left, s + first + m.NetworkCycles, s + occupy + m.NetworkCycles
}

// SendAdaptive routes one packet of b bytes from node a to node c with
// minimal adaptive routing and reserves its links; its head is ready at the
// source at cycle t. At every node on the way the packet may go along any
// dimension it still has to cross (the shorter way round, as Delta says) and
// takes the one whose link is free soonest (a link already free when the
// head gets there is as good as any other free one); equal times are broken
// by the network's generator. Timing is that of Send: one hop latency per
// link after the first, a corner-turn cost when the dimension changes,
// waiting at a busy link. It returns when the packet left the source and
// when its tail reached c. Nothing is allocated: the route is not kept.
func (n *Network) SendAdaptive(a, c int, t int64, b int) (left, arrived int64) {
	p := n.Path(a, c)
	return n.SendPath(&p, t, b)
}

// Path is a source and destination prepared for SendPath, which routes
// packet after packet between them adaptively without working out the
// geometry again.
type Path struct {
	from  int
	to    int
	at    [3]int // source coordinates
	delta [3]int // signed hops to go along x, y, z
	hops  int
}

// Path prepares the adaptive routes from node a to node c.
func (n *Network) Path(a, c int) Path {
	tor := n.Torus
	var p Path
	p.from, p.to = a, c
	p.at[0], p.at[1], p.at[2] = tor.NodeCoord(a)
	var to [3]int
	to[0], to[1], to[2] = tor.NodeCoord(c)
	for d := range 3 {
		p.delta[d] = tor.Delta(d, p.at[d], to[d])
		p.hops += abs(p.delta[d])
	}
	return p
}

// SendPath is SendAdaptive over a prepared path.
func (n *Network) SendPath(p *Path, t int64, b int) (left, arrived int64) {
	if n.views != nil {
		n.ownEnds(p.from, p.to)
	}
	ser := n.serialize(b)
	n.Packets++
	n.WireBytes += int64(b + n.M.WireOverhead)
	if p.hops == 0 {
		return t, t + n.M.NetworkCycles
	}
	left, s := n.walk(p, t, ser, int64(b+n.M.WireOverhead))
	n.LinkBusy += ser * int64(p.hops)
	return left, s + ser + n.M.NetworkCycles
}

// SendAdaptiveTrain routes count packets sent back to back over a prepared
// path, all of payload size full but the last (last bytes), as one train:
// the train's head chooses its way at every hop as a single packet would,
// and each link it takes is held for the whole train. It is SendTrain with
// adaptive routing: a message's batches of packets may go different ways
// and overtake each other, the packets of one batch keep together. It
// returns when the head left the source and when the first and the last
// packet arrived.
func (n *Network) SendAdaptiveTrain(p *Path, t int64, count, full, last int) (left, firstArrived, lastArrived int64) {
	if n.views != nil {
		n.ownEnds(p.from, p.to)
	}
	m := n.M
	first, serLast, occupy := n.train(count, full, last)
	if p.hops == 0 {
		return t, t + m.NetworkCycles, t + occupy - serLast + m.NetworkCycles
	}
	left, s := n.walk(p, t, occupy, n.wireOf(count, full, last))
	n.LinkBusy += occupy * int64(p.hops)
	return left, s + first + m.NetworkCycles, s + occupy + m.NetworkCycles
}

// walk takes a head ready at t along p, choosing at each hop among the
// productive links the one free soonest (ties by the generator), holding
// each for occupy cycles. It returns when the head left the source and
// when it entered the last link.
func (n *Network) walk(p *Path, t, occupy, wire int64) (left, s int64) {
	m := n.M
	// Per dimension: hops left, the link direction taken, the coordinate
	// and how the node index moves with it.
	var left3, dir, step, at, size, stride [3]int
	size = [3]int{n.Torus.X, n.Torus.Y, n.Torus.Z}
	stride = [3]int{1, n.Torus.X, n.Torus.X * n.Torus.Y}
	for d := range 3 {
		at[d] = p.at[d]
		dir[d], step[d], left3[d] = 2*d, 1, p.delta[d]
		if p.delta[d] < 0 {
			dir[d], step[d], left3[d] = 2*d+1, -1, -p.delta[d]
		}
	}
	lf := n.links
	hop, corner := m.HopCycles, m.CornerTurnCycles
	node := p.from
	s = t
	prevDim := -1
	for i := 0; i < p.hops; i++ {
		here := s
		if i > 0 {
			here += hop
		}
		// The candidate links: one per dimension still to cross.
		base := node * NumDirs
		links := [3]int{-1, -1, -1}
		for d := range 3 {
			if left3[d] != 0 {
				links[d] = dir[d]
			}
		}
		dim := n.adaptiveDim(base, here, links)
		if i > 0 {
			s = here
			if dim != prevDim {
				s += corner
			}
		}
		prevDim = dim
		l := base + dir[dim]
		n.touch(l)
		if f := lf[l].free; f > s {
			s = f
		}
		lf[l].free = s + occupy
		if n.counting {
			n.count(l, occupy, wire, n.Label)
		}
		if i == 0 {
			left = s
		}
		// Step to the next node along dim, round the ring if need be.
		c := at[dim] + step[dim]
		switch {
		case c == size[dim]:
			c = 0
		case c < 0:
			c = size[dim] - 1
		}
		node += (c - at[dim]) * stride[dim]
		at[dim] = c
		left3[dim]--
	}
	return left, s
}

// serialize is M.SerializeCycles with the last answer kept: a message's
// packets are mostly of one size.
// adaptiveDim is the dimension an adaptively routed head at node base /
// NumDirs takes at cycle here: among the dimensions still to cross
// (links[d], the direction it would leave by; -1 for those done), the one
// whose link is free soonest (a link free when the head gets there is as
// good as any other free one); ties by the network's generator, uniformly.
func (n *Network) adaptiveDim(base int, here int64, links [3]int) int {
	var cand [3]int
	best := int64(1<<63 - 1)
	nc := 0
	for d, l := range links {
		if l < 0 {
			continue
		}
		n.touch(base + l)
		f := max(n.links[base+l].free, here)
		if f < best {
			best, nc = f, 0
		} else if f > best {
			continue
		}
		cand[nc] = d
		nc++
	}
	if nc > 1 {
		return cand[((n.next()>>32)*uint64(nc))>>32]
	}
	return cand[0]
}

// train counts a train of count packets on the wire (all of full bytes but
// the last, of last bytes, headers included) and returns how long a link
// takes to send its first packet and its last one, and how long the train
// holds each link it crosses.
func (n *Network) train(count, full, last int) (first, serLast, occupy int64) {
	m := n.M
	ser := n.serialize(full)
	serLast = ser
	if last != full {
		serLast = m.SerializeCycles(last)
	}
	occupy = int64(count-1)*ser + serLast
	n.Packets += int64(count)
	n.WireBytes += int64(count-1)*int64(full+m.WireOverhead) + int64(last+m.WireOverhead)
	first = ser
	if count == 1 {
		first = serLast
	}
	return first, serLast, occupy
}

func (n *Network) serialize(b int) int64 {
	if b != n.serB {
		n.serB, n.serC = b, n.M.SerializeCycles(b)
	}
	return n.serC
}

// LinkFree is the cycle at which a link is next free.
func (n *Network) LinkFree(node int, d Dir) int64 {
	n.touch(LinkIndex(node, d))
	return n.links[LinkIndex(node, d)].free
}

// CPU is one processor of a node: software steps occupy it one after another.
type CPU struct {
	Free int64 // cycle at which the CPU is next free
	Busy int64 // total cycles of work done
	// Watch and Writers are free for the message layer: the lease
	// watching the CPU (0: none) and the flows writing on it, kept here
	// so that looking costs no other cache line (and Writers in what was
	// padding, where a count per CPU of the machine in each partition
	// took 0.5 KiB a rank on the full BG/L).
	Watch   uint32
	Writers int32
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
