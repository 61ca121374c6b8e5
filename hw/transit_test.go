package hw

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/bglua/bglua/runtime"
)

func TestBlocks(t *testing.T) {
	cases := []struct {
		dims    Dims
		shape   [3]int
		cutsX   []int
		nodeBlk [][4]int // x, y, z, block
	}{
		{Dims{8, 8, 8}, [3]int{1, 1, 1}, []int{0}, [][4]int{{7, 7, 7, 0}}},
		{Dims{16, 8, 8}, [3]int{2, 1, 1}, []int{0, 8}, [][4]int{{7, 7, 7, 0}, {8, 0, 0, 1}}},
		{Dims{12, 3, 20}, [3]int{2, 1, 3}, []int{0, 6}, [][4]int{{5, 0, 6, 0}, {6, 0, 7, 3}, {0, 2, 19, 4}}},
		{Dims{32, 32, 32}, [3]int{4, 4, 4}, []int{0, 8, 16, 24}, [][4]int{{31, 31, 31, 63}, {9, 0, 0, 1}}},
	}
	for _, c := range cases {
		tor := Torus{Dims: c.dims}
		b := DefaultBlocks(tor)
		x, y, z := b.Shape()
		if [3]int{x, y, z} != c.shape || b.N() != x*y*z || !slices.Equal(b.Cuts[0], c.cutsX) {
			t.Errorf("%v: shape %d %d %d cuts %v, want %v cuts %v", c.dims, x, y, z, b.Cuts[0], c.shape, c.cutsX)
		}
		for _, nb := range c.nodeBlk {
			if got := b.Of(tor.NodeIndex(nb[0], nb[1], nb[2])); got != nb[3] {
				t.Errorf("%v: node %v in block %d, want %d", c.dims, nb[:3], got, nb[3])
			}
		}
		count := make([]int, b.N())
		for node := range tor.Nodes() {
			count[b.Of(node)]++
		}
		for i, k := range count {
			if k == 0 || k > BlockEdgeX*BlockEdgeY*BlockEdgeZ {
				t.Errorf("%v: block %d has %d nodes", c.dims, i, k)
			}
		}
	}
}

// On a network of one block, Inject is SendTrainTo and SendAdaptiveTrain:
// the same times, link states, counters and generator draws, train after
// train on a busy network.
func TestInjectOneBlockIsSendTrain(t *testing.T) {
	for _, tor := range []Torus{{Dims: Dims{X: 8, Y: 8, Z: 8}}, {Dims: Dims{X: 5, Y: 3, Z: 7}}, {Dims: Dims{X: 4, Y: 4, Z: 2}, Mesh: true}} {
		for _, cut := range []bool{false, true} {
			a, b := NewNetwork(BGL(), tor), NewNetwork(BGL(), tor)
			a.SetSeed(5)
			b.SetSeed(5)
			if cut {
				b.SetBlocks(DefaultBlocks(tor))
			}
			x := uint32(7)
			var tr Transit
			for i := 0; i < 20000; i++ {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				from, to := int(x%uint32(tor.Nodes())), int((x>>11)%uint32(tor.Nodes()))
				at, k, last := int64(x%100000), 1+int(x>>20)%8, []int{256, 96, 32}[int(x>>25)%3]
				adaptive := x>>28&1 == 1
				var l1, f1, e1 int64
				if adaptive {
					p := a.Path(from, to)
					l1, f1, e1 = a.SendAdaptiveTrain(&p, at, k, 256, last)
				} else {
					l1, f1, e1 = a.SendTrainTo(from, to, at, k, 256, last)
				}
				if !b.Inject(&tr, from, to, at, k, 256, last, adaptive) {
					t.Fatalf("%v: a packet of a network of one block left its block", tor)
				}
				if tr.Left != l1 || tr.First != f1 || tr.Last != e1 {
					t.Fatalf("%v adaptive=%v %d->%d: left %d, arrivals %d..%d; want %d, %d..%d", tor, adaptive, from, to, tr.Left, tr.First, tr.Last, l1, f1, e1)
				}
			}
			if a.Packets != b.Packets || a.WireBytes != b.WireBytes || a.LinkBusy != b.LinkBusy || a.rng != b.rng {
				t.Errorf("%v: counters %d %d %d rng %x, want %d %d %d %x", tor, b.Packets, b.WireBytes, b.LinkBusy, b.rng, a.Packets, a.WireBytes, a.LinkBusy, a.rng)
			}
			if !slices.Equal(a.frees(), b.frees()) {
				t.Fatalf("%v: link states differ", tor)
			}
		}
	}
}

// transitRun sends packets on a network in blocks, one partition of a
// runtime.Group per block, and records what each packet got.
type transitRun struct {
	net  *Network
	g    *runtime.Group
	res  [][]string // per block: results of the packets whose walk ended there
	errs [][]string // per block: handoffs earlier than the lookahead
	legs []int      // per block: handoffs resumed there
}

type transitEvent struct {
	r  *transitRun
	id int
	tr Transit
	// injection
	from, to, count, last int
	adaptive              bool
	started               bool
	legFrom               int64 // when the leg that handed off started
}

func (ev *transitEvent) Act(now int64) {
	r := ev.r
	var done bool
	var blk int
	if !ev.started {
		ev.started = true
		blk = r.net.BlockOf(ev.from)
		done = r.net.Part(blk).Inject(&ev.tr, ev.from, ev.to, now, ev.count, 256, ev.last, ev.adaptive)
	} else {
		blk = ev.tr.Block
		r.legs[blk]++
		if now != ev.tr.At {
			r.errs[blk] = append(r.errs[blk], fmt.Sprintf("packet %d resumed at %d, due at %d", ev.id, now, ev.tr.At))
		}
		done = r.net.Part(blk).Resume(&ev.tr)
	}
	if done {
		if b := r.net.BlockOf(ev.to); b != blk {
			r.errs[blk] = append(r.errs[blk], fmt.Sprintf("packet %d to node %d of block %d done in block %d", ev.id, ev.to, b, blk))
		}
		r.res[blk] = append(r.res[blk], fmt.Sprintf("%d left=%d first=%d last=%d", ev.id, ev.tr.Left, ev.tr.First, ev.tr.Last))
		return
	}
	if ev.tr.At < now+r.net.M.HopCycles {
		r.errs[blk] = append(r.errs[blk], fmt.Sprintf("packet %d handed off at %d for %d: before the lookahead", ev.id, now, ev.tr.At))
	}
	e := r.g.Part(blk)
	e.Send(r.g.Part(ev.tr.Block), ev.tr.At, runtime.PrioModel, ev)
}

// runTransits injects the packets of spec (from, to, time, count, last
// size, adaptive) on a network of the given torus in DefaultBlocks and runs
// them on threads; it returns the sorted results.
func runTransits(t *testing.T, tor Torus, cut bool, threads int, spec []transitEvent, at []int64) []string {
	t.Helper()
	net := NewNetwork(BGL(), tor)
	net.SetSeed(3)
	if cut {
		net.SetBlocks(DefaultBlocks(tor))
	}
	nb := net.NumBlocks()
	r := &transitRun{net: net, g: runtime.NewGroup(nb, net.M.HopCycles), res: make([][]string, nb), errs: make([][]string, nb), legs: make([]int, nb)}
	for i := range spec {
		ev := spec[i]
		ev.r, ev.id = r, i
		r.g.Part(net.BlockOf(ev.from)).At(at[i], &ev)
	}
	if err := r.g.Run(context.Background(), threads); err != nil {
		t.Fatal(err)
	}
	var out []string
	handoffs := 0
	for b := range nb {
		for _, e := range r.errs[b] {
			t.Error(e)
		}
		out = append(out, r.res[b]...)
		handoffs += r.legs[b]
	}
	if cut && nb > 1 && handoffs == 0 {
		t.Error("no packet crossed a block boundary")
	}
	slices.Sort(out)
	p, w, l := net.Totals()
	return append(out, fmt.Sprintf("packets=%d wire=%d busy=%d", p, w, l))
}

func transitSpec(tor Torus, n int, spread int64, seed uint32) ([]transitEvent, []int64) {
	var spec []transitEvent
	var at []int64
	x := seed
	for range n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		spec = append(spec, transitEvent{from: int(x % uint32(tor.Nodes())), to: int((x >> 11) % uint32(tor.Nodes())),
			count: 1 + int(x>>20)%8, last: []int{256, 96, 32}[int(x>>25)%3], adaptive: x>>28&1 == 1})
		at = append(at, int64(x>>3)%spread)
	}
	return spec, at
}

// A network in blocks gives the same results for every thread count, and
// every handoff is at least the lookahead after its leg began.
func TestTransitDeterministic(t *testing.T) {
	tor := Torus{Dims: Dims{X: 16, Y: 8, Z: 16}}
	spec, at := transitSpec(tor, 3000, 200000, 11)
	one := runTransits(t, tor, true, 1, spec, at)
	for _, threads := range []int{2, 4} {
		got := runTransits(t, tor, true, threads, spec, at)
		if !slices.Equal(one, got) {
			for i := range one {
				if i >= len(got) || one[i] != got[i] {
					t.Fatalf("%d threads: result %d is %q, one thread gives %q", threads, i, got[min(i, len(got)-1)], one[i])
				}
			}
			t.Fatalf("%d threads: %d results, one thread gives %d", threads, len(got), len(one))
		}
	}
}

// Without contention (packets far apart in time) a network in blocks gives
// the times of a network of one block.
func TestTransitUncontendedIsOneBlock(t *testing.T) {
	for _, tor := range []Torus{{Dims: Dims{X: 16, Y: 8, Z: 8}}, {Dims: Dims{X: 12, Y: 20, Z: 9}}, {Dims: Dims{X: 16, Y: 16, Z: 4}, Mesh: true}} {
		spec, _ := transitSpec(tor, 400, 1, 5)
		at := make([]int64, len(spec))
		for i := range at {
			at[i] = int64(i) * 100000
		}
		one := runTransits(t, tor, false, 1, spec, at)
		cut := runTransits(t, tor, true, 2, spec, at)
		if !slices.Equal(one, cut) {
			for i := range one {
				if one[i] != cut[i] {
					t.Fatalf("%v: %q in blocks, %q in one block", tor, cut[i], one[i])
				}
			}
		}
	}
}

// On a network of one block InjectDeposit is DepositTrain; in blocks, run
// on a Group, it gives the same arrivals for every thread count, and
// without contention those of one block.
func TestDepositTransit(t *testing.T) {
	tor := Torus{Dims: Dims{X: 16, Y: 8, Z: 16}}
	type line struct {
		l     Line
		at    int64
		count int
	}
	var lines []line
	x := uint32(3)
	for range 600 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		from := int(x % uint32(tor.Nodes()))
		d := Dir(x >> 8 % NumDirs)
		lines = append(lines, line{Line{From: int32(from), Dir: d, Hops: int32(1 + int(x>>12)%tor.LineHops(from, d))}, int64(x>>4) % 300000, 1 + int(x>>20)%6})
	}
	// One block: DepositTrain's results.
	a, b := NewNetwork(BGL(), tor), NewNetwork(BGL(), tor)
	var tr DepositTransit
	for _, ln := range lines {
		l1, arr1 := a.DepositTrain(tor.LineRoute(nil, ln.l), ln.at, ln.count, 256, 64, nil)
		done, arr2 := b.InjectDeposit(&tr, ln.l, ln.at, ln.count, 256, 64, nil)
		if !done || tr.Left != l1 || !slices.Equal(arr1, arr2) {
			t.Fatalf("line %+v: left %d arrivals %v, DepositTrain gives %d %v", ln.l, tr.Left, arr2, l1, arr1)
		}
	}
	if a.Packets != b.Packets || a.WireBytes != b.WireBytes || a.LinkBusy != b.LinkBusy || !slices.Equal(a.frees(), b.frees()) {
		t.Fatal("counters or link states differ from DepositTrain's")
	}

	run := func(cut bool, threads int, spaced bool) []string {
		net := NewNetwork(BGL(), tor)
		if cut {
			net.SetBlocks(DefaultBlocks(tor))
		}
		nb := net.NumBlocks()
		g := runtime.NewGroup(nb, net.M.HopCycles)
		res := make([][]string, nb)
		bad := make([][]string, nb)
		for i, ln := range lines {
			at := ln.at
			if spaced {
				at = int64(i) * 100000
			}
			dt := &DepositTransit{}
			var step runtime.Action
			started := false
			step = runtime.ActionFunc(func(now int64) {
				var done bool
				var arr []Arrival
				var blk int
				if !started {
					started = true
					blk = net.BlockOf(int(ln.l.From))
					done, arr = net.Part(blk).InjectDeposit(dt, ln.l, now, ln.count, 256, 64, nil)
				} else {
					blk = dt.Block
					done, arr = net.Part(blk).ResumeDeposit(dt, nil)
				}
				for _, a := range arr {
					if net.BlockOf(int(a.Node)) != blk {
						bad[blk] = append(bad[blk], fmt.Sprintf("line %d: arrival at node %d reported by block %d", i, a.Node, blk))
					}
					res[blk] = append(res[blk], fmt.Sprintf("line %d left %d: %+v", i, dt.Left, a))
				}
				if !done {
					if dt.At < now+net.M.HopCycles {
						bad[blk] = append(bad[blk], fmt.Sprintf("line %d handed off at %d for %d", i, now, dt.At))
					}
					g.Part(blk).Send(g.Part(dt.Block), dt.At, runtime.PrioModel, step)
				}
			})
			g.Part(net.BlockOf(int(ln.l.From))).At(at, step)
		}
		if err := g.Run(context.Background(), threads); err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := range nb {
			for _, s := range bad[i] {
				t.Error(s)
			}
			out = append(out, res[i]...)
		}
		slices.Sort(out)
		p, w, l := net.Totals()
		return append(out, fmt.Sprintf("packets=%d wire=%d busy=%d", p, w, l))
	}
	one := run(true, 1, false)
	for _, threads := range []int{2, 3} {
		if got := run(true, threads, false); !slices.Equal(one, got) {
			t.Fatalf("%d threads give other arrivals than one", threads)
		}
	}
	if got, want := run(true, 2, true), run(false, 1, true); !slices.Equal(got, want) {
		t.Fatal("without contention, blocks give other arrivals than one block")
	}
}

// On a network in blocks, a whole-route reservation that leaves the view's
// block panics; one within it does not.
func TestWholeRouteStaysInBlock(t *testing.T) {
	tor := Torus{Dims: Dims{X: 16, Y: 8, Z: 8}}
	n := NewNetwork(BGL(), tor)
	n.SetBlocks(DefaultBlocks(tor))
	in0, in0b, in1 := tor.NodeIndex(0, 0, 0), tor.NodeIndex(7, 7, 7), tor.NodeIndex(8, 0, 0)
	cases := []struct {
		name  string
		view  int
		f     func(v *Network)
		panic bool
	}{
		{"SendTrainTo within", 0, func(v *Network) { v.SendTrainTo(in0, in0b, 0, 2, 256, 256) }, false},
		{"SendTrainTo across", 0, func(v *Network) { v.SendTrainTo(in0, in1, 0, 2, 256, 256) }, true},
		{"SendPath within block 1", 1, func(v *Network) { p := v.Path(in1, tor.NodeIndex(15, 7, 7)); v.SendPath(&p, 0, 256) }, false},
		{"SendAdaptiveTrain across", 1, func(v *Network) { p := v.Path(in1, in0); v.SendAdaptiveTrain(&p, 0, 2, 256, 256) }, true},
		{"Send one link out of the block", 0, func(v *Network) { v.Send([]Hop{{Node: int32(in0b), Dir: XPlus}}, 0, 256) }, false},
		{"Send a link of another block", 0, func(v *Network) { v.Send([]Hop{{Node: int32(in1), Dir: XPlus}}, 0, 256) }, true},
		{"DepositTrain along x", 0, func(v *Network) {
			v.DepositTrain(tor.LineRoute(nil, Line{From: int32(in0), Dir: XPlus, Hops: 15}), 0, 1, 256, 256, nil)
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r != nil) != c.panic {
					t.Errorf("panic %v, want a panic: %v", r, c.panic)
				}
			}()
			c.f(n.Part(c.view))
		})
	}
}
