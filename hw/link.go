package hw

import "math/bits"

// link is the state of one torus link, kept together so that taking a
// link touches one or two cache lines rather than one per table: when it
// is next free, its arbiter (the heads waiting for it), the room at its far
// end and the places coming back there, and its accounting (linkuse.go).
// The links are shared by the views of a network in blocks: a link's state
// is only touched by the block of the node it leaves.
type link struct {
	free        int64 // the cycle at which the link is next free
	arb         arbiter
	room        [numClasses]int32 // free places at its far end, per buffer class (when bounded)
	pend        []pending         // places coming back later (PendSpan)
	busy, bytes int64             // cycles held, bytes on the wire (when counting)
	labels      []LabelBytes      // bytes per label, in the order the labels came (when counting)
}

// arbiter is the heads waiting for one link: a queue per port, each in
// order of arrival, heads that arrive together in the order they were
// enqueued (most heads come last: a port's heads arrive in the order they
// were granted the link before). Only an injection FIFO's heads can arrive
// together, and its CPU wrote them one after another, in its program's
// order, in the partition of its node: a FIFO, as on the machine.
//
// Only the ports with heads have a queue (q, in port order; ports has
// their bits): most links have heads from one or two of their twenty
// ports, and a queue for each would take 320 bytes a link.
type arbiter struct {
	q       []portQueue
	occ     int64  // how long they will hold the link
	ports   uint32 // bit p: port p's queue is not empty
	rr      uint8  // the port looked at first (a multiple of numChannels after an idle spell)
	starved bool   // a head that has reached the link waits for room at its far end
	watch   uint16 // the link's watcher (lease.go; 0: none), in what would be padding
}

// portQueue is the heads waiting at one port, first to last (its port is
// known from its place: at).
type portQueue struct {
	head, tail *Head
}

// The ports of an arbiter are bits of a uint32.
var _ [32 - numPorts]struct{}

// at is the place of port p's queue in a.q, if p has one.
func (a *arbiter) at(p int) int { return bits.OnesCount32(a.ports & (1<<p - 1)) }

// first is the first head of port p's queue (nil: none).
func (a *arbiter) first(p int) *Head {
	if a.ports&(1<<p) == 0 {
		return nil
	}
	return a.q[a.at(p)].head
}

func (a *arbiter) push(h *Head) {
	p := int(h.port)
	a.occ += h.occupy
	i := a.at(p)
	if a.ports&(1<<p) == 0 {
		// Most often the last (and only) queue: a copy of nothing would
		// still cost a call (portQueue holds pointers).
		a.q = append(a.q, portQueue{})
		if i < len(a.q)-1 {
			copy(a.q[i+1:], a.q[i:])
			a.q[i] = portQueue{}
		}
		a.ports |= 1 << p
	}
	pq := &a.q[i]
	after := pq.tail
	for after != nil && h.At < after.At {
		after = after.prev
	}
	h.prev = after
	if after == nil {
		h.next = pq.head
		pq.head = h
	} else {
		h.next = after.next
		after.next = h
	}
	if h.next == nil {
		pq.tail = h
	} else {
		h.next.prev = h
	}
}

// pop takes the first head of port p's queue.
func (a *arbiter) pop(p int) *Head {
	i := a.at(p)
	pq := &a.q[i]
	h := pq.head
	pq.head = h.next
	if h.next == nil {
		if i < len(a.q)-1 {
			copy(a.q[i:], a.q[i+1:])
		}
		a.q = a.q[:len(a.q)-1]
		a.q[len(a.q):cap(a.q)][0] = portQueue{} // drop the pointers of the slot let go
		a.ports &^= 1 << p
	} else {
		h.next.prev = nil
	}
	h.next, h.prev = nil, nil
	a.occ -= h.occupy
	return h
}

// empty reports whether no head waits.
func (a *arbiter) empty() bool { return a.ports == 0 }

// order is the ports with heads, in round-robin order from port rr: the
// bit set i of the result (from the lowest) is port (rr + i) mod numPorts.
func (a *arbiter) order(rr int) uint32 {
	return a.ports>>rr | (a.ports&(1<<rr-1))<<(numPorts-rr)
}
