package msglayer

import "github.com/bglua/bglua/hw"

// A packet stream sends packets one hop at a time: the caller makes every
// hop an engine event at the node the packet's head has reached, and the
// layer reserves the next link there (hw.Network.Send of one hop), so the
// links serve packets in the order they come and busy ones delay them. The
// packets go adaptively (at every node, among the links that bring the head
// closer, the one free soonest) or in BG/L's dimension order; where the
// destination is exactly half a ring away either way is minimal, and the
// packet takes one or the other by its hint bits (Flip), so that both
// directions of a ring share that traffic. The network counts each packet
// once, at its first link. (mpi's optimized alltoall writes its packets this
// way: [ML] Fig. 6.)

// StreamPacket is one packet of a stream on its way: where its head is,
// where it goes and what it has crossed.
type StreamPacket struct {
	Node, To int32 // where the head is, where it goes
	Hops     int16 // links crossed
	PrevDim  int8  // the dimension of the last link (-1: none yet)
	Flip     uint8 // hint bits: bit d, half a ring away along d, go the - way
	Wire     int32 // bytes on the wire
	Label    int32 // for link accounting (Message.Label)
}

// NewStreamPacket is a packet of payload bytes from node from to node to,
// its head at the source, with hint bits flip.
func (l *Layer) NewStreamPacket(from, to int, payload int, flip uint8) StreamPacket {
	return StreamPacket{Node: int32(from), To: int32(to), PrevDim: -1, Flip: flip, Wire: int32(l.M.PacketBytes(payload))}
}

// StreamWrite has rank's CPU write one packet of a stream from t, first
// setting the stream up if it is the first packet to its destination
// (MLSendCycles), and returns when the CPU is done.
func (l *Layer) StreamWrite(rank int, t Time, first bool) Time {
	work := l.M.PacketWriteWork()
	if first {
		work += l.M.MLSendCycles
	}
	return l.CPU(rank).Run(t, work)
}

// StreamRead has rank's CPU read one packet of payload bytes from now on
// and returns when it is done.
func (l *Layer) StreamRead(rank int, now Time, payload int) Time {
	return l.CPU(rank).Run(now, l.M.PacketReadWork(payload))
}

// StreamHop has p's head, at p.Node at now, take its next link, adaptively
// routed if adaptive. It returns when the head entered the link (on the
// first hop: when the packet left its injection FIFO), and either arrived
// with the tail's arrival at the destination in next, or when the head
// reaches the next node, where StreamHop is to be called again.
func (l *Layer) StreamHop(p *StreamPacket, now Time, adaptive bool) (entered, next Time, arrived bool) {
	net := l.net
	tor := net.Torus
	var dir hw.Dir
	if adaptive {
		dir = adaptiveHop(net, int(p.Node), int(p.To), now, uint(p.Flip)+uint(p.Hops))
	} else {
		dir = nextHop(tor, int(p.Node), int(p.To), p.Flip)
	}
	net.Label = p.Label
	entered, tail := net.Send([]hw.Hop{{Node: p.Node, Dir: dir}}, now, int(p.Wire))
	net.Label = 0
	if p.Hops > 0 {
		// One packet, counted at its first link.
		net.Packets--
		net.WireBytes -= int64(p.Wire) + int64(l.M.WireOverhead)
	}
	p.Hops++
	p.Node = int32(tor.Neighbor(int(p.Node), dir))
	if p.Node == p.To {
		return entered, tail, true
	}
	next = entered + l.M.HopCycles
	if d := dir.Dim(); int(p.PrevDim) >= 0 && d != int(p.PrevDim) {
		next += l.M.CornerTurnCycles
	}
	p.PrevDim = int8(dir.Dim())
	return entered, next, false
}

// adaptiveHop is the link a packet at node a for node b takes next with
// minimal adaptive routing: among the directions that bring it closer
// (both ways round where b is half a ring away), the one whose link is free
// soonest from now; equal ones by turns (k).
func adaptiveHop(n *hw.Network, a, b int, now Time, k uint) hw.Dir {
	t := n.Torus
	var from, to [3]int
	from[0], from[1], from[2] = t.NodeCoord(a)
	to[0], to[1], to[2] = t.NodeCoord(b)
	size := [3]int{t.X, t.Y, t.Z}
	var cand [hw.NumDirs]hw.Dir
	nc := 0
	best := Time(1<<63 - 1)
	consider := func(d hw.Dir) {
		f := max(n.LinkFree(a, d), now)
		switch {
		case f < best:
			best, nc = f, 0
			fallthrough
		case f == best:
			cand[nc] = d
			nc++
		}
	}
	for dim := range 3 {
		delta := t.Delta(dim, from[dim], to[dim])
		if delta == 0 {
			continue
		}
		consider(hw.DirOf(dim, delta))
		if !t.Mesh && 2*delta == size[dim] {
			consider(hw.DirOf(dim, -delta))
		}
	}
	return cand[k%uint(nc)]
}

// nextHop is the link a packet at node a for node b takes next: along the
// first dimension it still has to cross, x then y then z (BG/L's
// deterministic routing), the shorter way round; where b is exactly half a
// ring away, the + way when bit d of flip is 0 and the - way when it is 1
// (after that first hop the rest of the way is shorter one way).
func nextHop(t hw.Torus, a, b int, flip uint8) hw.Dir {
	var from, to [3]int
	from[0], from[1], from[2] = t.NodeCoord(a)
	to[0], to[1], to[2] = t.NodeCoord(b)
	size := [3]int{t.X, t.Y, t.Z}
	for dim := range 3 {
		delta := t.Delta(dim, from[dim], to[dim])
		if delta == 0 {
			continue
		}
		if !t.Mesh && 2*delta == size[dim] && flip>>dim&1 == 1 {
			delta = -delta
		}
		return hw.DirOf(dim, delta)
	}
	panic("msglayer: nextHop from a node to itself")
}
