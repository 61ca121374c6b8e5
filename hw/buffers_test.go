package hw

import (
	"container/heap"
	"fmt"
	"math/rand"
	"testing"
)

// headSim drives heads through a network as the message layer does, with
// an event queue of its own: heads reaching a node where their next link
// is chosen, links' arbitrations (after the other events of their cycle)
// and places given back.
type headSim struct {
	n     *Network
	q     simQueue
	seq   int64
	arbAt map[int]int64
	done  int
}

type simEvent struct {
	at, seq int64
	prio    int // 0: heads and places, 1: arbitrations
	kind    int // 0 head at node, 1 arbitrate, 2 release
	h       *Head
	link    int
	class   int8
	k       int32 // places released
}

type simQueue []simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	if q[i].prio != q[j].prio {
		return q[i].prio < q[j].prio
	}
	return q[i].seq < q[j].seq
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(simEvent)) }
func (q *simQueue) Pop() any {
	o := *q
	e := o[len(o)-1]
	*q = o[:len(o)-1]
	return e
}

func (s *headSim) push(e simEvent) {
	s.seq++
	e.seq = s.seq
	heap.Push(&s.q, e)
}

func (s *headSim) wantArb(link int, t int64, now int64) {
	t = max(t, now)
	if at, ok := s.arbAt[link]; ok && at <= t && at >= now {
		return
	}
	s.arbAt[link] = t
	s.push(simEvent{at: t, prio: 1, kind: 1, link: link})
}

func (s *headSim) ahead(h *Head, now int64) {
	if h.Done() {
		s.done++
		return
	}
	if h.Decided() {
		s.n.Choose(h)
		s.wantArb(h.Link(), s.n.Enqueue(h), now)
		return
	}
	s.push(simEvent{at: h.At, kind: 0, h: h})
}

// run runs until no event is left and returns the last cycle.
func (s *headSim) run() int64 {
	var now int64
	for s.q.Len() > 0 {
		e := heap.Pop(&s.q).(simEvent)
		now = e.at
		switch e.kind {
		case 0:
			s.n.Choose(e.h)
			s.wantArb(e.h.Link(), s.n.Enqueue(e.h), now)
		case 1:
			if s.arbAt[e.link] != now {
				continue
			}
			delete(s.arbAt, e.link)
			h, next := s.n.Grant(e.link, now)
			if next >= 0 {
				s.wantArb(e.link, next, now)
			}
			for _, r := range s.n.Rerouted() {
				s.wantArb(r.Link(), s.n.Due(r), now)
			}
			if h != nil {
				if l, c, k, at, ok := h.Released(); ok {
					s.push(simEvent{at: at, kind: 2, link: l, class: c, k: k})
				}
				s.ahead(h, now)
			}
		case 2:
			if s.n.Release(e.link, e.class, e.k) {
				s.wantArb(e.link, now, now)
			}
		}
	}
	return now
}

// Under heavy random traffic (every node sending trains to random nodes at
// once, adaptive and deterministic mixed) on small tori with the smallest
// buffers, every head gets through: the bubble rule and the turn to the
// dimension-ordered link keep the network free of deadlock, and every
// place taken is given back.
func TestBuffersNoDeadlock(t *testing.T) {
	for _, tc := range []struct {
		dims     Dims
		dyn, esc int
		adaptive float64
	}{
		{Dims{X: 8, Y: 1, Z: 1}, 0, 8, 0},
		{Dims{X: 8, Y: 1, Z: 1}, 1, 8, 1},
		{Dims{X: 4, Y: 4, Z: 1}, 1, 8, 0.5},
		{Dims{X: 4, Y: 4, Z: 4}, 4, 8, 1},
		{Dims{X: 4, Y: 4, Z: 4}, 1, 8, 0.5},
		{Dims{X: 3, Y: 5, Z: 2}, 2, 12, 0.7},
		{Dims{X: 4, Y: 4, Z: 2}, 3, 9, 0.7},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d_%d_%d_%g", tc.dims.X, tc.dims.Y, tc.dims.Z, tc.dyn, tc.esc, tc.adaptive), func(t *testing.T) {
			m := BGL()
			m.InjectionFIFO = 4 // trains of 1 to 4 packets
			m.DynamicBuffer, m.EscapeBuffer = tc.dyn, tc.esc
			n := NewNetwork(m, Torus{Dims: tc.dims})
			s := &headSim{n: n, arbAt: map[int]int64{}}
			rng := rand.New(rand.NewSource(7))
			nodes := n.Torus.Nodes()
			var heads []*Head
			for a := range nodes {
				for k := range 20 {
					c := rng.Intn(nodes)
					h := &Head{}
					n.Launch(h, a, c, int64(k*50), 1+rng.Intn(4), 256, 64+rng.Intn(192), rng.Float64() < tc.adaptive, k%2, uint64(a*100+k))
					heads = append(heads, h)
					s.ahead(h, 0)
				}
			}
			end := s.run()
			if s.done != len(heads) {
				stuck := 0
				for _, h := range heads {
					if !h.Done() {
						stuck++
					}
				}
				t.Fatalf("%d of %d heads through at %d, %d stuck", s.done, len(heads), end, stuck)
			}
			for l := range n.links {
				r := n.links[l].room
				if want := [numClasses]int32{places(m.DynamicBuffer), places(m.EscapeBuffer), places(m.ReceptionLinkFIFO()), places(m.ReceptionLinkFIFO())}; r != want {
					t.Fatalf("link %d: room %v after the run, want %v", l, r, want)
				}
			}
		})
	}
}

// The case that dynamic and escape trains in one queue deadlocked: every
// node of 8x8x8 sends 60 adaptive trains of 7 packets on their way at once.
// Each channel of an incoming link is a queue of its own at the arbiter, as
// the virtual channels are on the machine.
func TestBuffersChannelsApart(t *testing.T) {
	m := BGL()
	n := NewNetwork(m, Torus{Dims: Dims{X: 8, Y: 8, Z: 8}})
	s := &headSim{n: n, arbAt: map[int]int64{}}
	rng := rand.New(rand.NewSource(1))
	nodes := n.Torus.Nodes()
	count := 0
	for a := range nodes {
		for k := range 60 {
			h := &Head{}
			n.Launch(h, a, (a+1+k*7+rng.Intn(3))%nodes, int64(k*500), 7, 256, 256, true, k%2, uint64(a*100+k))
			s.ahead(h, 0)
			count++
		}
	}
	if end := s.run(); s.done != count {
		t.Fatalf("%d of %d heads through at %d", s.done, count, end)
	}
}

// Back pressure: on a ring with escape buffers of two trains, a long train
// holds node 2's link x+. Four
// one-packet heads from node 0 to node 4, deterministically routed, queue
// behind it: two fill node 2's escape buffer, the third waits at node 1
// (node 2 has no room), and the fourth cannot leave node 0, where the one
// place left is less than the two a head entering the ring needs. With
// unbounded buffers the fourth leaves as soon as the link is free.
func TestBuffersBackPressure(t *testing.T) {
	for _, bounded := range []bool{false, true} {
		m := BGL()
		m.DynamicBuffer, m.EscapeBuffer = 0, 0
		if bounded {
			m.InjectionFIFO, m.EscapeBuffer = 1, 2 // one-packet trains, room for two
		}
		n := NewNetwork(m, Torus{Dims: Dims{X: 8, Y: 1, Z: 1}})
		s := &headSim{n: n, arbAt: map[int]int64{}}
		long := &Head{}
		n.Launch(long, 2, 3, 0, 100, 256, 256, false, 0, 99)
		s.ahead(long, 0)
		var hs [4]*Head
		for i := range hs {
			hs[i] = &Head{}
			n.Launch(hs[i], 0, 4, 0, 1, 256, 256, false, 0, uint64(i))
			s.ahead(hs[i], 0)
		}
		s.run()
		ser := m.SerializeCycles(256)
		held := long.Left + 100*ser // node 2's x+ is free again
		if bounded {
			if hs[3].Left < held {
				t.Errorf("bounded: the fourth head left node 0 at %d, before node 2's link was free at %d", hs[3].Left, held)
			}
			if hs[2].Left >= held {
				t.Errorf("bounded: the third head left node 0 at %d, want before %d (room at node 1)", hs[2].Left, held)
			}
		} else if hs[3].Left != 3*ser {
			t.Errorf("unbounded: the fourth head left node 0 at %d, want %d", hs[3].Left, 3*ser)
		}
		for i := 1; i < 4; i++ {
			if hs[i].Last <= hs[i-1].Last {
				t.Errorf("bounded %v: head %d arrived at %d, not after head %d at %d", bounded, i, hs[i].Last, i-1, hs[i-1].Last)
			}
		}
	}
}
