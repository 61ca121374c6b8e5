package mpi

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
)

// bisectionShare runs an alltoall of size bytes per pair on every node of
// tor and returns its time as a share of the bisection bound: (n/2)^2 size
// bytes cross the cut through the middle of the longest dimension, over 2
// links per ring each way, at the payload rate of full packets.
func bisectionShare(t *testing.T, tor hw.Torus, size int, alg string, routing msglayer.Routing) float64 {
	t.Helper()
	n := tor.Nodes()
	var start, end Time
	w, err := runOn(hw.BGL(), tor, 1, n, func(w *World) error {
		w.ml.Routing = routing
		return w.SetAlgorithm("alltoall", alg)
	}, func(r *Rank) {
		vs := make([]Value, n)
		for i := range vs {
			vs[i] = Value{Size: size}
		}
		Barrier(r.World)
		start = r.Now()
		if _, err := Alltoall(r.World, vs); err != nil {
			fail(r, err)
		}
		end = max(end, r.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	m := w.m
	links := float64(n / max(tor.X, tor.Y, tor.Z) * 2)
	rate := float64(m.PayloadPerPacket()) / float64(m.SerializeCycles(m.PacketMax))
	bound := float64(n/2) * float64(n/2) * float64(size) / (links * rate)
	return bound / float64(end-start)
}

// [ML] Fig. 6: injecting packets in a random order, adaptively routed, the
// alltoall runs near the bisection bandwidth on the paper's 8x8x8 (at 1
// KiB, where the figure's curve is at 94%: larger values take minutes
// here); MPICH's pairwise exchange stays far below it. Deterministic
// routing loses some, not most. (On 8x4x4 the adaptive alltoall reaches
// 86% at 2,400 bytes: docs/model.md.)
func TestAlltoallOptimizedBisection(t *testing.T) {
	if got := bisectionShare(t, hw.Torus{Dims: hw.Dims{X: 8, Y: 8, Z: 8}}, 1024, "optimized", msglayer.PerProtocol); got < 0.9 || got > 1 {
		t.Errorf("optimized: %.1f%% of the bisection bandwidth, want 90-100%%", 100*got)
	}
	tor := hw.Torus{Dims: hw.Dims{X: 8, Y: 4, Z: 4}}
	if got := bisectionShare(t, tor, 2400, "optimized", msglayer.Deterministic); got < 0.7 || got > 1 {
		t.Errorf("optimized, deterministic routing: %.1f%% of the bisection bandwidth, want 70-100%%", 100*got)
	}
	if got := bisectionShare(t, tor, 2400, "pairwise", msglayer.PerProtocol); got > 0.4 {
		t.Errorf("pairwise: %.1f%% of the bisection bandwidth, want at most 40%%", 100*got)
	}
}

// Values of every size, ranks of one node (virtual-node mode, copies),
// ranks that come late, and phantoms: every rank gets what was meant for it.
func TestAlltoallOptimizedValues(t *testing.T) {
	for _, tc := range []struct {
		tor     hw.Torus
		perNode int
		n       int
	}{
		{hw.Torus{Dims: hw.Dims{X: 3, Y: 2, Z: 1}}, 2, 11},
		{hw.Torus{Dims: hw.Dims{X: 2, Y: 2, Z: 2}, Mesh: true}, 1, 8},
	} {
		w, err := runOn(hw.BGL(), tc.tor, tc.perNode, tc.n, withAlg("alltoall", "optimized"), func(r *Rank) {
			me := r.ID
			mk := func(s, d int) Value {
				if (s+d)%3 == 0 {
					return Value{Size: 1000 * (s + 2*d)} // phantom
				}
				return str(fmt.Sprintf("%d->%d:%0*d", s, d, 7*s*d, 0))
			}
			vs := make([]Value, tc.n)
			want := make([]Value, tc.n)
			for d := range vs {
				vs[d], want[d] = mk(me, d), mk(d, me)
			}
			if me%4 == 1 {
				r.Compute(int64(me) * 50000)
			}
			got, err := Alltoall(r.World, vs)
			if err != nil {
				fail(r, err)
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s rank %d: got %.80v, want %.80v", tc.tor.Dims, me, got, want)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if w.Messages != 0 {
			t.Errorf("%s: %d point-to-point messages, want none", tc.tor.Dims, w.Messages)
		}
	}
}

// Same program, same result: the packet-level algorithms keep the engine's
// order (no map order, no goroutine timing in their events).
func TestPacketAlgorithmsDeterminism(t *testing.T) {
	var ends []string
	for i := 0; i < 2; i++ {
		w, err := tryRanksWith(64, func(w *World) error {
			if err := w.SetAlgorithm("bcast", "torus"); err != nil {
				return err
			}
			return w.SetAlgorithm("alltoall", "optimized")
		}, func(r *Rank) {
			g := make([]int, r.World.Size())
			for i := range g {
				g[i] = i
			}
			for _, coll := range []string{"bcast", "alltoall"} {
				if err := collCases[coll](r.World, g, r.ID, func(string, ...any) {}); err != nil {
					fail(r, err)
					return
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, fmt.Sprintf("t=%d bytes=%d events=%d packets=%d", w.Eng.Now(), w.Bytes, w.Eng.Events(), packets(w)))
	}
	if ends[0] != ends[1] {
		t.Errorf("two runs differ: %s vs %s", ends[0], ends[1])
	}
}

// packets is how many packets crossed w's torus.
func packets(w *World) int64 {
	p, _, _ := w.ml.NetTotals()
	return p
}
