package mpi

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// External algorithms written in Go stand here for the Lua ones: the mpi
// side does not care what language runs them.

// extBcastLinear: the root sends to everyone over the view; the others
// receive from any source and any tag, which would take a user's message if
// the view shared the user's context.
func extBcastLinear(v *Comm, call *ExternalCall) error {
	me, n := v.Rank(), v.Size()
	if me == call.Root {
		for r := 0; r < n; r++ {
			if r != me {
				if err := v.Send(call.Value, r, 7); err != nil {
					return err
				}
			}
		}
		call.Result = call.Value
		return nil
	}
	got, _, err := v.Recv(AnySource, AnyTag)
	call.Result = got
	return err
}

// extGather gathers over the view with Gather (the built-in): collectives
// work on views. drop values are left out of the result at the root.
func extGather(drop int) ExternalAlg {
	return func(v *Comm, call *ExternalCall) error {
		vs, err := AllgatherErr(v, call.Value)
		if v.Rank() == call.Root {
			call.Results = vs[:len(vs)-drop]
		}
		return err
	}
}

func TestExternalRegister(t *testing.T) {
	nop := func(*Comm, *ExternalCall) error { return nil }
	for _, tc := range []struct {
		coll, name string
		fn         ExternalAlg
		err        string // substring; "" for success
	}{
		{"bcast", "mine", nop, ""},
		{"bcast", "mine", nop, ""}, // every rank registers: later ones are accepted
		{"gatherv", "mine", nop, ""},
		{"barrier", "lua_tree", nop, ""},
		{"bcats", "mine", nop, `unknown collective "bcats" (valid: allgather, allreduce, alltoall, barrier, bcast, exscan, gather, reduce, reduce_scatter, scan, scatter)`},
		{"bcast", "", nop, "empty bcast algorithm name"},
		{"bcast", "auto", nop, `"auto" is reserved`},
		{"bcast", "binomial", nop, `"binomial" is a built-in bcast algorithm (built-in: binomial, `},
		{"bcast", "a,b", nop, "cannot be selected with --coll"},
		{"bcast", "a=b", nop, "cannot be selected with --coll"},
		{"bcast", "nil", nil, `no function given for bcast algorithm "nil"`},
	} {
		w := &World{}
		err := w.RegisterExternal(tc.coll, tc.name, "", tc.fn)
		if tc.err == "" {
			if err != nil {
				t.Errorf("RegisterExternal(%q, %q): %v", tc.coll, tc.name, err)
			} else if !w.Registered(tc.coll, tc.name) {
				t.Errorf("RegisterExternal(%q, %q): not registered", tc.coll, tc.name)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("RegisterExternal(%q, %q): got %v, want %q", tc.coll, tc.name, err, tc.err)
		}
	}
	w := &World{}
	if err := w.RegisterExternal("gatherv", "g", "", nop); err != nil || !w.Registered("gather", "g") {
		t.Errorf("gatherv registers for gather: %v", err)
	}
	if (&World{}).Registered("gather", "g") {
		t.Errorf("registrations leak between worlds")
	}
}

func TestExternalPendingSelection(t *testing.T) {
	for _, tc := range []struct {
		coll, alg string
		err       string
		want      string // Algorithm(coll) afterwards
	}{
		{"bcast", "binomial", "", "binomial"},
		{"bcast", "mybcast", "", "mybcast"}, // pending: the program registers it later
		{"gatherv", "mine", "", "mine"},
		{"bcast", "auto", "", "auto"},
		{"bcats", "binomial", `unknown collective "bcats"`, "auto"},
		{"bcats", "mybcast", `unknown collective "bcats"`, "auto"},
		{"bcast", "", "no algorithm named for bcast", "auto"},
	} {
		w := &World{}
		err := w.SetAlgorithm(tc.coll, tc.alg)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("SetAlgorithm(%q, %q): got %v, want %q", tc.coll, tc.alg, err, tc.err)
		}
		if got := w.Algorithm(tc.coll); got != tc.want {
			t.Errorf("SetAlgorithm(%q, %q): Algorithm = %q, want %q", tc.coll, tc.alg, got, tc.want)
		}
	}
}

// setup returns a setup step that registers and selects algorithms:
// "coll=name" selects, and registers fns[coll] under name if there is one.
func setup(sel map[string]string, fns map[string]ExternalAlg) func(*World) error {
	return func(w *World) error {
		for coll, name := range sel {
			if err := w.SetAlgorithm(coll, name); err != nil {
				return err
			}
			if fn := fns[coll]; fn != nil {
				if err := w.RegisterExternal(coll, name, "", fn); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func TestExternalRun(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/split=%v", n, split), func(t *testing.T) {
				calls := 0
				count := func(fn ExternalAlg) ExternalAlg {
					return func(v *Comm, c *ExternalCall) error { calls++; return fn(v, c) }
				}
				_, err := tryRanksWith(n, setup(
					map[string]string{"bcast": "linear", "gather": "viaallgather"},
					map[string]ExternalAlg{"bcast": count(extBcastLinear), "gather": count(extGather(0))},
				), func(r *Rank) {
					c, g, me := commFor(r, split)
					for _, root := range roots(c.Size()) {
						// A user message with a tag the algorithm also uses is in
						// flight to the next rank: the algorithm must not see it.
						next, prev := (me+1)%len(g), (me-1+len(g))%len(g)
						if err := c.Send(str("user"), next, 7); err != nil {
							t.Error(err)
						}
						var v Value
						if me == root {
							v = str(tag(g[root]))
						}
						got, err := Bcast(c, v, root)
						if err != nil || !same(got, str(tag(g[root]))) {
							t.Errorf("rank %d: bcast root %d: %v, %v", r.ID, root, got, err)
						}
						if u, _, _ := c.Recv(prev, 7); !same(u, str("user")) {
							t.Errorf("rank %d: user message: got %v", r.ID, u)
						}
						vs, err := Gather(c, num(g[me]), root)
						var want []Value
						if me == root {
							for _, w := range g {
								want = append(want, num(w))
							}
						}
						if err != nil || !reflect.DeepEqual(vs, want) {
							t.Errorf("rank %d: gather root %d: %v, %v", r.ID, root, vs, err)
						}
					}
					// Argument checks come before the algorithm.
					before := calls
					if _, err := Bcast(c, num(0), c.Size()); err == nil {
						t.Errorf("bcast with root %d: no error", c.Size())
					}
					if calls != before {
						t.Errorf("bcast with a bad root called the algorithm")
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestExternalErrors(t *testing.T) {
	const n = 3
	for _, tc := range []struct {
		name string
		sel  map[string]string
		fns  map[string]ExternalAlg
		body func(c *Comm) error
		want string
	}{
		{"unregistered", map[string]string{"bcast": "mybcast"}, nil,
			func(c *Comm) error { _, err := Bcast(c, num(0), 0); return err },
			`--coll bcast=mybcast: no algorithm "mybcast" registered for bcast (call mpi.coll.register("bcast", "mybcast", fn) before the first bcast; built-in: binomial, `},
		{"unregistered barrier", map[string]string{"barrier": "mine"}, nil,
			func(c *Comm) error { return Barrier(c) },
			`--coll barrier=mine: no algorithm "mine" registered for barrier`},
		{"unregistered allgather", map[string]string{"allgatherv": "mine"}, nil,
			func(c *Comm) error { _, err := AllgatherErr(c, num(0)); return err },
			`--coll allgather=mine: no algorithm "mine" registered for allgather`},
		{"gather one short", map[string]string{"gather": "short"}, map[string]ExternalAlg{"gather": extGather(1)},
			func(c *Comm) error { _, err := Gather(c, num(0), 1); return err },
			`gather algorithm "short" returned 2 values at the root, want 3 (one per rank of COMM_WORLD)`},
		{"allgather too long", map[string]string{"allgather": "long"},
			map[string]ExternalAlg{"allgather": func(v *Comm, call *ExternalCall) error {
				call.Results = make([]Value, v.Size()+1)
				return nil
			}},
			func(c *Comm) error { _, err := AllgatherErr(c, num(0)); return err },
			`allgather algorithm "long" returned 4 values, want 3`},
		{"algorithm error", map[string]string{"scan": "bad"},
			map[string]ExternalAlg{"scan": func(*Comm, *ExternalCall) error { return errors.New("broken") }},
			func(c *Comm) error { _, err := Scan(c, num(0), SUM); return err },
			"broken"},
		{"alltoall length checked first", map[string]string{"alltoall": "never"},
			map[string]ExternalAlg{"alltoall": func(*Comm, *ExternalCall) error { panic("called") }},
			func(c *Comm) error { _, err := Alltoall(c, make([]Value, 2)); return err },
			"mpi.alltoall: 2 values for 3 ranks of COMM_WORLD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := make([]error, n)
			_, err := tryRanksWith(n, setup(tc.sel, tc.fns), func(r *Rank) {
				errs[r.ID] = tc.body(r.World)
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, err := range errs {
				if tc.name == "gather one short" && i != 1 {
					if err != nil {
						t.Errorf("rank %d (not the root): %v", i, err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rank %d: got %v, want %q", i, err, tc.want)
				}
			}
		})
	}
}

// TestExternalResults checks that a rank's result is what the built-in gives
// there, whatever the algorithm leaves in the call.
func TestExternalResults(t *testing.T) {
	const n = 4
	junk := func(v *Comm, call *ExternalCall) error {
		call.Result = num(100 + v.Rank())
		call.Results = make([]Value, v.Size())
		return nil
	}
	sel := map[string]string{"reduce": "junk", "exscan": "junk", "barrier": "junk"}
	fns := map[string]ExternalAlg{"reduce": junk, "exscan": junk, "barrier": junk}
	_, err := tryRanksWith(n, setup(sel, fns), func(r *Rank) {
		c := r.World
		got, err := Reduce(c, num(0), SUM, 2)
		want := Value{}
		if r.ID == 2 {
			want = num(100 + 2)
		}
		if err != nil || !same(got, want) {
			t.Errorf("rank %d: reduce: %v, %v; want %v", r.ID, got, err, want)
		}
		got, err = Exscan(c, num(0), SUM)
		want = num(100 + r.ID)
		if r.ID == 0 {
			want = Value{}
		}
		if err != nil || !same(got, want) {
			t.Errorf("rank %d: exscan: %v, %v; want %v", r.ID, got, err, want)
		}
		if err := Barrier(c); err != nil {
			t.Errorf("rank %d: barrier: %v", r.ID, err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExternalComposed: a built-in that composes the run's choices (allreduce
// reduce_bcast) runs an external reduce.
func TestExternalComposed(t *testing.T) {
	const n = 5
	calls := 0
	sumToRoot := func(v *Comm, call *ExternalCall) error {
		calls++
		vs := Allgather(v, call.Value)
		if v.Rank() == call.Root {
			acc := vs[0]
			for _, x := range vs[1:] {
				var err error
				if acc, err = call.Op.Combine(acc, x); err != nil {
					return err
				}
			}
			call.Result = acc
		}
		return nil
	}
	sel := map[string]string{"reduce": "viaallgather", "allreduce": "reduce_bcast"}
	_, err := tryRanksWith(n, setup(sel, map[string]ExternalAlg{"reduce": sumToRoot}), func(r *Rank) {
		got, err := Allreduce(r.World, num(r.ID), SUM)
		if want := refSum([]int{0, 1, 2, 3, 4}, num); err != nil || !same(got, want) {
			t.Errorf("rank %d: got %v, %v; want %v", r.ID, got, err, want)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != n {
		t.Errorf("external reduce called %d times, want %d", calls, n)
	}
}

// TestCollView checks the contexts of views: the same on every rank, apart
// from the communicator's two, from other communicators' and from the views
// of views; and that communicators split from a view differ from one call to
// the next (Split, as Dup would call the barrier under test).
func TestCollView(t *testing.T) {
	const n = 4
	type ctxs struct{ world, view, viewview, sub, subview int }
	got := make([]ctxs, n)
	dups := make([][]int, n)
	barrierDup := func(v *Comm, call *ExternalCall) error {
		d := v.Split(0, v.Rank())
		dups[v.Owner().ID] = append(dups[v.Owner().ID], d.ctx)
		return nil
	}
	_, err := tryRanksWith(n, setup(map[string]string{"barrier": "dup"}, map[string]ExternalAlg{"barrier": barrierDup}), func(r *Rank) {
		c := r.World
		sub := c.Split(0, r.ID)
		got[r.ID] = ctxs{c.ctx, c.CollView().ctx, c.CollView().CollView().ctx, sub.ctx, sub.CollView().ctx}
		for i := 0; i < 3; i++ {
			if err := Barrier(c); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != got[0] {
			t.Errorf("rank %d contexts %+v, rank 0 %+v", i, got[i], got[0])
		}
	}
	g := got[0]
	seen := map[int]string{}
	for _, x := range []struct {
		name string
		ctx  int
	}{{"world", g.world}, {"view", g.view}, {"view of view", g.viewview}, {"split", g.sub}, {"view of split", g.subview}} {
		for _, c := range []int{x.ctx, x.ctx + 1} {
			if other, ok := seen[c]; ok {
				t.Errorf("%s and %s share context %d", x.name, other, c)
			}
			seen[c] = x.name
		}
	}
	if d := dups[0]; len(d) != 3 || d[0] == d[1] || d[1] == d[2] || d[0] == d[2] {
		t.Errorf("splits of the view in three calls got contexts %v, want three different", d)
	}
}
