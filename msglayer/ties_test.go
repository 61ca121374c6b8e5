package msglayer

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// The data path's events of one cycle run in the order their tie keys and
// full ties give, not the order they were scheduled in: under a salt, which
// puts keyed events into the queue in another order (those of equal tie
// keys shuffled), every completion time, count and link total is the same,
// on random traffic in blocks (every protocol, virtual-node mode, both
// routings, a coarse grain; seeds 1 to 24 each, as ties of equal keys are
// rare: two batches of one message 16 packets apart, or hashes that
// collide) and in every scenario.
func TestTieKeysDecideSameCycleOrder(t *testing.T) {
	defer runtime.SetTieSalt(runtime.SetTieSalt(0))
	cases := []struct {
		name    string
		dims    hw.Dims
		perNode int
		routing Routing
		grain   int
	}{
		{"co", hw.Dims{X: 16, Y: 4, Z: 4}, 1, PerProtocol, 1},
		{"vn-adaptive", hw.Dims{X: 16, Y: 4, Z: 4}, 2, AdaptiveRouting, 1},
		{"deterministic", hw.Dims{X: 16, Y: 4, Z: 4}, 1, Deterministic, 1},
		{"grain4", hw.Dims{X: 16, Y: 4, Z: 4}, 1, PerProtocol, 4},
	}
	for _, c := range cases {
		for seed := uint32(1); seed <= 24; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) {
				runtime.SetTieSalt(0)
				want, _ := runParallel(t, c.dims, c.perNode, 1500, 1, c.routing, c.grain, seed)
				salt := []uint64{1, 0x9e3779b97f4a7c15, 12345}[seed%3]
				runtime.SetTieSalt(salt)
				got, _ := runParallel(t, c.dims, c.perNode, 1500, 1, c.routing, c.grain, seed)
				if !slices.Equal(want, got) {
					for i := range want {
						if i >= len(got) || want[i] != got[i] {
							t.Fatalf("salt %#x: line %d is %q, want %q", salt, i, got[min(i, len(got)-1)], want[i])
						}
					}
					t.Fatalf("salt %#x: %d lines, want %d", salt, len(got), len(want))
				}
			})
		}
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
