package mpi

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
)

// nbcCall is one collective in its blocking and nonblocking forms, with
// the arguments of rank me of c (world ranks g).
type nbcCall struct {
	name  string
	block func(c *Comm, g []int, me int) (any, error)
	start func(c *Comm, g []int, me int) (*Request, error)
}

func nbcVals(g []int, me int, f func(from, to int) Value) []Value {
	var vs []Value
	for _, w := range g {
		vs = append(vs, f(g[me], w))
	}
	return vs
}

var nbcCalls = []nbcCall{
	{"barrier", func(c *Comm, g []int, me int) (any, error) { return nil, Barrier(c) },
		func(c *Comm, g []int, me int) (*Request, error) { return Ibarrier(c) }},
	{"bcast", func(c *Comm, g []int, me int) (any, error) { return Bcast(c, str(tag(g[me])), c.Size()-1) },
		func(c *Comm, g []int, me int) (*Request, error) { return Ibcast(c, str(tag(g[me])), c.Size()-1) }},
	{"reduce", func(c *Comm, g []int, me int) (any, error) { return Reduce(c, str(tag(g[me])), concat{}, 0) },
		func(c *Comm, g []int, me int) (*Request, error) { return Ireduce(c, str(tag(g[me])), concat{}, 0) }},
	{"allreduce", func(c *Comm, g []int, me int) (any, error) { return Allreduce(c, vec(g[me], 2100), SUM) },
		func(c *Comm, g []int, me int) (*Request, error) { return Iallreduce(c, vec(g[me], 2100), SUM) }},
	{"allreduce-user", func(c *Comm, g []int, me int) (any, error) { return Allreduce(c, str(tag(g[me])), concat{}) },
		func(c *Comm, g []int, me int) (*Request, error) { return Iallreduce(c, str(tag(g[me])), concat{}) }},
	{"allreduce-phantom", func(c *Comm, g []int, me int) (any, error) { return Allreduce(c, phantomOf(40000), SUM) },
		func(c *Comm, g []int, me int) (*Request, error) { return Iallreduce(c, phantomOf(40000), SUM) }},
	{"bcast-phantom", func(c *Comm, g []int, me int) (any, error) { return Bcast(c, phantomOf(1<<20), 0) },
		func(c *Comm, g []int, me int) (*Request, error) { return Ibcast(c, phantomOf(1<<20), 0) }},
	{"gather", func(c *Comm, g []int, me int) (any, error) { return Gather(c, Value{Size: 5000}, 0) },
		func(c *Comm, g []int, me int) (*Request, error) { return Igather(c, Value{Size: 5000}, 0, false) }},
	{"scatter", func(c *Comm, g []int, me int) (any, error) {
		return Scatter(c, nbcVals(g, me, func(f, t int) Value { return str(fmt.Sprint(f, t)) }), 0)
	}, func(c *Comm, g []int, me int) (*Request, error) {
		return Iscatter(c, nbcVals(g, me, func(f, t int) Value { return str(fmt.Sprint(f, t)) }), 0)
	}},
	{"allgather", func(c *Comm, g []int, me int) (any, error) { return AllgathervErr(c, str(tag(g[me]))) },
		func(c *Comm, g []int, me int) (*Request, error) { return Iallgather(c, str(tag(g[me])), true) }},
	{"alltoall", func(c *Comm, g []int, me int) (any, error) {
		return Alltoall(c, nbcVals(g, me, func(f, t int) Value { return Value{Size: 700*(f%3) + t} }))
	}, func(c *Comm, g []int, me int) (*Request, error) {
		return Ialltoall(c, nbcVals(g, me, func(f, t int) Value { return Value{Size: 700*(f%3) + t} }))
	}},
	{"reduce_scatter", func(c *Comm, g []int, me int) (any, error) {
		return ReduceScatter(c, nbcVals(g, me, func(f, t int) Value { return vec(f+t, 2) }), SUM)
	}, func(c *Comm, g []int, me int) (*Request, error) {
		return IreduceScatter(c, nbcVals(g, me, func(f, t int) Value { return vec(f+t, 2) }), SUM)
	}},
	{"scan", func(c *Comm, g []int, me int) (any, error) { return Scan(c, str(tag(g[me])), concat{}) },
		func(c *Comm, g []int, me int) (*Request, error) { return Iscan(c, str(tag(g[me])), concat{}) }},
	{"exscan", func(c *Comm, g []int, me int) (any, error) { return Exscan(c, num(g[me]), SUM) },
		func(c *Comm, g []int, me int) (*Request, error) { return Iexscan(c, num(g[me]), SUM) }},
}

func phantomOf(n int) Value { return Value{Data: Phantom{N: n}, Size: n} }

// nbcResult is what a completed request gives, shaped as the blocking
// form returns it.
func nbcResult(q *Request) any {
	v, vs, many := q.Result()
	if many {
		return vs
	}
	return v
}

func withProgress(p ProgressModel) func(*World) error {
	return func(w *World) error {
		w.Progress = p
		w.Layer().Coprocessor = true // coprocessor mode
		return nil
	}
}

// TestNBCMatchesBlocking starts every nonblocking collective at once, then
// a blocking allreduce, waits for them in reverse order, and compares each
// result with the blocking form's on the same arguments: sizes 1 to 100,
// COMM_WORLD and split communicators, both progress models, both runtimes
// (under bcs the runtime's own collectives, and the point-to-point fallback
// of user operators on progress contexts).
func TestNBCMatchesBlocking(t *testing.T) {
	for _, rt := range runtimes {
		for _, pm := range []ProgressModel{ProgressCoprocessor, ProgressInline} {
			for _, n := range testSizes {
				for _, split := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/n=%d/split=%v", rt.name, pm, n, split)
					t.Run(name, func(t *testing.T) {
						testNBCMatchesBlocking(t, n, split, pm, rt.setup)
					})
				}
			}
		}
	}
}

func testNBCMatchesBlocking(t *testing.T, n int, split bool, pm ProgressModel, rt func(*World) error) {
	setup := withProgress(pm)
	if rt != nil {
		setup = func(w *World) error {
			if err := rt(w); err != nil {
				return err
			}
			return withProgress(pm)(w)
		}
	}
	_, err := tryRanksWith(n, setup, func(r *Rank) {
		c, g, me := commFor(r, split)
		want := make([]any, len(nbcCalls))
		for i, k := range nbcCalls {
			v, err := k.block(c, g, me)
			if err != nil {
				fail(r, fmt.Errorf("rank %d: %s: %w", r.ID, k.name, err))
				return
			}
			want[i] = v
		}
		qs := make([]*Request, len(nbcCalls))
		for i, k := range nbcCalls {
			q, err := k.start(c, g, me)
			if err != nil {
				fail(r, fmt.Errorf("rank %d: i%s: %w", r.ID, k.name, err))
				return
			}
			qs[i] = q
		}
		if r.PendingCollectives() == 0 && n > 1 {
			t.Errorf("rank %d: no collective pending after starting %d", r.ID, len(qs))
		}
		// A blocking collective between: its messages must not mix.
		if _, err := Allreduce(c, num(g[me]), SUM); err != nil {
			fail(r, err)
			return
		}
		for i := len(qs) - 1; i >= 0; i-- {
			r.Wait(qs[i])
			if err := qs[i].Err(); err != nil {
				fail(r, fmt.Errorf("rank %d: i%s: %w", r.ID, nbcCalls[i].name, err))
				return
			}
			got := nbcResult(qs[i])
			if nbcCalls[i].name == "barrier" {
				continue
			}
			if !reflect.DeepEqual(got, want[i]) {
				t.Errorf("rank %d: i%s gave %.60v, blocking %.60v", r.ID, nbcCalls[i].name, got, want[i])
			}
		}
		if p := r.PendingCollectives(); p != 0 {
			t.Errorf("rank %d: %d collectives pending after waiting for all", r.ID, p)
		}
		// Under bcs only the three calls with a user operator run on
		// progress contexts: the runtime carries out the rest.
		if r.w.bcs != nil && r.prog.made > 3 {
			t.Errorf("rank %d: %d progress contexts under bcs, want at most 3", r.ID, r.prog.made)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// overlapTimes runs, on 7 ranks, a 1 MiB ring allreduce alone, 20 ms of
// computation alone, and the nonblocking allreduce started before the
// computation and waited for after it; it returns the three times (the
// slowest rank's).
func overlapTimes(t *testing.T, pm ProgressModel) (coll, comp, both Time) {
	t.Helper()
	const n = 7
	var c20 int64
	_, err := tryRanksWith(n, func(w *World) error {
		w.Progress = pm
		w.Layer().Coprocessor = true // coprocessor mode
		c20 = int64(w.Machine().ClockHz * 20e-3)
		return w.SetAlgorithm("allreduce", "ring")
	}, func(r *Rank) {
		v := Value{Data: make([]float64, 1<<17), Size: 1 << 20}
		lap := func(f func()) Time {
			Barrier(r.World)
			t0 := r.Now()
			f()
			d := r.Now() - t0
			// The slowest rank's time.
			got, _ := Allreduce(r.World, Value{Data: float64(d), Size: 8}, MAX)
			return Time(got.Data.(float64))
		}
		a := lap(func() {
			if _, err := Allreduce(r.World, v, SUM); err != nil {
				fail(r, err)
			}
		})
		b := lap(func() { r.Compute(c20) })
		d := lap(func() {
			q, err := Iallreduce(r.World, v, SUM)
			if err != nil {
				fail(r, err)
				return
			}
			r.Compute(c20)
			r.Wait(q)
		})
		if r.ID == 0 {
			coll, comp, both = a, b, d
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return
}

// TestNBCOverlap: with the coprocessor progressing it, a 1 MiB ring
// allreduce posted before 20 ms of computation ends in under 0.8x the sum
// of the two alone (the target); progressed only inside MPI calls,
// it starts when the computation ends, and takes about the sum.
func TestNBCOverlap(t *testing.T) {
	coll, comp, both := overlapTimes(t, ProgressCoprocessor)
	t.Logf("coprocessor: allreduce %d, compute %d, both %d cycles (%.2f of the sum)", coll, comp, both, float64(both)/float64(coll+comp))
	if float64(both) >= 0.8*float64(coll+comp) {
		t.Errorf("coprocessor progress: both took %d cycles, want < 0.8 x (%d + %d)", both, coll, comp)
	}
	if both < comp {
		t.Errorf("coprocessor progress: both took %d cycles, less than the computation alone (%d)", both, comp)
	}
	coll, comp, both = overlapTimes(t, ProgressInline)
	t.Logf("inline: allreduce %d, compute %d, both %d cycles (%.2f of the sum)", coll, comp, both, float64(both)/float64(coll+comp))
	if float64(both) < 0.95*float64(coll+comp) {
		t.Errorf("inline progress: both took %d cycles, want about %d + %d (no overlap)", both, coll, comp)
	}
}

// TestNBCDeadlock: a rank that waits for a nonblocking barrier its peer
// never starts is reported with the pending request.
func TestNBCDeadlock(t *testing.T) {
	_, err := tryRanks(2, func(r *Rank) {
		if r.ID == 0 {
			q, _ := Ibarrier(r.World)
			r.Wait(q)
		}
	})
	if err == nil {
		t.Fatal("no deadlock reported")
	}
	var waits []string
	if d, ok := err.(interface{ Error() string }); ok {
		_ = d
	}
	_ = waits
	if !strings.Contains(fmt.Sprint(err), "deadlock") {
		t.Fatalf("got %v, want a deadlock", err)
	}
}

// TestNBCDisagree: ranks that start different nonblocking collectives get
// the agreement error of blocking calls.
func TestNBCDisagree(t *testing.T) {
	_, err := tryRanks(2, func(r *Rank) {
		var q *Request
		if r.ID == 0 {
			q, _ = Iallreduce(r.World, num(1), SUM)
		} else {
			q, _ = Iallreduce(r.World, num(1), MAX)
		}
		r.Wait(q)
		if err := q.Err(); err != nil {
			fail(r, err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "operator") {
		t.Fatalf("got %v, want a disagreement on the operator", err)
	}
}

var _ = hw.BGL

// TestNBCAlgorithms runs each collective's nonblocking form under every
// algorithm of its blocking form (hardware ones included) on 8 ranks, two
// outstanding at once, and compares with the blocking form: the same
// algorithm serves both.
func TestNBCAlgorithms(t *testing.T) {
	for _, k := range nbcCalls {
		coll, _, _ := strings.Cut(k.name, "-") // allreduce-user: allreduce
		for _, alg := range algNames(coll) {
			t.Run(k.name+"/"+alg, func(t *testing.T) {
				_, err := tryRanksWith(8, func(w *World) error {
					w.Layer().Coprocessor = true
					return w.SetAlgorithm(coll, alg)
				}, func(r *Rank) {
					c, g, me := commFor(r, false)
					want, err := k.block(c, g, me)
					if err != nil {
						if !refused(c, coll, err) {
							fail(r, fmt.Errorf("rank %d: %s: %w", r.ID, k.name, err))
						}
						return
					}
					q1, err1 := k.start(c, g, me)
					q2, err2 := k.start(c, g, me)
					if err1 != nil || err2 != nil {
						fail(r, fmt.Errorf("rank %d: i%s: %v %v", r.ID, k.name, err1, err2))
						return
					}
					r.Waitall([]*Request{q2, q1})
					for _, q := range []*Request{q1, q2} {
						if err := q.Err(); err != nil {
							fail(r, fmt.Errorf("rank %d: i%s: %w", r.ID, k.name, err))
							return
						}
						if got := nbcResult(q); coll != "barrier" && !reflect.DeepEqual(got, want) {
							t.Errorf("rank %d: i%s gave %.60v, blocking %.60v", r.ID, k.name, got, want)
						}
					}
					if got, ran := c.LastAlgorithm("i"+coll), c.LastAlgorithm(coll); got != ran {
						t.Errorf("rank %d: i%s ran %q, the blocking form %q", r.ID, coll, got, ran)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestNBCKeepsNothing: many nonblocking calls, of a built-in and of an
// external algorithm, leave no context keys, communicators or progress
// contexts behind them (one context a rank, reused).
func TestNBCKeepsNothing(t *testing.T) {
	const calls = 40
	w, err := tryRanksWith(4, func(w *World) error {
		if err := w.RegisterExternal("bcast", "ext", "", func(view *Comm, call *ExternalCall) error {
			v, err := bcastBinomial(view, call.Value, call.Root) // a built-in, on the view
			call.Result = v
			return err
		}); err != nil {
			return err
		}
		return w.SetAlgorithm("bcast", "ext")
	}, func(r *Rank) {
		for i := 0; i < calls; i++ {
			q1, _ := Iallreduce(r.World, num(r.ID), SUM)
			q2, _ := Ibcast(r.World, num(i), i%4)
			r.Waitall([]*Request{q1, q2})
			if v, _, _ := q2.Result(); !same(v, num(i)) {
				t.Errorf("rank %d call %d: bcast gave %v", r.ID, i, v)
			}
		}
		if n := len(r.collComms); n > 1 {
			t.Errorf("rank %d keeps %d communicators", r.ID, n)
		}
		if n := r.prog.made; n > 2 {
			t.Errorf("rank %d made %d progress contexts for 2 outstanding calls", r.ID, n)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.ctxs.keys); n > 2 {
		t.Errorf("%d context keys kept after %d calls", n, 2*calls)
	}
}

// TestNBCDisagreeOnTree: ranks that start a nonblocking broadcast with
// different roots on the collective network get the agreement error, named
// for the nonblocking call.
func TestNBCDisagreeOnTree(t *testing.T) {
	_, err := tryRanks(4, func(r *Rank) {
		q, err := Ibcast(r.World, num(r.ID), r.ID%2)
		if err != nil {
			fail(r, err)
			return
		}
		r.Wait(q)
		if err := q.Err(); err != nil {
			fail(r, err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "ibcast: rank") || !strings.Contains(err.Error(), "has root") {
		t.Fatalf("got %v, want the ibcast's disagreement on the root", err)
	}
}
