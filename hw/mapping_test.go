package hw

import "testing"

// checkMapping verifies the invariants every Mapping must keep: each rank on a
// distinct, in-range slot, and RankOf inverting Coord.
func checkMapping(t *testing.T, m *Mapping) {
	t.Helper()
	d := m.Torus.Dims
	for r := range m.Ranks() {
		c := m.Coord(r)
		if c.X < 0 || c.X >= d.X || c.Y < 0 || c.Y >= d.Y || c.Z < 0 || c.Z >= d.Z || c.T < 0 || c.T >= m.PerNode {
			t.Fatalf("rank %d at %v, outside %v with %d per node", r, c, d, m.PerNode)
		}
		if got := m.Torus.NodeIndex(c.X, c.Y, c.Z); got != m.Node(r) {
			t.Fatalf("rank %d: Node = %d but Coord %v is node %d", r, m.Node(r), c, got)
		}
		if got, ok := m.RankOf(c); !ok || got != r {
			t.Fatalf("RankOf(Coord(%d) = %v) = %d, %v", r, c, got, ok)
		}
	}
	// Every occupied slot belongs to exactly one rank: count them.
	occupied := 0
	for n := range d.Nodes() {
		x, y, z := m.Torus.NodeCoord(n)
		for s := range m.PerNode {
			if _, ok := m.RankOf(Coord{x, y, z, s}); ok {
				occupied++
			}
		}
	}
	if occupied != m.Ranks() {
		t.Fatalf("%d slots occupied by %d ranks", occupied, m.Ranks())
	}
}

func TestMapOrders(t *testing.T) {
	tor := Torus{Dims: Dims{4, 2, 2}}
	tests := []struct {
		name           string
		mapf           func(Torus, int, int) (*Mapping, error)
		ranks, perNode int
		want           map[int]Coord // a few ranks and where they must be
	}{
		{"XYZT co", MapXYZT, 16, 1, map[int]Coord{0: {0, 0, 0, 0}, 1: {1, 0, 0, 0}, 4: {0, 1, 0, 0}, 9: {1, 0, 1, 0}, 15: {3, 1, 1, 0}}},
		{"XYZT vn", MapXYZT, 32, 2, map[int]Coord{1: {1, 0, 0, 0}, 15: {3, 1, 1, 0}, 16: {0, 0, 0, 1}, 21: {1, 1, 0, 1}, 31: {3, 1, 1, 1}}},
		{"XYZT vn partial", MapXYZT, 20, 2, map[int]Coord{16: {0, 0, 0, 1}, 19: {3, 0, 0, 1}}},
		{"XYZT few", MapXYZT, 3, 1, map[int]Coord{2: {2, 0, 0, 0}}},
		{"TXYZ vn", MapTXYZ, 32, 2, map[int]Coord{0: {0, 0, 0, 0}, 1: {0, 0, 0, 1}, 2: {1, 0, 0, 0}, 9: {0, 1, 0, 1}, 31: {3, 1, 1, 1}}},
		{"TXYZ vn odd", MapTXYZ, 7, 2, map[int]Coord{6: {3, 0, 0, 0}}},
		{"TXYZ co is XYZT", MapTXYZ, 16, 1, map[int]Coord{5: {1, 1, 0, 0}, 15: {3, 1, 1, 0}}},
	}
	for _, tt := range tests {
		m, err := tt.mapf(tor, tt.ranks, tt.perNode)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if m.Ranks() != tt.ranks || m.PerNode != tt.perNode || m.Torus != tor {
			t.Errorf("%s: %d ranks, %d per node, %v", tt.name, m.Ranks(), m.PerNode, m.Torus)
		}
		for r, c := range tt.want {
			if got := m.Coord(r); got != c {
				t.Errorf("%s: Coord(%d) = %v, want %v", tt.name, r, got, c)
			}
		}
		checkMapping(t, m)
	}
}

func TestRankOfEmptyAndOutside(t *testing.T) {
	m, err := MapXYZT(Torus{Dims: Dims{2, 2, 1}}, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c        Coord
		wantRank int
		wantOK   bool
	}{
		{Coord{0, 0, 0, 1}, 4, true},
		{Coord{1, 0, 0, 1}, 0, false}, // slot exists, no rank
		{Coord{2, 0, 0, 0}, 0, false},
		{Coord{0, -1, 0, 0}, 0, false},
		{Coord{0, 0, 1, 0}, 0, false},
		{Coord{0, 0, 0, 2}, 0, false},
		{Coord{0, 0, 0, -1}, 0, false},
	}
	for _, tt := range tests {
		r, ok := m.RankOf(tt.c)
		if ok != tt.wantOK || (ok && r != tt.wantRank) {
			t.Errorf("RankOf(%v) = %d, %v; want %d, %v", tt.c, r, ok, tt.wantRank, tt.wantOK)
		}
	}
}

func TestMapErrors(t *testing.T) {
	tests := []struct {
		tor            Torus
		ranks, perNode int
		want           string
	}{
		{Torus{Dims: Dims{4, 4, 4}}, 512, 1, "512 ranks do not fit a 4x4x4 torus with 1 rank per node (64 slots)"},
		{Torus{Dims: Dims{4, 4, 4}, Mesh: true}, 129, 2, "129 ranks do not fit a 4x4x4 mesh with 2 ranks per node (128 slots)"},
		{Torus{Dims: Dims{4, 4, 4}}, 0, 1, "0 ranks: want at least 1"},
		{Torus{Dims: Dims{4, 4, 4}}, 1, 0, "0 ranks per node: want 1 to 256"},
		{Torus{Dims: Dims{4, 0, 4}}, 1, 1, "torus 4x0x4: every dimension must be at least 1"},
		{Torus{Dims: Dims{1 << 30, 1 << 30, 1 << 30}}, 1, 1, "torus 1073741824x1073741824x1073741824: too many nodes (at most 16777216)"},
	}
	for _, tt := range tests {
		for i, mapf := range []func(Torus, int, int) (*Mapping, error){MapXYZT, MapTXYZ} {
			m, err := mapf(tt.tor, tt.ranks, tt.perNode)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Map%s(%v, %d, %d) = %v, %v; want error %q",
					[]string{"XYZT", "TXYZ"}[i], tt.tor, tt.ranks, tt.perNode, m, err, tt.want)
			}
		}
	}
}

func TestMapLargeMachine(t *testing.T) {
	// The full BG/L in virtual-node mode: 131,072 ranks on 64x32x32.
	tor := Torus{Dims: Dims{64, 32, 32}}
	for _, mapf := range []func(Torus, int, int) (*Mapping, error){MapXYZT, MapTXYZ} {
		m, err := mapf(tor, 131072, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkMapping(t, m)
	}
}
