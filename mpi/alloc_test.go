package mpi

import (
	goruntime "runtime"
	"testing"
)

// TestCollMessageAllocs: a message of a collective algorithm allocates at
// most its send (request and message together, sendBox) and the value the
// reduction makes; its receive is the rank's spare (collRecv). Counted as
// the heap allocations of runs of 10 and 30 recursive-doubling allreduces
// on 16 ranks, the difference over the difference in messages, so that
// start-up does not count. Each call's own allocations (the call's
// bookkeeping, about 3 a rank) add about 0.75 to the 4 messages a rank sends
// in one call: 2.75 in all, 3.75 when each receive was allocated.
func TestCollMessageAllocs(t *testing.T) {
	const n, most = 16, 3.0
	setup := func(w *World) error { return w.SetAlgorithm("allreduce", "recursive_doubling") }
	run := func(calls int) (mallocs uint64, msgs int64) {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		w, err := tryRanksWith(n, setup, func(r *Rank) {
			for range calls {
				if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
					fail(r, err)
				}
			}
		})
		goruntime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.Mallocs - before.Mallocs, w.Messages
	}
	run(1) // warm up what is made once a process
	a1, m1 := run(10)
	a2, m2 := run(30)
	if m2 <= m1 {
		t.Fatalf("messages: %d for 10 allreduces, %d for 30", m1, m2)
	}
	if per := float64(int64(a2)-int64(a1)) / float64(m2-m1); per > most {
		t.Errorf("%.2f allocations a message of an allreduce, want at most %.1f", per, most)
	} else {
		t.Logf("%.2f allocations a message", per)
	}
}

// The requests of IsendIn and IrecvIn live in the caller's slots: with
// them, a nonblocking exchange allocates nothing for its requests and
// messages but the slots.
func TestSlotsHoldTheRequests(t *testing.T) {
	runRanks(t, 2, func(r *Rank) {
		other := 1 - r.ID
		var ss SendSlot
		var rs RecvSlot
		rq, err := r.World.IrecvIn(&rs, other, 3)
		if err != nil || rq != &rs.q {
			t.Errorf("rank %d: IrecvIn gave %p (%v), want its slot's %p", r.ID, rq, err, &rs.q)
		}
		sq, err := r.World.IsendIn(&ss, num(r.ID), other, 3)
		if err != nil || sq != &ss.q {
			t.Errorf("rank %d: IsendIn gave %p (%v), want its slot's %p", r.ID, sq, err, &ss.q)
		}
		r.Waitall([]*Request{rq, sq})
		if got, want := rq.Value.Data, num(other).Data; got != want {
			t.Errorf("rank %d received %v, want %v", r.ID, got, want)
		}
	})
}

// A held send's message (IsendIn) goes back to its partition's pool once
// both ends are done with it, cleared, and the next held send takes it
// from there: rounds of exchanges between two ranks end with the two
// messages of one round in the pool, whatever the number of rounds. A
// rendezvous message, which the receiver's grant reaches after the
// sender's part may be over, is not pooled.
func TestHeldSendsReuseMessages(t *testing.T) {
	for _, c := range []struct {
		name   string
		bytes  int
		pooled int
	}{{"eager", 8, 2}, {"rendezvous", 1 << 20, 0}} {
		t.Run(c.name, func(t *testing.T) {
			for _, rounds := range []int{1, 5} {
				w := runRanks(t, 2, func(r *Rank) {
					other := 1 - r.ID
					for i := range rounds {
						var ss SendSlot
						var rs RecvSlot
						rq, _ := r.World.IrecvIn(&rs, other, i)
						sq, _ := r.World.IsendIn(&ss, Value{Data: float64(i), Size: c.bytes}, other, i)
						r.Waitall([]*Request{rq, sq})
						if rq.Value.Data != float64(i) {
							t.Errorf("rank %d, round %d: received %v", r.ID, i, rq.Value.Data)
						}
					}
				})
				if n := len(w.Counts.msgs); n != c.pooled {
					t.Errorf("%d rounds: %d messages in the pool, want %d", rounds, n, c.pooled)
				}
				for _, b := range w.Counts.msgs {
					if b.q != nil || b.m.Payload != nil || b.pool {
						t.Errorf("%d rounds: a pooled message holds its request %p, payload %v (pool %v)", rounds, b.q, b.m.Payload, b.pool)
					}
				}
			}
		})
	}
}

// A rank that blocked in Waitall keeps no hold on its requests once the
// wait is over: its program may drop them, and what they received with
// them.
func TestWaitallLetsGoOfRequests(t *testing.T) {
	runRanks(t, 2, func(r *Rank) {
		other := 1 - r.ID
		rq, _ := r.World.Irecv(other, 0)
		sq, _ := r.World.Isend(num(r.ID), other, 0)
		blocked := !rq.done
		r.Waitall([]*Request{rq, sq})
		if !blocked {
			t.Errorf("rank %d: the receive was complete before the wait", r.ID)
		}
		if r.wi.Reqs != nil {
			t.Errorf("rank %d: after Waitall, its wait still names %d requests", r.ID, len(r.wi.Reqs))
		}
	})
}
