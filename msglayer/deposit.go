package msglayer

import "github.com/bglua/bglua/hw"

// Deposit-bit line multicast ([ML]; hw/deposit.go): a packet written once
// along a line of the torus leaves a copy at every node it passes. Two
// primitives use it: DepositAM, an active message along one dimension
// (ml.deposit), and Multicast, the pipelined broadcast over edge-disjoint
// routes of lines (mpi's bcast torus).

// DepositArrival is a deposit-bit packet (or train) reaching one node of its line.
type DepositArrival = hw.Arrival

// RankAt is the rank in slot t of node, if one runs there.
func (l *Layer) RankAt(node, t int) (int, bool) {
	x, y, z := l.Map.Torus.NodeCoord(node)
	return l.Map.RankOf(hw.Coord{X: x, Y: y, Z: z, T: t})
}

// DepositAM sends an active message of size bytes (and its AMHeader) from
// rank me at now along torus dimension dim (0, 1, 2) in direction dir (+1 or
// -1) with the deposit bit: one injection, and every node the packets pass
// keeps a copy, delivered (AM, payload) to its rank in me's slot when that
// rank's CPU has read it in. On a torus the line goes round the ring and
// stops before the sender; on a mesh it runs to the edge. It charges the
// sender's CPU the send and returns how many ranks the line reaches, and
// whether it sent anything (not when the line is empty: it then charges
// nothing).
//
// In partitions the train is carried through the blocks of the line
// (CarryDeposit); each block's copies are made in its own partition.
func (l *Layer) DepositAM(me int, now Time, dim, dir int, size int, payload any) (reached int, sent bool) {
	mp := l.Map
	d := hw.DirOf(dim, dir)
	src := mp.Node(me)
	line := hw.Line{From: int32(src), Dir: d, Hops: int32(mp.Torus.LineHops(src, d))}
	if line.Hops == 0 {
		return 0, false
	}
	dep := &amDeposit{me: me, slot: mp.Coord(me).T, size: size, header: AMHeader, total: size + AMHeader, payload: payload,
		proto: OnePacket}
	if l.M.Packets(dep.total) > 1 {
		dep.proto = Eager
	}
	v := l.on(src) // the sender's partition's counts
	v.Messages++
	v.AMs++
	cpu := l.CPU(me)
	t := cpu.Run(now, l.M.MLSendCycles)
	t, count, full, last := l.M.DepositWrite(cpu, t, dep.total)
	left := l.CarryDeposit(line, t, count, full, last, dep)
	l.M.DepositWritten(cpu, t, left, count, full)
	for node, k := src, 0; k < int(line.Hops); k++ { // known here, whichever block they are in
		node = mp.Torus.Neighbor(node, d)
		if _, ok := l.RankAt(node, dep.slot); ok {
			reached++
		}
	}
	return reached, true
}

// amDeposit is one DepositAM message: the copies it leaves at the nodes of
// its line, in the partition of each.
type amDeposit struct {
	me, slot            int
	size, header, total int
	payload             any
	proto               Protocol
}

func (d *amDeposit) Deposited(l *Layer, arr []hw.Arrival) {
	for _, a := range arr {
		dst, ok := l.RankAt(int(a.Node), d.slot)
		if !ok {
			continue // no rank of the job in that slot: the copy is dropped
		}
		m := &Message{
			Src: d.me, Dst: dst, Bytes: d.size, Header: d.header, Protocol: d.proto,
			To: AM{L: l}, Payload: d.payload, From: d.me,
		}
		l.Eng.At(a.First, &depositCopy{l: l, m: m, a: a, total: d.total})
	}
}

// depositCopy is a deposit-bit message reaching one node of its line: the
// node's CPU reads it in, then it waits in the rank's inbox for an advance.
type depositCopy struct {
	l     *Layer
	m     *Message
	a     hw.Arrival
	total int
}

func (d *depositCopy) Act(now Time) {
	done := d.l.M.DepositReceive(d.l.CPU(d.m.Dst), d.a, d.total)
	AM{L: d.l}.Complete(d.m, done)
}

// Multicast is a deposit-bit broadcast from one node in progress, after van
// de Geijn's pipelined mesh broadcast ([ML] Fig. 3): packets dealt round
// robin to the routes of hw.Torus.BcastRoutes, three on a 3D partition, no
// two of which share a link; every node a packet of a route reaches writes
// it again along the lines the route has it send, no more than
// InjectionFIFO packets ahead of the links. Each line reserves its links on
// the network when it is written, so the broadcast contends with other
// traffic. It runs in a layer of one partition.
type Multicast struct {
	// Label is the label of the broadcast's traffic for link accounting
	// (Message.Label).
	Label  int32
	l      *Layer
	routes []hw.BcastRoute
	nodes  []mcNode
	route  []hw.Hop
	arr    []hw.Arrival
}

// mcNode is one node's injection FIFO.
type mcNode struct {
	writes int    // lines written so far
	fifo   []Time // when the last InjectionFIFO lines written left the FIFO
}

// NewMulticast starts a broadcast from node root over the first routes
// (at least one) of the partition's routes, of which there is one per
// dimension longer than one node: fewer routes, fewer streams of packets.
func (l *Layer) NewMulticast(root, routes int) *Multicast {
	rs := l.Map.Torus.BcastRoutes(root)
	return &Multicast{l: l, routes: rs[:min(max(1, routes), len(rs))], nodes: make([]mcNode, l.Map.Torus.Nodes())}
}

// Lines is how many lines node writes packet j along.
func (mc *Multicast) Lines(node, j int) int {
	return len(mc.routes[j%len(mc.routes)].Lines(node))
}

// Read has rank's CPU read a packet of payload bytes from now on (the
// advance loop's per-packet work, the FIFO read and the copy into the
// user's buffer) and returns when it is done.
func (mc *Multicast) Read(rank int, now Time, payload int) Time {
	return mc.l.readPacket(rank, now, payload)
}

// Write has rank's CPU, on node, write packet j (payload bytes) along line
// k of node's lines for it, no earlier than t and once node's injection
// FIFO has room. It returns when the CPU is done and the packet's arrivals
// at the nodes of the line (reused by the next Write).
func (mc *Multicast) Write(node, rank int, t Time, j, k, payload int) (Time, []DepositArrival) {
	m := mc.l.M
	n := &mc.nodes[node]
	if f := m.InjectionFIFO; f > 0 {
		if n.fifo == nil {
			n.fifo = make([]Time, f)
		}
		if n.writes >= f {
			t = max(t, n.fifo[n.writes%f])
		}
	}
	t = mc.l.CPU(rank).Run(t, m.PacketWriteWork())
	net := mc.l.net
	mc.route = net.Torus.LineRoute(mc.route[:0], mc.routes[j%len(mc.routes)].Lines(node)[k])
	b := m.PacketBytes(payload)
	net.Label = mc.Label
	left, arr := net.DepositTrain(mc.route, t, 1, b, b, mc.arr[:0])
	net.Label = 0
	mc.arr = arr
	if n.fifo != nil {
		n.fifo[n.writes%len(n.fifo)] = left
	}
	n.writes++
	return t, arr
}
