package bglua

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/mpi"

	"github.com/bglua/bglua/internal/mpinet"
)

// lateErrProg has a rank fail when every rank ends a computation of 5 us
// (their calls are drawn then), while every rank sends its neighbour a
// large message: the error's window has counters to draw, with packets on
// their way between partitions.
const lateErrProg = `
local n, me = mpi.size(), mpi.rank()
print("start")
local req
local reqs = {mpi.isend(mpi.bytes(1048576), (me + 1) % n), mpi.irecv((me - 1) % n)}
mpi.compute(5e-6)
if me == n - 5 then error("rank " .. me .. " gives up") end
mpi.waitall(reqs)
`

// observed is what a run of TestProcessesSameOutput also compares: its
// trace (of the ranks kept, nil: all) and its monitoring data.
type observed struct {
	what  int
	ranks func(int) bool
}

const (
	obsTrace = 1 << iota
	obsMDS
	obsBCS  // the bcs runtime, with its EMDS
	obsBoth = obsTrace | obsMDS
)

// p2pColl has the collectives of the tests run over point-to-point
// messages.
var p2pColl = map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}

// runOver runs prog under cfg over procs processes of mpinet.NewLocal and
// returns what process 0 wrote, and its result (without host time) and
// error; every process must end with the same error (and so exit status)
// and result, and only process 0 writes. With cfg.Trace set, each process
// traces to a buffer of its own, and trace is process 0's.
func runOver(t *testing.T, procs int, cfg Config, prog Program) (out, got, trace string) {
	t.Helper()
	nets := mpinet.NewLocal(procs)
	outs := make([]bytes.Buffer, procs)
	traces := make([]bytes.Buffer, procs)
	gots := make([]string, procs)
	errs := make([]string, procs)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cfg
			c.Stdout = &outs[p]
			if c.Trace != nil {
				c.Trace = &traces[p]
			}
			c.procs = nets[p]
			res, err := Run(context.Background(), c, prog)
			gots[p] = resultText(res, err)
			errs[p] = fmt.Sprint(err)
		}()
	}
	wg.Wait()
	for p := 1; p < procs; p++ {
		if outs[p].Len() != 0 || traces[p].Len() != 0 {
			t.Errorf("process %d of %d wrote %q and a trace of %d bytes", p, procs, outs[p].String(), traces[p].Len())
		}
		if errs[p] != errs[0] {
			t.Errorf("process %d of %d ended with %q, process 0 with %q", p, procs, errs[p], errs[0])
		}
		if gots[p] != gots[0] {
			t.Errorf("process %d of %d has another result than process 0: %s", p, procs, firstDiff(gots[p], gots[0]))
		}
	}
	return outs[0].String(), gots[0], traces[0].String()
}

// resultText is what a run ended with, res (without host time; with its
// monitoring data) and err, as text.
func resultText(res *Result, err error) string {
	if res == nil {
		return fmt.Sprintf("no result: %v", err)
	}
	r := *res
	r.HostSeconds = 0
	mds := "no MDS"
	if r.MDS != nil {
		var sum strings.Builder
		r.MDS.Summary(&sum)
		mds = fmt.Sprintf("%+v\n%s", *r.MDS, sum.String())
		r.MDS = nil
	}
	return fmt.Sprintf("%+v\n%v\n%s", r, err, mds)
}

// A program run over 2 and 3 processes writes what it writes in one, ends
// as it ends there (errors, deadlocks, limits, exit states of every rank),
// communicator splits included,
// and reports the same virtual time, events, messages, windows and
// crossings, statistics of every primitive, region, algorithm and link: coprocessor and virtual-node mode, point-to-point traffic
// across processes and through one, collectives over it, printing through
// I/O nodes of other processes. Runs marked so also trace (the same file,
// counters included, of every rank or of those TraceRanks keeps) and keep
// the monitoring data (the same records). What a run over processes does
// not model yet stops it with an error that says so.
func TestProcessesSameOutput(t *testing.T) {
	file := func(name string) Program { return fileProgram(t, name) }
	p2p := p2pColl
	cases := []struct {
		name string
		prog Program
		args []string
		coll map[string]string
		mode string
		obs  observed
	}{
		{"hello", file("scripts/hello.lua"), nil, p2p, "", observed{}},
		{"hello on the tree", file("scripts/hello.lua"), nil, nil, "", observed{obsBoth, nil}},
		{"collectives on the tree", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, nil, "", observed{obsTrace, nil}},
		{"tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, "", observed{}},
		{"tree disagree", Program{Name: "hw.lua", Code: []byte(hwProg)}, []string{"disagree"}, nil, "", observed{obsTrace, nil}},
		{"tree decline", Program{Name: "hw.lua", Code: []byte(hwProg)}, []string{"decline"}, nil, "", observed{}},
		{"nonblocking collectives", Program{Name: "nbc.lua", Code: []byte(nbcProg)}, nil, nil, "", observed{obsBoth, nil}},
		{"vn tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, "vn", observed{obsTrace, nil}},
		{"ring", file("scripts/ring.lua"), nil, nil, "", observed{}},
		{"pingpong", file("scripts/pingpong.lua"), nil, nil, "", observed{obsBoth, nil}},
		{"halo3d", file("bench/workloads/halo3d.lua"), []string{"3", "8192", "16", "16", "8"}, nil, "", observed{}},
		// A trace of the even ranks: the halo's arrows along y and z.
		{"halo3d traced ranks", file("bench/workloads/halo3d.lua"), []string{"2", "8192", "16", "16", "8"}, nil, "",
			observed{obsTrace, func(r int) bool { return r%2 == 0 }}},
		{"collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, p2p, "", observed{obsBoth, nil}},
		{"mpi-3 point-to-point", Program{Name: "mpi3.lua", Code: []byte(mpi3Prog)}, nil, p2p, "", observed{}},
		{"split", Program{Name: "split.lua", Code: []byte(splitProg)}, nil, p2p, "", observed{obsMDS, nil}},
		{"active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, "", observed{obsTrace, nil}},
		{"deposits", Program{Name: "dep.lua", Code: []byte(depProg)}, nil, nil, "", observed{}},
		{"vn active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, "vn", observed{}},
		{"lua collectives", Program{Name: "luacoll.lua", Code: []byte(luaCollProg)}, nil,
			map[string]string{"bcast": "lua_octree", "allreduce": "lua_recursive_doubling"}, "", observed{}},
		{"error", Program{Name: "err.lua", Code: []byte(errProg)}, nil, nil, "", observed{obsBoth, nil}},
		// The error's window has records after a counter's time: the
		// counters of the state the run stopped in.
		{"error with the others", Program{Name: "late.lua", Code: []byte(lateErrProg)}, nil, nil, "", observed{obsTrace, nil}},
		// Ranks of another process than 0's disagree on a root: the
		// checks at the end of the run agree on the least rank's error.
		{"disagree", Program{Name: "dis.lua", Code: []byte(`mpi.bcast(1, mpi.rank() == 1500 and 2 or 3) print("done")`)}, nil, p2p, "", observed{obsTrace, nil}},
		{"stray", Program{Name: "stray.lua", Code: []byte(`if mpi.rank() == 1500 then mpi.bcast(1, 1500) end print("done")`)}, nil, p2p, "", observed{}},
		{"disagree and stray", Program{Name: "dis.lua", Code: []byte(`print("start") mpi.allreduce(1, mpi.rank() >= 1500 and mpi.MAX or mpi.SUM) print("done")`)}, nil, p2p, "", observed{}},
		{"deadlock", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"deadlock"}, nil, "", observed{obsBoth, nil}},
		{"limit", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"limit"}, nil, "", observed{obsTrace, nil}},
		{"torus bcast in one partition", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "torus", "reduce": "binomial"}, "", observed{obsBoth, nil}},
		{"bcs in one partition", file("scripts/hello.lua"), nil, nil, "", observed{obsBoth | obsBCS, nil}},
		{"vn", Program{Name: "vn.lua", Code: []byte(vnProg)}, nil, p2p, "vn", observed{obsMDS, nil}},
		{"vn halo3d", file("bench/workloads/halo3d.lua"), []string{"2", "8192", "16", "16", "16"}, nil, "vn", observed{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ranks := 2048
			if tc.mode == "vn" {
				ranks = 4096
			}
			// (Batch by batch: a run over processes does not lease
			// transfers, and leases change the count of windows.)
			cfg := Config{Ranks: ranks, Torus: "16x16x8", Mode: tc.mode, Threads: 2, Stats: true, Args: tc.args, Coll: tc.coll, Grain: 1}
			if tc.name == "limit" {
				cfg.MaxVTime = 1e-3
			}
			var one, trace bytes.Buffer
			cfg.Stdout = &one
			if tc.obs.what&obsTrace != 0 {
				cfg.Trace, cfg.TraceRanks = &trace, tc.obs.ranks
			}
			cfg.MMDS = tc.obs.what&obsMDS != 0
			if tc.obs.what&obsBCS != 0 {
				cfg.Runtime, cfg.EMDS = "bcs", true
			}
			res, err := Run(context.Background(), cfg, tc.prog)
			if res == nil {
				t.Fatal(err)
			}
			want := resultText(res, err)
			if one.Len() == 0 {
				t.Fatalf("no output (%v)", err)
			}
			if cfg.Trace != nil && res.Messages > 0 && !strings.Contains(trace.String(), `"ph":"C"`) {
				t.Fatalf("a trace without counters (%d bytes)", trace.Len())
			}
			for _, procs := range []int{2, 3} {
				out, got, gotTrace := runOver(t, procs, cfg, tc.prog)
				if out != one.String() {
					t.Errorf("%d processes wrote what one process does not: %s", procs, firstDiff(out, one.String()))
				}
				if got != want {
					t.Errorf("%d processes ended differently from one process: %s", procs, firstDiff(got, want))
				}
				if gotTrace != trace.String() {
					t.Errorf("%d processes traced what one process does not: %s", procs, firstDiff(gotTrace, trace.String()))
				}
			}
		})
	}
}

// A run of one process of one is a run, its trace and monitoring data
// those of a run without processes.
func TestProcessesOfOne(t *testing.T) {
	nets := mpinet.NewLocal(1)
	var trace, alone bytes.Buffer
	cfg := Config{Ranks: 2048, Torus: "16x16x8", MMDS: true, Stdout: io.Discard, Trace: &trace, procs: nets[0]}
	prog := Program{Name: "p.lua", Code: []byte(`mpi.barrier() print(1)`)}
	res, err := Run(context.Background(), cfg, prog)
	if err != nil {
		t.Fatalf("one process of one: %v", err)
	}
	cfg.procs, cfg.Trace = nil, &alone
	want, err := Run(context.Background(), cfg, prog)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultText(res, nil), resultText(want, nil); got != want {
		t.Errorf("one process of one: %s", firstDiff(got, want))
	}
	if trace.String() != alone.String() || trace.Len() == 0 {
		t.Errorf("one process of one traced %d bytes: %s", trace.Len(), firstDiff(trace.String(), alone.String()))
	}
}

// A process that cannot set the run up (here, its copy of the program does
// not compile) ends with its error, and the others say so instead of
// waiting for it at the first window.
func TestProcessesSetupFails(t *testing.T) {
	nets := mpinet.NewLocal(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for p, code := range []string{`print(1)`, `print(`} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := Config{Ranks: 2048, Torus: "16x16x8", Stdout: io.Discard, procs: nets[p]}
			_, errs[p] = Run(context.Background(), cfg, Program{Name: "p.lua", Code: []byte(code)})
		}()
	}
	wg.Wait()
	var u *UsageError
	if !errors.As(errs[1], &u) || errs[0] == nil || !strings.Contains(errs[0].Error(), "another process of the MPI job could not set the run up") {
		t.Errorf("errors %v and %v", errs[0], errs[1])
	}
}

// firstDiff shows where got and want first differ.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-200, 0)
	return fmt.Sprintf("at byte %d:\n...%.400s\nwant\n...%.400s", i, got[from:], want[from:])
}

// Every error a run over processes can end with crosses in a form that
// reads back as the same error, of the same type (so the same exit status).
func TestErrorWire(t *testing.T) {
	for _, err := range []error{
		&luabind.RankError{Rank: 3, Time: 700, Seconds: 1e-6, Msg: "p.lua:2: boom", Traceback: "stack traceback:\n\tp.lua:2"},
		&luabind.AbortError{Rank: 5, Seconds: 2e-6, Msg: "bye", Code: 7, Where: "p.lua:4"},
		&mpi.OnePartitionError{What: "alltoall over the optimized torus algorithm", Rank: 2, Time: 11},
		&LimitError{What: "memory", Limit: "1 GiB", InUse: "1.1 GiB"},
		context.Canceled,
		errors.New("something else"),
	} {
		b, ok := errorWire.Append(nil, err)
		if !ok {
			t.Fatalf("%v: no wire form", err)
		}
		got, rerr := errorWire.Read(b)
		if rerr != nil {
			t.Fatalf("%v: %v", err, rerr)
		}
		want := err
		if errors.Is(err, context.Canceled) {
			want = &InterruptedError{}
		}
		if reflect.TypeOf(got) != reflect.TypeOf(want) || got.Error() != want.Error() {
			t.Errorf("%T %q read back as %T %q", want, want, got, got)
		}
		if _, err := errorWire.Read(b[:len(b)-1]); err == nil && len(b) > 1 {
			t.Errorf("%v: a cut wire form read back", want)
		}
	}
}
