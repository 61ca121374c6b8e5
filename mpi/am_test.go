package mpi

import (
	"errors"
	"slices"
	"testing"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// TestAMLoopQueues: completions and tasks come out in the order they went
// in, each queue on its own.
func TestAMLoopQueues(t *testing.T) {
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
				a := NewAMLoop[string](r, r.w.ML.Inbox(r.ID))
				for _, d := range tc.done {
					a.Complete(d)
				}
				for _, x := range tc.tasks {
					a.Post(x)
				}
				if got, want := a.HasWork(), len(tc.done)+len(tc.tasks) > 0; got != want {
					t.Errorf("HasWork = %v, want %v", got, want)
				}
				var done, tasks []string
				for f, ok := a.NextDone(); ok; f, ok = a.NextDone() {
					done = append(done, f)
				}
				for f, ok := a.NextTask(); ok; f, ok = a.NextTask() {
					tasks = append(tasks, f)
				}
				if !slices.Equal(done, tc.done) || !slices.Equal(tasks, tc.tasks) {
					t.Errorf("took done %v, tasks %v; want %v, %v", done, tc.done, tasks, tc.tasks)
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
			err := r.w.ML.SendAM(r.Now(), msglayer.AMSend{Src: 0, Dst: 1, Bytes: 8, Payload: "hi"})
			if err != nil {
				t.Error(err)
			}
			return
		}
		a := NewAMLoop[string](r, r.w.ML.Inbox(r.ID))
		a.Await("test.await")
		ms := a.Messages()
		if len(ms) != 1 || ms[0].Payload != "hi" || ms[0].Src != 0 {
			t.Errorf("messages after Await: %v", ms)
		}
		if r.Now() <= 1000 {
			t.Errorf("woken at %d, before the message was sent", r.Now())
		}
	})
	_, err := tryRanks(1, func(r *Rank) {
		NewAMLoop[string](r, r.w.ML.Inbox(r.ID)).Await("test.never")
	})
	var d *runtime.DeadlockError
	if !errors.As(err, &d) || len(d.Waits) != 1 {
		t.Fatalf("await of nothing: err = %v, want a deadlock of one rank", err)
	}
	if w, ok := d.Waits[0].(*WaitInfo); !ok || w.Call != "test.never" || w.Peer != NoPeer {
		t.Errorf("deadlocked rank waits for %#v, want test.never", d.Waits[0])
	}
}
