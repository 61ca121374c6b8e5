package msglayer

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// The data path's events of one cycle run in the order their tie keys give,
// not the order they were scheduled in: under any salt, which reorders
// events of equal tie keys at random, every completion time, count and
// link total is the same, on random traffic in blocks (every protocol,
// virtual-node mode, both routings, a coarse grain) and in every scenario.
func TestTieKeysDecideSameCycleOrder(t *testing.T) {
	defer runtime.SetTieSalt(runtime.SetTieSalt(0))
	cases := []struct {
		name    string
		dims    hw.Dims
		perNode int
		routing Routing
		grain   int
		seed    uint32
	}{
		{"co", hw.Dims{X: 16, Y: 4, Z: 4}, 1, PerProtocol, 1, 3},
		{"vn-adaptive", hw.Dims{X: 16, Y: 4, Z: 4}, 2, AdaptiveRouting, 1, 5},
		{"deterministic", hw.Dims{X: 16, Y: 4, Z: 4}, 1, Deterministic, 1, 7},
		{"grain4", hw.Dims{X: 16, Y: 4, Z: 4}, 1, PerProtocol, 4, 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runtime.SetTieSalt(0)
			want, _ := runParallel(t, c.dims, c.perNode, 1500, 1, c.routing, c.grain, c.seed)
			for _, salt := range []uint64{1, 0x9e3779b97f4a7c15, 12345} {
				runtime.SetTieSalt(salt)
				got, _ := runParallel(t, c.dims, c.perNode, 1500, 1, c.routing, c.grain, c.seed)
				if !slices.Equal(want, got) {
					for i := range want {
						if i >= len(got) || want[i] != got[i] {
							t.Fatalf("salt %#x: line %d is %q, want %q", salt, i, got[min(i, len(got)-1)], want[i])
						}
					}
					t.Fatalf("salt %#x: %d lines, want %d", salt, len(got), len(want))
				}
			}
		})
	}
	files, _ := filepath.Glob("testdata/*.scn")
	for _, path := range files {
		runtime.SetTieSalt(0)
		want := readScenario(t, path).play(t)
		runtime.SetTieSalt(0xdeadbeef)
		if got := readScenario(t, path).play(t); got != want {
			t.Errorf("%s: a salt changes the trace:\n%s", path, diffLines(want, got))
		}
	}
}
