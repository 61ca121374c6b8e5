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

// p2pColl has the collectives of the tests run over point-to-point
// messages.
var p2pColl = map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "binomial", "reduce": "binomial"}

// runOver runs prog under cfg over procs processes of mpinet.NewLocal and
// returns what process 0 wrote, and its result (without host time) and
// error; every process must end with the same error (and so exit status),
// and only process 0 writes.
func runOver(t *testing.T, procs int, cfg Config, prog Program) (string, string) {
	t.Helper()
	nets := mpinet.NewLocal(procs)
	outs := make([]bytes.Buffer, procs)
	got := make([]string, procs)
	errs := make([]string, procs)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cfg
			c.Stdout = &outs[p]
			c.procs = nets[p]
			res, err := Run(context.Background(), c, prog)
			if res == nil {
				got[p] = fmt.Sprintf("no result: %v", err)
				return
			}
			res.HostSeconds = 0
			got[p] = fmt.Sprintf("%+v\n%v", *res, err)
			errs[p] = fmt.Sprint(err)
		}()
	}
	wg.Wait()
	for p := 1; p < procs; p++ {
		if outs[p].Len() != 0 {
			t.Errorf("process %d of %d wrote %q", p, procs, outs[p].String())
		}
		if errs[p] != errs[0] {
			t.Errorf("process %d of %d ended with %q, process 0 with %q", p, procs, errs[p], errs[0])
		}
	}
	return outs[0].String(), got[0]
}

// A program run over 2 and 3 processes writes what it writes in one, ends
// as it ends there (errors, deadlocks, limits, exit states of every rank),
// communicator splits included,
// and reports the same virtual time, events, messages, windows and
// crossings, statistics of every primitive, region, algorithm and link: coprocessor and virtual-node mode, point-to-point traffic
// across processes and through one, collectives over it, printing through
// I/O nodes of other processes. What a run over processes does not model
// yet stops it with an error that says so.
func TestProcessesSameOutput(t *testing.T) {
	file := func(name string) Program { return fileProgram(t, name) }
	p2p := p2pColl
	cases := []struct {
		name string
		prog Program
		args []string
		coll map[string]string
		mode string
	}{
		{"hello", file("scripts/hello.lua"), nil, p2p, ""},
		{"hello on the tree", file("scripts/hello.lua"), nil, nil, ""},
		{"collectives on the tree", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, nil, ""},
		{"tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, ""},
		{"tree disagree", Program{Name: "hw.lua", Code: []byte(hwProg)}, []string{"disagree"}, nil, ""},
		{"tree decline", Program{Name: "hw.lua", Code: []byte(hwProg)}, []string{"decline"}, nil, ""},
		{"nonblocking collectives", Program{Name: "nbc.lua", Code: []byte(nbcProg)}, nil, nil, ""},
		{"vn tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, "vn"},
		{"ring", file("scripts/ring.lua"), nil, nil, ""},
		{"pingpong", file("scripts/pingpong.lua"), nil, nil, ""},
		{"halo3d", file("bench/workloads/halo3d.lua"), []string{"3", "8192", "16", "16", "8"}, nil, ""},
		{"collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, p2p, ""},
		{"mpi-3 point-to-point", Program{Name: "mpi3.lua", Code: []byte(mpi3Prog)}, nil, p2p, ""},
		{"split", Program{Name: "split.lua", Code: []byte(splitProg)}, nil, p2p, ""},
		{"active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, ""},
		{"deposits", Program{Name: "dep.lua", Code: []byte(depProg)}, nil, nil, ""},
		{"vn active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, "vn"},
		{"lua collectives", Program{Name: "luacoll.lua", Code: []byte(luaCollProg)}, nil,
			map[string]string{"bcast": "lua_octree", "allreduce": "lua_recursive_doubling"}, ""},
		{"error", Program{Name: "err.lua", Code: []byte(errProg)}, nil, nil, ""},
		// Ranks of another process than 0's disagree on a root: the
		// checks at the end of the run agree on the least rank's error.
		{"disagree", Program{Name: "dis.lua", Code: []byte(`mpi.bcast(1, mpi.rank() == 1500 and 2 or 3) print("done")`)}, nil, p2p, ""},
		{"stray", Program{Name: "stray.lua", Code: []byte(`if mpi.rank() == 1500 then mpi.bcast(1, 1500) end print("done")`)}, nil, p2p, ""},
		{"disagree and stray", Program{Name: "dis.lua", Code: []byte(`print("start") mpi.allreduce(1, mpi.rank() >= 1500 and mpi.MAX or mpi.SUM) print("done")`)}, nil, p2p, ""},
		{"deadlock", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"deadlock"}, nil, ""},
		{"limit", Program{Name: "err.lua", Code: []byte(errProg)}, []string{"limit"}, nil, ""},
		{"torus bcast in one partition", Program{Name: "coll.lua", Code: []byte(collProg)}, nil,
			map[string]string{"barrier": "dissemination", "allreduce": "recursive_doubling", "bcast": "torus", "reduce": "binomial"}, ""},
		{"vn", Program{Name: "vn.lua", Code: []byte(vnProg)}, nil, p2p, "vn"},
		{"vn halo3d", file("bench/workloads/halo3d.lua"), []string{"2", "8192", "16", "16", "16"}, nil, "vn"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ranks := 2048
			if tc.mode == "vn" {
				ranks = 4096
			}
			cfg := Config{Ranks: ranks, Torus: "16x16x8", Mode: tc.mode, Threads: 2, Stats: true, Args: tc.args, Coll: tc.coll}
			if tc.name == "limit" {
				cfg.MaxVTime = 1e-3
			}
			var one bytes.Buffer
			cfg.Stdout = &one
			res, err := Run(context.Background(), cfg, tc.prog)
			if res == nil {
				t.Fatal(err)
			}
			res.HostSeconds = 0
			want := fmt.Sprintf("%+v\n%v", *res, err)
			if one.Len() == 0 {
				t.Fatalf("no output (%v)", err)
			}
			for _, procs := range []int{2, 3} {
				out, got := runOver(t, procs, cfg, tc.prog)
				if out != one.String() {
					t.Errorf("%d processes wrote what one process does not: %s", procs, firstDiff(out, one.String()))
				}
				if got != want {
					t.Errorf("%d processes ended differently from one process: %s", procs, firstDiff(got, want))
				}
			}
		})
	}
}

// Traces and monitoring data over processes are refused before the run,
// by every process, and a run of one process of one is a run.
func TestProcessesRefuse(t *testing.T) {
	nets := mpinet.NewLocal(1)
	cfg := Config{Ranks: 2048, Torus: "16x16x8", MMDS: true, Stdout: io.Discard, procs: nets[0]}
	if _, err := Run(context.Background(), cfg, Program{Name: "p.lua", Code: []byte(`print(1)`)}); err != nil {
		t.Fatalf("one process of one: %v", err)
	}
	cfg.procs = nil
	_, got := runOver(t, 2, cfg, Program{Name: "p.lua", Code: []byte(`print(1)`)})
	if !strings.Contains(got, "no trace or monitoring data yet") {
		t.Errorf("monitoring data over 2 processes: %s", got)
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
