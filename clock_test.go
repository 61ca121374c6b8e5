package bglua

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A reading of the clock after a call includes the whole CPU cost of the
// call, also when the call returned with the rank's CPU still busy (a local
// reduction, mpi.SUM(a, b)); reading it advances nothing. mpi.wtime,
// mpi.cycles, os.clock and os.time all read the same clock.
func TestClockIncludesChargedCPU(t *testing.T) {
	for _, c := range []struct {
		name, call string
		ranks      int
		want       string // the cycles the call cost, as printed
	}{
		// 524,288 elements x 4 cycles (ReduceCyclesPerElement): 2,996 us.
		{"local SUM of 4 MiB", "local s = mpi.SUM(mpi.bytes(4194304), mpi.bytes(4194304))", 1, "2097152"},
		{"local SUM of 4 MiB of numbers", "local x = {} for i = 1, 524288 do x[i] = i end local s = mpi.SUM(x, x)", 1, "2097152"},
		{"isend", "local q = mpi.isend(mpi.bytes(100000), 1 - mpi.rank()) mpi.recv() mpi.wait(q)", 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := `
local t0, c0, o0 = mpi.wtime(), mpi.cycles(), os.clock()
` + c.call + `
local t1, c1, o1 = mpi.wtime(), mpi.cycles(), os.clock()
local t2 = mpi.wtime()
mpi.barrier()
local hz = ml.config().clock_hz
assert(math.abs((t1 - t0) * hz - (c1 - c0)) < 0.5, "wtime and cycles disagree")
assert(o1 - o0 == t1 - t0, "os.clock and wtime disagree")
assert(t2 == t1, "reading the clock advanced it")
assert(os.time() == math.floor(mpi.wtime()))
if mpi.rank() == 0 then print(c1 - c0) end
`
			var out bytes.Buffer
			if _, err := Run(context.Background(), Config{Ranks: c.ranks, Stdout: &out, Quiet: true}, Program{Name: "clock.lua", Code: []byte(prog)}); err != nil {
				t.Fatal(err)
			}
			got := strings.TrimSpace(out.String())
			if c.want != "" && got != c.want {
				t.Errorf("the call read %s cycles, want %s", got, c.want)
			}
			if got == "0" {
				t.Errorf("the call read 0 cycles")
			}
		})
	}
}
