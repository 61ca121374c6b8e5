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
	g.AfterWindow = w.EndWindow
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
	alg := func(coll, alg string) func(*World) error {
		return func(w *World) error { return w.SetAlgorithm(coll, alg) }
	}
	cases := []struct {
		name  string
		setup func(*World) error
		body  func(r *Rank)
		what  string
	}{
		{"torus bcast", alg("bcast", "torus"), func(r *Rank) { Bcast(r.World, Value{Data: 1.0, Size: 8}, 0) }, "bcast over the torus deposit-bit algorithm"},
		{"optimized alltoall", alg("alltoall", "optimized"), func(r *Rank) {
			vs := make([]Value, r.World.Size())
			for i := range vs {
				vs[i] = Value{Data: 1.0, Size: 8}
			}
			Alltoall(r.World, vs)
		}, "alltoall over the optimized torus algorithm"},
	}
	for _, tc := range cases {
		var first error
		for _, threads := range []int{1, 2} {
			_, err := runParted(tor, threads, tc.setup, tc.body)
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

// TestPartedTreeSameAsOnePartition: the hardware collectives, completed at
// the end of windows in partitions, give the values and times of a run in
// one partition (nothing crosses the torus, so the blocks change nothing),
// on every thread count; ranks that disagree get the same error.
func TestPartedTreeSameAsOnePartition(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 8, Z: 8}}
	cases := []struct {
		name string
		body func(r *Rank) string
	}{
		{"gi, tree", func(r *Rank) string {
			c := r.World
			r.Compute(int64(c.Rank()%7) * 700)
			if err := Barrier(c); err != nil {
				return err.Error()
			}
			s, err := Allreduce(c, Value{Data: float64(c.Rank()), Size: 8}, SUM)
			if err != nil {
				return err.Error()
			}
			r.Compute(int64(c.Rank()%3) * 700)
			b, err := Bcast(c, Value{Data: float64(c.Rank()), Size: 3000}, 77)
			if err != nil {
				return err.Error()
			}
			m, err := Reduce(c, Value{Data: []float64{float64(c.Rank()), -1}, Size: 16}, MAX, 5)
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("%v %v %v t=%d", s.Data, b.Data, m.Data, r.Now())
		}},
		{"disagree", func(r *Rank) string {
			root := 3
			if r.ID == 700 || r.ID == 900 {
				root = 4
			}
			_, err := Bcast(r.World, Value{Data: 1.0, Size: 8}, root)
			return fmt.Sprint(err) // the time differs: in partitions the error is known at the window's end
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(parted bool, threads int) []string {
				out := make([]string, tor.Nodes())
				body := func(r *Rank) { out[r.ID] = tc.body(r) }
				if parted {
					if _, err := runParted(tor, threads, nil, body); err != nil {
						t.Fatalf("%d threads: %v", threads, err)
					}
					return out
				}
				if _, err := runOn(hw.BGL(), tor, 1, tor.Nodes(), nil, body); err != nil {
					t.Fatal(err)
				}
				return out
			}
			want := run(false, 1)
			for _, threads := range []int{1, 2} {
				got := run(true, threads)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%d threads: rank %d got %q, one partition %q", threads, i, got[i], want[i])
					}
				}
			}
		})
	}
}
