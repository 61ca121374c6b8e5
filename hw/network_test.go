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
	// cycles is 155.6 MB/s, the 89% payload efficiency of MODEL.md.
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
