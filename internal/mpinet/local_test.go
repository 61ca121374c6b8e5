package mpinet

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// run runs f as every process of a local job of size p, and returns their
// errors by process.
func run(p int, f func(Net) error) []error {
	nets := NewLocal(p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for i, n := range nets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(n)
		}()
	}
	wg.Wait()
	return errs
}

func TestLocalExercise(t *testing.T) {
	for _, p := range []int{1, 2, 3, 5, 8} {
		for i, err := range run(p, func(n Net) error {
			if err := exercise(n); err != nil {
				return err
			}
			return n.Close()
		}) {
			if err != nil {
				t.Errorf("%d processes, process %d: %v", p, i, err)
			}
		}
	}
}

// Processes that make different calls all get an error, not a hang.
func TestLocalMismatch(t *testing.T) {
	errs := run(3, func(n Net) error {
		switch n.Rank() {
		case 0:
			return n.Barrier()
		case 1:
			_, err := n.Bcast(0, nil)
			return err
		}
		return n.AllreduceInt64(OpMin, []int64{1})
	})
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "different collective calls") {
			t.Errorf("process %d: %v, want an error of different calls", i, err)
		}
	}
	errs = run(2, func(n Net) error { // the same call with other ops
		return n.AllreduceInt64(Op(n.Rank()), []int64{1})
	})
	for i, err := range errs {
		if err == nil {
			t.Errorf("process %d: allreduces of min and max agreed", i)
		}
	}
}

// Abort wakes the processes waiting in a collective, and fails later calls.
func TestLocalAbort(t *testing.T) {
	nets := NewLocal(3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	waiting := make(chan struct{})
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 1 {
				// Two of three in the barrier: it cannot complete.
				close(waiting)
			}
			errs[i] = nets[i].Barrier()
		}()
	}
	<-waiting
	nets[2].Abort(7)
	nets[2].Abort(9) // the first code stays
	wg.Wait()
	for i := range 2 {
		if !errors.Is(errs[i], ErrAborted) {
			t.Errorf("process %d: %v, want ErrAborted", i, errs[i])
		}
	}
	if err := nets[2].Barrier(); !errors.Is(err, ErrAborted) {
		t.Errorf("a call after Abort: %v", err)
	}
	if code, ok := Aborted(nets[0]); !ok || code != 7 {
		t.Errorf("Aborted: %d, %v; want 7, true", code, ok)
	}
}

func TestLocalBadCalls(t *testing.T) {
	n := NewLocal(2)[0]
	if _, err := n.ExchangeBytes(make([][]byte, 3)); err == nil {
		t.Error("an exchange of 3 buffers among 2 processes")
	}
	if _, err := n.Bcast(2, nil); err == nil {
		t.Error("a broadcast from process 2 of 2")
	}
	if _, err := Gather(n, -1, nil); err == nil {
		t.Error("a gather to process -1")
	}
	if err := n.AllreduceInt64(opCount, nil); err == nil {
		t.Error("an allreduce with an op that does not exist")
	}
	one := NewLocal(1)[0]
	if err := one.Close(); err != nil {
		t.Fatal(err)
	}
	if err := one.Barrier(); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("a barrier after Close: %v", err)
	}
}

func TestInitWithoutMPI(t *testing.T) {
	if Available {
		t.Skip("built with MPI: mpi_test.go tests Init")
	}
	if n, err := Init(); n != nil || !errors.Is(err, ErrNoMPI) {
		t.Errorf("Init without the mpi tag: %v, %v", n, err)
	}
}
