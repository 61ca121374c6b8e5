package hw

// The torus deposit bit ([ML], "Message-layer support for MPI collective
// operations"): a packet sent along one dimension with the deposit bit set is
// kept by every node it passes, not only by the last. One injection reaches a
// whole line of nodes, which is what the optimized broadcast of [ML] Fig. 3
// and Fig. 5b is built from.
//
// Timing is that of any packet (virtual cut-through, Network.SendTrain): the
// head moves one hop per HopCycles and waits at busy links; every node on the
// way gets its copy in its reception FIFO when the tail has passed it, after
// the fixed NetworkCycles of the reception logic. The links are reserved on
// the Network like everyone else's, so deposit traffic contends with the rest.

// Line is one deposit-bit send: packets leave node From along Dir and are
// deposited at each of the next Hops nodes.
type Line struct {
	From int32
	Dir  Dir
	Hops int32
}

// LineHops is the longest deposit line from node along d: on a torus the rest
// of the ring (it stops before coming back to the sender), on a mesh up to the
// edge (0 at the edge itself).
func (t Torus) LineHops(node int, d Dir) int {
	n := t.size(d.Dim())
	if !t.Mesh {
		return n - 1
	}
	var c [3]int
	c[0], c[1], c[2] = t.NodeCoord(node)
	if d.Sign() > 0 {
		return n - 1 - c[d.Dim()]
	}
	return c[d.Dim()]
}

// LineRoute appends the hops of line l to buf. The line must fit the machine
// (Hops <= LineHops).
func (t Torus) LineRoute(buf []Hop, l Line) []Hop {
	node := int(l.From)
	for range l.Hops {
		buf = append(buf, Hop{Node: int32(node), Dir: l.Dir})
		node = t.Neighbor(node, l.Dir)
	}
	return buf
}

// Arrival is when a deposit-bit train reached one node of its line: the tail
// of its first packet (First) and of its last (Last) in the reception FIFO.
type Arrival struct {
	Node        int32
	First, Last int64
}

// DepositTrain reserves the links of a line's route for count packets sent
// back to back (of full bytes each, header included, but the last: last),
// whose head is ready at the source at cycle t. It appends to arr when the
// train reached each node of the line, in line order, and returns when its
// head left the source. On links nobody else uses it gives the times of a
// SendTrain to each node of the line, and it counts the packets once, not
// once per hop.
func (n *Network) DepositTrain(route []Hop, t int64, count, full, last int, arr []Arrival) (left int64, out []Arrival) {
	if len(route) == 0 {
		return t, arr
	}
	if n.views != nil {
		n.ownRoute(route)
	}
	packets, wire := n.Packets, n.WireBytes
	s := t
	prevDim := route[0].Dir.Dim()
	for i, h := range route {
		if i > 0 {
			s += n.M.HopCycles
			if d := h.Dir.Dim(); d != prevDim {
				s += n.M.CornerTurnCycles
			}
		}
		prevDim = h.Dir.Dim()
		// One link at a time, so that every node on the way learns its
		// arrival; the head moves on from where this link let it in.
		entered, first, lastArr := n.SendTrain(route[i:i+1], s, count, full, last)
		s = entered
		if i == 0 {
			left = entered
		}
		arr = append(arr, Arrival{Node: int32(n.Torus.Neighbor(int(h.Node), h.Dir)), First: first, Last: lastArr})
	}
	// Every link saw the train (LinkBusy), but it is one train of packets.
	n.Packets = packets + int64(count)
	n.WireBytes = wire + int64(count-1)*int64(full+n.M.WireOverhead) + int64(last+n.M.WireOverhead)
	return left, arr
}

// DepositSend is the sender's side of one deposit-bit message of total bytes
// (payload and software header) along route: cpu writes its packets back to
// back from cycle t on (PacketWriteWork each), waiting when InjectionFIFO of
// them are ahead of the first link, and the train is deposited along the
// line. It appends the arrivals to arr and returns when the CPU wrote the
// last packet. DepositWrite and DepositWritten are its two halves, for a
// train that another party carries along the line.
func (n *Network) DepositSend(cpu *CPU, t int64, route []Hop, total int, arr []Arrival) (end int64, out []Arrival) {
	t, count, full, last := n.M.DepositWrite(cpu, t, total)
	left, arr := n.DepositTrain(route, t, count, full, last, arr)
	return n.M.DepositWritten(cpu, t, left, count, full), arr
}

// DepositWrite has cpu write the first packet of a deposit-bit message of
// total bytes from cycle t on: the train can leave at ready, count packets of
// full wire bytes but the last, of last.
func (m *Machine) DepositWrite(cpu *CPU, t int64, total int) (ready int64, count, full, last int) {
	count = m.Packets(total)
	per := m.PayloadPerPacket()
	ready = cpu.Run(t, m.PacketWriteWork())
	return ready, count, m.PacketBytes(per), m.PacketBytes(total - per*(count-1))
}

// DepositWritten has cpu write the other packets of a train that was ready
// at ready and whose head left at left (DepositWrite), waiting while the
// injection FIFO is full; it returns when the last is written.
func (m *Machine) DepositWritten(cpu *CPU, ready, left int64, count, full int) int64 {
	if count == 1 {
		return ready
	}
	write := m.PacketWriteWork()
	end := ready + int64(count-1)*write
	if fifo := m.InjectionFIFO; count-1 >= fifo && fifo > 0 {
		if w := left + int64(count-1-fifo)*m.SerializeCycles(full) + write; w > end {
			end = w
		}
	}
	cpu.Until(end, int64(count-1)*write)
	return end
}

// PacketWriteWork is the CPU time of sending one packet of a packet-level
// stream (a deposit message, the deposit broadcast, the optimized alltoall):
// writing it into an injection FIFO and the advance loop's own work around
// it (PacketOverheadCycles).
func (m *Machine) PacketWriteWork() int64 { return m.PacketWriteCycles + m.PacketOverheadCycles }

// PacketReadWork is the CPU time a node spends on one packet of n payload
// bytes of such a stream: the advance loop's own work (polling, parsing the
// header, finding where the data goes: PacketOverheadCycles), reading it out
// of the reception FIFO (PacketReadCycles) and copying the payload into the
// user's buffer, realigned (CopyCycles).
func (m *Machine) PacketReadWork(n int) int64 {
	return m.PacketOverheadCycles + m.PacketReadCycles + m.CopyCycles(n)
}

// DepositReceive charges cpu for taking in a deposit-bit message of total
// bytes whose packets reached the node as a says, and returns when its data
// is complete: as the message layer's eager protocol, one dispatch for the
// message (and the reassembly of a multi-packet one), then every packet read
// and copied no earlier than it arrived.
func (m *Machine) DepositReceive(cpu *CPU, a Arrival, total int) int64 {
	count := m.Packets(total)
	work := m.MLDispatchCycles
	read := m.PacketReadWork(min(total, m.PayloadPerPacket()))
	if count > 1 {
		work += m.EagerSetupCycles
	}
	work += int64(count) * read
	start := max(a.First, cpu.Free)
	done := start + work
	if tail := a.Last + read; tail > done {
		done = tail
	}
	cpu.Free = done
	cpu.Busy += work
	return done
}

// BcastRoute is one of the edge-disjoint spanning routes of the deposit-bit
// broadcast: for every node, the deposit lines it sends once it holds a
// packet of the route (the root: as soon as it injects one).
type BcastRoute struct {
	// Order lists the dimensions in the order the route spans them.
	Order []int
	start []int32 // per node: its lines are lines[start[v]:start[v+1]]
	lines []Line
}

// Lines are the deposit lines node sends for each packet of the route.
func (r *BcastRoute) Lines(node int) []Line { return r.lines[r.start[node]:r.start[node+1]] }

// BcastRoutes returns the spanning routes of the deposit-bit broadcast from
// root over the whole machine ([ML] Fig. 3): one per dimension longer than
// one node, at most three, no two of which share a link, so that the root's
// data cut into that many streams moves up to three times as fast as along
// one route.
//
// The route of dimension a, with b and c the next dimensions in cyclic order
// (x, y, z, x, ...), is built of deposit lines that all start on the plane
// a = root's a, running away from it (on a torus one line round the ring in
// the + direction, on a mesh one line to each edge):
//
//	the root sends a line along a;
//	every node of that line sends a line along b and one along c;
//	every node the b lines reach sends a line along c.
//
// That covers every node whose a coordinate differs from the root's. Each
// node of the plane a = root's a (the root's face) then gets the packet by a
// single hop from its neighbour across the face (a+1, or a-1 at a mesh's
// far edge), on a link that runs towards the face, which no line uses.
//
// Why no link is shared: the a lines of route a lie on the line through the
// root (b and c as the root's); those of route c (where a comes second) on
// the lines with b as the root's and c not; those of route b (where a comes
// last) on the lines whose b differs from the root's. Every line of the
// machine along a belongs to one route, all of them run away from the root's
// face, and the only other a links used, route a's single hops, run towards
// it. The same holds in every dimension.
func (t Torus) BcastRoutes(root int) []BcastRoute {
	var dims []int
	for d := range 3 {
		if t.size(d) > 1 {
			dims = append(dims, d)
		}
	}
	routes := make([]BcastRoute, len(dims))
	for i := range dims {
		order := make([]int, len(dims))
		for j := range order {
			order[j] = dims[(i+j)%len(dims)]
		}
		routes[i] = t.bcastRoute(root, order)
	}
	return routes
}

// bcastRoute builds the route that spans the dimensions in order.
func (t Torus) bcastRoute(root int, order []int) BcastRoute {
	nodes := t.Nodes()
	var rc [3]int
	rc[0], rc[1], rc[2] = t.NodeCoord(root)
	r := BcastRoute{Order: order, start: make([]int32, nodes+1)}
	a := order[0]
	for v := range nodes {
		r.start[v] = int32(len(r.lines))
		var c [3]int
		c[0], c[1], c[2] = t.NodeCoord(v)
		if v == root {
			r.lines = t.awayLines(r.lines, v, a)
			continue
		}
		if c[a] == rc[a] {
			continue // on the root's face: reached by a single hop
		}
		// Off the face: the node is reached by the lines of order[j], the
		// last dimension in which it differs from the root (j = 0: the
		// root's own line), and sends lines along the dimensions after j.
		j := 0
		for i, d := range order[1:] {
			if c[d] != rc[d] {
				j = i + 1
			}
		}
		for _, d := range order[j+1:] {
			r.lines = t.awayLines(r.lines, v, d)
		}
		// The single hop to the neighbour on the root's face.
		if t.faceSource(c[a], rc[a], a) {
			dir := DirOf(a, rc[a]-c[a])
			if !t.Mesh {
				dir = DirOf(a, -1)
			}
			f := c
			f[a] = rc[a]
			if t.NodeIndex(f[0], f[1], f[2]) != root {
				r.lines = append(r.lines, Line{From: int32(v), Dir: dir, Hops: 1})
			}
		}
	}
	r.start[nodes] = int32(len(r.lines))
	return r
}

// faceSource reports whether a node at coordinate ca along dimension a feeds
// its neighbour on the root's face (coordinate ra) with a single hop: the
// next one up, or the next one down at a mesh's far edge.
func (t Torus) faceSource(ca, ra, a int) bool {
	n := t.size(a)
	if ra+1 < n {
		return ca == ra+1
	}
	if t.Mesh {
		return ca == ra-1
	}
	return ca == 0 // a torus wraps round: ra+1 is 0
}

// awayLines appends the deposit lines that cover the rest of node's line
// along dim, running away from it: once round a torus ring, or to both edges
// of a mesh.
func (t Torus) awayLines(lines []Line, node, dim int) []Line {
	plus, minus := DirOf(dim, 1), DirOf(dim, -1)
	if h := t.LineHops(node, plus); h > 0 {
		lines = append(lines, Line{From: int32(node), Dir: plus, Hops: int32(h)})
	}
	if t.Mesh {
		if h := t.LineHops(node, minus); h > 0 {
			lines = append(lines, Line{From: int32(node), Dir: minus, Hops: int32(h)})
		}
	}
	return lines
}
