//go:build mpi

package mpinet

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The binding is tested in jobs of processes started by mpirun, each a run
// of this test binary with -test.run selecting TestMPIChild and
// BGLUA_MPINET_CHILD saying what to do. The parent test (go test -tags mpi)
// starts them and reads what they print; it is skipped when mpirun is not
// installed. The same binary may be run by hand:
//
//	go test -tags mpi -c -o /tmp/mpinet/mpinet.test ./internal/mpinet
//	BGLUA_MPINET_CHILD=check mpirun --oversubscribe -np 3 /tmp/mpinet/mpinet.test -test.run '^TestMPIChild$' -test.v
const childEnv = "BGLUA_MPINET_CHILD"

// TestMPIChild is one process of a job started by TestMPIJobs.
func TestMPIChild(t *testing.T) {
	what := os.Getenv(childEnv)
	if what == "" {
		t.Skip("run as a process of an MPI job by TestMPIJobs")
	}
	n, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Init(); m != n || err != nil {
		t.Fatalf("a second Init: %v, %v; want the same Net", m, err)
	}
	switch what {
	case "check":
		if err := exercise(n); err != nil {
			t.Fatalf("process %d of %d: %v", n.Rank(), n.Size(), err)
		}
		// Only the MPI thread calls MPI, whichever goroutine asks.
		done := make(chan error)
		go func() { _, err := SumInt64(n, 1); done <- err }()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		fmt.Printf("process %d of %d: exercise ok\n", n.Rank(), n.Size())
	case "window":
		// What a window's agreement and exchange cost: a reduction of three
		// values and an exchange of 1 KiB to every other process, timed
		// over 2000 windows (by hand: docs/distributed.md).
		out := make([][]byte, n.Size())
		for p := range out {
			if p != n.Rank() {
				out[p] = make([]byte, 1024)
			}
		}
		const windows = 2000
		start := time.Now()
		for w := range windows {
			v := []int64{int64(w + n.Rank()), 0, 1}
			if err := n.AllreduceInt64(OpMin, v); err != nil || v[0] != int64(w) {
				t.Fatalf("window %d: %v, %v", w, v, err)
			}
			in, err := n.ExchangeBytes(out)
			if err != nil || len(in[(n.Rank()+1)%n.Size()]) != 1024 && n.Size() > 1 {
				t.Fatalf("window %d: %v", w, err)
			}
		}
		fmt.Printf("process %d of %d: %.1f us a window\n", n.Rank(), n.Size(), float64(time.Since(start).Microseconds())/windows)
	case "abort":
		// The last process aborts while the others wait in a barrier.
		if n.Rank() == n.Size()-1 {
			n.Abort(7)
		}
		err := n.Barrier()
		t.Fatalf("process %d: the barrier returned (%v) although a process aborted", n.Rank(), err)
	default:
		t.Fatalf("%s=%q", childEnv, what)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Barrier(); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Fatalf("a barrier after Close: %v", err)
	}
}

// mpirun is the command that starts np processes of this test binary
// running TestMPIChild to do what.
func mpirun(t *testing.T, np int, what string) *exec.Cmd {
	t.Helper()
	cmd, err := Mpirun(np, os.Args[0], "-test.run", "^TestMPIChild$", "-test.v", "-test.count=1")
	if err != nil {
		t.Skip(err)
	}
	cmd.Env = append(cmd.Env, childEnv+"="+what)
	return cmd
}

// Jobs of 2 and 3 processes under mpirun run every call with the values
// exercise expects, and a job of one process started without mpirun.
func TestMPIJobs(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("a process of a job")
	}
	for _, np := range []int{2, 3} {
		cmd := mpirun(t, np, "check")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mpirun -np %d: %v\n%s", np, err, out)
		}
		for r := range np {
			if want := fmt.Sprintf("process %d of %d: exercise ok", r, np); !strings.Contains(string(out), want) {
				t.Errorf("mpirun -np %d: no %q in\n%s", np, want, out)
			}
		}
		if got := strings.Count(string(out), "--- PASS: TestMPIChild"); got != np {
			t.Errorf("mpirun -np %d: %d processes passed\n%s", np, got, out)
		}
	}

	// MPI's singleton start: the binary run alone is a job of one.
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMPIChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=check")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "process 0 of 1: exercise ok") {
		t.Errorf("alone: %v\n%s", err, out)
	}
}

// A process's Abort ends the job with its code, processes waiting in a
// collective included.
func TestMPIAbort(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("a process of a job")
	}
	cmd := mpirun(t, 3, "abort")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("mpirun of a job that aborts with 7: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "the barrier returned") {
		t.Errorf("a barrier returned after an abort:\n%s", out)
	}
}
