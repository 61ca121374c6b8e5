package mpi

import (
	"reflect"
	"strings"
	"testing"
)

func TestDimsCreate(t *testing.T) {
	for _, tc := range []struct {
		n    int
		dims []int
		want []int
		err  string
	}{
		{12, []int{0, 0}, []int{4, 3}, ""},
		{16, []int{0, 0, 0}, []int{4, 2, 2}, ""},
		{64, []int{0, 0, 0}, []int{4, 4, 4}, ""},
		{72, []int{0, 0, 0}, []int{6, 4, 3}, ""},
		{7, []int{0, 0}, []int{7, 1}, ""},
		{1, []int{0, 0, 0}, []int{1, 1, 1}, ""},
		{12, []int{0, 3}, []int{4, 3}, ""},
		{12, []int{2, 0, 0}, []int{2, 3, 2}, ""},
		{12, []int{4, 3}, []int{4, 3}, ""},
		{12, []int{5, 0}, nil, "dims {5, 0}: 12 ranks do not divide by 5, the product of the extents given"},
		{12, []int{4, 4}, nil, "dims {4, 4} make 16 ranks, not 12"},
		{12, []int{1 << 40, 1 << 40}, nil, "dims {1099511627776, 1099511627776} make too many ranks, not 12"},
		{12, []int{-1, 0}, nil, "extent -1 of dimension 0 is negative"},
		{0, []int{0}, nil, "cannot lay out 0 ranks"},
	} {
		got, err := DimsCreate(tc.n, tc.dims)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("DimsCreate(%d, %v): got %v, %v; want error %q", tc.n, tc.dims, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", tc.n, tc.dims, got, err, tc.want)
		}
	}
}

func TestCartCoords(t *testing.T) {
	g, err := NewCart(24, []int{4, 3, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Row-major, the last dimension fastest, as MPI.
	for _, tc := range []struct {
		rank   int
		coords []int
	}{{0, []int{0, 0, 0}}, {1, []int{0, 0, 1}}, {2, []int{0, 1, 0}}, {6, []int{1, 0, 0}}, {23, []int{3, 2, 1}}} {
		if c, err := g.Coords(tc.rank); err != nil || !reflect.DeepEqual(c, tc.coords) {
			t.Errorf("Coords(%d) = %v, %v; want %v", tc.rank, c, err, tc.coords)
		}
	}
	for r := 0; r < 24; r++ {
		c, _ := g.Coords(r)
		if back, err := g.Rank(c); err != nil || back != r {
			t.Errorf("Rank(Coords(%d) = %v) = %d, %v", r, c, back, err)
		}
	}
	if _, err := g.Coords(24); err == nil || err.Error() != "rank 24 out of range 0..23" {
		t.Errorf("Coords(24): %v", err)
	}
}

func TestCartRankAndShift(t *testing.T) {
	g, err := NewCart(12, []int{4, 3}, []bool{true, false}) // rows wrap, columns do not
	if err != nil {
		t.Fatal(err)
	}
	if g.String() != "4x3 (periodic, open)" {
		t.Errorf("String() = %q", g.String())
	}
	for _, tc := range []struct {
		coords []int
		rank   int
		err    string
	}{
		{[]int{1, 2}, 5, ""},
		{[]int{-1, 0}, 9, ""}, // wraps
		{[]int{9, 1}, 4, ""},
		{[]int{0, 3}, 0, "coordinate 3 of dimension 1 out of range 0..2 (not periodic)"},
		{[]int{0, -1}, 0, "coordinate -1 of dimension 1 out of range 0..2 (not periodic)"},
		{[]int{0}, 0, "1 coordinates for 2 dimensions"},
	} {
		r, err := g.Rank(tc.coords)
		if tc.err != "" && (err == nil || err.Error() != tc.err) || tc.err == "" && (err != nil || r != tc.rank) {
			t.Errorf("Rank(%v) = %d, %v; want %d, %q", tc.coords, r, err, tc.rank, tc.err)
		}
	}
	for _, tc := range []struct {
		rank, dim, disp int
		src, dst        int
	}{
		{0, 0, 1, 9, 3},
		{0, 0, 5, 9, 3},
		{0, 0, -1, 3, 9},
		{0, 1, 1, ProcNull, 1},
		{0, 1, -1, 1, ProcNull},
		{5, 1, 1, 4, ProcNull},
		{5, 1, 2, 3, ProcNull},
		{4, 1, 0, 4, 4},
		{4, 1, 3, ProcNull, ProcNull},
	} {
		src, dst, err := g.Shift(tc.rank, tc.dim, tc.disp)
		if err != nil || src != tc.src || dst != tc.dst {
			t.Errorf("Shift(rank %d, dim %d, disp %d) = %d, %d, %v; want %d, %d", tc.rank, tc.dim, tc.disp, src, dst, err, tc.src, tc.dst)
		}
	}
	if _, _, err := g.Shift(0, 2, 1); err == nil || err.Error() != "dimension 2 out of range 0..1" {
		t.Errorf("Shift along dimension 2: %v", err)
	}
	for _, tc := range []struct {
		dims    []int
		periods []bool
		err     string
	}{
		{nil, nil, "need at least one dimension"},
		{[]int{12}, []bool{true, true}, "2 periods for 1 dimensions"},
	} {
		if _, err := NewCart(12, tc.dims, tc.periods); err == nil || err.Error() != tc.err {
			t.Errorf("NewCart(12, %v, %v): %v, want %q", tc.dims, tc.periods, err, tc.err)
		}
	}
}

// TestCartCreate runs a shift exchange on a cartesian communicator over a
// split, and checks a bad call fails alike on every rank.
func TestCartCreate(t *testing.T) {
	const n = 12
	_, err := tryRanks(n, func(r *Rank) {
		if _, _, err := CartCreate(r.World, []int{4, 4}, nil); err == nil || err.Error() != "dims {4, 4} make 16 ranks, but COMM_WORLD has 12" {
			t.Errorf("rank %d: bad dims: %v", r.ID, err)
		}
		sub := r.World.Split(r.ID%2, r.ID) // 6 ranks each
		c, g, err := CartCreate(sub, []int{0, 2}, []bool{true})
		if err != nil {
			t.Error(err)
			return
		}
		if want := sub.Name + ".dup0.cart(3x2)"; c.Name != want || c.Size() != 6 || c.Rank() != sub.Rank() {
			t.Errorf("rank %d: cart %q %d of %d, want %q", r.ID, c.Name, c.Rank(), c.Size(), want)
		}
		src, dst, _ := g.Shift(c.Rank(), 0, 1)
		got, _, err := c.Sendrecv(num(c.Rank()), dst, 0, src, 0)
		if err != nil || !same(got, num(src)) {
			t.Errorf("rank %d: shift exchange got %v, %v; want %v", r.ID, got, err, num(src))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
