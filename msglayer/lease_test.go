package msglayer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

var coarseSeeds = flag.Int("coarse-seeds", 40, "random scenarios per configuration in TestCoarseningIsExact")

// coarseWork keeps a rank's CPU busy: something else than a flow reading
// or changing a CPU a lease may hold. It reaches the CPU through the
// layer's first view, as the layers above do.
type coarseWork struct {
	l      *Layer
	rank   int
	cycles Time
	rec    *parRec
}

func (w *coarseWork) Act(now Time) {
	end := w.l.CPU(w.rank).Run(now, w.cycles)
	w.rec.lines = append(w.rec.lines, fmt.Sprintf("work at %d until %d", now, end))
}

// coarseSend sends a message from its sender's partition at its time;
// once sent, the sender's CPU works 100 cycles more (as a rank's does
// when its send returns), through the layer's first view.
type coarseSend struct {
	root *Layer
	m    *Message
	rec  *parRec
	next *coarseSend // sent by the same rank once m is written and the CPU's work after it is done
}

func (s *coarseSend) Act(now Time) {
	m := s.m
	m.Sent = runtime.ActionFunc(func(t Time) {
		end := s.root.CPU(m.Src).Run(t, 100)
		s.rec.lines = append(s.rec.lines, fmt.Sprintf("msg %d sent at %d, cpu free %d", m.ID, t, end))
		if s.next != nil {
			s.root.ForRank(m.Src).Eng.At(end, s.next)
		}
	})
	end := s.root.ForRank(m.Src).Send(now, m)
	s.rec.lines = append(s.rec.lines, fmt.Sprintf("msg %d posted at %d cpu free %d", m.ID, now, end))
}

// planCoarse is traffic for leases: ranks sending large rendezvous
// messages along a few strides, again and again (flows of one shape), among
// small messages of every protocol and CPU work that reach their resources
// now and then (leases that break), over 3 million cycles. A transfer
// after the first of a rank's row is sent when the one before is written
// (after[i], the one before's index; -1: at its time), as a rank's blocking
// sends are: its scout then meets the last packets before it.
func planCoarse(tor hw.Torus, ranks, n int, seed uint32) (msgs []planned, work []planned, after []int) {
	x := seed*2654435761 + 1
	next := func() uint32 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return x
	}
	strides := []int{1, tor.X, tor.X * tor.Y, 3, ranks / 2}
	big := []int{64 * 240, 100000, 300000}
	for range n {
		r := next()
		src := int(next() % uint32(ranks))
		at := Time(next() % 3000000)
		switch r % 10 {
		case 0, 1, 2, 3, 4, 5:
			// One to three transfers from src, one after the other (as a
			// broadcast's sender does), each to its own stride.
			chain, stream := r>>24&1 == 1, r>>25&1 == 1
			for i := range 1 + int(r>>20)%3 {
				s := strides[(int(r>>8)+i)%len(strides)]
				if stream {
					s = strides[int(r>>8)%len(strides)] // the same links again
				}
				msgs = append(msgs, planned{src: src, dst: (src + s) % ranks, bytes: big[int(r>>12)%len(big)], proto: Rendezvous, at: at + Time(i)*Time(r>>16&0xfff)})
				after = append(after, -1)
				if chain && i > 0 {
					after[len(after)-1] = len(msgs) - 2
				}
			}
		case 6, 7, 8:
			dst := int(next() % uint32(ranks))
			if dst == src {
				dst = (dst + 1) % ranks
			}
			msgs = append(msgs, planned{src: src, dst: dst, bytes: []int{1, 200, 3000, 20000}[r>>8&3], proto: []Protocol{Auto, Eager, Adaptive, Auto}[r>>12&3], at: at})
			after = append(after, -1)
		default:
			work = append(work, planned{src: src, bytes: int(r>>8) % 20000, at: at})
		}
	}
	return msgs, work, after
}

// runCoarse runs planCoarse's traffic on one partition, with exact
// coarsening or without, and returns every rank's record, every CPU's and
// link's state at the end, the network's counters and the events.
func runCoarse(t *testing.T, m *hw.Machine, dims hw.Dims, perNode int, co bool, routing Routing, limit Time, count bool, n int, seed uint32, coarse bool) ([]string, CoarseCounts) {
	t.Helper()
	tor := hw.Torus{Dims: dims}
	ranks := tor.Nodes() * perNode
	mp, err := hw.MapXYZT(tor, ranks, perNode)
	if err != nil {
		t.Fatal(err)
	}
	blocks := hw.DefaultBlocks(tor)
	g := runtime.NewGroup(blocks.N(), m.HopCycles)
	l := New(m, mp, g.Part(0))
	l.Routing, l.Coprocessor = routing, co
	l.SetPartitions(g, blocks)
	l.net.SetSeed(int64(seed))
	if count {
		l.CountLinks()
	}
	if coarse {
		l.EnableCoarsening()
	}
	if limit > 0 {
		g.SetLimit(limit)
	}
	recs := make([]*parRec, ranks)
	for i := range recs {
		recs[i] = &parRec{}
	}
	msgs, work, after := planCoarse(tor, ranks, n, seed)
	sends := make([]*coarseSend, len(msgs))
	for i, p := range msgs {
		msg := &Message{Src: p.src, Dst: p.dst, Bytes: p.bytes, Header: 16, Protocol: p.proto, To: recs[p.dst], ID: int64(i), Label: int32(i % 3)}
		sends[i] = &coarseSend{root: l, m: msg, rec: recs[p.src]}
		if a := after[i]; a >= 0 {
			sends[a].next = sends[i]
			continue
		}
		g.Part(l.net.BlockOf(mp.Node(p.src))).At(p.at, sends[i])
	}
	for _, w := range work {
		g.Part(l.net.BlockOf(mp.Node(w.src))).At(w.at, &coarseWork{l: l, rank: w.src, cycles: Time(w.bytes), rec: recs[w.src]})
	}
	err = g.Run(context.Background(), 2)
	if limit > 0 {
		// A stopped run's ranks unwind and may still read their CPUs,
		// before the layer settles what is left.
		for r := range ranks {
			l.CPU(r)
		}
	}
	l.Settle()
	var lim *runtime.LimitError
	if err != nil && !(limit > 0 && errors.As(err, &lim)) {
		t.Fatal(err)
	}
	var out []string
	for r, rec := range recs {
		for _, s := range rec.lines {
			out = append(out, fmt.Sprintf("rank %d: %s", r, s))
		}
	}
	p, w, b := l.net.Totals()
	for i, c := range l.cpus {
		out = append(out, fmt.Sprintf("cpu %d: free %d busy %d", i, c.Free, c.Busy))
	}
	var s hw.LinkState
	for k := range tor.Nodes() * hw.NumDirs {
		if !l.net.Quiet(k) {
			out = append(out, fmt.Sprintf("link %d: heads waiting, free %d, arbitrates at %d", k, l.net.LinkFree(k/hw.NumDirs, hw.Dir(k%hw.NumDirs)), l.arbs[k].at))
			continue
		}
		l.net.SaveLink(k, &s)
		out = append(out, fmt.Sprintf("link %d: %+v arb %v", k, s, l.arbs == nil || l.arbs[k].at < 0))
	}
	if count {
		out = append(out, fmt.Sprintf("links %+v by dimension %v", l.net.Links(), l.net.DimBusy()))
	}
	if lim != nil {
		// (Not the next event's time, which may be a lease's milestone
		// rather than an event of its flow.)
		err = fmt.Errorf("limit %d", lim.Limit)
	}
	out = append(out, fmt.Sprintf("messages=%d packets=%d wire=%d busy=%d now=%d events=%d err=%v", l.TotalMessages(), p, w, b, g.Now(), g.Events(), err))
	return out, l.Coarsened()
}

// Exact coarsening gives what event-by-event simulation gives: every
// message's times, every CPU's and link's state at the end, the network's
// counters and the number of events, over random traffic on BG/L and BG/P,
// coprocessor and heater mode, virtual-node mode, every routing; and it
// leases flows, some of which break.
func TestCoarseningIsExact(t *testing.T) {
	bgc := hw.BGC()
	cases := []struct {
		name    string
		m       *hw.Machine
		dims    hw.Dims
		perNode int
		co      bool
		routing Routing
		limit   Time
		count   bool
	}{
		{"bgl 4x4x4 co", hw.BGL(), hw.Dims{X: 4, Y: 4, Z: 4}, 1, true, PerProtocol, 0, false},
		{"bgl 4x4x4 heater deterministic", hw.BGL(), hw.Dims{X: 4, Y: 4, Z: 4}, 1, false, Deterministic, 0, false},
		{"bgl 8x4x2 co adaptive", hw.BGL(), hw.Dims{X: 8, Y: 4, Z: 2}, 1, true, AdaptiveRouting, 0, false},
		{"bgl 4x4x2 vn", hw.BGL(), hw.Dims{X: 4, Y: 4, Z: 2}, 2, false, PerProtocol, 0, false},
		{"bgc 4x4x2", bgc, hw.Dims{X: 4, Y: 4, Z: 2}, 1, false, PerProtocol, 0, false},
		{"bgl 4x4x4 stopped at a time limit", hw.BGL(), hw.Dims{X: 4, Y: 4, Z: 4}, 1, true, PerProtocol, 1500000, false},
		{"bgl 16x4x4 in blocks", hw.BGL(), hw.Dims{X: 16, Y: 4, Z: 4}, 1, true, PerProtocol, 0, false},
		{"bgl 16x4x2 vn in blocks, stopped", hw.BGL(), hw.Dims{X: 16, Y: 4, Z: 2}, 2, false, PerProtocol, 2000000, false},
		{"bgl 4x4x4 co counting links", hw.BGL(), hw.Dims{X: 4, Y: 4, Z: 4}, 1, true, PerProtocol, 0, true},
		{"bgl 16x4x4 in blocks counting links, stopped", hw.BGL(), hw.Dims{X: 16, Y: 4, Z: 4}, 1, true, AdaptiveRouting, 2500000, true},
	}
	var leased, broken, completed, fromCheck int64
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint32(*coarseSeeds) {
				want, _ := runCoarse(t, c.m, c.dims, c.perNode, c.co, c.routing, c.limit, c.count, 40, seed, false)
				got, k := runCoarse(t, c.m, c.dims, c.perNode, c.co, c.routing, c.limit, c.count, 40, seed, true)
				leased += k.Leased
				broken += k.Broken
				completed += k.Completed
				fromCheck += k.FromCheck
				if d := firstDiff(want, got); d != "" {
					t.Fatalf("seed %d: coarsened differs from event by event: %s", seed, d)
				}
			}
		})
	}
	t.Logf("leases: %d, broken %d (%d of them from the checkpoint), completed %d", leased, broken, fromCheck, completed)
	if leased == 0 || broken == 0 || completed == 0 || fromCheck == 0 || fromCheck == broken {
		t.Errorf("leases %d, broken %d (%d from the checkpoint), completed %d: the traffic does not exercise the leases", leased, broken, fromCheck, completed)
	}
}

// firstDiff is the first line where got differs from want ("": none).
func firstDiff(want, got []string) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i, want[i], got[i])
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d lines, want %d", len(got), len(want))
	}
	return ""
}

// coarseStream sends n rendezvous messages from rank src to rank dst, each
// as soon as the one before is written, and has the reader's CPU work for
// a while, mid-transfer, each time (as a rank's computation does).
type coarseStream struct {
	l        *Layer
	src, dst int
	n, bytes int
	rec      *parRec
}

func (s *coarseStream) Act(now Time) {
	if s.n == 0 {
		return
	}
	s.n--
	m := &Message{Src: s.src, Dst: s.dst, Bytes: s.bytes, Header: 16, Protocol: Rendezvous, To: s.rec, ID: int64(s.n)}
	m.Sent = runtime.ActionFunc(func(t Time) {
		s.rec.lines = append(s.rec.lines, fmt.Sprintf("msg %d written at %d", m.ID, t))
		s.Act(s.l.CPU(s.src).Run(t, 100))
	})
	s.l.ForRank(s.src).Send(now, m)
	s.l.Eng.At(now+30000, &coarseWork{l: s.l, rank: s.dst, cycles: 500, rec: s.rec})
}

// A shape whose leases keep breaking before their writer's last batch (so
// that their events run from the start after all) is leased less and less
// often: of 200 messages in a row whose reader is busy mid-transfer, about
// log2(200) are leased, the others run event by event, and the run is the
// same as without leases.
func TestCoarseningBacksOff(t *testing.T) {
	c := coarseAlike(t, 0, func(l *Layer, rec *parRec) {
		l.Eng.At(0, &coarseStream{l: l, src: 0, dst: 1, n: 200, bytes: 100000, rec: rec})
	})
	t.Logf("recorded %d, leased %d, broken %d (%d after the last batch), skipped %d", c.Recorded, c.Leased, c.Broken, c.FromCheck, c.Skipped)
	if c.Leased > 12 || c.Broken-c.FromCheck < c.Leased-1 || c.Skipped < 180 {
		t.Errorf("leased %d, broken %d (%d after the last batch), skipped %d of 200 messages in a row", c.Leased, c.Broken, c.FromCheck, c.Skipped)
	}
}

// The templates of a layer stay within their budget: flows of shapes never
// seen again (here every message is 1,000 bytes longer than the one
// before) make templates only until it is spent, then run event by event.
func TestCoarseningTemplateBudget(t *testing.T) {
	c := coarseAlike(t, 30000, func(l *Layer, rec *parRec) { // about three templates of 100 KB flows
		for i := range 40 {
			m := &Message{Src: 0, Dst: 2, Bytes: 100000 + 1000*i, Header: 16, Protocol: Rendezvous, To: rec, ID: int64(i)}
			l.Eng.At(Time(i)*2000000, &coarseSend{root: l, m: m, rec: rec})
		}
	})
	t.Logf("recorded %d, leased %d, templates %d taking %d bytes (budget %d)", c.Recorded, c.Leased, len(c.templates), c.tplBytes, c.budget)
	if c.Recorded == 0 || c.Recorded > 10 || c.tplBytes-c.budget > c.tplBytes/int64(len(c.templates)) {
		t.Errorf("recorded %d of 40 shapes, templates take %d bytes, budget %d", c.Recorded, c.tplBytes, c.budget)
	}
}

// coarseAlike runs the traffic plan makes on a 4x4x4 BG/L torus without
// exact coarsening and with it (templates within budget bytes, if not 0),
// fails t unless both give the same record, times and event count, and
// returns what the leases did.
func coarseAlike(t *testing.T, budget int64, plan func(l *Layer, rec *parRec)) *coarsen {
	t.Helper()
	run := func(coarse bool) ([]string, *coarsen) {
		tor := hw.Torus{Dims: hw.Dims{X: 4, Y: 4, Z: 4}}
		mp, err := hw.MapXYZT(tor, tor.Nodes(), 1)
		if err != nil {
			t.Fatal(err)
		}
		eng := runtime.New()
		l := New(hw.BGL(), mp, eng)
		if coarse {
			l.EnableCoarsening()
			if budget > 0 {
				l.coarse.budget = budget
			}
		}
		rec := &parRec{}
		plan(l, rec)
		if err := eng.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return append(rec.lines, fmt.Sprintf("now=%d events=%d", eng.Now(), eng.Events())), l.coarse
	}
	want, _ := run(false)
	got, c := run(true)
	if d := firstDiff(want, got); d != "" {
		t.Fatalf("with leases: %s", d)
	}
	return c
}
