package mpi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// runOn runs body on n ranks of machine m placed XYZT on tor with perNode
// ranks a node, after setup.
func runOn(m *hw.Machine, tor hw.Torus, perNode, n int, setup func(*World) error, body func(r *Rank)) (*World, error) {
	mp, err := hw.MapXYZT(tor, n, perNode)
	if err != nil {
		return nil, err
	}
	eng := runtime.New()
	w := NewWorld(msglayer.New(m, mp, eng), n)
	if setup != nil {
		if err := setup(w); err != nil {
			return nil, err
		}
	}
	for i := 0; i < n; i++ {
		eng.Spawn(i, 0, func(p *runtime.Proc) { body(w.Rank(p.ID)) })
		w.Attach(i, eng.Procs()[i])
	}
	return w, eng.Run(context.Background())
}

var fig5bMesh = hw.Torus{Dims: hw.Dims{X: 4, Y: 4, Z: 2}, Mesh: true}

// bcastTime broadcasts size bytes from root with alg and its parameters ps
// after a barrier and returns the time the last rank got them.
func bcastTime(t *testing.T, m *hw.Machine, tor hw.Torus, perNode, n, root, size int, alg string, ps ...Param) (Time, *World) {
	t.Helper()
	var start, end Time
	w, err := runOn(m, tor, perNode, n, withAlg("bcast", alg, ps...), func(r *Rank) {
		Barrier(r.World)
		start = r.Now()
		var v Value
		if r.ID == root {
			v = Value{Size: size}
		}
		got, err := Bcast(r.World, v, root)
		if err == nil && got.Size != size {
			err = fmt.Errorf("rank %d got %d bytes", r.ID, got.Size)
		}
		if err != nil {
			fail(r, err)
		}
		end = max(end, r.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	return end - start, w
}

func mbps(m *hw.Machine, size int, d Time) float64 { return float64(size) / m.Seconds(d) / 1e6 }

// The deposit-bit broadcast of [ML] Fig. 5b: on the 4x4x2 mesh it sends no
// point-to-point message, and large messages go at about two links' worth
// (the paper: "a bit less than two links", ~60% of 3 x 175 MB/s), because
// the CPUs, not the links, are the bottleneck: with cheap packet handling
// it goes nearly three times as fast as one link.
func TestBcastTorusBandwidth(t *testing.T) {
	const size = 1 << 20
	m := hw.BGL()
	d, w := bcastTime(t, m, fig5bMesh, 1, 32, 0, size, "torus")
	if w.Messages != 0 {
		t.Errorf("%d point-to-point messages, want none", w.Messages)
	}
	link := m.LinkBytesPerCycle * m.ClockHz / 1e6 // 175 MB/s
	got := mbps(m, size, d)
	if got < 1.5*link || got > 2*link {
		t.Errorf("1 MiB: %.1f MB/s, want between 1.5 and 2 links (%.0f..%.0f)", got, 1.5*link, 2*link)
	}
	fast := hw.BGL()
	fast.PacketOverheadCycles, fast.PacketReadCycles, fast.PacketWriteCycles, fast.CopyBytesPerCycle = 0, 20, 20, 100
	df, _ := bcastTime(t, fast, fig5bMesh, 1, 32, 0, size, "torus")
	net := 3 * link * float64(m.PayloadPerPacket()) / float64(m.PacketMax+m.WireOverhead)
	if f := mbps(fast, size, df); f < 0.9*net || f > net {
		t.Errorf("with fast CPUs 1 MiB goes at %.1f MB/s, want near the 3 links' %.1f", f, net)
	}
	// The collective network is faster still, the MPICH algorithms slower.
	dt, _ := bcastTime(t, m, fig5bMesh, 1, 32, 0, size, "tree")
	db, _ := bcastTime(t, m, fig5bMesh, 1, 32, 0, size, "scatter_allgather")
	if !(dt < d && d < db) {
		t.Errorf("1 MiB: tree %d, torus %d, scatter_allgather %d cycles; want tree < torus < scatter_allgather", dt, d, db)
	}
}

// Every root, torus and mesh, virtual-node mode: the data arrives and the
// time is sane (a small broadcast costs microseconds, not milliseconds).
func TestBcastTorusShapes(t *testing.T) {
	for _, tc := range []struct {
		tor     hw.Torus
		perNode int
		n       int
	}{
		{fig5bMesh, 1, 32},
		{hw.Torus{Dims: hw.Dims{X: 4, Y: 4, Z: 4}}, 1, 64},
		{hw.Torus{Dims: hw.Dims{X: 3, Y: 2, Z: 1}}, 2, 12},
		{hw.Torus{Dims: hw.Dims{X: 3, Y: 2, Z: 1}}, 2, 11}, // one node with one task
		{hw.Torus{Dims: hw.Dims{X: 5, Y: 1, Z: 1}, Mesh: true}, 1, 5},
	} {
		for _, root := range []int{0, tc.n/2 + 1, tc.n - 1} {
			name := fmt.Sprintf("%s %s %d ranks root %d", tc.tor.Dims, tc.tor.Kind(), tc.n, root)
			d, w := bcastTime(t, hw.BGL(), tc.tor, tc.perNode, tc.n, root, 1000, "torus")
			if len(w.Fallbacks()) != 0 {
				t.Errorf("%s: fell back: %v", name, w.Fallbacks())
			}
			if us := w.m.Seconds(d) * 1e6; us > 30 {
				t.Errorf("%s: 1000 bytes took %.1f us", name, us)
			}
		}
	}
}

// Where it cannot serve, it falls back with the reason.
func TestBcastTorusFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		tor  hw.Torus
		body func(r *Rank) *Comm
		why  string
	}{
		{"split", 8, hw.Torus{Dims: hw.Dims{X: 2, Y: 2, Z: 2}}, func(r *Rank) *Comm { return r.World.Split(r.ID%2, 0) }, "sub-communicator"},
		{"idle nodes", 7, hw.Torus{Dims: hw.Dims{X: 2, Y: 2, Z: 2}}, func(r *Rank) *Comm { return r.World }, "run no rank"},
	} {
		w, err := runOn(hw.BGL(), tc.tor, 1, tc.n, withAlg("bcast", "torus"), func(r *Rank) {
			c := tc.body(r)
			got, err := Bcast(c, str(strings.Repeat("b", 500)), 0)
			if err == nil && got.Size != 500 {
				err = fmt.Errorf("got %v", got)
			}
			if err != nil {
				fail(r, err)
			}
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fb := w.Fallbacks()
		if len(fb) != 1 || fb[0].Alg != "torus" || !strings.Contains(fb[0].Reason, tc.why) {
			t.Errorf("%s: fallbacks %v, want one for torus saying %q", tc.name, fb, tc.why)
		}
	}
}

// Ranks that come late: packets wait in their FIFOs, the others still get
// the data, and a node cannot be done before its rank entered.
func TestBcastTorusLateRanks(t *testing.T) {
	const late = 2_000_000
	var done [8]Time
	_, err := runOn(hw.BGL(), hw.Torus{Dims: hw.Dims{X: 2, Y: 2, Z: 2}}, 1, 8, withAlg("bcast", "torus"), func(r *Rank) {
		if r.ID == 5 || r.ID == 3 {
			r.Compute(late)
		}
		var v Value
		if r.ID == 3 {
			v = vec(3, 500)
		}
		got, err := Bcast(r.World, v, 3)
		if err == nil && !same(got, vec(3, 500)) {
			err = fmt.Errorf("rank %d got %v", r.ID, got)
		}
		if err != nil {
			fail(r, err)
		}
		done[r.ID] = r.Now()
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, d := range done {
		if d < late {
			t.Errorf("rank %d done at %d, before the root entered at %d", id, d, late)
		}
	}
}

// The broadcast's packets reserve the links, so traffic on them slows it.
func TestBcastTorusContends(t *testing.T) {
	const size = 256 << 10
	quiet, _ := bcastTime(t, hw.BGL(), fig5bMesh, 1, 32, 0, size, "torus")
	var start, end Time
	_, err := runOn(hw.BGL(), fig5bMesh, 1, 32, withAlg("bcast", "torus"), func(r *Rank) {
		Barrier(r.World)
		start = r.Now()
		// A stream from rank 0 to rank 3 along the x line of one route.
		if r.ID == 0 {
			r.World.CIsend(Value{Size: 4 * size}, 3, 99)
		}
		if r.ID == 3 {
			r.World.CIrecv(0, 99)
		}
		var v Value
		if r.ID == 0 {
			v = Value{Size: size}
		}
		if _, err := Bcast(r.World, v, 0); err != nil {
			fail(r, err)
		}
		end = max(end, r.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	if busy := end - start; busy <= quiet {
		t.Errorf("with traffic on its links the broadcast took %d cycles, alone %d", busy, quiet)
	}
}
