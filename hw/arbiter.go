package hw

import (
	"fmt"
	"math/bits"
)

// Links taken hop by hop. Send, SendTrain and the walks of Inject reserve a
// whole route when a packet is injected, in injection order: a packet
// injected later whose head would reach a shared link sooner still goes
// after, and waits with its whole route behind a busy link (a convoy). A
// Head instead takes each link of its route when its head gets there, as on
// the machine: the caller (the message layer, which owns the events) keeps
// it moving with four calls, each made at a virtual time in event order:
//
//   - Launch sets the head up at its source, ready to enter its first link.
//   - Choose picks the link the head waits for at the node it is at:
//     deterministic routing's next dimension, or adaptive routing's
//     productive link free soonest. Decided says whether that choice can be
//     made before the head gets to the node (deterministic routing, or one
//     dimension left), so that no event is needed for it.
//   - Enqueue puts the head in that link's arbiter and says when the link
//     must arbitrate next.
//   - Grant runs a link's arbiter at a cycle: if the link is free, it takes,
//     among the heads that have reached it by then, the next in round-robin
//     order of the ports they came in by (the six incoming links, the
//     injection FIFOs of the node's CPUs), holds the link for the head's
//     serialization time and moves the head to the next node, one
//     HopCycles later (virtual cut-through: the head goes on while its
//     tail still crosses the link).
//
// Exactness: a link arbitrates at a cycle s only after every head that
// reaches it by s has been enqueued. Heads reach a link HopCycles after
// being granted the one before (so they are known a hop ahead, in time
// order of the grants), or after their CPU wrote them (known when written);
// the caller runs arbitrations after the arrivals of the same cycle. Ties
// are broken by the round-robin pointer, then by arrival, then (heads of
// one injection FIFO) by the order their CPU wrote them, so a run gives the
// same times whatever order other events of the same cycle run in: in one
// partition or in blocks alike.

// Ports of a link's arbiter: a head comes in over one of the six links,
// in one of its channels (port = numChannels times the direction it
// travels, as it left the node before, plus the channel: dynamic, escape,
// high priority; with unbounded buffers a link has one channel, 0) or
// from an injection FIFO of CPU slot s of the node (PortInject + s).
const (
	numChannels = 3
	PortInject  = NumDirs * numChannels
	numPorts    = PortInject + 2
)

// A Head is a packet, or a train of packets sent back to back that the
// links take as one, on its way through the torus one link at a time.
type Head struct {
	// Left is when the head entered its first link (set by the first
	// Grant); First and Last are when the first and the last packet reach
	// the destination's reception FIFO (set by the last Grant).
	Left, First, Last int64
	// At is when the head reaches the link it waits for (after Choose),
	// or the node it is at (before).
	At int64
	// Key breaks adaptive routing's ties between equally good links; the
	// caller makes it from what the packets carry.
	Key uint64
	// Ref is the caller's (the arbiter keeps it and never looks at it).
	Ref any
	// Priority marks a control packet: it travels on the high-priority
	// channel and takes no place in the routers' buffers (set after
	// Launch).
	Priority bool
	// Label is the label of the head's traffic for link accounting
	// (linkuse.go; set after Launch).
	Label int32

	node     int32 // where the head is
	dest     int32
	delta    [3]int32 // signed hops still to go
	hops     int32
	prevDim  int8
	dir      int8 // the link it waits for leaves node by this direction
	port     int8
	adaptive bool
	started  bool  // granted its first link
	cls      int8  // the buffer class its place is in (classDynamic, classEscape, classRx+slot)
	reader   int8  // the reading CPU's slot at the destination (-1: takes no reception room)
	pk       int32 // the reception places it takes (SetReader)
	size     int32 // the router places it takes: its packets, at most a train's (trainPlaces)
	in       int32 // the link at whose far end it holds a buffer place (-1: none)
	freed    int32 // the link whose places it left at its last grant (-1: none)
	freedCls int8
	freedAt  int64 // when the link behind learns of it
	occupy   int64
	first    int64
	wire     int64 // bytes on the wire (with link accounting on)
	next     *Head // in its port's queue at a link
	prev     *Head
}

// SetReader makes h a train of data for the reception FIFOs of the CPU in
// slot slot of its destination (set after Launch): its last link takes it
// only when they have room for places packets (Machine.ReceptionLinkFIFO;
// its packets, or fewer for a train that stands for several batches), or
// for a train that needs more places than they hold, when they are
// empty. Without it (control packets, traffic of the layers above that
// model their own reception) a head takes no reception room.
func (h *Head) SetReader(slot int, places int) {
	h.reader, h.pk = int8(min(max(slot, 0), 1)), int32(max(places, 1))
}

// Reception is, once h is Done, the link whose far end's reception FIFOs
// hold its packets and their class (ok false: it took no reception room).
// The caller gives the places back one packet at a time as the CPU reads
// them (Release or Pend), a hop after: the link's node learns of the room
// by token, as of a router's.
func (h *Head) Reception() (link int, class int8, ok bool) {
	return int(h.in), h.cls, h.in >= 0 && h.cls >= classRx
}

// Node is the node the head is at (its destination once Done).
func (h *Head) Node() int { return int(h.node) }

// Dest is the node the head goes to.
func (h *Head) Dest() int { return int(h.dest) }

// Done reports whether the head has crossed its last link (or had none):
// First and Last are known.
func (h *Head) Done() bool { return h.hops == 0 }

// Link is the link the head waits for (after Choose).
func (h *Head) Link() int { return int(h.node)*NumDirs + int(h.dir) }

// Decided reports whether the head's next link is known before the head
// reaches its node: deterministic routing, or a single dimension left.
func (h *Head) Decided() bool {
	if !h.adaptive {
		return true
	}
	n := 0
	for _, d := range h.delta {
		if d != 0 {
			n++
		}
	}
	return n <= 1
}

// Launch sets h up for count packets sent back to back, all of payload
// size full but the last (last bytes), from node a to node c, routed
// adaptively or deterministically, the head ready to enter its first link
// at t, written by the injection FIFO of CPU slot (port PortInject+slot).
// It counts the packets. When a == c there is no link to cross: h is Done
// at once, its arrivals known.
func (n *Network) Launch(h *Head, a, c int, t int64, count, full, last int, adaptive bool, slot int, key uint64) {
	m := n.M
	if n.views != nil && n.blocks.Of(a) != n.block {
		n.wrongBlock(a)
	}
	first, serLast, occupy := n.train(count, full, last)
	// Set in place, field by field: a composite literal would be built on
	// the stack first, and this runs on a rank's stack under its Lua
	// interpreter and the layers above, within the 4 KiB it starts with.
	ref := h.Ref
	*h = Head{}
	h.Left, h.At, h.Key, h.Ref = t, t, key, ref
	h.node, h.dest, h.prevDim, h.port = int32(a), int32(c), -1, int8(PortInject+min(max(slot, 0), 1))
	h.adaptive, h.occupy, h.first, h.in, h.freed = adaptive, occupy, first, -1, -1
	h.reader, h.size = -1, min(int32(max(count, 1)), n.trainPlaces())
	if a == c {
		h.First, h.Last = t+m.NetworkCycles, t+occupy-serLast+m.NetworkCycles
		return
	}
	if n.counting {
		h.wire = n.wireOf(count, full, last)
	}
	h.delta, h.hops = n.offsets(a, c)
}

// Hint sets h's hint bits (right after Launch): along each dimension d of
// a torus where h's destination is exactly half the ring away, both ways
// are minimal, and h goes the - way if bit d of flip is set, the + way
// otherwise (Launch's choice). As on BG/L, where the packet header's hint
// bits fix the direction along each dimension at injection, adaptive
// routing then chooses among the dimensions only.
func (n *Network) Hint(h *Head, flip uint8) {
	if n.Torus.Mesh || h.started {
		return
	}
	size := [3]int32{int32(n.Torus.X), int32(n.Torus.Y), int32(n.Torus.Z)}
	for d := range 3 {
		if flip>>d&1 == 1 && 2*h.delta[d] == size[d] {
			h.delta[d] = -h.delta[d]
		}
	}
}

// Choose picks the link h takes at its node, h.At being when the head
// reaches the node, and moves h.At on to when it reaches that link (a
// corner turn's cost when the dimension changes). Deterministic routing
// takes the first dimension still to cross; adaptive routing the
// productive link whose arbiter lets the head in soonest: the later of
// h.At and the link's busy time, plus the packets that reached it before
// h.At and still wait (the packets that reach it at h.At too are
// ignored, so that the choice does not depend on the order of events of
// one cycle); equal times are broken by a hash of the seed, the node and
// h.Key.
func (n *Network) Choose(h *Head) {
	node := int(h.node)
	dim := 0
	if h.adaptive {
		best, nc := int64(1<<63-1), 0
		var cand [3]int
		for d := range 3 {
			if h.delta[d] == 0 {
				continue
			}
			l := node*NumDirs + dirOf(d, h.delta[d])
			n.touch(l)
			f := max(n.links[l].free, h.At) + n.waiting(l, h.At)
			if f < best {
				best, nc = f, 0
			} else if f > best {
				continue
			}
			cand[nc] = d
			nc++
		}
		dim = cand[0]
		if nc > 1 {
			n.ties++
			dim = cand[tieHash(n.seed, uint64(node), h.Key)%uint64(nc)]
		}
	} else {
		for h.delta[dim] == 0 {
			dim++
		}
	}
	if h.prevDim >= 0 && int8(dim) != h.prevDim {
		h.At += n.M.CornerTurnCycles
	}
	h.dir = int8(dirOf(dim, h.delta[dim]))
	if !h.adaptive {
		n.touch(h.Link())
	}
}

// waiting is how long the heads that reached link l before t and still
// wait for it will hold it: all those waiting but the ones enqueued ahead
// of their arrival at t or later, which are at the tail of their port's
// queue.
func (n *Network) waiting(l int, t int64) int64 {
	a := &n.links[l].arb
	w := a.occ
	for i := range a.q {
		for h := a.q[i].tail; h != nil && h.At >= t; h = h.prev {
			w -= h.occupy
		}
	}
	return w
}

// tieHash is splitmix64 of the seed, a node and a key: adaptive routing's
// choice between equally good links.
func tieHash(seed int64, node, key uint64) uint64 {
	z := uint64(seed) + 0x9e3779b97f4a7c15 + node*0xd1b54a32d192ed03 + key*0xbf58476d1ce4e5b9
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Enqueue puts h (Chosen) in the arbiter of its link and returns when that
// link must arbitrate (a Grant) for h: when h reaches it, or when the link
// is free, whichever is later.
func (n *Network) Enqueue(h *Head) int64 {
	l := h.Link()
	n.touch(l)
	if !n.armed {
		n.initArbiters()
	}
	lk := &n.links[l]
	lk.arb.push(h)
	return max(h.At, lk.free)
}

// wrongBlock panics: a view of block n.block launched at node a.
//
//go:noinline
func (n *Network) wrongBlock(a int) {
	panic(fmt.Sprintf("hw: block %d launches a packet at node %d of block %d", n.block, a, n.blocks.Of(a)))
}

// Buffer classes: where a train waits at a node (Machine.DynamicBuffer,
// EscapeBuffer), or where its packets wait for their CPU at its
// destination: the reception FIFOs at a link's far end of the CPU in slot
// s, classRx+s (Machine.ReceptionLinkFIFO). Every class counts packets.
const (
	classDynamic = 0
	classEscape  = 1
	classRx      = 2
	numClasses   = 4
)

// initArbiters readies the links' buffer room from the machine's limits
// (for every block's view: a link's is only touched by its node's block).
func (n *Network) initArbiters() {
	n.armed = true
	if n.M.DynamicBuffer > 0 || n.M.EscapeBuffer > 0 || n.M.ReceptionFIFO > 0 {
		n.bounded = true
		rx := places(n.M.ReceptionLinkFIFO())
		n.full = [numClasses]int32{places(n.M.DynamicBuffer), places(n.M.EscapeBuffer), rx, rx}
		for i := range n.links {
			n.links[i].room = n.full
		}
	}
	for _, v := range n.views {
		v.armed, v.bounded, v.full = n.armed, n.bounded, n.full
	}
}

// places is a class's room at a link's far end: the machine's limit, or
// more than traffic can take when it has none (0).
func places(limit int) int32 {
	if limit == 0 {
		return 1 << 30
	}
	return int32(limit)
}

// admit says whether link l may take h now, room being free at its far end,
// and in which class h then waits there (-1: it takes no place).
func (n *Network) admit(l int, h *Head) (int8, bool) {
	if !n.bounded || h.Priority {
		return -1, true
	}
	r := &n.links[l].room
	if h.hops == 1 {
		// Into the destination's reception FIFOs: room for the train's
		// packets, or, for a train longer than they hold (a coarse
		// --grain), all of it.
		if h.reader < 0 {
			return -1, true
		}
		c := classRx + h.reader
		return c, r[c] >= min(h.pk, n.full[c])
	}
	p := h.size
	if h.adaptive && r[classDynamic] >= p {
		return classDynamic, true
	}
	if h.adaptive && h.dir != h.dorDir() {
		return -1, false
	}
	// The escape channel: continuing along a ring needs room for the
	// train, entering it room for the train and a train more (the bubble
	// rule).
	need := p + n.trainPlaces()
	if h.in >= 0 && h.cls == classEscape && h.prevDim == h.dir/2 {
		need = p
	}
	return classEscape, r[classEscape] >= need
}

// trainPlaces is the most router places a train takes: an injection FIFO's
// packets (a train of a coarse --grain stands for several batches and
// takes the places of one).
func (n *Network) trainPlaces() int32 { return int32(max(n.M.InjectionFIFO, 1)) }

// dorDir is the direction dimension-ordered routing takes h next.
func (h *Head) dorDir() int8 {
	dim := 0
	for h.delta[dim] == 0 {
		dim++
	}
	return int8(dirOf(dim, h.delta[dim]))
}

// Release gives back, at cycle now, k places in the buffers at the far end
// of link l (those that a head held, as Released told after the head's
// grant). It reports whether the link must arbitrate now: a head waits
// for room.
func (n *Network) Release(l int, class int8, k int32) bool {
	n.touch(l)
	lk := &n.links[l]
	lk.room[class] += k
	return lk.arb.starved
}

// Pend is Release told ahead of time, by the partition link l belongs to:
// the place comes back at cycle at, which Grant counts from then on. It
// reports whether the link must arbitrate at that cycle: a head waits for
// room now (the link's next arbitration otherwise sees the place).
func (n *Network) Pend(l int, class int8, at int64) bool { return n.PendSpan(l, class, 1, at, at) }

// PendSpan is Pend for k places of class that come back evenly from cycle
// from to cycle to: the first at from, the last at to, place i at from +
// ceil(i (to-from) / (k-1)), as the packets of a chunk are read. It reports
// whether the link must arbitrate at from.
func (n *Network) PendSpan(l int, class int8, k int32, from, to int64) bool {
	n.touch(l)
	lk := &n.links[l]
	lk.pend = append(lk.pend, pending{from: from, to: max(to, from), k: k, class: class})
	return lk.arb.starved
}

// A span of places coming back to a link's far end (PendSpan).
type pending struct {
	from, to int64
	k, given int32 // given: how many are back already
	class    int8
}

// back is how many of p's places are back by now.
func (p *pending) back(now int64) int32 {
	switch {
	case now >= p.to:
		return p.k
	case now < p.from:
		return 0
	case p.k == 1:
		return 1
	}
	return 1 + int32(int64(p.k-1)*(now-p.from)/(p.to-p.from))
}

// next is when p's next place comes back.
func (p *pending) next() int64 {
	if p.given == 0 || p.k <= 1 {
		return p.from
	}
	d := (p.to - p.from) * int64(p.given)
	return p.from + (d+int64(p.k-2))/int64(p.k-1)
}

// mature counts the places pending for link l that are back by now, and
// returns when the next one comes back (-1: none pending). A link has a
// few spans pending at most.
func (n *Network) mature(l int, now int64) int64 {
	lk := &n.links[l]
	p := lk.pend
	keep, soonest := 0, int64(-1)
	for i := range p {
		s := &p[i]
		if b := s.back(now); b > s.given {
			lk.room[s.class] += b - s.given
			s.given = b
		}
		if s.given < s.k {
			if t := s.next(); soonest < 0 || t < soonest {
				soonest = t
			}
			p[keep] = *s
			keep++
		}
	}
	if keep < len(p) {
		lk.pend = p[:keep]
	}
	return soonest
}

// step is the node one link from node along dimension dim, step +1 or
// -1, wrapping round a ring: Torus.Neighbor by the coordinate table, without
// its divisions (a link of a minimal route, which exists on a mesh too).
func (n *Network) step(node, dim int, step int32) int {
	t := &n.Torus
	size, stride := t.X, 1
	switch dim {
	case 1:
		size, stride = t.Y, t.X
	case 2:
		size, stride = t.Z, t.X*t.Y
	}
	c := int(n.coord[node][dim]) + int(step)
	switch {
	case c == size:
		return node - (size-1)*stride
	case c < 0:
		return node + (size-1)*stride
	}
	return node + int(step)*stride
}

// Released is the places h left when it was last granted a link: the link
// whose far end held them, their class, how many, and when the caller
// gives them back with Release: once h's tail has left and the news has
// crossed back to the link's node, HopCycles later (ok false: none).
func (h *Head) Released() (link int, class int8, k int32, at int64, ok bool) {
	return int(h.freed), h.freedCls, h.size, h.freedAt, h.freed >= 0
}

// Rerouted lists the heads the last Grant moved to another link (and
// forgets them): adaptively routed heads that found no room at the far end
// of the link they had chosen, moved to their dimension-ordered link,
// where the escape channel is open to them. Each reaches its new link a
// cycle later; the caller has that link arbitrate then (Due).
func (n *Network) Rerouted() []*Head {
	r := n.rerouted
	n.rerouted = n.rerouted[:0]
	return r
}

// Due is when the arbiter h waits in must next arbitrate for it.
func (n *Network) Due(h *Head) int64 {
	n.touch(h.Link())
	return max(h.At, n.links[h.Link()].free)
}

// Grant runs link l's arbiter at cycle now. If the link is free and a head
// has reached it and has room at the link's far end, it takes the first
// such head in round-robin order of the ports from the one after the port
// it last took from (among heads of one port, the earliest to arrive, then
// the first enqueued; a port whose first head has no room waits behind
// it), holds the link for the head's trains and moves the head one hop on:
// to the next node, which it reaches HopCycles later (h.At), or to its
// destination (Done, First and Last known). It returns the head taken (nil
// if none) and when the link must arbitrate next (-1: nobody waits, or
// those who wait wait for room, and Release will say when).
func (n *Network) Grant(l int, now int64) (*Head, int64) {
	n.touch(l)
	lk := &n.links[l]
	a := &lk.arb
	if a.empty() {
		// (Then it is not starved either: only a Grant takes a head out,
		// and it clears starved first.)
		return nil, -1
	}
	if f := lk.free; f > now {
		return nil, f
	}
	// Round robin while heads compete; after an idle spell (the link free
	// before now: nobody had reached it) the arbiter starts again from
	// port 0, so that what ran before the spell does not change what comes
	// after it.
	rr := int(a.rr)
	if lk.free < now && !a.starved {
		rr = 0
	}
	a.starved = false
	back := n.mature(l, now)
	port := -1
	class := int8(-1)
	soonest := int64(-1)
	// (Only the ports with heads: most links have one or two of twenty.
	// Heads leave this arbiter in the loop, none come.)
	for ord := a.order(rr); ord != 0; ord &= ord - 1 {
		p := (rr + bits.TrailingZeros32(ord)) % numPorts
		h := a.first(p)
		for h != nil && h.At <= now {
			c, ok := n.admit(l, h)
			if ok {
				port, class = p, c
				break
			}
			if !h.adaptive || h.dir == h.dorDir() {
				a.starved = true
				h = nil
				break
			}
			// No dynamic room on the link h chose: it turns to its
			// dimension-ordered link, and the port's next head comes up.
			a.pop(p)
			h.dir = h.dorDir()
			h.At = now + 1
			if h.prevDim >= 0 && h.dir/2 != h.prevDim {
				h.At += n.M.CornerTurnCycles
			}
			n.Enqueue(h)
			n.rerouted = append(n.rerouted, h)
			h = a.first(p)
		}
		if port >= 0 {
			break
		}
		if h != nil && h.At > now && (soonest < 0 || h.At < soonest) {
			soonest = h.At
		}
	}
	if port < 0 {
		if a.starved && back >= 0 && (soonest < 0 || back < soonest) {
			soonest = back
		}
		return nil, soonest
	}
	best := a.pop(port)
	a.rr = uint8((port + 1) % numPorts)
	h := best
	lk.free = now + h.occupy
	n.LinkBusy += h.occupy
	if n.counting {
		n.count(l, h.occupy, h.wire, h.Label)
	}
	if !h.started {
		h.started = true
		h.Left = now
	}
	// The place h held at this node frees as its tail leaves; it takes one
	// at the next.
	h.freed, h.freedCls, h.freedAt = h.in, h.cls, now+h.occupy+n.M.HopCycles
	h.in, h.cls = -1, 0
	if class >= classRx {
		lk.room[class] -= h.pk
		h.in, h.cls = int32(l), class
	} else if class >= 0 {
		lk.room[class] -= h.size
		h.in, h.cls = int32(l), class
	}
	// One hop on.
	dim := int(h.dir) / 2
	step := int32(1)
	if h.delta[dim] < 0 {
		step = -1
	}
	h.node = int32(n.step(int(h.node), dim, step))
	h.delta[dim] -= step
	h.hops--
	h.prevDim = int8(dim)
	h.port = h.dir * numChannels
	if n.bounded {
		switch {
		case h.Priority:
			h.port += 2
		case class >= 0 && class < classRx:
			h.port += class
		}
	}
	h.At = now + n.M.HopCycles
	if h.hops == 0 {
		h.First, h.Last = now+h.first+n.M.NetworkCycles, now+h.occupy+n.M.NetworkCycles
	}
	next := int64(-1)
	if !a.empty() {
		next = lk.free
	}
	return h, next
}
