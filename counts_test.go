package bglua

import (
	"context"
	"io"
	"testing"
)

// A run's Result counts what moved on each network: MPI's messages, the
// active messages, and the operations of the collective and global
// interrupt networks, so that a program whose traffic is tree collectives
// or active messages is not reported as "0 messages".
func TestResultCounts(t *testing.T) {
	cases := []struct {
		name, src string
		coll      map[string]string
		runtime   string
		want      [5]int64 // Messages, ActiveMessages, TreeOps, GIOps, BCSCollectives
	}{
		{"point to point", `if mpi.rank() == 0 then mpi.send(1, 1); mpi.send(2, 1) elseif mpi.rank() == 1 then mpi.recv(0); mpi.recv(0) end`,
			nil, "", [5]int64{2, 0, 0, 0, 0}},
		{"active messages", `
			local got = 0
			ml.register("h", function() got = got + 1 end)
			ml.send((mpi.rank() + 1) % mpi.size(), "h", 1)
			ml.wait(function() return got == 1 end)`,
			nil, "", [5]int64{0, 4, 0, 0, 0}},
		{"deposit", `
			local got = 0
			ml.register("h", function() got = got + 1 end)
			if mpi.rank() == 0 then ml.deposit("x", 1, "h", 1) else ml.wait(function() return got == 1 end) end`,
			nil, "", [5]int64{0, 1, 0, 0, 0}},
		{"tree and global interrupt", `ml.tree_bcast(1, 0); ml.tree_reduce(1, mpi.SUM); ml.gi_barrier(); ml.gi_barrier()`,
			nil, "", [5]int64{0, 0, 2, 2, 0}},
		{"allreduce on the tree", `mpi.allreduce(mpi.rank())`, map[string]string{"allreduce": "tree"}, "", [5]int64{0, 0, 1, 0, 0}},
		{"bcs collectives", `mpi.barrier(); mpi.allreduce(1); if mpi.rank() == 0 then mpi.send(1, 1) elseif mpi.rank() == 1 then mpi.recv(0) end`,
			nil, "bcs", [5]int64{1, 0, 0, 0, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(context.Background(), Config{Ranks: 4, Torus: "4x1x1", Coll: c.coll, Runtime: c.runtime, Stdout: io.Discard},
				Program{Name: "counts.lua", Code: []byte(c.src)})
			if err != nil {
				t.Fatal(err)
			}
			got := [5]int64{res.Messages, res.ActiveMessages, res.TreeOps, res.GIOps, res.BCSCollectives}
			if got != c.want {
				t.Errorf("messages, active, tree, gi, bcs = %v, want %v", got, c.want)
			}
		})
	}
}
