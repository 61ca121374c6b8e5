package hw

import (
	"fmt"
	"testing"
)

func TestLineHops(t *testing.T) {
	for _, tc := range []struct {
		mesh       bool
		x          int
		plus, minu int
	}{
		{false, 0, 3, 3}, {false, 2, 3, 3}, // a torus ring: the other 3 nodes either way
		{true, 0, 3, 0}, {true, 1, 2, 1}, {true, 3, 0, 3}, // a mesh: up to the edge
	} {
		tor := Torus{Dims: Dims{4, 2, 1}, Mesh: tc.mesh}
		node := tor.NodeIndex(tc.x, 1, 0)
		if got := tor.LineHops(node, XPlus); got != tc.plus {
			t.Errorf("%s x=%d: LineHops(x+) = %d, want %d", tor.Kind(), tc.x, got, tc.plus)
		}
		if got := tor.LineHops(node, XMinus); got != tc.minu {
			t.Errorf("%s x=%d: LineHops(x-) = %d, want %d", tor.Kind(), tc.x, got, tc.minu)
		}
		if got := tor.LineHops(node, ZPlus); got != 0 {
			t.Errorf("%s: LineHops(z+) of a 1-node dimension = %d, want 0", tor.Kind(), got)
		}
	}
	// A torus line covers the ring but the sender, wrapping round.
	tor := Torus{Dims: Dims{4, 1, 1}}
	route := tor.LineRoute(nil, Line{From: 2, Dir: XPlus, Hops: 3})
	want := []Hop{{2, XPlus}, {3, XPlus}, {0, XPlus}}
	if fmt.Sprint(route) != fmt.Sprint(want) {
		t.Errorf("LineRoute = %v, want %v", route, want)
	}
}

// On idle links a deposit train reaches every node of its line when a train
// sent to that node alone would, and counts as one train of packets.
func TestDepositTrainMatchesSendTrain(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{8, 4, 2}}
	src := tor.NodeIndex(1, 2, 1)
	line := Line{From: int32(src), Dir: XMinus, Hops: 7}
	for _, count := range []int{1, 5} {
		n := NewNetwork(m, tor)
		left, arr := n.DepositTrain(tor.LineRoute(nil, line), 1000, count, 256, 64, nil)
		if left != 1000 || len(arr) != 7 {
			t.Fatalf("count %d: left %d, %d arrivals; want 1000 and 7", count, left, len(arr))
		}
		if n.Packets != int64(count) || n.WireBytes != int64((count-1)*(256+14)+64+14) {
			t.Errorf("count %d: counted %d packets, %d wire bytes", count, n.Packets, n.WireBytes)
		}
		if want := 7 * (int64(count-1)*m.SerializeCycles(256) + m.SerializeCycles(64)); n.LinkBusy != want {
			t.Errorf("count %d: links busy %d cycles, want %d (7 links)", count, n.LinkBusy, want)
		}
		for i, a := range arr {
			ref := NewNetwork(m, tor)
			route := tor.LineRoute(nil, Line{From: line.From, Dir: line.Dir, Hops: int32(i + 1)})
			if to := tor.Neighbor(int(route[i].Node), route[i].Dir); to != int(a.Node) {
				t.Fatalf("arrival %d is at node %d, the line's node %d is %d", i, a.Node, i, to)
			}
			_, first, last := ref.SendTrain(route, 1000, count, 256, 64)
			if a.First != first || a.Last != last {
				t.Errorf("count %d, node %d: arrival %d..%d, a train to it alone %d..%d", count, i, a.First, a.Last, first, last)
			}
		}
	}
}

// A deposit train waits at a busy link; the nodes before it get their copy
// on time, those after it later.
func TestDepositTrainContends(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{6, 1, 1}, Mesh: true}
	n := NewNetwork(m, tor)
	idle := NewNetwork(m, tor)
	// Another packet crosses the link out of node 2 first.
	n.Send([]Hop{{2, XPlus}}, 0, 256)
	busy := n.LinkFree(2, XPlus)
	route := tor.LineRoute(nil, Line{From: 0, Dir: XPlus, Hops: 5})
	_, got := n.DepositTrain(route, 0, 1, 256, 256, nil)
	_, want := idle.DepositTrain(route, 0, 1, 256, 256, nil)
	for i := range got {
		switch {
		case i < 2 && got[i] != want[i]:
			t.Errorf("node %d before the busy link: %v, want %v", i+1, got[i], want[i])
		case i >= 2 && got[i].First <= want[i].First:
			t.Errorf("node %d after the busy link: %v, not later than %v", i+1, got[i], want[i])
		}
	}
	if n.LinkFree(2, XPlus) <= busy {
		t.Error("the deposit train did not reserve the busy link after the other packet")
	}
}

func TestDepositSendAndReceive(t *testing.T) {
	m := BGL()
	tor := Torus{Dims: Dims{4, 1, 1}}
	route := tor.LineRoute(nil, Line{From: 0, Dir: XPlus, Hops: 3})
	for _, tc := range []struct{ total, packets int }{{10, 1}, {1000, 5}, {240 * 20, 20}} {
		n := NewNetwork(m, tor)
		var cpu CPU
		end, arr := n.DepositSend(&cpu, 100, route, tc.total, nil)
		if len(arr) != 3 || n.Packets != int64(tc.packets) {
			t.Fatalf("%d bytes: %d arrivals, %d packets", tc.total, len(arr), n.Packets)
		}
		if cpu.Busy != int64(tc.packets)*m.PacketWriteWork() {
			t.Errorf("%d bytes: CPU busy %d, want %d packet writes", tc.total, cpu.Busy, tc.packets)
		}
		if tc.packets > m.InjectionFIFO {
			// The FIFO backs up: the CPU waits for the train to leave.
			if end <= 100+int64(tc.packets)*m.PacketWriteWork() {
				t.Errorf("%d bytes: CPU done at %d, without waiting for the FIFO", tc.total, end)
			}
		} else if end != 100+int64(tc.packets)*m.PacketWriteWork() {
			t.Errorf("%d bytes: CPU done at %d", tc.total, end)
		}
		// Every receiver reads every packet, no earlier than it arrives.
		for _, a := range arr {
			var rc CPU
			done := m.DepositReceive(&rc, a, tc.total)
			work := m.MLDispatchCycles + int64(tc.packets)*m.PacketReadWork(min(tc.total, 240))
			if tc.packets > 1 {
				work += m.EagerSetupCycles
			}
			if rc.Busy != work || done < a.Last+m.PacketReadWork(min(tc.total, 240)) || done < a.First+work {
				t.Errorf("%d bytes: receive done %d busy %d (arrived %d..%d, work %d)", tc.total, done, rc.Busy, a.First, a.Last, work)
			}
		}
	}
}

// routeShapes are the machines the broadcast routes are checked on: every
// shape of up to 4 nodes a side, with and without wrap-around.
func routeShapes() []Torus {
	var out []Torus
	for x := 1; x <= 4; x++ {
		for y := 1; y <= 4; y++ {
			for z := 1; z <= 4; z++ {
				for _, mesh := range []bool{false, true} {
					out = append(out, Torus{Dims: Dims{x, y, z}, Mesh: mesh})
				}
			}
		}
	}
	return append(out, Torus{Dims: Dims{5, 3, 2}}, Torus{Dims: Dims{8, 8, 8}}, Torus{Dims: Dims{4, 4, 2}, Mesh: true})
}

// Every broadcast route reaches every node exactly once, each sender holds
// the packet before it sends, and no two lines of any route share a link.
func TestBcastRoutes(t *testing.T) {
	for _, tor := range routeShapes() {
		nodes := tor.Nodes()
		wantRoutes := 0
		for _, s := range []int{tor.X, tor.Y, tor.Z} {
			if s > 1 {
				wantRoutes++
			}
		}
		for root := range nodes {
			routes := tor.BcastRoutes(root)
			name := fmt.Sprintf("%s %s root %d", tor.Dims, tor.Kind(), root)
			if len(routes) != wantRoutes {
				t.Fatalf("%s: %d routes, want %d", name, len(routes), wantRoutes)
			}
			used := map[int]int{} // link -> route that uses it
			for k := range routes {
				r := &routes[k]
				got := make([]int, nodes) // times reached
				queue := []int{root}
				got[root] = 1
				for len(queue) > 0 {
					v := queue[0]
					queue = queue[1:]
					for _, l := range r.Lines(v) {
						if int(l.From) != v || l.Hops < 1 || int(l.Hops) > tor.LineHops(v, l.Dir) {
							t.Fatalf("%s route %d: bad line %+v from node %d", name, k, l, v)
						}
						for _, h := range tor.LineRoute(nil, l) {
							link := LinkIndex(int(h.Node), h.Dir)
							if o, ok := used[link]; ok {
								t.Errorf("%s: link %s of node %d used by routes %d and %d", name, h.Dir, h.Node, o, k)
							}
							used[link] = k
							to := tor.Neighbor(int(h.Node), h.Dir)
							if got[to]++; got[to] == 1 {
								queue = append(queue, to)
							}
						}
					}
				}
				for v, n := range got {
					if n != 1 {
						t.Errorf("%s route %d (order %v): node %d reached %d times", name, k, r.Order, v, n)
					}
				}
				// Nodes that are never reached send nothing either.
				for v := range nodes {
					if got[v] == 0 && len(r.Lines(v)) > 0 {
						t.Errorf("%s route %d: unreached node %d sends", name, k, v)
					}
				}
			}
		}
	}
}

// The route of [ML] Fig. 5b's machine from a corner: a few sends per node,
// so that the forwarding work is spread.
func TestBcastRoutesLoad(t *testing.T) {
	tor := Torus{Dims: Dims{4, 4, 2}, Mesh: true}
	routes := tor.BcastRoutes(0)
	most := 0
	for v := range tor.Nodes() {
		sends := 0
		for k := range routes {
			sends += len(routes[k].Lines(v))
		}
		if v == 0 && sends != 3 {
			t.Errorf("the root sends %d lines per packet triple, want 3", sends)
		}
		most = max(most, sends)
	}
	if most > 3 {
		t.Errorf("a node sends %d lines per packet triple, want at most 3", most)
	}
}
