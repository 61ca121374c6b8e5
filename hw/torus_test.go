package hw

import "testing"

func TestNodeIndexRoundTrip(t *testing.T) {
	for _, d := range []Dims{{1, 1, 1}, {4, 4, 2}, {3, 5, 7}, {8, 1, 2}} {
		tor := Torus{Dims: d}
		for n := range d.Nodes() {
			x, y, z := tor.NodeCoord(n)
			if x < 0 || x >= d.X || y < 0 || y >= d.Y || z < 0 || z >= d.Z {
				t.Fatalf("%v: NodeCoord(%d) = %d,%d,%d out of range", d, n, x, y, z)
			}
			if got := tor.NodeIndex(x, y, z); got != n {
				t.Fatalf("%v: NodeIndex(NodeCoord(%d)) = %d", d, n, got)
			}
		}
	}
	if got := (Torus{Dims: Dims{4, 3, 2}}).NodeIndex(1, 2, 1); got != 1+4*(2+3*1) {
		t.Errorf("NodeIndex(1,2,1) on 4x3x2 = %d, want x fastest = 21", got)
	}
}

func TestDelta(t *testing.T) {
	torus := Torus{Dims: Dims{8, 5, 1}}
	mesh := Torus{Dims: Dims{8, 5, 1}, Mesh: true}
	tests := []struct {
		tor       Torus
		dim, a, b int
		want      int
	}{
		{torus, 0, 0, 0, 0},
		{torus, 0, 0, 3, 3},
		{torus, 0, 0, 4, 4}, // exactly half way: + direction
		{torus, 0, 4, 0, 4}, // also +, wrapping
		{torus, 0, 0, 5, -3},
		{torus, 0, 7, 0, 1}, // wrap
		{torus, 0, 0, 7, -1},
		{torus, 0, 6, 1, 3},
		{torus, 1, 0, 2, 2}, // odd ring: no tie
		{torus, 1, 0, 3, -2},
		{torus, 1, 4, 0, 1},
		{torus, 2, 0, 0, 0},
		{mesh, 0, 0, 7, 7},
		{mesh, 0, 7, 0, -7},
		{mesh, 0, 6, 1, -5},
		{mesh, 1, 0, 4, 4},
	}
	for _, tt := range tests {
		if got := tt.tor.Delta(tt.dim, tt.a, tt.b); got != tt.want {
			t.Errorf("%s %v Delta(%d, %d, %d) = %d, want %d", tt.tor.Kind(), tt.tor.Dims, tt.dim, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestHops(t *testing.T) {
	d := Dims{8, 8, 8}
	torus, mesh := Torus{Dims: d}, Torus{Dims: d, Mesh: true}
	at := func(x, y, z int) int { return torus.NodeIndex(x, y, z) }
	tests := []struct {
		tor  Torus
		a, b int
		want int
	}{
		{torus, at(0, 0, 0), at(0, 0, 0), 0},
		{torus, at(0, 0, 0), at(1, 0, 0), 1},
		{torus, at(0, 0, 0), at(7, 7, 7), 3},
		{torus, at(0, 0, 0), at(4, 4, 4), 12}, // the farthest node
		{torus, at(1, 2, 3), at(6, 2, 0), 6},
		{mesh, at(0, 0, 0), at(7, 7, 7), 21},
		{mesh, at(1, 2, 3), at(6, 2, 0), 8},
	}
	for _, tt := range tests {
		if got := tt.tor.Hops(tt.a, tt.b); got != tt.want {
			t.Errorf("%s Hops(%d, %d) = %d, want %d", tt.tor.Kind(), tt.a, tt.b, got, tt.want)
		}
		if got := tt.tor.Hops(tt.b, tt.a); got != tt.want {
			t.Errorf("%s Hops(%d, %d) = %d, want %d (symmetry)", tt.tor.Kind(), tt.b, tt.a, got, tt.want)
		}
	}
}

func TestNeighbor(t *testing.T) {
	d := Dims{4, 3, 2}
	torus, mesh := Torus{Dims: d}, Torus{Dims: d, Mesh: true}
	at := func(x, y, z int) int { return torus.NodeIndex(x, y, z) }
	tests := []struct {
		tor  Torus
		node int
		dir  Dir
		want int
	}{
		{torus, at(1, 1, 0), XPlus, at(2, 1, 0)},
		{torus, at(1, 1, 0), XMinus, at(0, 1, 0)},
		{torus, at(1, 1, 0), YPlus, at(1, 2, 0)},
		{torus, at(1, 1, 0), YMinus, at(1, 0, 0)},
		{torus, at(1, 1, 0), ZPlus, at(1, 1, 1)},
		{torus, at(1, 1, 1), ZMinus, at(1, 1, 0)},
		{torus, at(3, 0, 0), XPlus, at(0, 0, 0)}, // wrap
		{torus, at(0, 0, 0), XMinus, at(3, 0, 0)},
		{torus, at(0, 2, 1), YPlus, at(0, 0, 1)},
		{torus, at(0, 0, 1), ZPlus, at(0, 0, 0)},
		{mesh, at(3, 0, 0), XPlus, -1},
		{mesh, at(0, 0, 0), XMinus, -1},
		{mesh, at(0, 2, 0), YPlus, -1},
		{mesh, at(0, 0, 0), ZMinus, -1},
		{mesh, at(2, 1, 0), XPlus, at(3, 1, 0)},
	}
	for _, tt := range tests {
		if got := tt.tor.Neighbor(tt.node, tt.dir); got != tt.want {
			t.Errorf("%s Neighbor(%d, %v) = %d, want %d", tt.tor.Kind(), tt.node, tt.dir, got, tt.want)
		}
	}
}

func TestNeighborMatchesCoordinates(t *testing.T) {
	// Every node and direction of tori and meshes with rings of one, two
	// and more nodes: the node one step along the direction's dimension,
	// wrapped round on a torus, off the edge (-1) on a mesh.
	for _, d := range []Dims{{4, 3, 2}, {1, 2, 5}, {2, 1, 1}, {8, 8, 8}, {3, 5, 7}} {
		for _, mesh := range []bool{false, true} {
			tor := Torus{Dims: d, Mesh: mesh}
			for n := range tor.Nodes() {
				for dir := range Dir(NumDirs) {
					c := [3]int{}
					c[0], c[1], c[2] = tor.NodeCoord(n)
					size := [3]int{d.X, d.Y, d.Z}[dir.Dim()]
					c[dir.Dim()] += dir.Sign()
					want := -1
					if k := c[dir.Dim()]; k >= 0 && k < size || !mesh {
						c[dir.Dim()] = (k + size) % size
						want = tor.NodeIndex(c[0], c[1], c[2])
					}
					if got := tor.Neighbor(n, dir); got != want {
						t.Fatalf("%v %s: Neighbor(%d, %v) = %d, want %d", d, tor.Kind(), n, dir, got, want)
					}
				}
			}
		}
	}
}

func TestNeighborOppositeReturns(t *testing.T) {
	torus := Torus{Dims: Dims{4, 3, 2}}
	for n := range torus.Nodes() {
		for d := range Dir(NumDirs) {
			if back := torus.Neighbor(torus.Neighbor(n, d), d.Opposite()); back != n {
				t.Errorf("Neighbor(Neighbor(%d, %v), %v) = %d", n, d, d.Opposite(), back)
			}
		}
	}
}

func TestDir(t *testing.T) {
	tests := []struct {
		d        Dir
		num      int
		name     string
		dim      int
		sign     int
		opposite Dir
	}{
		{XPlus, 0, "x+", 0, 1, XMinus},
		{XMinus, 1, "x-", 0, -1, XPlus},
		{YPlus, 2, "y+", 1, 1, YMinus},
		{YMinus, 3, "y-", 1, -1, YPlus},
		{ZPlus, 4, "z+", 2, 1, ZMinus},
		{ZMinus, 5, "z-", 2, -1, ZPlus},
	}
	for _, tt := range tests {
		if int(tt.d) != tt.num || tt.d.String() != tt.name || tt.d.Dim() != tt.dim ||
			tt.d.Sign() != tt.sign || tt.d.Opposite() != tt.opposite {
			t.Errorf("Dir %d: got %d %q dim %d sign %d opposite %v, want %d %q %d %d %v",
				tt.d, int(tt.d), tt.d.String(), tt.d.Dim(), tt.d.Sign(), tt.d.Opposite(),
				tt.num, tt.name, tt.dim, tt.sign, tt.opposite)
		}
		if got := DirOf(tt.dim, tt.sign); got != tt.d {
			t.Errorf("DirOf(%d, %d) = %v, want %v", tt.dim, tt.sign, got, tt.d)
		}
		if got := LinkIndex(7, tt.d); got != 7*NumDirs+tt.num {
			t.Errorf("LinkIndex(7, %v) = %d, want %d", tt.d, got, 7*NumDirs+tt.num)
		}
	}
	if got := Dir(9).String(); got != "Dir(9)" {
		t.Errorf("Dir(9).String() = %q, want \"Dir(9)\"", got)
	}
}

// TestStepIsNeighbor: the network's step (a head's hop, by the coordinate
// table) is Torus.Neighbor for every node and link of tori of every shape,
// rings of one and two nodes included, and on a mesh for every link that
// exists.
func TestStepIsNeighbor(t *testing.T) {
	for _, tor := range []Torus{
		{Dims: Dims{4, 3, 2}}, {Dims: Dims{1, 1, 1}}, {Dims: Dims{8, 1, 5}}, {Dims: Dims{2, 7, 3}},
		{Dims: Dims{4, 3, 2}, Mesh: true},
	} {
		n := NewNetwork(BGL(), tor)
		n.coordTable()
		for node := range tor.Nodes() {
			for d := range Dir(NumDirs) {
				want := tor.Neighbor(node, d)
				if want < 0 {
					continue
				}
				if got := n.step(node, d.Dim(), int32(d.Sign())); got != want {
					t.Errorf("%v %s: step(%d, %v) = %d, Neighbor %d", tor.Dims, tor.Kind(), node, d, got, want)
				}
			}
		}
	}
}
