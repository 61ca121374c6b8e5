package mpi

import (
	"reflect"
	"testing"
)

// Every call records the algorithm in force and the one that ran, per
// collective and family of communicators; every rank knows the last one.
func TestAlgorithmsRecorded(t *testing.T) {
	half := func(r *Rank) *Comm { return r.World.Split(r.ID%2, r.ID) }
	big := Value{Data: Phantom{N: 64 << 10}, Size: 64 << 10}
	for _, c := range []struct {
		name string
		n    int
		coll map[string]string
		body func(r *Rank) (*Comm, error)
		want []AlgorithmUse
		last [2]string // collective, the last algorithm rank 0 ran on its comm
	}{
		{"auto takes the tree on the whole job", 8, nil,
			func(r *Rank) (*Comm, error) { _, err := Allreduce(r.World, num(r.ID), SUM); return r.World, err },
			[]AlgorithmUse{{"allreduce", "COMM_WORLD", 1, "auto", "tree", "", 1}},
			[2]string{"allreduce", "tree"}},
		{"auto on halves: point to point, the halves counted together", 8, nil,
			func(r *Rank) (*Comm, error) {
				c := half(r)
				_, err := Allreduce(c, big, SUM)
				if err == nil {
					_, err = Allreduce(c, num(r.ID), SUM)
				}
				return c, err
			},
			[]AlgorithmUse{
				{"allreduce", "COMM_WORLD.split0", 2, "auto", "recursive_doubling", "", 2},
				{"allreduce", "COMM_WORLD.split0", 2, "auto", "ring", "", 2},
			},
			[2]string{"allreduce", "recursive_doubling"}},
		{"the tree falls back on a half and says why", 8, map[string]string{"allreduce": "tree"},
			func(r *Rank) (*Comm, error) { c := half(r); _, err := Allreduce(c, num(r.ID), SUM); return c, err },
			[]AlgorithmUse{{"allreduce", "COMM_WORLD.split0", 2, "tree", "recursive_doubling", reasonSubComm, 2}},
			[2]string{"allreduce", "recursive_doubling"}},
		{"an algorithm made of others is what ran", 8, map[string]string{"allreduce": "reduce_bcast"},
			func(r *Rank) (*Comm, error) { _, err := Allreduce(r.World, big, SUM); return r.World, err },
			[]AlgorithmUse{{"allreduce", "COMM_WORLD", 1, "reduce_bcast", "reduce_bcast", "", 1}},
			[2]string{"allreduce", "reduce_bcast"}},
		{"a part of an algorithm falls back: the call says so", 8, map[string]string{"allreduce": "reduce_bcast", "reduce": "tree"},
			func(r *Rank) (*Comm, error) { c := half(r); _, err := Allreduce(c, num(r.ID), SUM); return c, err },
			[]AlgorithmUse{{"allreduce", "COMM_WORLD.split0", 2, "reduce_bcast", "reduce_bcast", "its reduce=tree fell back: " + reasonSubComm, 2}},
			[2]string{"allreduce", "reduce_bcast"}},
		{"auto bcast: scatter_recursive_doubling for a medium value on 8 ranks", 16, nil,
			func(r *Rank) (*Comm, error) { c := half(r); _, err := Bcast(c, big, 3); return c, err },
			[]AlgorithmUse{{"bcast", "COMM_WORLD.split0", 2, "auto", "scatter_recursive_doubling", "", 2}},
			[2]string{"bcast", "scatter_recursive_doubling"}},
		{"auto bcast: scatter_allgather (ring) for a long value on 8 ranks", 16, nil,
			func(r *Rank) (*Comm, error) {
				c := half(r)
				_, err := Bcast(c, Value{Data: Phantom{N: 512 << 10}, Size: 512 << 10}, 3)
				return c, err
			},
			[]AlgorithmUse{{"bcast", "COMM_WORLD.split0", 2, "auto", "scatter_allgather", "", 2}},
			[2]string{"bcast", "scatter_allgather"}},
		{"mpich bcast names what MPICH's rule picked", 16, map[string]string{"bcast": "mpich"},
			func(r *Rank) (*Comm, error) { _, err := Bcast(r.World, big, 3); return r.World, err },
			[]AlgorithmUse{{"bcast", "COMM_WORLD", 1, "mpich", "scatter_recursive_doubling", "", 1}},
			[2]string{"bcast", "scatter_recursive_doubling"}},
		{"auto bcast: scatter_allgather (ring) for a medium value on 12 ranks", 24, nil,
			func(r *Rank) (*Comm, error) { c := half(r); _, err := Bcast(c, big, 3); return c, err },
			[]AlgorithmUse{{"bcast", "COMM_WORLD.split0", 2, "auto", "scatter_allgather", "", 2}},
			[2]string{"bcast", "scatter_allgather"}},
		{"fixed defaults and a barrier inside dup", 4, nil,
			func(r *Rank) (*Comm, error) {
				d, err := r.World.Dup()
				if err == nil {
					_, err = Gather(d, num(r.ID), 0)
				}
				return d, err
			},
			[]AlgorithmUse{
				{"barrier", "COMM_WORLD", 1, "auto", "gi", "", 1},
				{"gather", "COMM_WORLD.dup0", 1, "auto", "binomial", "", 1},
			},
			[2]string{"gather", "binomial"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var last string
			w, err := tryRanksWith(c.n, func(w *World) error {
				for coll, alg := range c.coll {
					if err := w.SetAlgorithm(coll, alg); err != nil {
						return err
					}
				}
				return nil
			}, func(r *Rank) {
				comm, err := c.body(r)
				if err != nil {
					fail(r, err)
					return
				}
				if r.ID == 0 {
					last = comm.LastAlgorithm(c.last[0])
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := w.Algorithms(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("algorithms:\n got %+v\nwant %+v", got, c.want)
			}
			if last != c.last[1] {
				t.Errorf("rank 0's last %s: %q, want %q", c.last[0], last, c.last[1])
			}
		})
	}
}
