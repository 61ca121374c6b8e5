package bglua

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// nbcProg runs nonblocking collectives (point-to-point and hardware ones,
// several outstanding, a Lua operator) beside computation, and prints
// their results and times.
const nbcProg = `
local n, me = mpi.size(), mpi.rank()
local s = mpi.iallreduce(me)
local c = mpi.iallreduce(me % 3, function(a, b) return (a * 7 + b) % 1000 end)
local b = mpi.ibcast(me == 3 and "from 3" or nil, 3)
local g = mpi.COMM_WORLD:split(me % 4):iallgather(me)
mpi.compute(1e-4)
local r = mpi.waitall({ s, c, b, g })
if me % 512 == 1 then print(string.format("sum %d op %d bcast %s gather %d t %.9e", r[1], r[2], r[3], #r[4], mpi.wtime())) end
`

// hwProg runs the hardware collectives (the collective network and the
// global interrupt, in partitions completed at the end of windows) between
// point-to-point exchanges, and (with arg "disagree" or "decline") makes
// ranks of different blocks disagree on a root, or pass a value the tree
// cannot reduce.
const hwProg = `
local n, me = mpi.size(), mpi.rank()
if me == 0 then print("ranks " .. n) end
mpi.compute(me % 7 * 1e-6)
mpi.barrier()
local t1 = mpi.wtime()
mpi.sendrecv(me, (me + 1) % n, (me - 1) % n)
local s = mpi.allreduce(me + 0.5, mpi.SUM)
local v = mpi.allreduce({ me, -me, me % 3 }, mpi.MAX)
local b = mpi.bcast(me == 9 and { 1, 2, 3, 4, 5, 6, 7, 8, 9 } or nil, 9)
local r = mpi.reduce(me, mpi.MIN, 5)
if arg[1] == "disagree" then
  mpi.bcast(1, me == 1500 and 2 or 3)
elseif arg[1] == "decline" then
  mpi.allreduce(me == 1700 and "x" or 1.0, mpi.SUM)
end
mpi.barrier()
if me % 512 == 5 then
  print(string.format("%d: %.9e %.9e sum %.1f max %d,%d,%d bcast %d reduce %s", me, t1, mpi.wtime(), s, v[1], v[2], v[3], #b, tostring(r)))
end
`

// splitProg splits the world into rows and columns of the rank grid,
// reduces over them and over a dup of the world on the tree.
const splitProg = `
local me, n = mpi.rank(), mpi.size()
if me == 0 then print("ranks " .. n) end
mpi.compute(me % 5 * 1e-6)
local row = mpi.COMM_WORLD:split(math.floor(me / 64), me % 64)
local col = mpi.COMM_WORLD:split(me % 64, -me)
local d = mpi.COMM_WORLD:dup()
local rs = row:allreduce(me, mpi.SUM)
local cs = col:allreduce(me, mpi.MAX)
local ds = d:allreduce(1.0, mpi.SUM)
if me % 300 == 7 then print(string.format("%d: row %d of %d sum %d; col %d of %d max %d; dup %g %.9e", me, row:rank(), row:size(), rs, col:rank(), col:size(), cs, ds, mpi.wtime())) end
`

// amProg sends active messages of several sizes around a ring and back,
// with a completion callback and a micro-task.
const amProg = `
local me, n = mpi.rank(), mpi.size()
print("before " .. me)
local got, back, sent = nil, 0, false
ml.register("ring", function(src, data)
  got = data
  ml.send(src, "back", string.rep("x", me % 5 * 700))
end)
ml.register("back", function(src, data) back = #data end)
mpi.barrier()
ml.send((me + 1) % n, "ring", { me, me * 2 }, { done = function() sent = true end })
ml.task(function() mpi.compute(1e-6) end)
ml.wait(function() return got ~= nil and sent and back == (me + 1) % n % 5 * 700 end)
if me % 300 < 2 then print(string.format("%d got %d,%d back %d at %.9e", me, got[1], got[2], back, mpi.wtime())) end
`

// luaCollProg registers the Lua collectives of stdlib/coll.lua on every
// rank, in every partition, and runs two of them.
const luaCollProg = `
local coll = require "coll"
local me = mpi.rank()
mpi.compute(me % 3 * 1e-6)
coll.register_all()
local b = mpi.bcast(me == 6 and "from six" or nil, 6)
local s = mpi.allreduce(me, mpi.SUM)
if me % 400 == 3 then print(string.format("%d: %s %d %.9e", me, b, s, mpi.wtime())) end
`

// depProg sends deposit-bit lines along x and y from the nodes of the
// planes x = 0 and y = 0 (through every block they cross); every rank
// waits for its copies.
const depProg = `
local x, y, z = ml.coords()
local X, Y = ml.dims()
local got, want = 0, 0
local at = 0
ml.register("line", function(src, data) got = got + 1; at = mpi.wtime() end)
if x ~= 0 then want = want + 1 end
if y ~= 0 then want = want + 1 end
mpi.barrier()
if x == 0 then ml.deposit("x", 1, "line", { x, y, z }) end
if y == 0 then ml.deposit(2, 1, "line", string.rep("d", 600)) end
ml.wait(function() return got == want end)
if mpi.rank() % 200 == 3 then print(string.format("%d: %d copies, last at %.9e", mpi.rank(), got, at)) end
`

// mpi3Prog uses the MPI-3 point-to-point calls across blocks: synchronous
// sends around a ring (the acknowledgements cross back), matched probes,
// a cancelled receive, persistent requests and the neighbourhood
// collectives of a 3-d grid.
const mpi3Prog = `
local n, me = mpi.size(), mpi.rank()
local right, left = (me + 1) % n, (me - 1) % n
mpi.compute(me % 5 * 1e-6)
local q = mpi.issend(me, right, 1)
local msg = mpi.mprobe(left, 1)
mpi.compute(me % 7 * 1e-6)
local got = mpi.mrecv(msg)
mpi.wait(q)
local t1 = mpi.wtime()
local never = mpi.irecv(left, 99)
mpi.cancel(never)
local s, r = mpi.send_init(me, left, 2), mpi.recv_init(right, 2)
local d
for _ = 1, 2 do mpi.startall({ s, r }); d = mpi.waitall({ s, r }) end
local cart = mpi.cart_create(mpi.COMM_WORLD, { 16, 16, 8 }, { true, false, true })
local nb = cart:neighbor_allgather(me)
local back = cart:neighbor_alltoall({ 1, 2, 3, 4, 5, 6 })
if me % 300 == 7 then
  print(string.format("%d: %d %.9e %s %s %s %s %.9e", me, got, t1, tostring(select(2, mpi.wait(never)).cancelled),
    tostring(d[2]), tostring(nb[3]), tostring(back[4]), mpi.wtime()))
end
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

// fileProgram is the program in file name.
func fileProgram(t *testing.T, name string) Program {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return Program{Name: filepath.Base(name), Code: b, Dir: filepath.Dir(name)}
}

// TestThreadsSameOutput: programs on a torus of four blocks print the same
// output, statistics and trace on 1, 2 and 3 threads (virtual-node mode's, of
// 4,096 ranks, on 1, 2 and 4); those that keep to what the partitions model
// run in four partitions, the others run again in one and say why.
func TestThreadsSameOutput(t *testing.T) {
	file := func(name string) Program { return fileProgram(t, name) }
	cases := []struct {
		name  string
		prog  Program
		args  []string
		coll  map[string]string
		trace bool
		parts int
		mode  string
	}{
		{"hello", file("scripts/hello.lua"), nil, nil, false, 4, ""},
		{"hello traced", file("scripts/hello.lua"), nil, nil, true, 4, ""},
		{"split", Program{Name: "split.lua", Code: []byte(splitProg)}, nil, nil, false, 4, ""},
		{"split traced", Program{Name: "split.lua", Code: []byte(splitProg)}, nil, nil, true, 4, ""},
		{"active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, false, 4, ""},
		{"active messages traced", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, true, 4, ""},
		{"lua collectives", Program{Name: "luacoll.lua", Code: []byte(luaCollProg)}, nil,
			map[string]string{"bcast": "lua_octree", "allreduce": "lua_recursive_doubling"}, false, 4, ""},
		{"deposits", Program{Name: "dep.lua", Code: []byte(depProg)}, nil, nil, false, 4, ""},
		{"deposits traced", Program{Name: "dep.lua", Code: []byte(depProg)}, nil, nil, true, 4, ""},
		{"torus bcast", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"bcast": "torus"}, false, 1, ""},
		// In one partition, a second thread makes the ranks' states ahead
		// of them (luabind.Host.Prepare); here a rank fails while it works.
		{"error in one partition", Program{Name: "err.lua", Code: []byte(errProg)}, nil, map[string]string{"bcast": "torus"}, false, 1, ""},
		{"ring", file("scripts/ring.lua"), nil, nil, false, 4, ""},
		{"mpi-3 point-to-point", Program{Name: "mpi3.lua", Code: []byte(mpi3Prog)}, nil, nil, false, 4, ""},
		{"pingpong", file("scripts/pingpong.lua"), nil, nil, false, 4, ""},
		{"halo3d", file("bench/workloads/halo3d.lua"), []string{"3", "8192", "16", "16", "8"}, nil, false, 4, ""},
		{"halo3d traced", file("bench/workloads/halo3d.lua"), []string{"1", "1000", "16", "16", "8"}, nil, true, 4, ""},
		{"collectives traced", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}, true, 4, ""},
		{"collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}, false, 4, ""},
		{"collectives on the tree", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, nil, false, 4, ""},
		{"tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, false, 4, ""},
		{"tree barrier traced", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "tree"}, true, 4, ""},
		{"tree disagree", Program{Name: "hw.lua", Code: []byte(hwProg)}, []string{"disagree"}, nil, false, 4, ""},
		{"tree decline", Program{Name: "hw.lua", Code: []byte(hwProg)}, []string{"decline"}, nil, false, 4, ""},
		{"nonblocking collectives", Program{Name: "nbc.lua", Code: []byte(nbcProg)}, nil, nil, false, 4, ""},
		{"nonblocking collectives traced", Program{Name: "nbc.lua", Code: []byte(nbcProg)}, nil, map[string]string{"allreduce": "recursive_doubling"}, true, 4, ""},
		{"error", Program{Name: "err.lua", Code: []byte(errProg)}, nil, nil, false, 4, ""},
		{"deadlock", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"deadlock"}, nil, false, 4, ""},
		{"limit", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"limit"}, nil, false, 4, ""},
		// Virtual-node mode: messages to the other rank of the node, hot
		// spots on both CPUs of a node, exchanges whose times tie.
		{"vn", Program{Name: "vn.lua", Code: []byte(vnProg)}, nil, nil, false, 4, "vn"},
		{"vn traced", Program{Name: "vn.lua", Code: []byte(vnProg)}, nil, nil, true, 4, "vn"},
		{"vn halo3d", file("bench/workloads/halo3d.lua"), []string{"2", "8192", "16", "16", "16"}, nil, false, 4, "vn"},
		{"vn collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}, false, 4, "vn"},
		{"vn nonblocking collectives", Program{Name: "nbc.lua", Code: []byte(nbcProg)}, nil, nil, false, 4, "vn"},
		{"vn active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, false, 4, "vn"},
		{"vn tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, false, 4, "vn"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first string
			ranks, threadCounts := 2048, []int{1, 2, 3}
			if tc.mode == "vn" {
				ranks, threadCounts = 4096, []int{1, 2, 4}
			}
			for _, threads := range threadCounts {
				var out, trace bytes.Buffer
				cfg := Config{Ranks: ranks, Torus: "16x16x8", Mode: tc.mode, Threads: threads, Stats: true, Args: tc.args, Coll: tc.coll, Stdout: &out}
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
				if (err != nil) != (strings.HasPrefix(tc.name, "error") || tc.name == "deadlock" || tc.name == "limit" || tc.name == "tree disagree" || tc.name == "tree decline") {
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

// TestNoLookaheadOnePartition: a machine whose hops take no time gives the
// blocks no lookahead: the run goes on in one partition and says why.
func TestNoLookaheadOnePartition(t *testing.T) {
	read := func(name string) ([]byte, error) {
		if name == "flat.lua" {
			return []byte(`return { base = "bgl", hop_cycles = 0 }`), nil
		}
		return os.ReadFile(name)
	}
	var out bytes.Buffer
	res, err := Run(context.Background(), Config{Ranks: 2048, Torus: "16x16x8", Machine: "flat.lua", ReadFile: read, Threads: 2, Stdout: &out},
		Program{Name: "p.lua", Code: []byte(`mpi.sendrecv(1, (mpi.rank() + 1) % mpi.size(), (mpi.rank() - 1) % mpi.size()) if mpi.rank() == 0 then print("ok") end`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partitions != 1 || !strings.Contains(res.OnePartition, "hop_cycles") {
		t.Errorf("%d partitions (%q), want 1 because of hop_cycles", res.Partitions, res.OnePartition)
	}
	if out.String() != "[0] ok\n" {
		t.Errorf("output %q", out.String())
	}
}

// vnProg runs what is particular to virtual-node mode: each rank sends to
// the other rank of its node (the virtual-node protocol, both sizes) while
// messages go around the ring across block boundaries, all at once; then
// every rank of a line of nodes sends to both ranks of node 0 (its two
// CPUs' reception FIFOs fill), and a reduction.
const vnProg = `
local n, me = mpi.size(), mpi.rank()
local mate = (me + n / 2) % n
local right, left = (me + 1) % n, (me - 1) % n
local r = {}
r[1] = mpi.irecv(mate, 1)
r[2] = mpi.isend(mpi.bytes(me % 3 == 0 and 100 or 5000), mate, 1)
r[3] = mpi.irecv(left, 2)
r[4] = mpi.isend(mpi.bytes(me % 2 == 0 and 3000 or 900), right, 2)
mpi.waitall(r)
local t1 = mpi.wtime()
local senders = 64
if me == 0 or me == n / 2 then
  for _ = 1, senders - 1 do mpi.recv(mpi.ANY_SOURCE, 3) end
elseif me % (n / 2) < senders then
  mpi.send(mpi.bytes(900 + me % 4 * 1000), me < n / 2 and 0 or n / 2, 3)
end
local s = mpi.allreduce(me, mpi.SUM)
if me % 512 == 5 or me == 0 then print(string.format("%d: %.9e %.9e sum %d", me, t1, mpi.wtime(), s)) end
`

// onePartitionColl is coll with the optimized alltoall, which only one
// partition models: a run of a program that calls no alltoall then runs in
// one partition and is otherwise the same.
func onePartitionColl(coll map[string]string) map[string]string {
	c := map[string]string{"alltoall": "optimized"}
	for k, v := range coll {
		c[k] = v
	}
	return c
}

// TestVNPartitionsIsOnePartition: in virtual-node mode as in coprocessor
// mode, a run in blocks gives the output and statistics of a run in one
// partition, bit for bit, with BG/L's reception FIFOs, which the halo of 8
// KiB faces fills (each CPU reads six faces a step). The node's two ranks,
// their CPUs, the virtual-node protocol's copies within a node and the
// ties of equal times add no difference.
func TestVNPartitionsIsOnePartition(t *testing.T) {
	file := func(name string) Program { return fileProgram(t, name) }
	cases := []struct {
		name string
		prog Program
		args []string
		coll map[string]string
	}{
		{"vn", Program{Name: "vn.lua", Code: []byte(vnProg)}, nil, nil},
		{"halo3d", file("bench/workloads/halo3d.lua"), []string{"2", "8192", "16", "16", "16"}, nil},
		{"collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}},
		{"tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want string
			var wantRanks []RankResult
			for _, one := range []bool{true, false} {
				var out bytes.Buffer
				cfg := Config{Ranks: 4096, Torus: "16x16x8", Mode: "vn", Threads: 2,
					Stats: true, Args: tc.args, Coll: tc.coll, Stdout: &out}
				if one {
					cfg.Coll = onePartitionColl(tc.coll)
				}
				res, err := Run(context.Background(), cfg, tc.prog)
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: 1, false: 4}[one]; res.Partitions != want {
					t.Fatalf("%d partitions (%s), want %d", res.Partitions, res.OnePartition, want)
				}
				// Blocks have events of their own (a packet's head handed
				// to the next block); the model's times are what counts.
				res.HostSeconds, res.Events, res.Partitions, res.OnePartition, res.Windows, res.Crossings = 0, 0, 0, "", 0, 0
				got := fmt.Sprintf("%s\n%+v", out.String(), *res)
				if one {
					want, wantRanks = got, res.PerRank
				} else if got != want {
					for r := range res.PerRank {
						if res.PerRank[r] != wantRanks[r] {
							t.Errorf("rank %d ends %+v in blocks, %+v in one partition", r, res.PerRank[r], wantRanks[r])
						}
					}
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Errorf("in blocks:\n%.300s\nin one partition:\n%.300s", got[max(i-100, 0):], want[max(i-100, 0):])
				}
			}
		})
	}
}
