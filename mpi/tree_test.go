package mpi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// hwRun describes a run for the hardware-collective tests.
type hwRun struct {
	n       int
	dims    hw.Dims // zero: DefaultDims of the nodes needed
	perNode int     // 0 or 1: coprocessor mode; 2: virtual-node mode
	txyz    bool    // TXYZ mapping (both tasks of a node are neighbours)
	machine *hw.Machine
	algs    map[string]string
}

func (h hwRun) run(t testing.TB, body func(r *Rank)) (*World, error) {
	t.Helper()
	m := h.machine
	if m == nil {
		m = hw.BGL()
	}
	per := max(h.perNode, 1)
	dims := h.dims
	if dims == (hw.Dims{}) {
		dims = hw.DefaultDims((h.n + per - 1) / per)
	}
	tor := hw.Torus{Dims: dims}
	mapf := hw.MapXYZT
	if h.txyz {
		mapf = hw.MapTXYZ
	}
	mp, err := mapf(tor, h.n, per)
	if err != nil {
		t.Fatal(err)
	}
	eng := runtime.New()
	w := NewWorld(msglayer.New(m, mp, eng), h.n)
	for coll, alg := range h.algs {
		if err := w.SetAlgorithm(coll, alg); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < h.n; i++ {
		eng.Spawn(i, 0, func(p *runtime.Proc) { body(w.Rank(p.ID)) })
		w.Attach(i, eng.Procs()[i])
	}
	return w, eng.Run(context.Background())
}

func (h hwRun) mustRun(t testing.TB, body func(r *Rank)) *World {
	t.Helper()
	w, err := h.run(t, body)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var treeAlgs = map[string]string{"barrier": "tree", "bcast": "tree", "reduce": "tree", "allreduce": "tree"}

// frac is rank w's element j: fractions of every magnitude, so that sums in
// different orders round differently.
func frac(w, j int) float64 {
	x := math.Sin(float64(w*7919+j*104729)+0.5) * math.Pow(10, float64((w*13+j*7)%17-8))
	return x
}

func fracs(w, l int) Value {
	x := make([]float64, l)
	for j := range x {
		x[j] = frac(w, j)
	}
	return Value{Data: x, Size: 8 * l}
}

// bigSum is the exact sum of xs, rounded once: what the network must give.
func bigSum(xs []float64) float64 {
	acc := new(big.Float).SetPrec(2300)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetFloat64(x))
	}
	f, _ := acc.Float64()
	return f
}

// treeCases are reductions and their results over the world ranks g.
var treeCases = []struct {
	name string
	op   Op
	v    func(w int) Value
	want func(g []int) Value
}{
	{"sum of fractions", SUM, func(w int) Value { return fracs(w, 5) }, func(g []int) Value {
		out := make([]float64, 5)
		for j := range out {
			var col []float64
			for _, w := range g {
				col = append(col, frac(w, j))
			}
			out[j] = bigSum(col)
		}
		return Value{Data: out, Size: 40}
	}},
	{"sum of a number", SUM, num, func(g []int) Value { return refSum(g, num) }},
	{"sum of integers", SUM, func(w int) Value { return vec(w, 3) }, func(g []int) Value {
		return refSum(g, func(w int) Value { return vec(w, 3) })
	}},
	{"max", MAX, func(w int) Value { return fracs(w, 3) }, func(g []int) Value {
		return refFold(g, MAX, func(w int) Value { return fracs(w, 3) })
	}},
	{"min", MIN, func(w int) Value { return fracs(w, 3) }, func(g []int) Value {
		return refFold(g, MIN, func(w int) Value { return fracs(w, 3) })
	}},
	{"land", LAND, func(w int) Value { return Value{Data: []float64{1, float64(w % 5), 0}, Size: 24} }, nil},
	{"lor", LOR, func(w int) Value { return Value{Data: []float64{0, float64(w % 5), 0}, Size: 24} }, nil},
	{"band", BAND, func(w int) Value { return Value{Data: []float64{float64(^(int64(1) << (w % 40))), -1}, Size: 16} }, nil},
	{"bor", BOR, func(w int) Value { return Value{Data: []float64{float64(int64(1) << (w % 40)), -8}, Size: 16} }, nil},
	{"maxloc", MAXLOC, func(w int) Value { return Value{Data: []float64{float64(w % 4), float64(w)}, Size: 16} }, nil},
	{"minloc", MINLOC, func(w int) Value { return Value{Data: []float64{-float64(w % 3), float64(100 - w)}, Size: 16} }, nil},
	{"phantom", SUM, func(w int) Value { return Value{Data: Phantom{N: 4000}, Size: 4000} }, nil},
}

// refFold is op over g's values in rank order, as the point-to-point
// algorithms compute it.
func refFold(g []int, op Op, v func(int) Value) Value {
	acc := v(g[0])
	for _, w := range g[1:] {
		acc, _ = op.Combine(acc, v(w))
	}
	return acc
}

func sameBits(a, b Value) bool {
	if a.Size != b.Size {
		return false
	}
	switch x := a.Data.(type) {
	case float64:
		y, ok := b.Data.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []float64:
		y, ok := b.Data.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Data, b.Data)
}

// TestTreeResults: every collective on the collective network gives the
// reference result on the whole job, without falling back.
func TestTreeResults(t *testing.T) {
	for _, n := range testSizes {
		for _, vn := range []bool{false, true} {
			h := hwRun{n: n, algs: treeAlgs}
			if vn {
				h.perNode = 2
			}
			t.Run(fmt.Sprintf("n=%d/vn=%v", n, vn), func(t *testing.T) {
				g := make([]int, n)
				for i := range g {
					g[i] = i
				}
				bad := 0
				errorf := func(f string, a ...any) {
					if bad++; bad <= 5 {
						t.Errorf(f, a...)
					}
				}
				w := h.mustRun(t, func(r *Rank) {
					c := r.World
					for _, tc := range treeCases {
						want := refFold(g, tc.op, tc.v)
						if tc.want != nil {
							want = tc.want(g)
						}
						got, err := Allreduce(c, tc.v(r.ID), tc.op)
						if err != nil {
							fail(r, err)
							return
						}
						if !sameBits(got, want) {
							errorf("rank %d: allreduce %s: got %v, want %v", r.ID, tc.name, got, want)
						}
						root := (n - 1) / 2
						got, err = Reduce(c, tc.v(r.ID), tc.op, root)
						if err != nil {
							fail(r, err)
							return
						}
						if r.ID != root {
							want = Value{}
						}
						if !sameBits(got, want) {
							errorf("rank %d: reduce %s to %d: got %v, want %v", r.ID, tc.name, root, got, want)
						}
					}
					for _, root := range roots(n) {
						for _, mk := range []func(int) Value{
							func(w int) Value { return str(tag(w)) },
							func(w int) Value { return vec(w, 1000) },
							func(w int) Value { return Value{Data: Phantom{N: 1 << 20}, Size: 1 << 20} },
							func(w int) Value { return Value{} },
						} {
							var v Value
							if r.ID == root {
								v = mk(root)
							}
							got, err := Bcast(c, v, root)
							if err != nil {
								fail(r, err)
								return
							}
							if want := mk(root); !same(got, want) {
								errorf("rank %d: bcast from %d: got %.40v, want %.40v", r.ID, root, got, want)
							}
						}
					}
					if err := Barrier(c); err != nil {
						fail(r, err)
					}
				})
				if fb := w.Fallbacks(); len(fb) != 0 {
					t.Errorf("fallbacks on the whole job: %v", fb)
				}
				if col := w.Collective(); col == nil || col.Tree().Passes == 0 {
					t.Errorf("the collective network was not used")
				}
			})
		}
	}
}

// TestTreeOrderIndependent: a sum of fractions on a communicator that holds
// every rank in reverse order gives the same bits as on COMM_WORLD (the
// rank-order reference does not), and the same on every rank.
func TestTreeOrderIndependent(t *testing.T) {
	const n = 100
	var fwd, rev [n]Value
	h := hwRun{n: n, algs: map[string]string{"allreduce": "tree"}}
	h.mustRun(t, func(r *Rank) {
		rc := r.World.Split(0, -r.ID)
		if rc.Rank() != n-1-r.ID {
			fail(r, fmt.Errorf("rank %d: split gave %d", r.ID, rc.Rank()))
			return
		}
		var err error
		if fwd[r.ID], err = Allreduce(r.World, fracs(r.ID, 50), SUM); err != nil {
			fail(r, err)
			return
		}
		if rev[r.ID], err = Allreduce(rc, fracs(r.ID, 50), SUM); err != nil {
			fail(r, err)
		}
	})
	for i := range fwd {
		if !sameBits(fwd[i], fwd[0]) || !sameBits(rev[i], fwd[0]) {
			t.Fatalf("rank %d: %v and %v differ from rank 0's %v", i, fwd[i], rev[i], fwd[0])
		}
	}
	g := make([]int, n)
	for i := range g {
		g[i] = n - 1 - i
	}
	ref := refFold(g, SUM, func(w int) Value { return fracs(w, 50) })
	if sameBits(ref, fwd[0]) {
		t.Errorf("the data are too tame: the reverse rank-order sum equals the exact one")
	}
}

// TestTreeFallback: where the hardware does not apply, the default algorithm
// runs, gives the right result, and the reason is counted once per call.
func TestTreeFallback(t *testing.T) {
	t.Run("sub-communicators", func(t *testing.T) {
		const n = 7
		h := hwRun{n: n, algs: map[string]string{"barrier": "gi", "bcast": "tree", "reduce": "tree", "allreduce": "tree"}}
		w := h.mustRun(t, func(r *Rank) {
			c, g, me := commFor(r, true)
			for _, name := range []string{"bcast", "reduce", "allreduce"} {
				if err := collCases[name](c, g, me, func(f string, a ...any) { t.Errorf("rank %d: "+f, append([]any{r.ID}, a...)...) }); err != nil {
					fail(r, err)
					return
				}
			}
			Barrier(c)
		})
		// 3 sub-communicators of 3, 2 and 2 ranks, so 3, 2 and 2 roots;
		// allreduce: 6 calls, bcast: 4 a root, reduce: 3 a root.
		want := []Fallback{
			{"allreduce", "tree", reasonSubComm, 3 * 6},
			{"barrier", "gi", reasonSubComm, 3},
			{"bcast", "tree", reasonSubComm, 7 * 4},
			{"reduce", "tree", reasonSubComm, 7 * 3},
		}
		if got := w.Fallbacks(); !reflect.DeepEqual(got, want) {
			t.Errorf("fallbacks:\n got %v\nwant %v", got, want)
		}
	})
	t.Run("operators and values", func(t *testing.T) {
		// An operator the ALU cannot do is an error of the call chosen for
		// the tree, not a silent change of algorithm; values that are not
		// numbers fall back, and the default algorithm reports them.
		h := hwRun{n: 8, algs: treeAlgs}
		w := h.mustRun(t, func(r *Rank) {
			var ae *AlgorithmError
			_, err := Allreduce(r.World, str(tag(r.ID)), concat{})
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), "operator CONCAT is not predefined") {
				t.Errorf("rank %d: concat: %v", r.ID, err)
			}
			_, err = Allreduce(r.World, num(r.ID), PROD)
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), "--coll allreduce=tree cannot run this call on COMM_WORLD (8 ranks): operator PROD (the ALU cannot multiply)") {
				t.Errorf("rank %d: prod: %v", r.ID, err)
			}
			_, err = Reduce(r.World, num(r.ID), PROD, 3)
			if !errors.As(err, &ae) || ae.Coll != "reduce" {
				t.Errorf("rank %d: reduce prod: %v", r.ID, err)
			}
			_, err = Allreduce(r.World, Value{Data: true, Size: 1}, LOR)
			if err == nil || !strings.Contains(err.Error(), "mpi.LOR needs numbers") {
				t.Errorf("rank %d: lor of booleans: %v", r.ID, err)
			}
		})
		want := []Fallback{
			{"allreduce", "tree", "values are a boolean (the ALU reduces numbers and arrays of numbers)", 1},
		}
		if got := w.Fallbacks(); !reflect.DeepEqual(got, want) {
			t.Errorf("fallbacks:\n got %v\nwant %v", got, want)
		}
	})
	t.Run("one task per node in vn mode", func(t *testing.T) {
		h := hwRun{n: 16, perNode: 2, algs: map[string]string{"allreduce": "tree"}}
		w := h.mustRun(t, func(r *Rank) {
			c := r.World.Split(r.WorldOf().ml.Map.Coord(r.ID).T, r.ID)
			got, err := Allreduce(c, num(r.ID), SUM)
			if err != nil {
				fail(r, err)
			} else if want := 8*9/2 + float64(r.ID/8*64); got.Data != want {
				t.Errorf("rank %d: got %v, want %v", r.ID, got.Data, want)
			}
		})
		want := []Fallback{{"allreduce", "tree", reasonOnePerNode, 2}}
		if got := w.Fallbacks(); !reflect.DeepEqual(got, want) {
			t.Errorf("fallbacks:\n got %v\nwant %v", got, want)
		}
	})
	t.Run("no network", func(t *testing.T) {
		h := hwRun{n: 4, machine: hw.BGC(), algs: map[string]string{"barrier": "gi", "allreduce": "tree"}}
		w := h.mustRun(t, func(r *Rank) {
			Barrier(r.World)
			if got, err := Allreduce(r.World, num(r.ID), SUM); err != nil || got.Data != 10.0 {
				t.Errorf("rank %d: %v %v", r.ID, got, err)
			}
		})
		want := []Fallback{
			{"allreduce", "tree", "the machine has no collective network", 1},
			{"barrier", "gi", "the machine has no global interrupt network", 1},
		}
		if got := w.Fallbacks(); !reflect.DeepEqual(got, want) {
			t.Errorf("fallbacks:\n got %v\nwant %v", got, want)
		}
	})
}

// TestTreeErrors: ranks that disagree get an error instead of a hang.
func TestTreeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(r *Rank) error
		want string
	}{
		{"mixed values", func(r *Rank) error {
			v := num(r.ID)
			if r.ID == 2 {
				v = str("x")
			}
			_, err := Allreduce(r.World, v, SUM)
			return err
		}, "mpi.SUM needs numbers"},
		{"arrays of different lengths", func(r *Rank) error {
			_, err := Allreduce(r.World, vec(r.ID, 2+r.ID%2), SUM)
			return err
		}, "allreduce: rank 1 passes 24 bytes but rank 0 passes 16 bytes (COMM_WORLD)"},
		{"maxloc of triples", func(r *Rank) error {
			_, err := Allreduce(r.World, vec(r.ID, 3), MAXLOC)
			return err
		}, "{value, index} pairs"},
		{"different operators", func(r *Rank) error {
			op := Op(SUM)
			if r.ID == 1 {
				op = MAX
			}
			_, err := Allreduce(r.World, num(r.ID), op)
			return err
		}, "allreduce: rank 1 has operator MAX but rank 0 has operator SUM (COMM_WORLD)"},
		{"different roots", func(r *Rank) error {
			_, err := Bcast(r.World, num(r.ID), r.ID%2)
			return err
		}, "bcast: rank 1 has root 1 but rank 0 has root 0 (COMM_WORLD)"},
		{"rank 0 disagrees", func(r *Rank) error {
			root := 0
			if r.ID == 0 {
				root = 2
			}
			_, err := Bcast(r.World, num(r.ID), root)
			return err
		}, "bcast: rank 1 has root 0 but rank 0 has root 2 (COMM_WORLD)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := hwRun{n: 4, algs: treeAlgs}.run(t, func(r *Rank) {
				if err := tc.body(r); err != nil {
					fail(r, err)
				}
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestTreeTiming checks the completion times against the model, written out.
func TestTreeTiming(t *testing.T) {
	m := hw.BGL()
	call := m.MPICallCycles
	wr, rd, per := m.PacketWriteCycles, m.PacketReadCycles, m.ReduceCyclesPerElement
	ser, period := m.TreeSerializeCycles(), m.TreePeriod()
	for _, vn := range []bool{false, true} {
		h := hwRun{n: 64, dims: hw.Dims{X: 4, Y: 4, Z: 4}, algs: map[string]string{"barrier": "gi", "bcast": "tree", "allreduce": "tree"}}
		nodes := 64
		if vn {
			h.n, h.perNode = 128, 2
		}
		L := m.TreeLatency(nodes) // 2*6*55
		pass := func(ready Time, bytes int) Time {
			p := int64((bytes + 255) / 256)
			if p < 1 {
				p = 1
			}
			return ready + wr + L + ser + (p-1)*period + rd
		}
		var combine, copy8, copyPkt Time
		if vn {
			combine, copy8, copyPkt = per, m.CopyCycles(8), m.CopyCycles(256)
		}
		// A barrier, a 1,000-byte broadcast and a sum of one number (values
		// 1..n: exponents within 2^7, so a 2-word mantissa pass) in sequence.
		t0 := call
		t1 := t0 + m.GILatency(nodes)
		t2 := pass(t1+call, 1000)
		// Partners leave the broadcast last, after their copy.
		sumEnd := pass(pass(t2+copyPkt+call+combine+per, 4)+per, 16) + per
		want := [3][2]Time{{t1, t1}, {t2, t2 + copyPkt}, {sumEnd, sumEnd + copy8}}
		var got [][3]Time = make([][3]Time, h.n)
		h.mustRun(t, func(r *Rank) {
			Barrier(r.World)
			got[r.ID][0] = r.Now()
			if _, err := Bcast(r.World, Value{Size: 1000}, 5); err != nil {
				fail(r, err)
			}
			got[r.ID][1] = r.Now()
			if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
				fail(r, err)
			}
			got[r.ID][2] = r.Now()
		})
		for id, g := range got {
			partner := 0
			if vn && id >= 64 {
				partner = 1
			}
			for k := range g {
				if g[k] != want[k][partner] {
					t.Errorf("vn=%v rank %d step %d: left at %d, want %d", vn, id, k, g[k], want[k][partner])
				}
			}
		}
	}
}

// TestTreeLateArrival: the operation starts when the last rank arrives, and
// no rank leaves before.
func TestTreeLateArrival(t *testing.T) {
	m := hw.BGL()
	const n, late = 32, 1_000_000
	for _, alg := range []string{"gi", "tree"} {
		var leave [n]Time
		hwRun{n: n, algs: map[string]string{"barrier": alg}}.mustRun(t, func(r *Rank) {
			if r.ID == 17 {
				r.Compute(late)
			}
			Barrier(r.World)
			leave[r.ID] = r.Now()
		})
		want := late + m.MPICallCycles + m.GILatency(n)
		if alg == "tree" {
			want = late + m.MPICallCycles + m.PacketWriteCycles + m.TreeLatency(n) + m.TreeSerializeCycles() + m.PacketReadCycles
		}
		for i, l := range leave {
			if l != want {
				t.Errorf("%s: rank %d left at %d, want %d", alg, i, l, want)
			}
		}
	}
}

// TestTreeFullMachine: the model's figures at 65,536 nodes, without running
// 131,072 ranks: a global-interrupt barrier in 1.5 us, a one-packet trip of
// the collective network in 2.5 us plus a packet's serialization.
func TestTreeFullMachine(t *testing.T) {
	m := hw.BGL()
	nodes := hw.Dims{X: 64, Y: 32, Z: 32}.Nodes()
	if s := m.Seconds(m.GILatency(nodes)); math.Abs(s-1.5e-6) > 0.01e-6 {
		t.Errorf("GI barrier on the full machine: %.3g s", s)
	}
	if s := m.Seconds(m.TreeLatency(nodes)); math.Abs(s-2.5e-6) > 0.025e-6 {
		t.Errorf("tree latency on the full machine: %.3g s", s)
	}
	// An MPI allreduce of one double on the full machine in vn mode, from
	// the model: well under the 16 rounds of recursive doubling.
	tr := hw.NewTree(m, nodes)
	per := m.ReduceCyclesPerElement
	end := tr.Pass(tr.Pass(m.MPICallCycles+per+per, 4)+per, 16) + per
	if s := m.Seconds(end); s < 5e-6 || s > 10e-6 {
		t.Errorf("allreduce of a double on 65,536 nodes: %.3g s, want 5 to 10 us", s)
	}
}

// TestTreeML: the message layer's direct calls, on their own numbering.
func TestTreeML(t *testing.T) {
	m := hw.BGL()
	const n = 12
	var at [n]Time
	h := hwRun{n: n, perNode: 2}
	h.mustRun(t, func(r *Rank) {
		if err := r.GIBarrier(); err != nil {
			fail(r, err)
			return
		}
		at[r.ID] = r.Now()
		// Interleaved with an MPI tree collective on COMM_WORLD: separate numbering.
		got, err := r.TreeBcast(str(tag(r.ID)), 4)
		if err != nil || got.Data != tag(4) {
			t.Errorf("rank %d: tree_bcast: %v %v", r.ID, got, err)
		}
		if _, err := allreduceTree(r.World, num(r.ID), MAX); err != nil {
			fail(r, err)
			return
		}
		got, err = r.TreeAllreduce(fracs(r.ID, 2), SUM)
		want := treeCases[0].want([]int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
		want.Data = want.Data.([]float64)[:2]
		if err != nil || !sameBits(got, Value{Data: want.Data, Size: 16}) {
			t.Errorf("rank %d: tree_reduce: %v %v (want %v)", r.ID, got, err, want)
		}
		if _, err := r.TreeAllreduce(num(1), PROD); err == nil || !strings.Contains(err.Error(), "ml.tree_reduce: operator PROD") {
			t.Errorf("rank %d: tree_reduce PROD: %v", r.ID, err)
		}
		if _, err := r.TreeBcast(num(1), n); err == nil {
			t.Errorf("rank %d: tree_bcast root out of range: no error", r.ID)
		}
	})
	nodes := hw.DefaultDims(n / 2).Nodes()
	for i, a := range at {
		if a != m.GILatency(nodes) {
			t.Errorf("rank %d: gi_barrier from 0 ended at %d, want %d", i, a, m.GILatency(nodes))
		}
	}
	_, err := hwRun{n: 2, machine: hw.BGC()}.run(t, func(r *Rank) {
		if err := r.GIBarrier(); err != nil {
			fail(r, err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "ml.gi_barrier: the machine has no global interrupt network") {
		t.Errorf("bgc gi_barrier: %v", err)
	}
}

// TestTreeHostCost: the host work per rank does not grow with the job: a
// handful of engine events per rank and operation.
func TestTreeHostCost(t *testing.T) {
	var perRank []float64
	for _, n := range []int{64, 4096} {
		w := hwRun{n: n, algs: treeAlgs}.mustRun(t, func(r *Rank) {
			for i := 0; i < 4; i++ {
				if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
					fail(r, err)
				}
			}
		})
		perRank = append(perRank, float64(w.Eng.Events())/float64(n)/4)
		if w.Messages != 0 {
			t.Errorf("n=%d: %d point-to-point messages", n, w.Messages)
		}
	}
	if perRank[1] > 4 || perRank[1] > perRank[0]*1.5 {
		t.Errorf("engine events per rank and allreduce: %v", perRank)
	}
}

// TestTreeDupAndWorld: operations on COMM_WORLD and on a copy of it, in the
// same order everywhere, do not mix.
func TestTreeDupAndWorld(t *testing.T) {
	const n = 9
	hwRun{n: n, algs: treeAlgs}.mustRun(t, func(r *Rank) {
		d, _ := r.World.Dup()
		for i := 0; i < 3; i++ {
			a, err1 := Allreduce(r.World, num(r.ID), SUM)
			b, err2 := Allreduce(d, num(2*r.ID), MAX)
			c, err3 := Bcast(d, str(fmt.Sprint("root ", r.ID)), i)
			if err := firstErr(err1, err2, err3); err != nil {
				fail(r, err)
				return
			}
			if a.Data != 45.0 || b.Data != 17.0 || c.Data != fmt.Sprint("root ", i) {
				t.Errorf("rank %d round %d: %v %v %v", r.ID, i, a, b, c)
			}
		}
	})
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// TestTreeDeadlock: ranks that call collectives on two communicators in
// different orders deadlock, and the report names the collective network.
func TestTreeDeadlock(t *testing.T) {
	_, err := hwRun{n: 2, algs: treeAlgs}.run(t, func(r *Rank) {
		d, _ := r.World.Dup()
		cs := []*Comm{r.World, d}
		if r.ID == 1 {
			slices.Reverse(cs)
		}
		for _, c := range cs {
			Allreduce(c, num(r.ID), SUM)
		}
	})
	var dl *runtime.DeadlockError
	if !asDeadlock(err, &dl) {
		t.Fatalf("got %v, want a deadlock", err)
	}
	if s := fmt.Sprint(dl.Blocked[0].Wait); !strings.Contains(s, "allreduce (collective network)") {
		t.Errorf("wait reported as %q", s)
	}
}

func asDeadlock(err error, dl **runtime.DeadlockError) bool {
	d, ok := err.(*runtime.DeadlockError)
	*dl = d
	return ok
}

// BenchmarkTreeAllreduce65536 runs one allreduce of a number on the
// collective network of a full BG/L (64x32x32 nodes, coprocessor mode) and
// reports the host time per rank: of the whole run (building the world and
// starting 65,536 processes included), and of the allreduce alone (the run
// minus that of the same world with ranks that only start and end).
func BenchmarkTreeAllreduce65536(b *testing.B) {
	const n = 65536
	h := hwRun{n: n, dims: hw.Dims{X: 64, Y: 32, Z: 32}, algs: map[string]string{"allreduce": "tree"}}
	var host, idle time.Duration
	var vt Time
	for i := 0; i < b.N; i++ {
		start := time.Now()
		h.mustRun(b, func(r *Rank) {})
		idle += time.Since(start)
		start = time.Now()
		w := h.mustRun(b, func(r *Rank) {
			if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
				fail(r, err)
			}
		})
		host += time.Since(start)
		vt = w.Eng.Now()
	}
	b.ReportMetric(float64(host.Nanoseconds())/float64(b.N)/n, "host-ns/rank")
	b.ReportMetric(float64((host-idle).Nanoseconds())/float64(b.N)/n, "op-host-ns/rank")
	b.ReportMetric(hw.BGL().Seconds(vt)*1e6, "virtual-us")
}
