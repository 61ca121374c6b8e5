package mpi

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// withAlg selects alg for coll.
func withAlg(coll, alg string, ps ...Param) func(*World) error {
	return func(w *World) error { return w.SetAlgorithm(coll, alg, ps...) }
}

// fail stops the run with err: a failing collective stops the whole job.
func fail(r *Rank, err error) { r.Proc.Engine().Stop(err) }

// concat is a non-commutative operator: string concatenation.
type concat struct{}

func (concat) Name() string      { return "CONCAT" }
func (concat) Commutative() bool { return false }
func (concat) Combine(a, b Value) (Value, error) {
	x, ok1 := a.Data.(string)
	y, ok2 := b.Data.(string)
	if !ok1 || !ok2 {
		return Value{}, fmt.Errorf("concat: got %T and %T", a.Data, b.Data)
	}
	return Value{Data: x + y, Size: len(x) + len(y)}, nil
}

func str(s string) Value { return Value{Data: s, Size: len(s)} }

// tag is rank w's string: sizes differ between ranks (v-variants).
func tag(w int) string { return fmt.Sprintf("<%d%s>", w, strings.Repeat("x", w%5)) }

func vec(w, l int) Value {
	x := make([]float64, l)
	for j := range x {
		x[j] = float64(w*l + j)
	}
	return Value{Data: x, Size: 8 * l}
}

func num(w int) Value { return Value{Data: float64(w + 1), Size: 8} }

// reference reductions over the world ranks g, in order.
func refConcat(g []int, f func(w int) string) Value {
	var b strings.Builder
	for _, w := range g {
		b.WriteString(f(w))
	}
	return str(b.String())
}

func refSum(g []int, f func(w int) Value) Value {
	acc := f(g[0])
	for _, w := range g[1:] {
		acc, _ = SUM.Combine(acc, f(w))
	}
	return acc
}

var testSizes = []int{1, 2, 3, 7, 64, 100}

// collCase runs one collective on c, whose ranks are the world ranks g in
// order (me is this rank's index in g), and reports mismatches with errorf.
type collCase func(c *Comm, g []int, me int, errorf func(string, ...any)) error

func same(got, want Value) bool {
	return got.Size == want.Size && reflect.DeepEqual(got.Data, want.Data)
}

func roots(n int) []int {
	rs := []int{0, n - 1, n / 2, 1 % n}
	slices.Sort(rs)
	return slices.Compact(rs)
}

var collCases = map[string]collCase{
	"barrier": nil, // TestCollBarrier
	"bcast": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		n := c.Size()
		for _, root := range roots(n) {
			for _, mk := range []func(int) Value{
				func(w int) Value { return vec(w, 3) },
				func(w int) Value { return vec(w, 2000) }, // 16 KB: scatter_allgather under auto
				func(w int) Value { return str(tag(w)) },
				func(w int) Value { return Value{Size: 100000 + w} }, // phantom
			} {
				var v Value
				if me == root {
					v = mk(g[root])
				}
				got, err := Bcast(c, v, root)
				if refused(c, "bcast", err) {
					return nil
				}
				if err != nil {
					return err
				}
				if want := mk(g[root]); !same(got, want) {
					errorf("root %d: got %.40v (%d B), want %.40v (%d B)", root, got.Data, got.Size, want.Data, want.Size)
				}
			}
		}
		return nil
	},
	"reduce": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		for _, root := range roots(c.Size()) {
			got, err := Reduce(c, str(tag(g[me])), concat{}, root)
			want := Value{}
			if me == root {
				want = refConcat(g, tag)
			}
			switch {
			case refused(c, "reduce", err):
			case err != nil:
				return err
			case !same(got, want):
				errorf("concat root %d: got %v, want %v", root, got, want)
			}
			for _, l := range []int{4, c.Size() + 5} { // the second splits into a block a rank (rabenseifner)
				got, err = Reduce(c, vec(g[me], l), SUM, root)
				if err != nil {
					return err
				}
				if me == root {
					want = refSum(g, func(w int) Value { return vec(w, l) })
				}
				if !same(got, want) {
					errorf("sum of %d root %d: got %.60v, want %.60v", l, root, got, want)
				}
			}
		}
		return nil
	},
	"allreduce": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		n := c.Size()
		for _, l := range []int{3, n, 2100} { // 2100: 16.8 KB, ring under auto
			got, err := Allreduce(c, vec(g[me], l), SUM)
			if err != nil {
				return err
			}
			if want := refSum(g, func(w int) Value { return vec(w, l) }); !same(got, want) {
				errorf("sum of %d: got %.60v, want %.60v", l, got, want)
			}
		}
		got, err := Allreduce(c, str(tag(g[me])), concat{})
		switch {
		case refused(c, "allreduce", err):
		case err != nil:
			return err
		case !same(got, refConcat(g, tag)):
			errorf("concat: got %v, want %v", got, refConcat(g, tag))
		}
		got, err = Allreduce(c, num(g[me]), MAX)
		if err != nil {
			return err
		}
		if want := num(slices.Max(g)); !same(got, want) {
			errorf("max: got %v, want %v", got, want)
		}
		got, err = Allreduce(c, Value{Data: []float64{float64(g[me] % 4), float64(g[me])}, Size: 16}, MAXLOC)
		if refused(c, "allreduce", err) {
			return nil
		}
		if err != nil {
			return err
		}
		best := []float64{-1, 0}
		for _, w := range g {
			if v := float64(w % 4); v > best[0] || v == best[0] && float64(w) < best[1] {
				best = []float64{v, float64(w)}
			}
		}
		if want := (Value{Data: best, Size: 16}); !same(got, want) {
			errorf("maxloc: got %v, want %v", got, want)
		}
		return nil
	},
	"gather": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		for _, root := range roots(c.Size()) {
			got, err := Gather(c, str(tag(g[me])), root)
			if err != nil {
				return err
			}
			var want []Value
			if me == root {
				for _, w := range g {
					want = append(want, str(tag(w)))
				}
			}
			if !reflect.DeepEqual(got, want) {
				errorf("root %d: got %v, want %v", root, got, want)
			}
		}
		return nil
	},
	"scatter": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		for _, root := range roots(c.Size()) {
			var vs []Value
			if me == root {
				for _, w := range g {
					vs = append(vs, str(tag(w)+"s"))
				}
			}
			got, err := Scatter(c, vs, root)
			if err != nil {
				return err
			}
			if want := str(tag(g[me]) + "s"); !same(got, want) {
				errorf("root %d: got %v, want %v", root, got, want)
			}
		}
		return nil
	},
	"allgather": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		got, err := AllgatherErr(c, str(tag(g[me])))
		if refused(c, "allgather", err) {
			return nil
		}
		if err != nil {
			return err
		}
		var want []Value
		for _, w := range g {
			want = append(want, str(tag(w)))
		}
		if !reflect.DeepEqual(got, want) {
			errorf("got %v, want %v", got, want)
		}
		return nil
	},
	"alltoall": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		var vs, want []Value
		for _, w := range g {
			vs = append(vs, str(fmt.Sprintf("%d->%d", g[me], w)))
			want = append(want, str(fmt.Sprintf("%d->%d", w, g[me])))
		}
		got, err := Alltoall(c, vs)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			errorf("got %v, want %v", got, want)
		}
		// Phantoms of differing sizes, some of several packets.
		vs, want = vs[:0], want[:0]
		for _, w := range g {
			vs = append(vs, Value{Size: 700*(g[me]%3) + w})
			want = append(want, Value{Size: 700*(w%3) + g[me]})
		}
		if got, err = Alltoall(c, vs); err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			errorf("phantoms: got %v, want %v", got, want)
		}
		return nil
	},
	"reduce_scatter": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		var vs, ns []Value
		for _, w := range g {
			vs = append(vs, str(fmt.Sprintf("(%d,%d)", g[me], w)))
			ns = append(ns, vec(g[me]+w, 2))
		}
		got, err := ReduceScatter(c, vs, concat{})
		if err != nil {
			return err
		}
		if want := refConcat(g, func(w int) string { return fmt.Sprintf("(%d,%d)", w, g[me]) }); !same(got, want) {
			errorf("concat: got %v, want %v", got, want)
		}
		got, err = ReduceScatter(c, ns, SUM)
		if err != nil {
			return err
		}
		if want := refSum(g, func(w int) Value { return vec(w+g[me], 2) }); !same(got, want) {
			errorf("sum: got %v, want %v", got, want)
		}
		return nil
	},
	"scan": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		got, err := Scan(c, str(tag(g[me])), concat{})
		if err != nil {
			return err
		}
		if want := refConcat(g[:me+1], tag); !same(got, want) {
			errorf("concat: got %v, want %v", got, want)
		}
		got, err = Scan(c, num(g[me]), SUM)
		if err != nil {
			return err
		}
		if want := refSum(g[:me+1], num); !same(got, want) {
			errorf("sum: got %v, want %v", got, want)
		}
		return nil
	},
	"exscan": func(c *Comm, g []int, me int, errorf func(string, ...any)) error {
		got, err := Exscan(c, str(tag(g[me])), concat{})
		if err != nil {
			return err
		}
		want := Value{}
		if me > 0 {
			want = refConcat(g[:me], tag)
		}
		if !same(got, want) {
			errorf("concat: got %v, want %v", got, want)
		}
		got, err = Exscan(c, num(g[me]), SUM)
		if err != nil {
			return err
		}
		if me > 0 {
			want = refSum(g[:me], num)
		}
		if !same(got, want) {
			errorf("sum: got %v, want %v", got, want)
		}
		return nil
	},
}

// refused reports whether err is the documented refusal of the algorithm
// chosen for coll: ring and Rabenseifner cut the operand into blocks, which
// a user operator (concat) or MAXLOC cannot take; recursive-doubling
// allgather and the broadcast's recursive-doubling allgather need a
// power-of-two size; the tree's ALU runs no user operator.
func refused(c *Comm, coll string, err error) bool {
	var ae *AlgorithmError
	if !errors.As(err, &ae) {
		return false
	}
	alg := c.r.w.Algorithm(coll)
	if ae.Coll != coll || ae.Alg != alg {
		return false
	}
	switch alg {
	case "ring", "rabenseifner", "tree":
		return true
	case "recursive_doubling":
		return coll == "allgather" && !isPow2(c.Size())
	case "scatter_recursive_doubling":
		return !isPow2(c.Size())
	}
	return false
}

// algNames lists coll's algorithms and "auto".
func algNames(coll string) []string {
	var names []string
	for _, a := range Algorithms() {
		if a.Coll == coll {
			names = append(names, a.Name)
		}
	}
	return append(names, "auto")
}

// splitGroup is the world ranks of the communicator that Split(w%3, -w) gives
// world rank w, in communicator order (descending world rank).
func splitGroup(n, w int) []int {
	var g []int
	for i := n - 1; i >= 0; i-- {
		if i%3 == w%3 {
			g = append(g, i)
		}
	}
	return g
}

// commFor returns the communicator a test runs on, its world ranks and the
// caller's index among them.
func commFor(r *Rank, split bool) (*Comm, []int, int) {
	n := r.World.Size()
	if !split {
		g := make([]int, n)
		for i := range g {
			g[i] = i
		}
		return r.World, g, r.ID
	}
	c := r.World.Split(r.ID%3, -r.ID)
	g := splitGroup(n, r.ID)
	return c, g, slices.Index(g, r.ID)
}

func TestCollAlgorithms(t *testing.T) {
	for _, coll := range collectives() {
		run := collCases[coll]
		if run == nil {
			continue
		}
		for _, alg := range algNames(coll) {
			for _, n := range testSizes {
				for _, split := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/n=%d", coll, alg, n)
					if split {
						name += "/split"
					}
					t.Run(name, func(t *testing.T) {
						reported := 0
						_, err := tryRanksWith(n, withAlg(coll, alg), func(r *Rank) {
							c, g, me := commFor(r, split)
							if c.Size() != len(g) || c.Rank() != me {
								t.Errorf("rank %d: split gave rank %d of %d, want %d of %d", r.ID, c.Rank(), c.Size(), me, len(g))
								return
							}
							errorf := func(f string, a ...any) {
								if reported++; reported <= 5 {
									t.Errorf("rank %d (%d of %d): %s", r.ID, me, len(g), fmt.Sprintf(f, a...))
								}
							}
							if err := run(c, g, me, errorf); err != nil {
								fail(r, fmt.Errorf("rank %d: %w", r.ID, err))
							}
						})
						if err != nil {
							t.Fatal(err)
						}
					})
				}
			}
		}
	}
}

// TestCollBarrier checks that no rank leaves a barrier before the last one of
// its communicator has entered it.
func TestCollBarrier(t *testing.T) {
	for _, alg := range algNames("barrier") {
		for _, n := range testSizes {
			for _, split := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/n=%d/split=%v", alg, n, split), func(t *testing.T) {
					enter := make([]Time, n)
					leave := make([]Time, n)
					groups := make([][]int, n)
					_, err := tryRanksWith(n, withAlg("barrier", alg), func(r *Rank) {
						c, g, _ := commFor(r, split)
						groups[r.ID] = g
						for round := 0; round < 3; round++ { // the last round is checked
							r.Compute(int64((r.ID*7919+round*104729)%13) * 5000)
							enter[r.ID] = r.Now()
							Barrier(c)
							leave[r.ID] = r.Now()
						}
					})
					if err != nil {
						t.Fatal(err)
					}
					for w, g := range groups {
						last := Time(0)
						for _, v := range g {
							last = max(last, enter[v])
						}
						if leave[w] < last {
							t.Errorf("rank %d left at %d, before the last rank entered (%d)", w, leave[w], last)
						}
					}
				})
			}
		}
	}
}

func TestCollRegistry(t *testing.T) {
	algs := Algorithms()
	if !slices.IsSortedFunc(algs, func(a, b Algorithm) int {
		return strings.Compare(a.Coll+"\x00"+a.Name, b.Coll+"\x00"+b.Name)
	}) {
		t.Errorf("Algorithms not sorted: %v", algs)
	}
	want := map[string][]string{
		"barrier":        {"binomial", "dissemination", "gi", "tree"},
		"bcast":          {"binomial", "mpich", "scatter_allgather", "scatter_recursive_doubling", "torus", "tree"},
		"reduce":         {"binomial", "rabenseifner", "tree"},
		"allreduce":      {"rabenseifner", "recursive_doubling", "reduce_bcast", "ring", "tree"},
		"gather":         {"binomial", "linear"},
		"scatter":        {"binomial", "linear"},
		"allgather":      {"bruck", "recursive_doubling", "ring"},
		"alltoall":       {"bruck", "optimized", "pairwise", "postall"},
		"reduce_scatter": {"pairwise", "recursive_doubling"},
		"scan":           {"linear"},
		"exscan":         {"linear"},
	}
	for coll, names := range want {
		if got := algNames(coll); !slices.Equal(got[:len(got)-1], names) {
			t.Errorf("%s algorithms: got %v, want %v", coll, got, names)
		}
	}
	for _, a := range algs {
		if a.Doc == "" {
			t.Errorf("%s/%s has no doc", a.Coll, a.Name)
		}
	}
	w := &World{}
	if err := w.SetAlgorithm("bcast", "scatter_allgather"); err != nil || w.Algorithm("bcast") != "scatter_allgather" {
		t.Errorf("SetAlgorithm: %v, %q", err, w.Algorithm("bcast"))
	}
	if err := w.SetAlgorithm("bcast", "auto"); err != nil || w.Algorithm("bcast") != "auto" {
		t.Errorf("SetAlgorithm auto: %v, %q", err, w.Algorithm("bcast"))
	}
	if err := w.SetAlgorithm("gatherv", "linear"); err != nil || w.Algorithm("gather") != "linear" {
		t.Errorf("SetAlgorithm gatherv: %v, %q", err, w.Algorithm("gather"))
	}
	err := w.SetAlgorithm("bcats", "binomial")
	if err == nil || err.Error() != `unknown collective "bcats" (valid: allgather, allreduce, alltoall, barrier, bcast, exscan, gather, reduce, reduce_scatter, scan, scatter)` {
		t.Errorf("unknown collective: %v", err)
	}
	// A name that is not built in may be registered from Lua later in the
	// run: it is accepted now and checked at the collective's first call.
	if err := w.SetAlgorithm("bcast", "mine"); err != nil || w.Algorithm("bcast") != "mine" {
		t.Errorf("pending algorithm: %v, %q", err, w.Algorithm("bcast"))
	}
}

// TestCollBytes checks that phantom payloads flow with their sizes: the bytes
// sent equal what each algorithm should send.
func TestCollBytes(t *testing.T) {
	const S = 1 << 20
	subtree := func(rel, n int) int { // relative ranks in rel's binomial subtree
		return min(rel&-rel, n-rel)
	}
	for _, n := range testSizes {
		for _, tc := range []struct {
			coll, alg string
			body      func(c *Comm) error
			want      int64
		}{
			{"bcast", "binomial", func(c *Comm) error {
				_, err := Bcast(c, Value{Size: S}, n/2)
				return err
			}, int64(n-1) * S},
			{"bcast", "scatter_allgather", func(c *Comm) error {
				got, err := Bcast(c, Value{Size: S}, n-1)
				if err == nil && got.Size != S {
					err = fmt.Errorf("got %d bytes", got.Size)
				}
				return err
			}, func() int64 {
				b := int64(n-1) * S // ring: every piece travels n-1 hops
				for rel := 1; rel < n; rel++ {
					b += int64(piecesSize(S, n, rel, rel+subtree(rel, n)))
				}
				return b
			}()},
			{"gather", "binomial", func(c *Comm) error {
				_, err := Gather(c, Value{Size: S}, 0)
				return err
			}, func() int64 {
				b := int64(0)
				for rel := 1; rel < n; rel++ {
					b += int64(subtree(rel, n)) * S
				}
				return b
			}()},
			{"gather", "linear", func(c *Comm) error {
				_, err := Gather(c, Value{Size: S}, 0)
				return err
			}, int64(n-1) * S},
			{"alltoall", "pairwise", func(c *Comm) error {
				vs := make([]Value, c.Size())
				for i := range vs {
					vs[i] = Value{Size: S}
				}
				_, err := Alltoall(c, vs)
				return err
			}, int64(n) * int64(n-1) * S},
			{"alltoall", "optimized", func(c *Comm) error { // packet by packet: smaller values
				vs := make([]Value, c.Size())
				for i := range vs {
					vs[i] = Value{Size: S / 64}
				}
				_, err := Alltoall(c, vs)
				return err
			}, int64(n) * int64(n-1) * S / 64},
			{"allgather", "bruck", func(c *Comm) error {
				Allgather(c, Value{Size: S})
				return nil
			}, int64(n) * int64(n-1) * S},
		} {
			t.Run(fmt.Sprintf("%s/%s/n=%d", tc.coll, tc.alg, n), func(t *testing.T) {
				w, err := tryRanksWith(n, withAlg(tc.coll, tc.alg), func(r *Rank) {
					if err := tc.body(r.World); err != nil {
						fail(r, err)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				if w.Bytes != tc.want {
					t.Errorf("bytes: got %d, want %d", w.Bytes, tc.want)
				}
			})
		}
	}
}

// TestCollBcastAuto checks that the root's size decides the bcast algorithm
// (the other ranks follow): large values at 8+ ranks go by scatter_allgather,
// which sends more, smaller messages than the binomial tree.
func TestCollBcastAuto(t *testing.T) {
	for _, tc := range []struct {
		n, size int
		many    bool
	}{{64, 100, false}, {64, 12 << 10, true}, {7, 1 << 20, false}, {100, 1 << 20, true}} {
		w, err := tryRanksWith(tc.n, noHardware, func(r *Rank) {
			var v Value
			if r.ID == 3 {
				v = Value{Data: "payload", Size: tc.size}
			}
			got, err := Bcast(r.World, v, 3)
			if err == nil && (got.Data != "payload" || got.Size != tc.size) {
				err = fmt.Errorf("rank %d got %v", r.ID, got)
			}
			if err != nil {
				fail(r, err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if many := w.Messages > int64(tc.n-1); many != tc.many {
			t.Errorf("n=%d size=%d: %d messages", tc.n, tc.size, w.Messages)
		}
	}
}

func TestCollErrors(t *testing.T) {
	for _, n := range []int{1, 3} {
		_, err := tryRanksWith(n, nil, func(r *Rank) {
			c := r.World
			check := func(what string, err error, bad int) {
				var re *RankError
				if !errors.As(err, &re) || re.What != "root" || re.Rank != bad || re.Size != n {
					t.Errorf("%s root %d: got %v", what, bad, err)
				}
			}
			for _, bad := range []int{-1, n, ProcNull, AnySource} {
				_, err := Bcast(c, num(0), bad)
				check("bcast", err, bad)
				_, err = Reduce(c, num(0), SUM, bad)
				check("reduce", err, bad)
				_, err = Gather(c, num(0), bad)
				check("gather", err, bad)
				_, err = Scatter(c, nil, bad)
				check("scatter", err, bad)
			}
			if _, err := Alltoall(c, make([]Value, n+1)); err == nil {
				t.Errorf("alltoall with %d values: no error", n+1)
			}
			if _, err := ReduceScatter(c, make([]Value, n-1), SUM); err == nil {
				t.Errorf("reduce_scatter with %d values: no error", n-1)
			}
			if r.ID == 0 {
				if _, err := Scatter(c, make([]Value, n+2), 0); err == nil {
					t.Errorf("scatter with %d values: no error", n+2)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// An operator error comes back from the collective.
	for _, alg := range algNames("allreduce") {
		_, err := tryRanksWith(4, withAlg("allreduce", alg), func(r *Rank) {
			if _, err := Allreduce(r.World, str("x"), SUM); err != nil {
				fail(r, err)
			}
		})
		if err == nil || !strings.Contains(err.Error(), "mpi.SUM needs numbers") {
			t.Errorf("%s: sum of strings: got %v", alg, err)
		}
	}
}

// mixed runs every collective, on the world and on a split.
func mixed(r *Rank) {
	for _, split := range []bool{false, true} {
		c, g, me := commFor(r, split)
		for _, coll := range collectives() {
			if run := collCases[coll]; run != nil {
				if err := run(c, g, me, func(string, ...any) {}); err != nil {
					fail(r, err)
					return
				}
			}
		}
		Barrier(c)
	}
}

func TestCollDeterminism(t *testing.T) {
	var ends []string
	for i := 0; i < 2; i++ {
		w, err := tryRanksWith(100, nil, mixed)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, fmt.Sprintf("t=%d msgs=%d bytes=%d events=%d", w.Eng.Now(), w.Messages, w.Bytes, w.Eng.Events()))
	}
	if ends[0] != ends[1] {
		t.Errorf("two runs differ: %s vs %s", ends[0], ends[1])
	}
}

// BenchmarkAllreduce4096 runs one allreduce of a number on 4,096 ranks.
func BenchmarkAllreduce4096(b *testing.B) {
	const n = 4096
	var events, msgs int64
	var host time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		w, err := tryRanksWith(n, nil, func(r *Rank) {
			if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
				fail(r, err)
			}
		})
		host += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		events += int64(w.Eng.Events())
		msgs += w.Messages
	}
	b.ReportMetric(float64(events)/host.Seconds(), "events/s")
	b.ReportMetric(float64(msgs)/host.Seconds(), "msgs/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// TestCollAllreduceAuto checks the automatic allreduce choice by its message
// count: the ring sends 2(n-1) messages a rank, recursive doubling log2 n.
func TestCollAllreduceAuto(t *testing.T) {
	const n = 8
	for _, tc := range []struct {
		name string
		v    func(w int) Value
		op   Op
		ring bool
	}{
		{"large sum", func(w int) Value { return vec(w, 2100) }, SUM, true},
		{"small sum", func(w int) Value { return vec(w, 100) }, SUM, false},
		{"large maxloc", func(w int) Value { return Value{Data: []float64{1, float64(w)}, Size: 1 << 20} }, MAXLOC, false},
		{"large user op", func(w int) Value { return str(strings.Repeat("x", 20000)) }, concat{}, false},
	} {
		w, err := tryRanksWith(n, noHardware, func(r *Rank) {
			if _, err := Allreduce(r.World, tc.v(r.ID), tc.op); err != nil {
				fail(r, err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(n * 3)
		if tc.ring {
			want = 2 * n * (n - 1)
		}
		if w.Messages != want {
			t.Errorf("%s: %d messages, want %d", tc.name, w.Messages, want)
		}
	}
}

// noHardware removes the collective and global-interrupt networks, so that
// the automatic choice among point-to-point algorithms can be tested.
func noHardware(w *World) error {
	w.m.TreeBytesPerCycle, w.m.GIBarrierCycles = 0, 0
	return nil
}

// TestCollAutoUsesHardware: on a communicator of the whole job the automatic
// choice runs barrier, bcast, reduce and allreduce on the networks (no
// point-to-point message).
func TestCollAutoUsesHardware(t *testing.T) {
	w, err := tryRanksWith(16, nil, func(r *Rank) {
		c := r.World
		Barrier(c)
		if v, _ := Bcast(c, Value{Data: 1.0, Size: 8}, 0); v.Data != 1.0 {
			fail(r, fmt.Errorf("bcast got %v", v))
		}
		if v, _ := Allreduce(c, Value{Data: 1.0, Size: 8}, SUM); v.Data != 16.0 {
			fail(r, fmt.Errorf("allreduce got %v", v))
		}
		Reduce(c, Value{Data: 1.0, Size: 8}, MAX, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.Messages != 0 {
		t.Errorf("%d point-to-point messages, want 0", w.Messages)
	}
	// With tree chosen explicitly, a sub-communicator falls back, with a reason.
	w, err = tryRanksWith(16, withAlg("allreduce", "tree"), func(r *Rank) {
		sub := r.World.Split(r.ID%2, r.ID)
		Allreduce(sub, Value{Data: 1.0, Size: 8}, SUM)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Fallbacks()) == 0 {
		t.Error("a sub-communicator's allreduce recorded no fallback")
	}
}
