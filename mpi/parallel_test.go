package mpi

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// runParted runs body on every rank of tor (one per node) in partitions,
// one per block, on threads OS threads.
func runParted(tor hw.Torus, threads int, setup func(*World) error, body func(r *Rank)) (*World, error) {
	n := tor.Nodes()
	mp, err := hw.MapXYZT(tor, n, 1)
	if err != nil {
		return nil, err
	}
	m := hw.BGL()
	blocks := hw.DefaultBlocks(tor)
	g := runtime.NewGroup(blocks.N(), m.HopCycles)
	ml := msglayer.New(m, mp, g.Part(0))
	ml.SetPartitions(g, blocks)
	w := NewWorld(ml, n)
	if setup != nil {
		if err := setup(w); err != nil {
			return nil, err
		}
	}
	for i := range n {
		p := g.Part(blocks.Of(mp.Node(i))).Spawn(i, 0, func(p *runtime.Proc) { body(w.Rank(p.ID)) })
		w.Attach(i, p)
	}
	return w, g.Run(context.Background(), threads)
}

// TestPartedSameForEveryThreadCount: point-to-point traffic across the
// blocks, a dup and point-to-point collectives on it give the same values,
// times and counts on 1, 2 and 3 threads, and the right sum.
func TestPartedSameForEveryThreadCount(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 8, Z: 8}} // two blocks
	run := func(threads int) ([]string, *World) {
		out := make([]string, tor.Nodes())
		body := func(r *Rank) {
			c := r.World
			n, me := c.Size(), c.Rank()
			v, _, err := c.Sendrecv(Value{Data: float64(me), Size: 2000 + me%7*1000}, (me+1)%n, 1, (me+n-1)%n, 1)
			if err != nil {
				out[r.ID] = err.Error()
				return
			}
			d, err := c.Dup()
			if err != nil {
				out[r.ID] = err.Error()
				return
			}
			s, err := Allreduce(d, Value{Data: v.Data.(float64), Size: 8}, SUM)
			if err != nil {
				out[r.ID] = err.Error()
				return
			}
			if err := Barrier(d); err != nil {
				out[r.ID] = err.Error()
				return
			}
			out[r.ID] = fmt.Sprintf("%v t=%d", s.Data, r.Now())
		}
		w, err := runParted(tor, threads, noHardware, body)
		if err != nil {
			t.Fatalf("%d threads: %v", threads, err)
		}
		return out, w
	}
	want, w1 := run(1)
	if !w1.Parted() {
		t.Fatal("a torus of two blocks runs in one partition")
	}
	for _, threads := range []int{2, 3} {
		got, w := run(threads)
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%d threads: rank %d got %q, 1 thread %q", threads, i, got[i], want[i])
				break
			}
		}
		if w.TotalMessages() != w1.TotalMessages() || w.TotalBytes() != w1.TotalBytes() {
			t.Errorf("%d threads: %d messages %d bytes, 1 thread %d %d", threads, w.TotalMessages(), w.TotalBytes(), w1.TotalMessages(), w1.TotalBytes())
		}
	}
	sum := float64(tor.Nodes()*(tor.Nodes()-1)) / 2
	if want[0][:len(fmt.Sprint(sum))] != fmt.Sprint(sum) {
		t.Errorf("rank 0: %q, want the sum %v", want[0], sum)
	}
	if w1.TotalMessages() == w1.Messages {
		t.Errorf("every message counted on partition 0 (%d)", w1.Messages)
	}
}

// TestPartedNeedsOnePartition: what only a run of one partition models stops
// a run in partitions with a *OnePartitionError, the same on every thread
// count.
func TestPartedNeedsOnePartition(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 8, Z: 8}}
	cases := []struct {
		name string
		body func(r *Rank)
		what string
	}{
		{"tree allreduce", func(r *Rank) { Allreduce(r.World, Value{Data: 1.0, Size: 8}, SUM) }, "allreduce over the collective network"},
		{"split", func(r *Rank) { r.World.Split(r.ID%2, 0) }, "comm_split"},
	}
	for _, tc := range cases {
		var first error
		for _, threads := range []int{1, 2} {
			_, err := runParted(tor, threads, nil, tc.body)
			var one *OnePartitionError
			if !errors.As(err, &one) {
				t.Fatalf("%s, %d threads: error %v, want a *OnePartitionError", tc.name, threads, err)
			}
			if one.What != tc.what {
				t.Errorf("%s: stopped at %q, want %q", tc.name, one.What, tc.what)
			}
			if first == nil {
				first = err
			} else if err.Error() != first.Error() {
				t.Errorf("%s: %d threads: %v, 1 thread: %v", tc.name, threads, err, first)
			}
		}
	}
}
