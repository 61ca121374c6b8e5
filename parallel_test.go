package bglua

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// collProg runs point-to-point collectives (the algorithms chosen in
// TestThreadsSameOutput) and prints their results.
const collProg = `
local n, me = mpi.size(), mpi.rank()
mpi.barrier()
local s = mpi.allreduce(me, mpi.SUM)
local b = mpi.bcast(me == 3 and "from 3" or nil, 3)
local v = mpi.reduce(me * 2, mpi.MAX, 1)
if me % 512 == 1 then print(string.format("sum %d bcast %s reduce %s t %.9e", s, b, tostring(v), mpi.wtime())) end
`

// errProg prints, then one rank of the last block fails while the others
// wait for a message that never comes, or (with arg "deadlock") every rank
// waits, or (with arg "limit") they send around a ring until the limit.
const errProg = `
local n, me = mpi.size(), mpi.rank()
print("start")
mpi.sendrecv(me, (me + 1) % n, (me - 1) % n)
print("after one exchange")
if arg[1] == "deadlock" then
  mpi.recv((me + 1) % n, 7)
elseif arg[1] == "limit" then
  while true do mpi.sendrecv(me, (me + 1) % n, (me - 1) % n) end
elseif me == n - 5 then
  error("rank " .. me .. " gives up")
else
  mpi.recv((me + 1) % n, 7)
end
`

// TestThreadsSameOutput: programs on a torus of four blocks print the same
// output, statistics and trace on 1, 2 and 3 threads; those that keep to
// what the partitions model run in four partitions, the others run again in
// one and say why.
func TestThreadsSameOutput(t *testing.T) {
	file := func(name string) Program {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return Program{Name: filepath.Base(name), Code: b, Dir: filepath.Dir(name)}
	}
	cases := []struct {
		name  string
		prog  Program
		args  []string
		coll  map[string]string
		trace bool
		parts int
	}{
		{"hello", file("scripts/hello.lua"), nil, nil, false, 1},
		{"hello traced", file("scripts/hello.lua"), nil, nil, true, 1},
		{"ring", file("scripts/ring.lua"), nil, nil, false, 4},
		{"pingpong", file("scripts/pingpong.lua"), nil, nil, false, 4},
		{"halo3d", file("bench/workloads/halo3d.lua"), []string{"3", "8192", "16", "16", "8"}, nil, false, 4},
		{"halo3d traced", file("bench/workloads/halo3d.lua"), []string{"1", "1000", "16", "16", "8"}, nil, true, 4},
		{"collectives traced", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}, true, 4},
		{"collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}, false, 4},
		{"collectives on the tree", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, nil, false, 1},
		{"error", Program{Name: "err.lua", Code: []byte(errProg)}, nil, nil, false, 4},
		{"deadlock", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"deadlock"}, nil, false, 4},
		{"limit", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"limit"}, nil, false, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first string
			for _, threads := range []int{1, 2, 3} {
				var out, trace bytes.Buffer
				cfg := Config{Ranks: 2048, Torus: "16x16x8", Threads: threads, Stats: true, Args: tc.args, Coll: tc.coll, Stdout: &out}
				if tc.name == "limit" {
					cfg.MaxVTime = 1e-3
				}
				if tc.trace {
					cfg.Trace = &trace
				}
				res, err := Run(context.Background(), cfg, tc.prog)
				if res == nil {
					t.Fatalf("%d threads: %v", threads, err)
				}
				if (err != nil) != (tc.name == "error" || tc.name == "deadlock" || tc.name == "limit") {
					t.Errorf("%d threads: error %v", threads, err)
				}
				if res.Partitions != tc.parts {
					t.Errorf("%d threads: %d partitions (%s), want %d", threads, res.Partitions, res.OnePartition, tc.parts)
				}
				if tc.parts == 1 && res.OnePartition == "" {
					t.Errorf("%d threads: one partition, and no reason given", threads)
				}
				res.HostSeconds = 0
				if tc.trace && (!bytes.HasPrefix(trace.Bytes(), []byte("[\n")) || bytes.Count(trace.Bytes(), []byte("\n]\n")) != 1) {
					t.Errorf("%d threads: the trace is not one JSON array", threads)
				}
				got := fmt.Sprintf("%s\n%+v\n%s\n%v", out.String(), *res, trace.String(), err)
				if out.Len() == 0 {
					t.Errorf("%d threads: no output", threads)
				}
				if first == "" {
					first = got
				} else if got != first {
					t.Errorf("%d threads: output, stats or trace differ from 1 thread's:\n%.2000s\nwant\n%.2000s", threads, got, first)
				}
			}
		})
	}
}
