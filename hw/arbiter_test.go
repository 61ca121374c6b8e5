package hw

import "testing"

// A link's arbiter, stepped by hand on a ring of 8: heads from node 0 (in
// over the link from node 0, port XPlus) and heads injected at node 1 (port
// PortInject) compete for link 1 x+. After an idle spell the arbiter looks
// at port 0 first; while heads compete it goes round the ports, so a head
// that waited is not overtaken by a newcomer on the port just served.
func TestArbiterRoundRobin(t *testing.T) {
	m := BGL()
	m.DynamicBuffer, m.EscapeBuffer = 0, 0 // room at every node: arbitration alone
	n := NewNetwork(m, Torus{Dims: Dims{X: 8, Y: 1, Z: 1}})
	hop := m.HopCycles
	ser := m.SerializeCycles(256)
	enqueue := func(h *Head) int64 {
		n.Choose(h)
		return n.Enqueue(h)
	}
	// A: 0 -> 3, granted its first link at 0, at node 1 at hop.
	var a, b, c Head
	n.Launch(&a, 0, 3, 0, 1, 256, 256, false, 0, 1)
	if due := enqueue(&a); due != 0 {
		t.Fatalf("A's first link arbitrates at %d, want 0", due)
	}
	if h, next := n.Grant(a.Link(), 0); h != &a || next != -1 || a.Left != 0 || a.Node() != 1 || a.At != hop {
		t.Fatalf("first link: got %p (A %p), next %d; A left %d, at node %d at %d", h, &a, next, a.Left, a.Node(), a.At)
	}
	link := LinkIndex(1, XPlus)
	enqueue(&a)
	// B: injected at node 1 for node 2, ready at the same cycle A gets there.
	n.Launch(&b, 1, 2, hop, 1, 256, 256, false, 0, 2)
	enqueue(&b)
	// The link was idle: port 0 (A, in over x+) before the injection FIFO.
	if h, next := n.Grant(link, hop); h != &a || next != hop+ser {
		t.Fatalf("at %d: got %p (A %p, B %p), next %d; want A, then %d", hop, h, &a, &b, next, hop+ser)
	}
	// C: 0 -> 2 reaches link 1 x+ while B waits. The pointer is past port
	// 0 now: B, which waited, goes first.
	n.Launch(&c, 0, 2, ser, 1, 256, 256, false, 0, 3)
	enqueue(&c)
	n.Grant(c.Link(), ser)
	enqueue(&c)
	if c.At != ser+hop || c.Link() != link {
		t.Fatalf("C at link %d at %d, want link %d at %d", c.Link(), c.At, link, ser+hop)
	}
	if h, _ := n.Grant(link, hop+ser); h != &b || b.Left != hop+ser || !b.Done() || b.Last != hop+2*ser+m.NetworkCycles {
		t.Fatalf("at %d: got %p (B %p, C %p); B left %d, last %d", hop+ser, h, &b, &c, b.Left, b.Last)
	}
	if h, next := n.Grant(link, hop+2*ser); h != &c || next != -1 {
		t.Fatalf("at %d: got %p (C %p), next %d", hop+2*ser, h, &c, next)
	}
	// Nothing waits: the arbiter has nothing to do.
	if h, next := n.Grant(link, hop+3*ser); h != nil || next != -1 {
		t.Fatalf("idle link: got %p, next %d", h, next)
	}
}

// A head that has not reached the link yet is not taken, however early it
// was enqueued: the link arbitrates again when it gets there.
func TestArbiterWaitsForArrival(t *testing.T) {
	m := BGL()
	n := NewNetwork(m, Torus{Dims: Dims{X: 4, Y: 1, Z: 1}})
	var a Head
	n.Launch(&a, 0, 1, 500, 1, 64, 64, false, 0, 1)
	n.Choose(&a)
	if due := n.Enqueue(&a); due != 500 {
		t.Fatalf("due %d, want 500", due)
	}
	if h, next := n.Grant(a.Link(), 400); h != nil || next != 500 {
		t.Fatalf("at 400: got %p, next %d; want nothing until 500", h, next)
	}
	if h, _ := n.Grant(a.Link(), 500); h != &a || a.Left != 500 {
		t.Fatalf("at 500: got %p, left %d", h, a.Left)
	}
}
