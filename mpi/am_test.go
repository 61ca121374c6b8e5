package mpi

import (
	"errors"
	"slices"
	"testing"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// TestAMLoopPass: a pass runs the completions, then the tasks, each in the
// order they went in, and the completions and tasks that those add.
func TestAMLoopPass(t *testing.T) {
	for _, tc := range []struct {
		name        string
		done, tasks []string
	}{
		{"empty", nil, nil},
		{"done only", []string{"a", "b"}, nil},
		{"tasks only", nil, []string{"x", "y", "z"}},
		{"both", []string{"a"}, []string{"x", "y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runRanks(t, 1, func(r *Rank) {
				a := NewAMLoop[string](r, r.w.ml.Inbox(r.ID))
				for _, d := range tc.done {
					a.Complete(d)
				}
				for _, x := range tc.tasks {
					a.Post(x)
				}
				if got, want := a.HasWork(), len(tc.done)+len(tc.tasks) > 0; got != want {
					t.Errorf("HasWork = %v, want %v", got, want)
				}
				var got []string
				p := a.Pass()
				for f, m, ok := p.Next(); ok; f, m, ok = p.Next() {
					if m != nil {
						t.Fatalf("a message in a pass with none sent: %v", m)
					}
					got = append(got, f)
					if f == "a" { // a completion adds one, a task another
						a.Complete("a+")
					} else if f == "x" {
						a.Post("x+")
					}
				}
				// What is added joins the end of its queue.
				want := slices.Clone(tc.done)
				if slices.Contains(tc.done, "a") {
					want = append(want, "a+")
				}
				want = append(want, tc.tasks...)
				if slices.Contains(tc.tasks, "x") {
					want = append(want, "x+")
				}
				if !slices.Equal(got, want) {
					t.Errorf("pass ran %v, want %v", got, want)
				}
				if a.HasWork() {
					t.Errorf("HasWork after taking everything")
				}
			})
		})
	}
}

// TestAMLoopAwait: a rank that awaits is woken by an active message and by
// a send's completion; one that awaits what never comes is a deadlock that
// names its call.
func TestAMLoopAwait(t *testing.T) {
	runRanks(t, 2, func(r *Rank) {
		if r.ID == 0 {
			r.Compute(1000)
			err := r.w.ml.SendAM(r.Now(), msglayer.AMSend{Src: 0, Dst: 1, Bytes: 8, Payload: "hi"})
			if err != nil {
				t.Error(err)
			}
			return
		}
		a := NewAMLoop[string](r, r.w.ml.Inbox(r.ID))
		a.Post("task")
		a.Await("test.await") // has work: returns at once
		if r.Now() != 0 {
			t.Errorf("Await with a task queued returned at %d", r.Now())
		}
		a.Pass().Next()
		a.Await("test.await")
		p := a.Pass()
		if _, m, ok := p.Next(); !ok || m == nil || m.Payload != "hi" || m.Src != 0 {
			t.Errorf("pass after Await: %v, %v", m, ok)
		}
		if _, _, ok := p.Next(); ok {
			t.Error("a second item in the pass")
		}
		if r.Now() <= 1000 {
			t.Errorf("woken at %d, before the message was sent", r.Now())
		}
	})
	_, err := tryRanks(1, func(r *Rank) {
		NewAMLoop[string](r, r.w.ml.Inbox(r.ID)).Await("test.never")
	})
	var d *runtime.DeadlockError
	if !errors.As(err, &d) || len(d.Waits) != 1 {
		t.Fatalf("await of nothing: err = %v, want a deadlock of one rank", err)
	}
	if w, ok := d.Waits[0].(*WaitInfo); !ok || w.Call != "test.never" || w.Peer != NoPeer {
		t.Errorf("deadlocked rank waits for %#v, want test.never", d.Waits[0])
	}
}
