package hw

import "fmt"

// A network cut into blocks (SetBlocks) is advanced by one partition per
// block, each on its own thread. A link belongs to the block of the node it
// leaves, and only that block's partition reserves it; each block has its
// own view of the network (Part): the same links, its own generator for
// adaptive routing's ties and its own counters.
//
// A packet (or train) is injected by the view of its source's block
// (Inject). Its route is reserved as the head walks it, as SendTrainTo and
// SendAdaptiveTrain do, until the head would step onto a node of another
// block: the walk then stops and the packet is a Transit to be resumed
// (Resume) by that block's view, in its partition, at the cycle the head
// reaches that node. That cycle is at least HopCycles after the head entered
// its last link, which was no earlier than the injection: HopCycles is the
// lookahead of a run in blocks. The walk ends in the destination's block,
// where the arrival times are known. On a network of one block Inject gives
// exactly what SendTrainTo and SendAdaptiveTrain give.

// SetBlocks cuts the network into blocks (nil or a single block: one block,
// as a new network is). It must be called before any packet is sent; the
// generators are reseeded from the current seed.
func (n *Network) SetBlocks(b *Blocks) {
	if b != nil && b.Torus.Dims != n.Torus.Dims {
		panic(fmt.Sprintf("hw: blocks of a %v torus on a %v network", b.Torus.Dims, n.Torus.Dims))
	}
	n.blocks, n.block, n.views = b, 0, nil
	n.coordTable()
	if b != nil && b.N() > 1 {
		n.views = make([]*Network, b.N())
		n.views[0] = n
		for i := 1; i < b.N(); i++ {
			n.views[i] = &Network{M: n.M, Torus: n.Torus, links: n.links, coord: n.coord, blocks: b, block: i, counting: n.counting}
		}
		for _, v := range n.views {
			v.views = n.views
		}
		n.initArbiters() // now, before the blocks' threads share them
	}
	n.SetSeed(n.seed)
}

// Blocks is the network's cut into blocks (nil: one block).
func (n *Network) Blocks() *Blocks { return n.blocks }

// NumBlocks is the number of blocks (1 without a cut).
func (n *Network) NumBlocks() int {
	if n.views == nil {
		return 1
	}
	return len(n.views)
}

// BlockOf is the block of node.
func (n *Network) BlockOf(node int) int {
	if n.views == nil {
		return 0
	}
	return n.blocks.Of(node)
}

// Block is the block whose view n is.
func (n *Network) Block() int { return n.block }

// Part is the view of block b (n itself on a network of one block).
func (n *Network) Part(b int) *Network {
	if n.views == nil {
		if b != 0 {
			panic(fmt.Sprintf("hw: block %d of a network of one block", b))
		}
		return n
	}
	return n.views[b]
}

// Totals sums the counters of every block's view.
func (n *Network) Totals() (packets, wireBytes, linkBusy int64) {
	n.touchAll()
	if n.views == nil {
		return n.Packets, n.WireBytes, n.LinkBusy
	}
	for _, v := range n.views {
		packets += v.Packets
		wireBytes += v.WireBytes
		linkBusy += v.LinkBusy
	}
	return packets, wireBytes, linkBusy
}

// On a network in blocks, the functions that reserve a whole route at once
// (Send, SendTrain, SendTrainTo, SendPath, SendAdaptiveTrain, DepositTrain)
// may only be used by a block's view for routes within the block: a
// minimal route between two nodes of a block never leaves it (a block is
// at most half of any ring it cuts). They panic otherwise.

// ownEnds panics unless nodes a and c are both in n's block.
func (n *Network) ownEnds(a, c int) {
	if n.blocks.Of(a) != n.block || n.blocks.Of(c) != n.block {
		panic(fmt.Sprintf("hw: block %d reserves a route from node %d (block %d) to node %d (block %d): use Inject", n.block, a, n.blocks.Of(a), c, n.blocks.Of(c)))
	}
}

// ownRoute panics unless every link of route leaves a node of n's block.
func (n *Network) ownRoute(route []Hop) {
	for _, h := range route {
		if n.blocks.Of(int(h.Node)) != n.block {
			panic(fmt.Sprintf("hw: block %d reserves the link %v of node %d (block %d): use Inject or InjectDeposit", n.block, h.Dir, h.Node, n.blocks.Of(int(h.Node))))
		}
	}
}

// coordTable makes the table of node coordinates, if not made yet.
func (n *Network) coordTable() {
	if n.coord != nil {
		return
	}
	tor := n.Torus
	n.coord = make([][3]int32, tor.Nodes())
	for i := range n.coord {
		x, y, z := tor.NodeCoord(i)
		n.coord[i] = [3]int32{int32(x), int32(y), int32(z)}
	}
}

// Transit is a packet, or a train of packets sent back to back, on its way
// through the blocks of the network.
type Transit struct {
	// Block is the block that resumes the walk, At the cycle at which the
	// head reaches its first node (Resume runs then).
	Block int
	At    int64
	// Left is when the head left the source (known at injection). First
	// and Last are when the first and the last packet reach the
	// destination's reception FIFO, once the walk is done.
	Left, First, Last int64

	node     int32    // where the head is
	dest     int32    // where it goes
	delta    [3]int32 // signed hops still to go along x, y, z
	hops     int32    // hops still to go
	prevDim  int8     // dimension of the last link taken
	adaptive bool
	occupy   int64 // cycles each link is held
	first    int64 // serialization of the first packet
	s        int64 // when the head entered the last link it took
	wire     int64 // bytes on the wire, and the label, for link accounting
	label    int32
}

// Inject starts count packets sent back to back, all of payload size full
// but the last (last bytes), from node a to node c, their head ready at t:
// routed deterministically (x, y, z, as SendTrainTo) or adaptively (as
// SendAdaptiveTrain). n must be the view of a's block. It fills tr and
// reports whether the walk is done: then tr.First and tr.Last are the
// arrivals; otherwise the caller has Part(tr.Block).Resume(tr) run at
// tr.At in that block's partition. tr.Left is known either way.
func (n *Network) Inject(tr *Transit, a, c int, t int64, count, full, last int, adaptive bool) bool {
	m := n.M
	if n.views != nil && n.blocks.Of(a) != n.block {
		panic(fmt.Sprintf("hw: block %d injects a packet at node %d of block %d", n.block, a, n.blocks.Of(a)))
	}
	first, serLast, occupy := n.train(count, full, last)
	*tr = Transit{Left: t, node: int32(a), dest: int32(c), prevDim: -1, adaptive: adaptive, occupy: occupy, first: first,
		wire: n.wireOf(count, full, last), label: n.Label}
	if a == c {
		tr.First, tr.Last = t+m.NetworkCycles, t+occupy-serLast+m.NetworkCycles
		return true
	}
	tr.delta, tr.hops = n.offsets(a, c)
	return n.walkTransit(tr, t, true)
}

// Resume goes on with the walk of a transit in n's block, at tr.At (see
// Inject): it reports whether it is done, or where to resume it next.
func (n *Network) Resume(tr *Transit) bool {
	if n.views != nil && n.blocks.Of(int(tr.node)) != n.block {
		panic(fmt.Sprintf("hw: block %d resumes a packet at node %d of block %d", n.block, tr.node, n.blocks.Of(int(tr.node))))
	}
	return n.walkTransit(tr, tr.At, false)
}

// walkTransit walks tr's head from its node, where it is ready to enter its
// next link at here (the injection if start), reserving links while the
// nodes it leaves are in n's block.
func (n *Network) walkTransit(tr *Transit, here int64, start bool) bool {
	m := n.M
	lf := n.links
	hop, corner := m.HopCycles, m.CornerTurnCycles
	size := [3]int32{int32(n.Torus.X), int32(n.Torus.Y), int32(n.Torus.Z)}
	stride := [3]int{1, n.Torus.X, n.Torus.X * n.Torus.Y}
	node := int(tr.node)
	at := n.coord[node]
	var of []int32
	if n.views != nil {
		of = n.blocks.of
	}
	for tr.hops > 0 {
		base := node * NumDirs
		dim := 0
		if tr.adaptive {
			// Ties by this block's generator.
			links := [3]int{-1, -1, -1}
			for d := range 3 {
				if tr.delta[d] != 0 {
					links[d] = dirOf(d, tr.delta[d])
				}
			}
			dim = n.adaptiveDim(base, here, links)
		} else {
			for tr.delta[dim] == 0 {
				dim++
			}
		}
		s := here
		if !start && int8(dim) != tr.prevDim {
			s += corner
		}
		tr.prevDim = int8(dim)
		l := base + dirOf(dim, tr.delta[dim])
		n.touch(l)
		if f := lf[l].free; f > s {
			s = f
		}
		lf[l].free = s + tr.occupy
		n.LinkBusy += tr.occupy
		if n.counting {
			n.count(l, tr.occupy, tr.wire, tr.label)
		}
		if start {
			tr.Left = s
		}
		start = false
		tr.s = s
		step := int32(1)
		if tr.delta[dim] < 0 {
			step = -1
		}
		c := at[dim] + step
		switch {
		case c == size[dim]:
			c = 0
		case c < 0:
			c = size[dim] - 1
		}
		node += int(c-at[dim]) * stride[dim]
		at[dim] = c
		tr.delta[dim] -= step
		tr.hops--
		here = s + hop
		if of != nil && int(of[node]) != n.block {
			tr.node, tr.Block, tr.At = int32(node), int(of[node]), here
			return false
		}
	}
	tr.node = int32(node)
	tr.First, tr.Last = tr.s+tr.first+m.NetworkCycles, tr.s+tr.occupy+m.NetworkCycles
	return true
}

// dirOf is the direction of a link along dim for a signed delta.
func dirOf(dim int, delta int32) int {
	if delta < 0 {
		return 2*dim + 1
	}
	return 2 * dim
}

// DepositTransit is a deposit-bit train (DepositTrain) on its way along its
// line through the blocks of the network: each block reserves the links
// that leave its nodes and reports the arrivals at its nodes.
type DepositTransit struct {
	// Block is the block that resumes the walk, At the cycle at which the
	// head reaches its first node (ResumeDeposit runs then).
	Block int
	At    int64
	// Left is when the head left the source.
	Left int64

	node   int32 // where the head is
	dir    Dir
	hops   int32   // links still to cross
	occupy int64   // cycles each link is held
	first  int64   // serialization of the first packet
	arr    Arrival // the arrival at node, worked out by the block before
	wire   int64   // bytes on the wire, and the label, for link accounting
	label  int32
}

// InjectDeposit starts a deposit-bit train along line (see DepositTrain:
// count packets of full bytes but the last, of last bytes, the head ready at
// t). n must be the view of the source's block. It appends to arr the
// arrivals at the nodes of the line in n's block, in line order, and reports
// whether the walk is done; otherwise the caller has
// Part(tr.Block).ResumeDeposit(tr, ...) run at tr.At in that block's
// partition. On a network of one block it is DepositTrain.
func (n *Network) InjectDeposit(tr *DepositTransit, line Line, t int64, count, full, last int, arr []Arrival) (done bool, out []Arrival) {
	m := n.M
	if n.views != nil && n.blocks.Of(int(line.From)) != n.block {
		panic(fmt.Sprintf("hw: block %d injects a deposit at node %d of block %d", n.block, line.From, n.blocks.Of(int(line.From))))
	}
	*tr = DepositTransit{Left: t, node: line.From, dir: line.Dir, hops: line.Hops, wire: n.wireOf(count, full, last), label: n.Label}
	if line.Hops == 0 {
		return true, arr
	}
	ser := m.SerializeCycles(full)
	serLast := m.SerializeCycles(last)
	tr.occupy = int64(count-1)*ser + serLast
	tr.first = ser
	if count == 1 {
		tr.first = serLast
	}
	n.Packets += int64(count)
	n.WireBytes += int64(count-1)*int64(full+m.WireOverhead) + int64(last+m.WireOverhead)
	return n.walkDeposit(tr, t, true, arr)
}

// ResumeDeposit goes on with a deposit-bit train in n's block at tr.At: it
// appends the arrivals at the nodes of n's block (the first one included)
// and reports whether the walk is done.
func (n *Network) ResumeDeposit(tr *DepositTransit, arr []Arrival) (done bool, out []Arrival) {
	if n.views != nil && n.blocks.Of(int(tr.node)) != n.block {
		panic(fmt.Sprintf("hw: block %d resumes a deposit at node %d of block %d", n.block, tr.node, n.blocks.Of(int(tr.node))))
	}
	arr = append(arr, tr.arr)
	return n.walkDeposit(tr, tr.At, false, arr)
}

func (n *Network) walkDeposit(tr *DepositTransit, here int64, start bool, arr []Arrival) (bool, []Arrival) {
	m := n.M
	for tr.hops > 0 {
		s := here
		l := LinkIndex(int(tr.node), tr.dir)
		n.touch(l)
		lk := &n.links[l]
		if f := lk.free; f > s {
			s = f
		}
		lk.free = s + tr.occupy
		n.LinkBusy += tr.occupy
		if n.counting {
			n.count(l, tr.occupy, tr.wire, tr.label)
		}
		if start {
			tr.Left = s
			start = false
		}
		next := n.Torus.Neighbor(int(tr.node), tr.dir)
		a := Arrival{Node: int32(next), First: s + tr.first + m.NetworkCycles, Last: s + tr.occupy + m.NetworkCycles}
		tr.node = int32(next)
		tr.hops--
		here = s + m.HopCycles
		if n.views != nil && n.blocks.Of(next) != n.block {
			tr.arr, tr.Block, tr.At = a, n.blocks.Of(next), here
			return false, arr
		}
		arr = append(arr, a)
	}
	return true, arr
}

// offsets is the signed number of hops from node a to node c along each
// dimension, the shorter way round a ring, and their sum.
func (n *Network) offsets(a, c int) (delta [3]int32, hops int32) {
	n.coordTable()
	ca, cc := &n.coord[a], &n.coord[c]
	size := [3]int{n.Torus.X, n.Torus.Y, n.Torus.Z}
	for d := range 3 {
		dd := int(cc[d] - ca[d])
		if !n.Torus.Mesh {
			if dd < 0 {
				dd += size[d]
			}
			if 2*dd > size[d] {
				dd -= size[d]
			}
		}
		delta[d] = int32(dd)
		hops += int32(abs(dd))
	}
	return delta, hops
}
