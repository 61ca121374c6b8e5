package runtime

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
)

type logAction struct {
	log  *[]string
	name string
}

func (a logAction) Act(now Time) { *a.log = append(*a.log, fmt.Sprintf("%d:%s", now, a.name)) }

func TestQueueOrder(t *testing.T) {
	// Events fire by time, then priority, then insertion order.
	e := New()
	var log []string
	e.Schedule(5, PrioLate, logAction{&log, "late5"})
	e.Schedule(5, PrioModel, logAction{&log, "model5a"})
	e.Schedule(3, PrioLate, logAction{&log, "late3"})
	e.Schedule(5, PrioModel, logAction{&log, "model5b"})
	e.Schedule(0, PrioProc, logAction{&log, "proc0"})
	e.Schedule(5, PrioProc, logAction{&log, "proc5"})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "0:proc0 3:late3 5:model5a 5:model5b 5:proc5 5:late5"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

func TestQueueTieKeys(t *testing.T) {
	// Within a cycle and priority: events without a tie key in the order
	// they were scheduled, then those with one by tie key, however late
	// they were scheduled.
	e := New()
	var log []string
	at := func(name string) Action {
		return ActionFunc(func(now Time) {
			log = append(log, name)
			if name == "k2" { // scheduled during the cycle, still in place
				e.ScheduleKey(5, PrioModel, 1, logAction{&log, "k1late"})
				e.Schedule(5, PrioModel, logAction{&log, "plain-late"})
			}
		})
	}
	e.ScheduleKey(5, PrioModel, 9, at("k9"))
	e.Schedule(5, PrioProc, at("proc"))
	e.ScheduleKey(5, PrioModel, 2, at("k2"))
	e.Schedule(5, PrioModel, at("plain"))
	e.ScheduleKey(5, PrioModel, 4, at("k4"))
	e.ScheduleKey(5, PrioModel, 1<<47|3, at("k3")) // only the low 47 bits count
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Events scheduled during the cycle take their place among those
	// pending: plain-late before every keyed one, k1late before k2b.
	want := "plain k2 5:plain-late 5:k1late k3 k4 k9 proc"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// tiedLog is an event with a full tie that logs its name.
type tiedLog struct {
	log  *[]string
	name string
	tie  Tie
}

func (a *tiedLog) Act(Time) { *a.log = append(*a.log, a.name) }
func (a *tiedLog) Tie() Tie { return a.tie }

func TestEqualTieKeysRunInFullTieOrder(t *testing.T) {
	// Events of one cycle, priority and tie key run in the order of their
	// full ties, compared word by word, whenever and in whatever order they
	// were scheduled: some long before (the heap), some during the cycle
	// (the FIFO of events due now), and under a salt, which queues keyed
	// events in another order, equal keys shuffled.
	for _, salt := range []uint64{0, 1, 0x9e3779b97f4a7c15, 12345} {
		t.Run(fmt.Sprintf("salt%#x", salt), func(t *testing.T) {
			defer SetTieSalt(SetTieSalt(salt))
			e := New()
			var log []string
			ev := func(name string, tie ...uint64) *tiedLog {
				a := &tiedLog{log: &log, name: name}
				copy(a.tie[:], tie)
				return a
			}
			const key = 7
			e.AtKey(5, key, ev("c", 2, 0, 1))
			e.AtKey(5, key, ev("e", 3))
			e.AtKey(5, key, ev("a", 1, 9, 9))
			e.AtKey(5, key+1, ev("z")) // a later key, whatever its tie
			e.At(4, ActionFunc(func(Time) {
				e.AtKey(5, key, ev("b", 2, 0, 0))
			}))
			e.At(5, ActionFunc(func(Time) { // due now: the FIFO
				e.AtKey(5, key, ev("d", 2, 1, 0))
				e.AtKey(5, key, ev("a0", 0, 1<<63))
			}))
			if err := e.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(log, " "), "a0 a b c d e z"; got != want {
				t.Fatalf("order\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestQueueHeapProperty(t *testing.T) {
	// A pseudo-random mix of pushes and pops always pops the earliest event
	// in (time, key, full tie) order, as a plain binary heap does: with times
	// spread out or bunched on a few (the buckets), many events due at the
	// open bucket's time and out of key order (inserted into it), priorities
	// in and out of order, peeks that open a bucket after which an earlier
	// event is queued (close), and queues short enough for the small heap
	// alone or for it and the buckets.
	for _, c := range []struct {
		nowShare uint64 // in quarters: pushes due now
		times    uint64 // range of time steps
		maxLen   int    // pending events at most
		ties     uint64 // range of tie keys
	}{
		{0, 50, 1 << 30, 64}, {2, 50, 1 << 30, 64}, {3, 50, 1 << 30, 64}, {0, 3, 1 << 30, 64},
		{2, 2, 1 << 30, 64}, {1, 1000, 1 << 30, 64}, {0, 50, smallQueue + 6, 64}, {1, 5, 20, 64},
		// Many equal tie keys, the queue about as long as the small heap:
		// events of one time and key in the heap and in buckets.
		{0, 4, smallQueue + 4, 2}, {1, 8, smallQueue + 16, 3},
	} {
		var q queue
		var ref refHeap
		x := uint64(12345)
		var seq uint64
		var now Time
		intoOpen, closes, fromSmall := 0, 0, 0
		for i := 0; i < 20000; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if x%2 != 0 && q.len() < c.maxLen || q.len() == 0 {
				prio := PrioProc // mostly, as in a run; sometimes earlier or later
				switch x >> 8 % 8 {
				case 0:
					prio = PrioModel
				case 1:
					prio = PrioLate
				}
				dt := Time(x % c.times)
				if x>>16%4 < c.nowShare {
					dt = 0
				}
				e := event{t: now + dt, key: eventKey(prio, seq)}
				if prio == PrioModel && x>>24%2 == 0 { // a tie key, often shared (model events have them), and a full tie
					e.key = tiedKey(prio, x>>28%c.ties)
					e.act = &tiedLog{tie: Tie{x >> 40 % 4, seq}}
				}
				if q.cur != nil && q.cur.head < len(q.cur.ev) {
					switch {
					case e.t == q.cur.t:
						intoOpen++
					case e.t < q.cur.t:
						closes++
					}
				}
				q.push(e, now)
				heap.Push(&ref, e)
				seq++
				continue
			}
			if x>>50%4 == 0 {
				q.top() // a peek, as at a window's end: the next bucket opens
				continue
			}
			if q.top(); q.fromSmall {
				fromSmall++
			}
			e, want := q.next(), heap.Pop(&ref).(event)
			if e.t != want.t || e.key != want.key || e.act != want.act {
				t.Fatalf("%+v: pop %d gave (%d,%x), want (%d,%x)", c, i, e.t, e.key, want.t, want.key)
			}
			if q.len() != ref.Len() {
				t.Fatalf("%+v: %d events queued, want %d", c, q.len(), ref.Len())
			}
			now = e.t
		}
		if c.nowShare == 3 && intoOpen < 3000 {
			t.Fatalf("%+v: only %d of 10,000 pushes went into the open bucket", c, intoOpen)
		}
		if c.maxLen == smallQueue+6 {
			if closes < 20 {
				t.Fatalf("%+v: only %d pushes closed the open bucket", c, closes)
			}
			if fromSmall < 1000 || fromSmall > 6000 {
				t.Fatalf("%+v: %d of about 7,500 pops from the small heap, want both it and the buckets", c, fromSmall)
			}
		}
	}
}

type refHeap []event

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	return h[i].before(&h[j]) || h[i].same(&h[j]) && h[i].tieBefore(&h[j])
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *refHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func TestProcessesInterleaveByVirtualTime(t *testing.T) {
	e := New()
	var log []string
	for id := 0; id < 3; id++ {
		e.Spawn(id, 0, func(p *Proc) {
			for i := 0; i < 3; i++ {
				log = append(log, fmt.Sprintf("%d:p%d", p.Now(), p.ID))
				p.Sleep(Time(10 * (p.ID + 1)))
			}
		})
	}
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// At 20 p1 resumes first: its wake-up was queued (at 0) before p0's (at 10).
	want := "0:p0 0:p1 0:p2 10:p0 20:p1 20:p0 30:p2 40:p1 60:p2"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if e.Now() != 90 {
		t.Fatalf("end time %d, want 90", e.Now())
	}
}

func TestBlockAndWake(t *testing.T) {
	e := New()
	var got Time
	var waiter *Proc
	waiter = e.Spawn(0, 0, func(p *Proc) {
		p.Block("message")
		got = p.Now()
	})
	e.Spawn(1, 0, func(p *Proc) {
		p.Sleep(100)
		if !e.Wake(waiter, p.Now()+7) {
			t.Error("wake of a blocked process refused")
		}
		if e.Wake(waiter, p.Now()+9) {
			t.Error("second wake accepted")
		}
	})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got != 107 {
		t.Fatalf("woken at %d, want 107", got)
	}
}

func TestSleepFastPathKeepsOrder(t *testing.T) {
	// A model event due at the same cycle as a process wake runs first, whether
	// or not the process takes the fast path.
	e := New()
	var log []string
	e.Spawn(0, 0, func(p *Proc) {
		e.At(50, logAction{&log, "model"})
		p.SleepUntil(50)
		log = append(log, fmt.Sprintf("%d:proc", p.Now()))
		p.SleepUntil(60) // nothing queued: fast path
		log = append(log, fmt.Sprintf("%d:proc", p.Now()))
	})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(log, " "), "50:model 50:proc 60:proc"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestDeadlock(t *testing.T) {
	e := New()
	for id := 0; id < 4; id++ {
		e.Spawn(id, 0, func(p *Proc) {
			if p.ID%2 == 1 {
				p.Block(fmt.Sprintf("recv from %d", p.ID-1))
			}
		})
	}
	err := e.Run(context.Background())
	var d *DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("want a deadlock, got %v", err)
	}
	if len(d.Blocked) != 2 || d.Blocked[0].ID != 1 || d.Blocked[1].ID != 3 || d.Blocked[0].Wait != "recv from 0" {
		t.Fatalf("blocked: %+v", d.Blocked)
	}
	for _, p := range e.Procs() {
		if p.State() != ProcDone {
			t.Fatalf("process %d left in state %d", p.ID, p.State())
		}
	}
}

func TestStopFromProcess(t *testing.T) {
	e := New()
	boom := errors.New("boom")
	ran := false
	e.Spawn(0, 0, func(p *Proc) {
		p.Block("forever")
	})
	e.Spawn(1, 0, func(p *Proc) {
		p.Sleep(5)
		e.Stop(boom)
		p.Exit()
		t.Error("Exit returned")
	})
	e.Spawn(2, 100, func(p *Proc) { ran = true })
	if err := e.Run(context.Background()); err != boom {
		t.Fatalf("got %v, want boom", err)
	}
	if ran {
		t.Fatal("a process started after the run stopped")
	}
}

func TestPanicInProcess(t *testing.T) {
	e := New()
	e.Spawn(0, 0, func(p *Proc) { p.Sleep(1); panic("bad") })
	e.Spawn(1, 0, func(p *Proc) { p.Block("x") })
	err := e.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "internal error in process 0: bad") {
		t.Fatalf("got %v", err)
	}
}

func TestLimit(t *testing.T) {
	e := New()
	e.SetLimit(1000)
	e.Spawn(0, 0, func(p *Proc) {
		for {
			p.Sleep(300)
		}
	})
	err := e.Run(context.Background())
	var l *LimitError
	if !errors.As(err, &l) || l.Limit != 1000 {
		t.Fatalf("got %v", err)
	}
	if e.Now() > 1000 {
		t.Fatalf("clock passed the limit: %d", e.Now())
	}
}

func TestContextCancel(t *testing.T) {
	e := New()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	e.Spawn(0, 0, func(p *Proc) {
		for {
			n++
			if n == 10 {
				cancel()
			}
			e.At(p.Now()+1, ActionFunc(func(Time) {}))
			p.Sleep(2)
		}
	})
	if err := e.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestDeterministicTrace(t *testing.T) {
	run := func() string {
		e := New()
		var log []string
		procs := make([]*Proc, 16)
		for id := range procs {
			procs[id] = e.Spawn(id, Time(id%3), func(p *Proc) {
				for i := 0; i < 20; i++ {
					next := procs[(p.ID*7+i)%len(procs)]
					e.Wake(next, p.Now()+Time((p.ID+i)%5))
					log = append(log, fmt.Sprintf("%d/%d", p.ID, p.Now()))
					if i%3 == 0 {
						p.Block("x")
					} else {
						p.Sleep(Time(i % 4))
					}
				}
			})
		}
		err := e.Run(context.Background())
		return fmt.Sprint(strings.Join(log, ","), err)
	}
	a := run()
	for i := 0; i < 5; i++ {
		if b := run(); b != a {
			t.Fatal("two runs differ")
		}
	}
}

// A process stopped while parked still runs its deferred code, which may try
// to sleep or block: that must return at once, not run the event loop from a
// dying goroutine, and the deadlock report keeps what it waited for.
func TestKilledProcessDoesNotWait(t *testing.T) {
	e := New()
	cleaned := false
	e.Spawn(0, 0, func(p *Proc) {
		defer func() {
			p.SleepUntil(p.Now() + 100)
			p.Block("again")
			cleaned = true
		}()
		p.Block("a message")
	})
	err := e.Run(context.Background())
	var d *DeadlockError
	if !errors.As(err, &d) || d.Waits[0] != "a message" {
		t.Fatalf("got %v", err)
	}
	if !cleaned {
		t.Fatal("deferred code did not finish")
	}
	if e.Now() != 0 {
		t.Fatalf("time moved during cleanup: %d", e.Now())
	}
}

// goid is the id of the calling goroutine, from its stack trace's header.
func goid() string {
	buf := make([]byte, 64)
	buf = buf[:goruntime.Stack(buf, false)]
	return strings.Fields(string(buf))[1]
}

// Processes that start after one that has returned run on its goroutine; one
// that parks keeps its own, and the next process gets a new one. Exit, from
// a process whose successor has not started, leaves the goroutine to it and
// the run goes on.
func TestFinishedProcessHandsOnItsGoroutine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  func(p *Proc) // of process 2 of 5; process 4 wakes it
		same  string        // which processes share a goroutine ('a', 'b', ...)
		order string
	}{
		{"all return", func(p *Proc) {}, "aaaaa", "0 1 2 2' 3 4"},
		{"one parks", func(p *Proc) { p.Block("x") }, "aaabb", "0 1 2 3 4 2'"},
		{"one sleeps", func(p *Proc) { p.Sleep(1) }, "aaabb", "0 1 2 3 4 2'"},
		{"one exits", func(p *Proc) { p.Exit() }, "aaabb", "0 1 2 3 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			ids := make([]string, 5)
			var order []string
			procs := make([]*Proc, 5)
			for id := range procs {
				procs[id] = e.Spawn(id, 0, func(p *Proc) {
					order = append(order, fmt.Sprint(p.ID))
					ids[p.ID] = goid()
					switch p.ID {
					case 2:
						tc.body(p)
						order = append(order, "2'")
					case 4:
						e.Wake(procs[2], p.Now())
					}
				})
			}
			if err := e.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			var same []byte
			names := map[string]byte{}
			for _, id := range ids {
				if _, ok := names[id]; !ok {
					names[id] = byte('a' + len(names))
				}
				same = append(same, names[id])
			}
			if string(same) != tc.same {
				t.Errorf("goroutines %s, want %s", same, tc.same)
			}
			if got := strings.Join(order, " "); got != tc.order {
				t.Errorf("order %s, want %s", got, tc.order)
			}
		})
	}
}

func TestQueueTieAcrossHeapAndBuckets(t *testing.T) {
	// Two events of one time and tie key, one in the small heap and one in
	// a bucket, taken while a later bucket of two priorities opens (which
	// joins its lists in scratch that an earlier join left): both come out
	// whole, by full tie, and then the rest in order.
	var q queue
	var log []string
	ev := func(tm Time, prio int32, key uint64, name string, tie uint64) event {
		return event{t: tm, key: tiedKey(prio, key), act: &tiedLog{log: &log, name: name, tie: Tie{tie}}}
	}
	q.push(ev(10, PrioModel, 5, "b", 1), 0) // in the small heap
	for i := range smallQueue - 1 {
		q.push(ev(30, PrioModel, uint64(100+i), fmt.Sprint("f", i), 0), 0)
	}
	q.push(ev(5, PrioProc, 1, "p5", 0), 0) // buckets of two priorities, the later first
	q.push(ev(5, PrioModel, 1, "m5", 0), 0)
	q.push(ev(20, PrioProc, 1, "p20", 0), 0)
	q.push(ev(20, PrioModel, 1, "m20", 0), 0)
	q.push(ev(10, PrioModel, 5, "a", 0), 0) // a bucket, before b by full tie
	for q.len() > 0 {
		e := q.next()
		if e.act == nil {
			t.Fatalf("an event without its action after %v", log)
		}
		e.act.Act(e.t)
	}
	want := "m5 p5 a b m20 p20"
	for i := range smallQueue - 1 {
		want += fmt.Sprint(" f", i)
	}
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// refSiftPop is the heap's pop as a plain sift-down: the least of a node's
// children (the first of equal ones) moves up while it is before the
// heap's last event, which then fills the hole. The queue's pop must leave
// the heap exactly as this does, equal events included: their order is
// the heap's state.
func refSiftPop(ev []event) (event, []event) {
	top := ev[0]
	n := len(ev) - 1
	last := ev[n]
	ev = ev[:n]
	if n == 0 {
		return top, ev
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if ev[j].before(&ev[m]) {
				m = j
			}
		}
		if !ev[m].before(&last) {
			break
		}
		ev[i] = ev[m]
		i = m
	}
	ev[i] = last
	return top, ev
}

// tagged is an action told apart by its address.
type tagged struct{ int }

func (*tagged) Act(Time) {}

func TestQueuePopMatchesSiftDown(t *testing.T) {
	// Pseudo-random pushes and pops of the small heap, with times and keys
	// drawn from small ranges so that many events are equal in both: after
	// every pop the heap holds the same events in the same places as after
	// a plain sift-down, so equal events come out in the same order.
	for _, c := range []struct {
		name        string
		times, keys uint64 // ranges of time steps and of keys
		maxLen      int
	}{
		{"all-equal", 1, 1, 600},
		{"few-times-few-keys", 3, 3, 600},
		{"few-keys", 40, 2, 1200},
		{"spread", 500, 1 << 20, 1200},
		{"tiny", 4, 2, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h []event
			x := uint64(0x2545f4914f6cdd1d)
			var now Time
			pops := 0
			for i := range 20000 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				if len(h) == 0 || x%3 != 0 && len(h) < c.maxLen {
					h = append(h, event{t: now + 1 + Time(x>>8%c.times), key: x >> 32 % c.keys, act: &tagged{i}})
					up(h, len(h)-1)
					continue
				}
				want, wantEv := refSiftPop(slices.Clone(h))
				got := popHeap(&h)
				if got != want || !slices.Equal(h, wantEv) {
					t.Fatalf("pop %d of a heap of %d: got (%d,%d,%p), want (%d,%d,%p), or the heaps differ", pops, len(wantEv)+1, got.t, got.key, got.act, want.t, want.key, want.act)
				}
				now = got.t - 1
				pops++
			}
			if pops < 5000 {
				t.Fatalf("only %d pops", pops)
			}
		})
	}
}
