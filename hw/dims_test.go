package hw

import (
	"fmt"
	"testing"
)

func TestParseDims(t *testing.T) {
	tests := []struct {
		in      string
		want    Dims
		wantErr string
	}{
		{in: "8x8x8", want: Dims{8, 8, 8}},
		{in: "64X32x32", want: Dims{64, 32, 32}},
		{in: "1x1x1", want: Dims{1, 1, 1}},
		{in: "34x34x36", want: Dims{34, 34, 36}},
		{in: "008x2x1", want: Dims{8, 2, 1}},
		{in: "8x8", wantErr: `torus "8x8": want XxYxZ with three positive integers`},
		{in: "", wantErr: `torus "": want XxYxZ with three positive integers`},
		{in: "8x8x8x8", wantErr: `torus "8x8x8x8": want XxYxZ with three positive integers`},
		{in: "8,8,8", wantErr: `torus "8,8,8": want XxYxZ with three positive integers`},
		{in: "0x8x8", wantErr: `torus "0x8x8": want XxYxZ with three positive integers`},
		{in: "-1x8x8", wantErr: `torus "-1x8x8": want XxYxZ with three positive integers`},
		{in: "+1x8x8", wantErr: `torus "+1x8x8": want XxYxZ with three positive integers`},
		{in: "8xx8", wantErr: `torus "8xx8": want XxYxZ with three positive integers`},
		{in: " 8x8x8", wantErr: `torus " 8x8x8": want XxYxZ with three positive integers`},
		{in: "axbxc", wantErr: `torus "axbxc": want XxYxZ with three positive integers`},
		{in: "1024x1024x1024", wantErr: `torus "1024x1024x1024": too many nodes (at most 16777216)`},
		{in: "99999999999999999999x1x1", wantErr: `torus "99999999999999999999x1x1": too many nodes (at most 16777216)`},
		{in: "16777216x1x1", want: Dims{1 << 24, 1, 1}},
	}
	for _, tt := range tests {
		got, err := ParseDims(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseDims(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDims(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if err == nil && got.String() != fmt.Sprintf("%dx%dx%d", tt.want.X, tt.want.Y, tt.want.Z) {
			t.Errorf("String() = %q", got.String())
		}
	}
}

func TestDefaultDims(t *testing.T) {
	tests := []struct {
		n    int
		want Dims
	}{
		{0, Dims{1, 1, 1}},
		{1, Dims{1, 1, 1}},
		{2, Dims{2, 1, 1}},
		{5, Dims{2, 2, 2}}, // 5x1x1 is a line; X=2 is minimal
		{6, Dims{3, 2, 1}},
		{7, Dims{2, 2, 2}},
		{11, Dims{3, 2, 2}}, // prime: smallest X, then 12 nodes rather than 18
		{32, Dims{4, 4, 2}}, // the 4x4x2 mesh of [ML] Fig. 5b
		{100, Dims{5, 5, 4}},
		{512, Dims{8, 8, 8}},
		{4096, Dims{16, 16, 16}},
		{65536, Dims{64, 32, 32}},
		{131072, Dims{64, 64, 32}},
		{41616, Dims{36, 34, 34}}, // the emulator paper's design, reordered X >= Y >= Z
		{1 << 20, Dims{128, 128, 64}},
		{1<<20 - 3, Dims{102, 102, 101}}, // no near-cube factorization
	}
	for _, tt := range tests {
		if got := DefaultDims(tt.n); got != tt.want {
			t.Errorf("DefaultDims(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// TestDefaultDimsProperties checks the rule itself against a brute force search
// for every n up to 5000.
func TestDefaultDimsProperties(t *testing.T) {
	for n := 1; n <= 5000; n++ {
		d := DefaultDims(n)
		if d.Nodes() < n || d.X < d.Y || d.Y < d.Z || d.Z < 1 {
			t.Fatalf("DefaultDims(%d) = %v: want X >= Y >= Z >= 1 holding %d nodes", n, d, n)
		}
		if want := bruteDefaultDims(n); d != want {
			t.Fatalf("DefaultDims(%d) = %v, brute force says %v", n, d, want)
		}
	}
}

// bruteDefaultDims states the rule of DefaultDims as plainly as possible.
func bruteDefaultDims(n int) Dims {
	c := 1
	for c*c*c < n {
		c++
	}
	for x := 1; x <= n; x++ { // exact factorizations, smallest X then Y
		if n%x != 0 {
			continue
		}
		for y := 1; y <= x; y++ {
			if z := n / x / y; z >= 1 && z <= y && x*y*z == n {
				if x > 2*c {
					goto cover
				}
				return Dims{x, y, z}
			}
		}
	}
cover:
	best := Dims{}
	for x := 1; x <= n && best == (Dims{}); x++ { // smallest X, then product, then Y
		for y := 1; y <= x; y++ {
			for z := 1; z <= y; z++ {
				d := Dims{x, y, z}
				if d.Nodes() >= n && (best == (Dims{}) || d.Nodes() < best.Nodes()) {
					best = d
				}
			}
		}
	}
	return best
}

func BenchmarkDefaultDims(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		DefaultDims(1<<20 - i%1000)
	}
}
