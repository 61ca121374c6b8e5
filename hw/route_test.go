package hw

import (
	"fmt"
	"testing"
)

// checkRoute verifies one route against the rules of deterministic routing.
func checkRoute(tor Torus, route []Hop, a, b int) error {
	if len(route) != tor.Hops(a, b) {
		return fmt.Errorf("%d hops, Hops says %d", len(route), tor.Hops(a, b))
	}
	node, lastDim := a, 0
	var dir [3]Dir
	var seen [3]bool
	for i, h := range route {
		if int(h.Node) != node {
			return fmt.Errorf("hop %d leaves node %d, the packet is at %d", i, h.Node, node)
		}
		dim := h.Dir.Dim()
		if dim < lastDim {
			return fmt.Errorf("hop %d goes %v after dimension %d", i, h.Dir, lastDim)
		}
		if seen[dim] && dir[dim] != h.Dir {
			return fmt.Errorf("hop %d turns round to %v", i, h.Dir)
		}
		seen[dim], dir[dim], lastDim = true, h.Dir, dim
		if node = tor.Neighbor(node, h.Dir); node < 0 {
			return fmt.Errorf("hop %d leaves the mesh", i)
		}
	}
	if node != b {
		return fmt.Errorf("route ends at %d", node)
	}
	return nil
}

func TestRouteDeterministic(t *testing.T) {
	d := Dims{8, 4, 3}
	torus, mesh := Torus{Dims: d}, Torus{Dims: d, Mesh: true}
	at := func(x, y, z int) int { return torus.NodeIndex(x, y, z) }
	h := func(x, y, z int, dir Dir) Hop { return Hop{int32(at(x, y, z)), dir} }
	tests := []struct {
		name string
		tor  Torus
		a, b int
		want []Hop
	}{
		{"self", torus, at(2, 1, 1), at(2, 1, 1), nil},
		{"x wrap", torus, at(7, 0, 0), at(1, 0, 0), []Hop{h(7, 0, 0, XPlus), h(0, 0, 0, XPlus)}},
		{"x minus", torus, at(1, 0, 0), at(6, 0, 0), []Hop{h(1, 0, 0, XMinus), h(0, 0, 0, XMinus), h(7, 0, 0, XMinus)}},
		{"half ring goes plus", torus, at(6, 2, 0), at(2, 0, 0), []Hop{
			h(6, 2, 0, XPlus), h(7, 2, 0, XPlus), h(0, 2, 0, XPlus), h(1, 2, 0, XPlus),
			h(2, 2, 0, YPlus), h(2, 3, 0, YPlus)}},
		{"x then y then z", torus, at(0, 0, 0), at(1, 3, 2), []Hop{
			h(0, 0, 0, XPlus), h(1, 0, 0, YMinus), h(1, 3, 0, ZMinus)}},
		{"mesh no wrap", mesh, at(7, 0, 0), at(5, 1, 2), []Hop{
			h(7, 0, 0, XMinus), h(6, 0, 0, XMinus), h(5, 0, 0, YPlus),
			h(5, 1, 0, ZPlus), h(5, 1, 1, ZPlus)}},
	}
	for _, tt := range tests {
		got := tt.tor.RouteDeterministic(nil, tt.a, tt.b)
		if len(got) != len(tt.want) {
			t.Errorf("%s: route %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: route %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}

// TestRouteDeterministicAllPairs checks every pair of nodes of a few machines,
// odd and even rings, torus and mesh.
func TestRouteDeterministicAllPairs(t *testing.T) {
	for _, tor := range []Torus{
		{Dims: Dims{4, 4, 2}},
		{Dims: Dims{4, 4, 2}, Mesh: true},
		{Dims: Dims{5, 3, 2}},
		{Dims: Dims{1, 6, 7}},
		{Dims: Dims{3, 1, 2}, Mesh: true},
	} {
		buf := make([]Hop, 0, 32)
		for a := range tor.Nodes() {
			for b := range tor.Nodes() {
				buf = tor.RouteDeterministic(buf[:0], a, b)
				if err := checkRoute(tor, buf, a, b); err != nil {
					t.Fatalf("%s %v route %d -> %d = %v: %v", tor.Kind(), tor.Dims, a, b, buf, err)
				}
			}
		}
	}
}

func TestRouteDeterministicAppends(t *testing.T) {
	tor := Torus{Dims: Dims{4, 4, 4}}
	prefix := []Hop{{Node: 99, Dir: ZMinus}}
	got := tor.RouteDeterministic(prefix, 0, tor.NodeIndex(1, 1, 0))
	if len(got) != 3 || got[0] != prefix[0] || got[1].Dir != XPlus || got[2].Dir != YPlus {
		t.Errorf("RouteDeterministic did not append to buf: %v", got)
	}
}

func TestRouteDeterministicNoAlloc(t *testing.T) {
	tor := Torus{Dims: Dims{64, 32, 32}}
	buf := make([]Hop, 0, 64)
	a, b := tor.NodeIndex(3, 30, 1), tor.NodeIndex(40, 2, 17)
	allocs := testing.AllocsPerRun(100, func() {
		buf = tor.RouteDeterministic(buf[:0], a, b)
	})
	if allocs != 0 {
		t.Errorf("RouteDeterministic allocated %v times per run, want 0", allocs)
	}
	if len(buf) != tor.Hops(a, b) {
		t.Errorf("route length %d, want %d", len(buf), tor.Hops(a, b))
	}
}

func BenchmarkRouteDeterministic(b *testing.B) {
	tor := Torus{Dims: Dims{64, 32, 32}}
	n := tor.Nodes()
	buf := make([]Hop, 0, 64)
	hops := 0
	for i := 0; b.Loop(); i++ {
		a := (i * 7919) % n
		dst := (i * 104729) % n
		buf = tor.RouteDeterministic(buf[:0], a, dst)
		hops += len(buf)
	}
	b.ReportMetric(float64(hops)/float64(b.N), "hops/op")
}
