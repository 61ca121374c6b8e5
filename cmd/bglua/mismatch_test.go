package main

import (
	"strings"
	"testing"
)

// TestMismatchThreads: ranks that disagree on a collective get the same
// error, byte for byte, whatever the thread count, on a torus of two 8x8x8
// blocks (two partitions) where the disagreeing ranks sit in different
// blocks from the ranks they are compared with. A receiver that comes late
// is found when the run would end in a deadlock (World.Disagreement); the
// bcs runtime runs in one partition whatever the thread count.
func TestMismatchThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("1,024 ranks")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"binomial root", []string{"--coll", "bcast=binomial", "root"}, "bcast: rank 3 has root 1 but rank 2 has root 0 (COMM_WORLD)"},
		{"tree root", []string{"--coll", "bcast=tree", "root"}, "bcast: rank 3 has root 1 but rank 0 has root 0 (COMM_WORLD)"},
		{"recursive doubling op", []string{"--coll", "allreduce=recursive_doubling", "op"}, "allreduce: rank 3 has operator MAX but rank 2 has operator SUM (COMM_WORLD)"},
		{"every rank the root", []string{"--coll", "bcast=binomial", "roots"}, "has root"},
		{"split", []string{"split"}, "(COMM_WORLD.split0(color "},
		{"late receiver", []string{"--coll", "bcast=binomial", "late"}, "bcast: rank 3 has root 1 but rank 2 has root 0 (COMM_WORLD)"},
		{"bcs binomial root", []string{"--runtime", "bcs", "--coll", "bcast=binomial", "root"}, "bcast: rank 3 has root 1 but rank 2 has root 0 (COMM_WORLD)"},
		{"bcs late receiver", []string{"--runtime", "bcs", "--coll", "bcast=binomial", "late"}, "bcast: rank 3 has root 1 but rank 2 has root 0 (COMM_WORLD)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var outs []string
			for _, threads := range []string{"1", "2"} {
				args := append([]string{"-n", "1024", "--torus", "16x8x8", "--threads", threads, "--quiet"}, tc.args[:len(tc.args)-1]...)
				args = append(args, "testdata/progs/mismatch.lua", tc.args[len(tc.args)-1])
				out, errOut, code := runCLI(args...)
				if code != 1 || !strings.Contains(errOut, tc.want) {
					t.Fatalf("--threads %s: exit %d, stderr:\n%s\nwant exit 1 and %q", threads, code, errOut, tc.want)
				}
				outs = append(outs, out+"--- stderr\n"+errOut)
			}
			if outs[0] != outs[1] {
				t.Errorf("--threads 1 and 2 differ:\n%s\n----\n%s", outs[0], outs[1])
			}
		})
	}
}
