package msglayer

import (
	"context"
	"fmt"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// doneRec records when each message's data was in (by Message.ID); it
// grants rendezvous messages at once. Each message is recorded by its
// receiver's partition only.
type doneRec struct{ done []Time }

func (r *doneRec) Deliver(m *Message, now, done Time) {
	if done == Pending {
		m.l.Grant(m, now)
		return
	}
	r.done[m.ID] = done
}

func (r *doneRec) Complete(m *Message, done Time) { r.done[m.ID] = done }

// patternSend posts a message from its sender's partition.
type patternSend struct {
	l *Layer
	m *Message
}

func (s *patternSend) Act(now Time) { s.l.Send(now, s.m) }

// patternGap separates the repetitions of a pattern: far more than any of
// them takes, so each starts on an idle network.
const patternGap = 100_000_000

// runPattern sends bytes from every pair's first node to its second (one
// rank a node) reps times, patternGap cycles apart, on tor with the given
// routing, on BG/L (without bound on the reception FIFOs unless rxFIFO),
// in one partition (blocks nil) or one per block, and returns
// how long each repetition took (to the last message's data in) and every
// message's done time.
func runPattern(t *testing.T, tor hw.Torus, blocks *hw.Blocks, routing Routing, rxFIFO bool, pairs [][2]int, bytes, reps int) (took []Time, done []Time) {
	t.Helper()
	mp, err := hw.MapXYZT(tor, tor.Nodes(), 1)
	if err != nil {
		t.Fatal(err)
	}
	m := hw.BGL()
	if !rxFIFO {
		m.ReceptionFIFO = 0
	}
	parts := 1
	if blocks != nil {
		parts = blocks.N()
	}
	g := runtime.NewGroup(parts, m.HopCycles)
	l := New(m, mp, g.Part(0))
	l.Routing = routing
	if blocks != nil {
		l.SetPartitions(g, blocks)
	}
	rec := &doneRec{done: make([]Time, len(pairs)*reps)}
	for r := range reps {
		for i, p := range pairs {
			msg := &Message{Src: p[0], Dst: p[1], Bytes: bytes, Header: 16, Protocol: Auto, To: rec, ID: int64(r*len(pairs) + i)}
			v := l.on(p[0])
			v.Eng.At(Time(r)*patternGap, &patternSend{l: v, m: msg})
		}
	}
	if err := g.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	for r := range reps {
		var end Time
		for i := range pairs {
			end = max(end, rec.done[r*len(pairs)+i])
		}
		took = append(took, end-Time(r)*patternGap)
	}
	return took, rec.done
}

// shiftPairs sends from every node to the node k places on along dim.
func shiftPairs(tor hw.Torus, dim, k int) [][2]int {
	var pairs [][2]int
	for n := range tor.Nodes() {
		c := [3]int{}
		c[0], c[1], c[2] = tor.NodeCoord(n)
		size := [3]int{tor.X, tor.Y, tor.Z}[dim]
		c[dim] = (c[dim] + k) % size
		pairs = append(pairs, [2]int{n, tor.NodeIndex(c[0], c[1], c[2])})
	}
	return pairs
}

// transposePairs sends from (x, y, z) to (y, x, z) on a torus with X == Y
// (the diagonal sends nothing).
func transposePairs(tor hw.Torus) [][2]int {
	var pairs [][2]int
	for n := range tor.Nodes() {
		x, y, z := tor.NodeCoord(n)
		if x != y {
			pairs = append(pairs, [2]int{n, tor.NodeIndex(y, x, z)})
		}
	}
	return pairs
}

// complementPairs sends from every node to the one with every coordinate
// mirrored (bit complement on a torus of powers of two).
func complementPairs(tor hw.Torus) [][2]int {
	var pairs [][2]int
	for n := range tor.Nodes() {
		x, y, z := tor.NodeCoord(n)
		pairs = append(pairs, [2]int{n, tor.NodeIndex(tor.X-1-x, tor.Y-1-y, tor.Z-1-z)})
	}
	return pairs
}

// maxLinkLoad is the most deterministic routes (x, y, then z) any link
// carries.
func maxLinkLoad(tor hw.Torus, pairs [][2]int) int {
	load := map[int]int{}
	most := 0
	for _, p := range pairs {
		for _, h := range tor.RouteDeterministic(nil, p[0], p[1]) {
			l := hw.LinkIndex(int(h.Node), h.Dir)
			load[l]++
			most = max(most, load[l])
		}
	}
	return most
}

// Traffic that shares links shares them packet batch by packet batch: a
// pattern whose busiest link carries L messages of a size that keeps the
// links busier than the CPUs takes about L times what one message takes
// over one hop, whatever the routing mode, the same every time it runs on
// an idle network, and the same in one partition as in blocks of the
// torus. (Reserving whole routes at injection made a shift by 2 on a ring
// of 8 take 8 times one hop instead of 2: a convoy round the ring.)
func TestLinksSharedByTraffic(t *testing.T) {
	const kib = 1024
	ring := hw.Torus{Dims: hw.Dims{X: 8, Y: 1, Z: 1}}
	cube := hw.Torus{Dims: hw.Dims{X: 8, Y: 4, Z: 4}}
	square := hw.Torus{Dims: hw.Dims{X: 8, Y: 8, Z: 1}}
	small := hw.Torus{Dims: hw.Dims{X: 4, Y: 4, Z: 4}}
	cases := []struct {
		name   string
		tor    hw.Torus
		blocks *hw.Blocks
		pairs  [][2]int
		bytes  int
	}{
		{"ring shift 1", ring, hw.NewBlocks(ring, 4, 1, 1), shiftPairs(ring, 0, 1), 256 * kib},
		{"ring shift 2", ring, hw.NewBlocks(ring, 4, 1, 1), shiftPairs(ring, 0, 2), 256 * kib},
		{"ring shift 3", ring, hw.NewBlocks(ring, 4, 1, 1), shiftPairs(ring, 0, 3), 256 * kib},
		{"x shift 2 on 8x4x4", cube, hw.NewBlocks(cube, 4, 2, 2), shiftPairs(cube, 0, 2), 64 * kib},
		{"y shift 1 on 8x4x4", cube, hw.NewBlocks(cube, 4, 2, 2), shiftPairs(cube, 1, 1), 64 * kib},
		{"transpose on 8x8x1", square, hw.NewBlocks(square, 4, 4, 1), transposePairs(square), 64 * kib},
		{"bit complement on 4x4x4", small, hw.NewBlocks(small, 2, 2, 2), complementPairs(small), 64 * kib},
	}
	// One message over one hop, alone.
	hop := map[int]Time{}
	for _, bytes := range []int{64 * kib, 256 * kib} {
		took, _ := runPattern(t, ring, nil, Deterministic, true, [][2]int{{0, 1}}, bytes, 1)
		hop[bytes] = took[0]
	}
	for _, c := range cases {
		load := maxLinkLoad(c.tor, c.pairs)
		want := Time(load) * hop[c.bytes]
		for _, routing := range []Routing{Deterministic, AdaptiveRouting} {
			name := fmt.Sprintf("%s, %s routing", c.name, map[Routing]string{Deterministic: "deterministic", AdaptiveRouting: "adaptive"}[routing])
			took, _ := runPattern(t, c.tor, nil, routing, true, c.pairs, c.bytes, 2)
			if took[0] != took[1] {
				t.Errorf("%s: %d cycles, then %d the second time", name, took[0], took[1])
			}
			// Deterministic routing loads its busiest link as counted.
			// Adaptive routing spreads the load, but its choices are
			// greedy: batches of messages that had links to themselves
			// deterministically may meet (bit complement: 1.36 times).
			lo, hi := want*95/100, want*105/100
			if routing == AdaptiveRouting {
				lo, hi = hop[c.bytes], want*3/2
			}
			if took[0] < lo || took[0] > hi {
				t.Errorf("%s: %d cycles; the busiest link carries %d messages of %d cycles over one hop: want about %d", name, took[0], load, hop[c.bytes], want)
			}
			// In blocks, a writer asks a reader of another block for
			// room in its reception FIFO with a message that takes a
			// hop each way, which changes times where FIFOs fill:
			// compared without that bound, the links alone give the
			// same times.
			took1, done := runPattern(t, c.tor, nil, routing, false, c.pairs, c.bytes, 2)
			tookB, doneB := runPattern(t, c.tor, c.blocks, routing, false, c.pairs, c.bytes, 2)
			for i := range done {
				if done[i] != doneB[i] {
					t.Errorf("%s: in %d blocks, message %d in at %d (took %v); in one partition at %d (took %v)", name, c.blocks.N(), i, doneB[i], tookB, done[i], took1)
					break
				}
			}
			t.Logf("%s: %d cycles, %.2f times one hop (busiest link: %d)", name, took[0], float64(took[0])/float64(hop[c.bytes]), load)
		}
	}
}
