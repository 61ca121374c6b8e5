package msglayer

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// parRec is the receiver of one rank in a layer in partitions: only that
// rank's partition touches it.
type parRec struct {
	lines []string
}

func (r *parRec) Deliver(m *Message, now, done Time) {
	if done == Pending {
		r.lines = append(r.lines, fmt.Sprintf("msg %d envelope at %d", m.ID, now))
		m.l.Grant(m, now)
		return
	}
	r.lines = append(r.lines, fmt.Sprintf("msg %d %d->%d %s delivered at %d done %d", m.ID, m.Src, m.Dst, m.Protocol, now, done))
}

func (r *parRec) Complete(m *Message, done Time) {
	r.lines = append(r.lines, fmt.Sprintf("msg %d %d->%d %s complete %d", m.ID, m.Src, m.Dst, m.Protocol, done))
}

// parUnits runs active messages on thread units: each costs 500 cycles
// and is recorded by its rank.
type parUnits []*parRec

func (p parUnits) RunOnUnit(it *Item, unit int, now, clock Time) Time {
	m := it.Data.(*Message)
	p[it.Rank].lines = append(p[it.Rank].lines, fmt.Sprintf("msg %d on unit %d of node %d at %d clock %d", m.ID, unit, it.Node, now, clock))
	return clock + 500
}

// parSend sends a message from its sender's partition at its time.
type parSend struct {
	l    *Layer
	m    *Message
	recs []*parRec
}

func (s *parSend) Act(now Time) {
	m := s.m
	src := s.recs[m.Src]
	m.Sent = runtime.ActionFunc(func(t Time) {
		src.lines = append(src.lines, fmt.Sprintf("msg %d sent at %d", m.ID, t))
	})
	end := s.l.Send(now, m)
	src.lines = append(src.lines, fmt.Sprintf("msg %d posted at %d cpu free %d", m.ID, now, end))
}

// blockLayer builds a BG/L message layer on tor, perNode ranks a node laid
// XYZT, over a group of one partition or (parts) one per block of
// hw.DefaultBlocks. setup runs before the partitions are made, which copy
// the layer's settings (Routing) into their views.
func blockLayer(tb testing.TB, tor hw.Torus, perNode int, parts bool, setup ...func(*Layer)) (*Layer, *runtime.Group) {
	tb.Helper()
	mp, err := hw.MapXYZT(tor, tor.Nodes()*perNode, perNode)
	if err != nil {
		tb.Fatal(err)
	}
	m := hw.BGL()
	blocks := hw.DefaultBlocks(tor)
	n := 1
	if parts {
		n = blocks.N()
	}
	g := runtime.NewGroup(n, m.HopCycles)
	l := New(m, mp, g.Part(0))
	for _, f := range setup {
		f(l)
	}
	if parts {
		l.SetPartitions(g, blocks)
	}
	return l, g
}

// runParallel runs a mixed traffic of n messages on a torus in DefaultBlocks
// with ranks perNode ranks a node, on threads, at the given grain
// (Layer.Grain), and returns every rank's record, the counters and the
// number of partitions.
func runParallel(t *testing.T, dims hw.Dims, perNode, n, threads int, routing Routing, grain int, seed uint32) ([]string, int) {
	return runTraffic(t, dims, perNode, n, threads, routing, grain, seed, true)
}

// runTraffic is runParallel in blocks (parts) or in one partition.
func runTraffic(t *testing.T, dims hw.Dims, perNode, n, threads int, routing Routing, grain int, seed uint32, parts bool) ([]string, int) {
	t.Helper()
	tor := hw.Torus{Dims: dims}
	ranks := tor.Nodes() * perNode
	l, g := blockLayer(t, tor, perNode, parts, func(l *Layer) {
		l.Routing = routing
		l.Grain = grain
		l.net.SetSeed(int64(seed))
	})
	mp := l.Map
	obs := make([]*kindCount, g.Parts())
	for i := range obs {
		obs[i] = &kindCount{}
		l.Part(i).Obs = obs[i]
	}
	recs := make([]*parRec, ranks)
	for i := range recs {
		recs[i] = &parRec{}
	}
	m2 := *l.M
	m2.CommThreads, m2.WorkerThreads = 2, 2
	units := NewUnits(&m2, tor.Nodes(), g.Part(0), parUnits(recs))
	units.SetLayer(l)
	for i, p := range planTraffic(tor, mp, n, seed) {
		msg := &Message{Src: p.src, Dst: p.dst, Bytes: p.bytes, Header: 16, Protocol: p.proto, To: recs[p.dst], ID: int64(i)}
		switch p.am {
		case 1: // an active message run by a thread unit
			msg.To = AM{L: l, U: units, Category: p.category}
		case 2: // an active message filed in the inbox
			msg.To = AM{L: l}
		}
		g.Part(l.net.BlockOf(mp.Node(p.src))).At(p.at, &parSend{l: l, m: msg, recs: recs})
	}
	if err := g.Run(context.Background(), threads); err != nil {
		t.Fatal(err)
	}
	var out []string
	for r := range ranks {
		if ib := l.Inbox(r); len(ib.Ready) > 0 {
			for _, m := range ib.Ready {
				out = append(out, fmt.Sprintf("rank %d: inbox msg %d", r, m.ID))
			}
		}
	}
	out = append(out, fmt.Sprintf("units ran %d", units.Runs()))
	for r, rec := range recs {
		for _, s := range rec.lines {
			out = append(out, fmt.Sprintf("rank %d: %s", r, s))
		}
	}
	slices.Sort(out)
	var kinds kindCount
	for _, o := range obs {
		for k, n := range o {
			kinds[k] += n
		}
	}
	out = append(out, fmt.Sprintf("kinds %v", kinds))
	p, w, b := l.net.Totals()
	out = append(out, fmt.Sprintf("messages=%d packets=%d wire=%d busy=%d now=%d events=%d", l.TotalMessages(), p, w, b, g.Now(), g.Events()))
	return out, g.Parts()
}

// planned is a message of planTraffic's.
type planned struct {
	src, dst, bytes int
	proto           Protocol
	am              int // 0: for a client, 1: an active message on a thread unit, 2: one for the inbox
	category        Category
	at              Time
}

// planTraffic is a mixed traffic of n messages on tor: neighbours along x
// (often across a block boundary), hot spots, the other rank of a node,
// anywhere; every protocol, sizes from 1 byte to 100 KB, some active
// messages; over 400,000 cycles.
func planTraffic(tor hw.Torus, mp *hw.Mapping, n int, seed uint32) []planned {
	ranks := mp.Ranks()
	x := seed
	sizes := []int{1, 100, 900, 3000, 20000, 100000}
	out := make([]planned, 0, n)
	for range n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		src := int(x % uint32(ranks))
		var dst int
		switch x >> 29 {
		case 0, 1, 2: // a neighbour along x: often across the boundary
			xs, ys, zs := tor.NodeCoord(mp.Node(src))
			nb := tor.NodeIndex((xs+1+int(x>>20)%2*(tor.X-2))%tor.X, ys, zs)
			dst = nb + src/tor.Nodes()*tor.Nodes() // XYZT: the slot is slowest
		case 3: // a hot spot: four ranks many send to
			dst = []int{0, 7, 8, 15}[x>>7&3]
		case 4: // the other rank of the node, if any (vn)
			dst = (src + tor.Nodes()) % ranks
		default:
			dst = int((x >> 7) % uint32(ranks))
		}
		if dst == src {
			dst = (dst + 1) % ranks
		}
		p := planned{src: src, dst: dst, bytes: sizes[int(x>>16)%len(sizes)], proto: []Protocol{Auto, Auto, Adaptive, Eager}[x>>24&3]}
		if p.proto == Adaptive && p.bytes > 20000 {
			p.proto = Auto
		}
		switch x >> 27 & 7 {
		case 0:
			p.am, p.category = 1, Category(x>>26&1)
		case 1:
			p.am = 2
		}
		p.at = Time(x>>4) % 400000
		out = append(out, p)
	}
	return out
}

// A layer in partitions gives the same results whatever the number of
// threads, with every protocol, and every message gets through.
func TestPartitionsSameForEveryThreadCount(t *testing.T) {
	cases := []struct {
		name    string
		dims    hw.Dims
		perNode int
		n       int
		routing Routing
		grain   int
	}{
		{"16x8x8", hw.Dims{X: 16, Y: 8, Z: 8}, 1, 4000, PerProtocol, 1},
		{"16x8x8-vn-adaptive", hw.Dims{X: 16, Y: 8, Z: 8}, 2, 3000, AdaptiveRouting, 1},
		{"16x16x8-deterministic", hw.Dims{X: 16, Y: 16, Z: 8}, 1, 3000, Deterministic, 1},
		{"16x8x8-grain8", hw.Dims{X: 16, Y: 8, Z: 8}, 1, 4000, PerProtocol, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			one, parts := runParallel(t, c.dims, c.perNode, c.n, 1, c.routing, c.grain, 9)
			if parts < 2 {
				t.Fatalf("%d partitions", parts)
			}
			// Every message is sent and delivered (or completed).
			sent, in := 0, 0
			for _, s := range one {
				switch {
				case contains(s, " sent at "):
					sent++
				case contains(s, " delivered at ") && !contains(s, "rendezvous"), contains(s, " complete "), contains(s, "inbox msg"), contains(s, " on unit "):
					in++
				}
			}
			if sent != c.n || in != c.n {
				t.Fatalf("%d messages sent and %d received of %d", sent, in, c.n)
			}
			t.Log(one[len(one)-2]) // the observed steps, by kind
			checkPartitionsGolden(t, c.name, one)
			for _, threads := range []int{2, 3} {
				got, _ := runParallel(t, c.dims, c.perNode, c.n, threads, c.routing, c.grain, 9)
				sameLines(t, fmt.Sprintf("%d threads", threads), "one thread", one, got)
			}
		})
	}
}

// Contended traffic, hot spots whose reception FIFOs fill included, gives
// the same times in blocks as in one partition: a train waits for
// reception room at its last link, which belongs to one partition, and
// the reader gives the room back a hop later, as a router's tokens.
// (Events differ: in blocks the room given back across a boundary is an
// event of its own.)
func TestPartitionsContendedIsOnePartition(t *testing.T) {
	cases := []struct {
		name    string
		dims    hw.Dims
		perNode int
		routing Routing
		seed    uint32
	}{
		{"16x8x8", hw.Dims{X: 16, Y: 8, Z: 8}, 1, PerProtocol, 3},
		{"16x8x8-vn-adaptive", hw.Dims{X: 16, Y: 8, Z: 8}, 2, AdaptiveRouting, 4},
		{"16x16x8-deterministic", hw.Dims{X: 16, Y: 16, Z: 8}, 1, Deterministic, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			one, n := runTraffic(t, c.dims, c.perNode, 2000, 1, c.routing, 1, c.seed, false)
			blocks, parts := runTraffic(t, c.dims, c.perNode, 2000, 2, c.routing, 1, c.seed, true)
			if n != 1 || parts < 2 {
				t.Fatalf("%d and %d partitions", n, parts)
			}
			// The last two lines are the event counts.
			for i := range len(one) - 2 {
				if one[i] != blocks[i] {
					t.Fatalf("line %d: %q in blocks, %q in one partition", i, blocks[i], one[i])
				}
			}
			cut := func(s string) string { return s[:strings.Index(s, " events=")] }
			if a, b := cut(one[len(one)-1]), cut(blocks[len(blocks)-1]); a != b {
				t.Fatalf("%q in blocks, %q in one partition", b, a)
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// sameLines fails t at the first line where got (of what) differs from
// want (of ref).
func sameLines(t *testing.T, what, ref string, want, got []string) {
	t.Helper()
	if slices.Equal(want, got) {
		return
	}
	for i := range want {
		if i >= len(got) || want[i] != got[i] {
			t.Fatalf("%s: line %d is %q, %s gives %q", what, i, got[min(i, len(got)-1)], ref, want[i])
		}
	}
	t.Fatalf("%s: %d lines, %s gives %d", what, len(got), ref, len(want))
}

// kindCount counts the observed events of each kind (per partition).
type kindCount [EvRoute + 1]int

func (k *kindCount) Observe(e *Event) { k[e.Kind]++ }

// checkPartitionsGolden compares a run in partitions with
// testdata/partitions/<name>.golden: its last lines (steps by kind,
// counters) and a digest of the rest, so that a change of the model at
// block boundaries shows (go test ./msglayer -run Partitions -update
// rewrites it).
func checkPartitionsGolden(t *testing.T, name string, lines []string) {
	t.Helper()
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	got := fmt.Sprintf("%s\n%s\nsha256 %x\n", lines[len(lines)-2], lines[len(lines)-1], sum)
	path := filepath.Join("testdata", "partitions", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./msglayer -run Partitions -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s: the run differs from %s (-update rewrites it):\n got %s\nwant %s", name, path, got, want)
	}
}

// haloRank is one rank's halo exchange: a message of bytes to each of its
// six neighbours, every period cycles, left more times.
type haloRank struct {
	l      *Layer
	rank   int
	nb     [hw.NumDirs]int
	bytes  int
	period Time
	left   int
	to     []*haloRec
}

func (h *haloRank) Act(now Time) {
	for _, d := range h.nb {
		h.l.Send(now, &Message{Src: h.rank, Dst: d, Bytes: h.bytes, Header: 16, To: h.to[d]})
	}
	if h.left--; h.left > 0 {
		h.l.ForRank(h.rank).Eng.At(now+h.period, h)
	}
}

// haloRec counts what reaches one rank.
type haloRec struct{ n int64 }

func (r *haloRec) Deliver(m *Message, now, done Time) {
	if done == Pending {
		m.l.Grant(m, now)
		return
	}
	r.n++
}
func (r *haloRec) Complete(m *Message, done Time) { r.n++ }

// BenchmarkPartitionsHalo is an open-loop halo exchange (six neighbours,
// 2,000 B: rendezvous, ten rounds) on a 16x16x16 torus: in one partition,
// and in its eight blocks on 1 and 2 threads.
func BenchmarkPartitionsHalo(b *testing.B) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 16, Z: 16}}
	for _, c := range []struct {
		name    string
		parts   bool
		threads int
	}{{"one-partition", false, 1}, {"blocks-1thread", true, 1}, {"blocks-2threads", true, 2}} {
		b.Run(c.name, func(b *testing.B) {
			var events, windows uint64
			for range b.N {
				l, g := blockLayer(b, tor, 1, c.parts)
				to := make([]*haloRec, tor.Nodes())
				for r := range to {
					to[r] = &haloRec{}
				}
				for r := range tor.Nodes() {
					h := &haloRank{l: l, rank: r, bytes: 2000, period: 40000, left: 10, to: to}
					for d := range hw.NumDirs {
						h.nb[d] = tor.Neighbor(r, hw.Dir(d))
					}
					g.Part(l.net.BlockOf(r)).At(0, h)
				}
				if err := g.Run(context.Background(), c.threads); err != nil {
					b.Fatal(err)
				}
				var got int64
				for _, r := range to {
					got += r.n
				}
				if got != int64(6*10*tor.Nodes()) {
					b.Fatalf("%d messages in of %d", got, 6*10*tor.Nodes())
				}
				events += g.Events()
				windows += g.Windows()
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			b.ReportMetric(float64(windows)/float64(b.N), "windows/op")
		})
	}
}

// A message nobody contends with gets the same times in blocks as in one
// partition, whichever way it crosses the boundary and whatever its
// protocol: the boundary adds no latency on BG/L.
func TestPartitionsUncontendedIsOnePartition(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 8, Z: 8}}
	node := func(x, y, z int) int { return tor.NodeIndex(x, y, z) }
	pairs := [][2]int{
		{node(7, 0, 0), node(8, 0, 0)},  // one hop across
		{node(2, 3, 4), node(13, 5, 1)}, // the other way round the ring, then y and z
		{node(8, 7, 7), node(0, 0, 0)},  // from block 1
		{node(1, 1, 1), node(6, 2, 2)},  // within block 0
	}
	protos := []struct {
		p     Protocol
		bytes int
	}{{OnePacket, 100}, {Eager, 900}, {Eager, 64 << 10}, {Adaptive, 4 << 10}, {Rendezvous, 64 << 10}, {Rendezvous, 1 << 20}}
	for _, routing := range []Routing{PerProtocol, Deterministic, AdaptiveRouting} {
		run := func(parts bool) []string {
			l, g := blockLayer(t, tor, 1, parts, func(l *Layer) { l.Routing = routing })
			recs := make([]*parRec, tor.Nodes())
			for i := range recs {
				recs[i] = &parRec{}
			}
			id := 0
			for _, pr := range pairs {
				for _, p := range protos {
					// One message at a time, far apart: nothing contends.
					msg := &Message{Src: pr[0], Dst: pr[1], Bytes: p.bytes, Header: 16, Protocol: p.p, To: recs[pr[1]], ID: int64(id)}
					g.Part(l.net.BlockOf(pr[0])).At(Time(id)*50_000_000, &parSend{l: l, m: msg, recs: recs})
					id++
				}
			}
			if err := g.Run(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			var out []string
			for r, rec := range recs {
				for _, s := range rec.lines {
					out = append(out, fmt.Sprintf("rank %d: %s", r, s))
				}
			}
			slices.Sort(out)
			return out
		}
		one, blocks := run(false), run(true)
		// Posted, sent and in, and the envelope of the two rendezvous.
		if want := 3*len(pairs)*len(protos) + 2*len(pairs); len(one) != want {
			t.Fatalf("%d lines, want %d", len(one), want)
		}
		if !slices.Equal(one, blocks) {
			for i := range one {
				if i >= len(blocks) || one[i] != blocks[i] {
					t.Fatalf("routing %d: %q in blocks, %q in one partition", routing, blocks[min(i, len(blocks)-1)], one[i])
				}
			}
			t.Fatalf("routing %d: %d lines in blocks, %d in one partition", routing, len(blocks), len(one))
		}
	}
}

// carryLog records Carry's and CarryDeposit's arrivals, per partition.
type carryLog struct {
	lines [][]string
	id    int
}

type carryArrival struct {
	log *carryLog
	id  int
	to  int
}

func (c *carryArrival) Arrived(l *Layer, first, last Time) {
	b := l.net.Block()
	if l.net.BlockOf(c.to) != b {
		c.log.lines[b] = append(c.log.lines[b], fmt.Sprintf("carry %d: node %d told in block %d", c.id, c.to, b))
	}
	if l.Eng.Now() > first {
		c.log.lines[b] = append(c.log.lines[b], fmt.Sprintf("carry %d: told at %d of an arrival at %d", c.id, l.Eng.Now(), first))
	}
	c.log.lines[b] = append(c.log.lines[b], fmt.Sprintf("carry %d: %d..%d at %d", c.id, first, last, l.Eng.Now()))
}

func (c *carryArrival) Deposited(l *Layer, arr []hw.Arrival) {
	b := l.net.Block()
	for _, a := range arr {
		if l.net.BlockOf(int(a.Node)) != b {
			c.log.lines[b] = append(c.log.lines[b], fmt.Sprintf("deposit %d: node %d told in block %d", c.id, a.Node, b))
		}
		c.log.lines[b] = append(c.log.lines[b], fmt.Sprintf("deposit %d: %+v", c.id, a))
	}
}

// Carry and CarryDeposit tell the destination's partition of the arrival:
// the same for every thread count and, when nothing contends, the same as
// in one partition.
func TestCarry(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 16, Z: 8}}
	run := func(parts bool, threads int, spread Time) []string {
		l, g := blockLayer(t, tor, 1, parts)
		log := &carryLog{lines: make([][]string, g.Parts())}
		x := uint32(17)
		for i := range 1500 {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			x := x // the closures keep this one
			from := int(x % uint32(tor.Nodes()))
			at := Time(i) * spread
			c := &carryArrival{log: log, id: i, to: -1}
			var act runtime.Action
			if x>>28 < 3 {
				d := hw.Dir(x >> 8 % hw.NumDirs)
				line := hw.Line{From: int32(from), Dir: d, Hops: int32(1 + int(x>>12)%tor.LineHops(from, d))}
				act = runtime.ActionFunc(func(now Time) {
					l.ForRank(from).CarryDeposit(line, now, 1+int(x>>20)%3, 256, 96, c)
				})
			} else {
				to := int((x >> 11) % uint32(tor.Nodes()))
				c.to = to
				act = runtime.ActionFunc(func(now Time) {
					l.ForRank(from).Carry(from, to, now, 1+int(x>>20)%5, 256, 64, x>>27&1 == 1, c)
				})
			}
			g.Part(l.net.BlockOf(from)).At(at, act)
		}
		if err := g.Run(context.Background(), threads); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ls := range log.lines {
			out = append(out, ls...)
		}
		slices.Sort(out)
		return out
	}
	// The partition that is told a carry's arrival is the destination's,
	// at a time no later than the arrival: the times told must agree.
	strip := func(lines []string) []string {
		var out []string
		for _, s := range lines {
			if i := strings.Index(s, " at "); i >= 0 && strings.HasPrefix(s, "carry") {
				s = s[:i]
			}
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	busy := run(true, 1, 100)
	for _, s := range busy {
		if strings.Contains(s, "told in block") || strings.Contains(s, "told at") {
			t.Fatal(s)
		}
	}
	if got := run(true, 2, 100); !slices.Equal(busy, got) {
		t.Fatal("2 threads give other arrivals than 1")
	}
	if got, want := strip(run(true, 2, 1_000_000)), strip(run(false, 1, 1_000_000)); !slices.Equal(got, want) {
		t.Fatal("without contention, blocks give other arrivals than one partition")
	}
}
