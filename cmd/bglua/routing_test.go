package main

import (
	"os"
	"path/filepath"
	"testing"
)

// --routing and --seed reach the network: the same seed gives the same
// run, another seed other adaptive choices (and so other times), and
// deterministic routing other times again.
func TestRoutingAndSeed(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "a2a.lua")
	// Every rank sends 20 KB to every other at once (rendezvous: adaptively
	// routed data), then rank 0 prints when the last one finished.
	src := `local t = {}
for i = 1, mpi.size() do t[i] = mpi.bytes(20000) end
mpi.alltoall(t)
local last = mpi.allreduce(mpi.cycles(), mpi.MAX)
if mpi.rank() == 0 then print(last) end
`
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := func(args ...string) string {
		stdout, stderr, code := runCLI(append([]string{"-n", "27", "--torus", "3x3x3", "--quiet", "--coll", "alltoall=postall"}, append(args, prog)...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		return stdout
	}
	a, b := out("--seed", "1"), out("--seed", "1")
	c := out("--seed", "2")
	d := out("--routing", "deterministic", "--seed", "1")
	e := out("--routing", "adaptive", "--seed", "1")
	if a != b {
		t.Errorf("seed 1 twice: %q and %q", a, b)
	}
	if a == c {
		t.Errorf("seeds 1 and 2 both gave %q: adaptive routing ignores the seed", a)
	}
	if a == d {
		t.Errorf("--routing deterministic gave the default's %q", a)
	}
	if e == "" || d == e {
		t.Errorf("--routing adaptive %q, deterministic %q", e, d)
	}
}
