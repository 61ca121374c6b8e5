package hw

import "testing"

func TestPacketSizes(t *testing.T) {
	m := BGL()
	cases := []struct{ payload, bytes, packets int }{
		{0, 32, 1}, {1, 32, 1}, {16, 32, 1}, {17, 64, 1}, {240, 256, 1}, {241, 256, 2}, {1 << 20, 256, 4370},
	}
	for _, c := range cases {
		if got := m.PacketBytes(min(c.payload, m.PayloadPerPacket())); got != c.bytes {
			t.Errorf("PacketBytes(%d) = %d, want %d", c.payload, got, c.bytes)
		}
		if got := m.Packets(c.payload); got != c.packets {
			t.Errorf("Packets(%d) = %d, want %d", c.payload, got, c.packets)
		}
	}
	// A full packet holds a link for (256+14)/0.25 cycles: 240 B per 1080
	// cycles is 155.6 MB/s, the 89% payload efficiency of [ML] (docs/model.md).
	if got := m.SerializeCycles(256); got != 1080 {
		t.Fatalf("SerializeCycles(256) = %d, want 1080", got)
	}
}

func TestNetworkCutThrough(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{8, 8, 8}}
	n := NewNetwork(m, tor)
	a, b := tor.NodeIndex(0, 0, 0), tor.NodeIndex(3, 0, 0)
	route := n.Route(nil, a, b)
	ser := m.SerializeCycles(256)
	left, arrived := n.Send(route, 100, 256)
	if left != 100 {
		t.Fatalf("first packet left at %d, want 100", left)
	}
	// Head crosses 3 links one hop latency apart, then the tail follows.
	if want := 100 + 2*m.HopCycles + ser + m.NetworkCycles; arrived != want {
		t.Fatalf("arrived %d, want %d", arrived, want)
	}
	// A second packet right behind waits for the first link.
	left2, arrived2 := n.Send(route, 100, 256)
	if left2 != 100+ser || arrived2 != arrived+ser {
		t.Fatalf("second packet left %d arrived %d; want %d and %d", left2, arrived2, 100+ser, arrived+ser)
	}
	// The link stream runs at the serialization rate: k packets take k*ser.
	if got := n.LinkFree(a, XPlus); got != 100+2*ser {
		t.Fatalf("link free at %d, want %d", got, 100+2*ser)
	}
}

func TestCPURun(t *testing.T) {
	var c CPU
	if end := c.Run(10, 5); end != 15 {
		t.Fatal(end)
	}
	if end := c.Run(12, 5); end != 20 { // waits for the first job
		t.Fatal(end)
	}
	if end := c.Run(30, 1); end != 31 || c.Busy != 11 {
		t.Fatal(end, c.Busy)
	}
}

// On a path nobody else uses, a train gives the times of its packets sent
// one by one, and holds each link as long.
func TestSendTrainMatchesPackets(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{8, 8, 8}}
	for _, c := range []struct{ count, last int }{{1, 32}, {2, 256}, {10, 128}, {4370, 96}} {
		a, b := NewNetwork(m, tor), NewNetwork(m, tor)
		route := a.Route(nil, tor.NodeIndex(0, 0, 0), tor.NodeIndex(2, 3, 1))
		left, first, last := a.SendTrain(route, 500, c.count, 256, c.last)
		var wantLeft, wantFirst, wantLast int64
		ready := int64(500)
		for i := 0; i < c.count; i++ {
			size := 256
			if i == c.count-1 {
				size = c.last
			}
			l, arr := b.Send(route, ready, size)
			if i == 0 {
				wantLeft, wantFirst = l, arr
			}
			wantLast = arr
			ready = l // the next packet is ready as soon as this one left
		}
		if left != wantLeft || first != wantFirst || last != wantLast {
			t.Errorf("%d packets: train (%d, %d, %d), one by one (%d, %d, %d)", c.count, left, first, last, wantLeft, wantFirst, wantLast)
		}
		for _, h := range route {
			if a.LinkFree(int(h.Node), h.Dir) != b.LinkFree(int(h.Node), h.Dir) {
				t.Errorf("%d packets: link %v free at %d, one by one %d", c.count, h, a.LinkFree(int(h.Node), h.Dir), b.LinkFree(int(h.Node), h.Dir))
			}
		}
		if a.Packets != b.Packets || a.WireBytes != b.WireBytes || a.LinkBusy != b.LinkBusy {
			t.Errorf("%d packets: counters differ", c.count)
		}
	}
}

// On an idle network an adaptive packet takes exactly as long as a
// deterministic one (any minimal route has the same length), and it
// reserves one link per hop, each a step closer to the destination.
func TestSendAdaptiveIdleMatchesDeterministic(t *testing.T) {
	m := BGL()
	for _, tor := range []Torus{{Dims: Dims{8, 4, 3}}, {Dims: Dims{5, 5, 5}, Mesh: true}} {
		for a := 0; a < tor.Nodes(); a += 7 {
			for b := 0; b < tor.Nodes(); b += 5 {
				ad, det := NewNetwork(m, tor), NewNetwork(m, tor)
				l1, arr1 := ad.SendAdaptive(a, b, 40, 256)
				l2, arr2 := det.Send(det.Route(nil, a, b), 40, 256)
				if l1 != l2 || arr1 != arr2 {
					t.Fatalf("%s %d->%d: adaptive (%d, %d), deterministic (%d, %d)", tor.Dims, a, b, l1, arr1, l2, arr2)
				}
				hops, busy := 0, 0
				for i, f := range ad.frees() {
					if f == 0 {
						continue
					}
					busy++
					node, d := i/NumDirs, Dir(i%NumDirs)
					if tor.Hops(tor.Neighbor(node, d), b) != tor.Hops(node, b)-1 {
						t.Fatalf("%s %d->%d: link %d %v leads away from the destination", tor.Dims, a, b, node, d)
					}
				}
				hops = tor.Hops(a, b)
				if busy != hops || ad.LinkBusy != det.LinkBusy {
					t.Fatalf("%s %d->%d: %d links reserved for %d hops", tor.Dims, a, b, busy, hops)
				}
			}
		}
	}
}

// Adaptive routing goes round a busy link that deterministic routing must
// wait for, and so lets a later packet overtake an earlier one.
func TestSendAdaptiveAvoidsBusyLinkAndReorders(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{4, 4, 4}}
	a, b := tor.NodeIndex(0, 0, 0), tor.NodeIndex(1, 1, 0)
	ser := m.SerializeCycles(256)

	// Source's x+ link busy for a long time: x-first routing waits for it,
	// adaptive routing goes y first.
	det, ad := NewNetwork(m, tor), NewNetwork(m, tor)
	det.links[LinkIndex(a, XPlus)].free = 100000
	ad.links[LinkIndex(a, XPlus)].free = 100000
	_, arrDet := det.Send(det.Route(nil, a, b), 0, 256)
	_, arrAd := ad.SendAdaptive(a, b, 0, 256)
	if want := m.HopCycles + ser + m.NetworkCycles; arrAd != want || arrDet <= 100000 {
		t.Fatalf("adaptive arrived %d (want %d), deterministic %d (want after 100000)", arrAd, want, arrDet)
	}

	// Overtaking: the first packet goes x+ and then finds y+ at (1,0,0)
	// busy; the second, finding x+ taken by the first, goes y+ first and
	// arrives before it.
	n := NewNetwork(m, tor)
	n.links[LinkIndex(tor.NodeIndex(1, 0, 0), YPlus)].free = 50000
	n.links[LinkIndex(a, YPlus)].free = 1 // so that the first packet prefers x+
	_, first := n.SendAdaptive(a, b, 0, 256)
	_, second := n.SendAdaptive(a, b, 0, 256)
	if !(second < first) {
		t.Fatalf("second packet arrived at %d, first at %d: want the second first", second, first)
	}
}

// Ties are broken by the network's seeded generator: the same seed gives
// the same reservations, another seed other ones.
func TestSendAdaptiveSeeded(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{6, 6, 6}}
	run := func(seed int64) []int64 {
		n := NewNetwork(m, tor)
		n.SetSeed(seed)
		for i := 0; i < 2000; i++ {
			a, b := (i*37)%tor.Nodes(), (i*101+13)%tor.Nodes()
			n.SendAdaptive(a, b, int64(i*50), 256)
		}
		return n.frees()
	}
	same := func(x, y []int64) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(run(1), run(1)) {
		t.Fatal("the same seed gave different reservations")
	}
	if same(run(1), run(2)) {
		t.Fatal("seeds 1 and 2 gave the same reservations: ties are not broken by the seed")
	}
}

// Routing one packet allocates nothing.
func TestSendAdaptiveAllocatesNothing(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{8, 8, 8}}
	n := NewNetwork(m, tor)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		n.SendAdaptive(i%512, (i*97)%512, int64(i), 256)
		i++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per packet", allocs)
	}
}

// An adaptive train on an idle network takes exactly the times and link
// time of a deterministic one; on a busy one its head goes round the busy
// link, and the train stays together on one way.
func TestSendAdaptiveTrain(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{4, 4, 4}}
	a, b := tor.NodeIndex(0, 0, 0), tor.NodeIndex(2, 1, 0)
	for _, c := range []struct{ count, last int }{{1, 64}, {8, 256}, {5, 96}} {
		ad, det := NewNetwork(m, tor), NewNetwork(m, tor)
		p := ad.Path(a, b)
		l1, f1, e1 := ad.SendAdaptiveTrain(&p, 100, c.count, 256, c.last)
		l2, f2, e2 := det.SendTrain(det.Route(nil, a, b), 100, c.count, 256, c.last)
		if l1 != l2 || f1 != f2 || e1 != e2 || ad.LinkBusy != det.LinkBusy || ad.Packets != det.Packets || ad.WireBytes != det.WireBytes {
			t.Errorf("%d packets: adaptive (%d %d %d), deterministic (%d %d %d)", c.count, l1, f1, e1, l2, f2, e2)
		}
	}
	n := NewNetwork(m, tor)
	n.links[LinkIndex(a, XPlus)].free = 1 << 40
	p := n.Path(a, b)
	_, _, end := n.SendAdaptiveTrain(&p, 0, 8, 256, 256)
	ser := m.SerializeCycles(256)
	if want := 2*m.HopCycles + 8*ser + m.NetworkCycles; end != want {
		t.Errorf("train round the busy link ended at %d, want %d", end, want)
	}
	if got := n.LinkFree(a, YPlus); got != 8*ser {
		t.Errorf("y+ link held until %d, want the whole train (%d)", got, 8*ser)
	}
}

// BenchmarkSendAdaptive routes single packets adaptively between
// pseudo-random nodes of an 8x8x8 torus (6 hops on average).
func BenchmarkSendAdaptive(b *testing.B) {
	m := BGL()
	tor := Torus{Dims: Dims{8, 8, 8}}
	n := NewNetwork(m, tor)
	x := uint32(1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		n.SendAdaptive(int(x%512), int((x>>9)%512), int64(i)*20, 256)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "packets/s")
}

// frees is every link's next free cycle, by LinkIndex.
func (n *Network) frees() []int64 {
	out := make([]int64, len(n.links))
	for i := range n.links {
		out[i] = n.links[i].free
	}
	return out
}
