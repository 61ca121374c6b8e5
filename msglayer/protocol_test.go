package msglayer

import (
	"context"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// setup builds a layer on dims with perNode ranks per node, changing the
// machine first.
func setup(t *testing.T, ranks int, dims hw.Dims, perNode int, change func(*hw.Machine)) (*Layer, *runtime.Engine) {
	t.Helper()
	mp, err := hw.MapXYZT(hw.Torus{Dims: dims}, ranks, perNode)
	if err != nil {
		t.Fatal(err)
	}
	m := hw.BGL()
	if change != nil {
		change(m)
	}
	eng := runtime.New()
	return New(m, mp, eng), eng
}

func run(t *testing.T, eng *runtime.Engine) {
	t.Helper()
	if err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// stamp records when an action ran.
func stamp(at *Time) runtime.Action { return runtime.ActionFunc(func(now Time) { *at = now }) }

// Adaptive eager: the receiver confirms the message once it is delivered,
// the sender is done only when the confirmation is back, and a second
// message to the same receiver waits for it.
func TestAdaptiveEagerConfirms(t *testing.T) {
	l, eng := setup(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1, nil)
	rec := &recorder{}
	var sent1, sent2 Time
	a := &Message{Src: 0, Dst: 1, Bytes: 3000, Header: 16, Protocol: Adaptive, To: rec, Tag: 1, Sent: stamp(&sent1)}
	b := &Message{Src: 0, Dst: 1, Bytes: 1, Header: 16, Protocol: OnePacket, To: rec, Tag: 2, Sent: stamp(&sent2)}
	now := l.Send(0, a)
	l.Send(now, b)
	run(t, eng)
	if len(rec.got) != 2 || rec.got[0].m != a || rec.got[1].m != b {
		t.Fatalf("deliveries %v, want the adaptive message then the one-packet one", rec.envelopes)
	}
	m := l.M
	confirm := m.MLSendCycles + m.PacketWriteCycles + m.PacketOverheadCycles + // receiver writes it
		m.SerializeCycles(m.PacketBytes(0)) + m.NetworkCycles + // one hop
		m.MLDispatchCycles + m.PacketReadCycles + m.PacketOverheadCycles + m.MPIAdaptiveCycles // sender reads it
	if want := rec.got[0].done + confirm; sent1 != want {
		t.Errorf("adaptive send done at %d, want %d (data in at %d, then the confirmation)", sent1, want, rec.got[0].done)
	}
	if rec.got[1].now <= sent1 {
		t.Errorf("the next message reached the receiver at %d, before the confirmation came back (%d)", rec.got[1].now, sent1)
	}
	// 232 payload bytes per packet: 3016 bytes take 13 packets, plus the
	// confirmation and the one-packet message.
	if want := int64(13 + 1 + 1); l.net.Packets != want {
		t.Errorf("%d packets, want %d", l.net.Packets, want)
	}
}

// Adaptively routed packets of one message spread over the productive
// links and may arrive out of order; the message is whole only when the
// last one is read.
func TestAdaptivePacketsSpread(t *testing.T) {
	for _, c := range []struct {
		routing Routing
		spread  bool
	}{{PerProtocol, true}, {AdaptiveRouting, true}, {Deterministic, false}} {
		l, eng := setup(t, 64, hw.Dims{X: 4, Y: 4, Z: 4}, 1, nil)
		l.Routing = c.routing
		rec := &recorder{}
		dst := l.Map.Torus.NodeIndex(1, 1, 0)
		msg := &Message{Src: 0, Dst: dst, Bytes: 64 << 10, Header: 16, Protocol: Rendezvous, To: rec}
		l.Send(0, msg)
		run(t, eng)
		if len(rec.got) != 1 || msg.got != msg.f.total {
			t.Fatalf("%v: %d completions, %d of %d packets read", c.routing, len(rec.got), msg.got, msg.f.total)
		}
		x, y := l.net.LinkFree(0, hw.XPlus), l.net.LinkFree(0, hw.YPlus)
		if spread := x > 0 && y > 0; spread != c.spread {
			t.Errorf("routing %d: source links x+ free at %d, y+ at %d; want both used: %v", c.routing, x, y, c.spread)
		}
	}
}

// The virtual-node protocol: the address goes through the scratchpad, the
// receiver's CPU copies the data and acknowledges; no packet touches the
// torus, and each step is charged to the CPU that does it.
func TestVirtualNodeProtocol(t *testing.T) {
	// XYZT with 2 ranks per node: ranks 0 and 2 share node 0.
	l, eng := setup(t, 4, hw.Dims{X: 2, Y: 1, Z: 1}, 2, nil)
	rec := &recorder{}
	var sent Time
	const n = 10000
	l.Send(0, &Message{Src: 0, Dst: 2, Bytes: n, Header: 16, To: rec, Sent: stamp(&sent)})
	run(t, eng)
	m := l.M
	if len(rec.got) != 1 || rec.got[0].m.Protocol != VN {
		t.Fatalf("got %v", rec.got)
	}
	if l.net.Packets != 0 {
		t.Errorf("%d torus packets for two ranks of one node", l.net.Packets)
	}
	pkt := m.PacketWriteCycles + m.PacketOverheadCycles
	read := m.PacketReadCycles + m.PacketOverheadCycles
	if got, want := l.CPU(0).Busy, m.MLSendCycles+pkt+read; got != want {
		t.Errorf("sender CPU busy %d, want %d (post, address packet, read the ack)", got, want)
	}
	if got, want := l.CPU(2).Busy, m.MLDispatchCycles+read+m.CopyCycles(n)+pkt; got != want {
		t.Errorf("receiver CPU busy %d, want %d (read the address, copy, ack)", got, want)
	}
	if want := rec.got[0].done + pkt + read; sent != want {
		t.Errorf("send done at %d, want %d (after the ack)", sent, want)
	}
}

// In coprocessor mode CPU 1 receives aligned rendezvous data; the main CPU
// then reads no data packet. Unaligned data, or the help turned off, and
// the main CPU reads it all.
func TestCoprocessorReceivesAlignedRendezvous(t *testing.T) {
	for _, c := range []struct {
		name  string
		bytes int
		help  bool
		onCo  bool
	}{
		{"aligned", 64 << 10, true, true},
		{"unaligned", 64<<10 + 8, true, false},
		{"help off", 64 << 10, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, eng := setup(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1, nil)
			l.Coprocessor = true
			l.SetCoHelp(1, c.help)
			rec := &recorder{}
			msg := &Message{Src: 0, Dst: 1, Bytes: c.bytes, Header: 16, Protocol: Rendezvous, To: rec}
			l.Send(0, msg)
			run(t, eng)
			m := l.M
			reads := m.MLDispatchCycles + int64(msg.f.total)*(m.PacketReadCycles+m.PacketOverheadCycles)
			main, co := l.CPU(1).Busy, l.CoCPU(1).Busy
			if c.onCo {
				if co != reads || main > 20000 {
					t.Errorf("coprocessor busy %d (want %d: reads, no copies), main CPU %d (want only the protocol)", co, reads, main)
				}
			} else if co != 0 || main < reads+m.CopyCycles(c.bytes) {
				t.Errorf("coprocessor busy %d (want 0), main CPU %d (want at least %d)", co, main, reads+m.CopyCycles(c.bytes))
			}
		})
	}
}

// A receiver whose CPU cannot keep up fills its reception FIFO; the link
// into it then waits, and so the sender's injection FIFO, which is done
// writing only shortly before the receiver has read them. With an unbounded FIFO the sender would be done
// at link speed.
func TestReceptionFIFOBacksUpIntoSender(t *testing.T) {
	slow := func(fifo int) func(*hw.Machine) {
		return func(m *hw.Machine) {
			m.ReceptionFIFO = fifo
			m.PacketReadCycles = 4000 // far slower than the link's 1,080 per packet
		}
	}
	sentAt := map[int]Time{}
	doneAt := map[int]Time{}
	for _, fifo := range []int{0, 16} {
		l, eng := setup(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1, slow(fifo))
		rec := &recorder{}
		var sent Time
		l.Send(0, &Message{Src: 0, Dst: 1, Bytes: 200 * 240, Protocol: Eager, To: rec, Sent: stamp(&sent)})
		run(t, eng)
		sentAt[fifo], doneAt[fifo] = sent, rec.got[0].done
	}
	m := hw.BGL()
	ser := m.SerializeCycles(256)
	if sentAt[0] > 210*ser {
		t.Errorf("unbounded: sender done at %d, want link speed (about %d)", sentAt[0], 200*ser)
	}
	// Bounded: the sender may be at most a FIFO (16 packets of 4,000+
	// cycles) ahead of the reader.
	if lag := doneAt[16] - sentAt[16]; lag > 20*4400 || sentAt[16] < 150*4000 {
		t.Errorf("bounded: sender done at %d, receiver at %d: want the sender held back to the reader's pace", sentAt[16], doneAt[16])
	}
	if doneAt[16] > doneAt[0]+doneAt[0]/20 {
		t.Errorf("bounded FIFO made the transfer slower: %d against %d", doneAt[16], doneAt[0])
	}
}

// One CPU sending large messages on two links keeps both busy at once: the
// two transfers take about as long as one.
func TestOneCPUFeedsTwoLinks(t *testing.T) {
	finish := func(dests ...int) Time {
		l, eng := setup(t, 27, hw.Dims{X: 3, Y: 3, Z: 3}, 1, nil)
		rec := &recorder{}
		var last Time
		now := Time(0)
		for _, d := range dests {
			now = l.Send(now, &Message{Src: 13, Dst: d, Bytes: 64 << 10, Header: 16, Protocol: Eager, To: rec})
		}
		run(t, eng)
		for _, g := range rec.got {
			last = max(last, g.done)
		}
		return last
	}
	one := finish(14)
	two := finish(14, 16)
	if two > one+one/10 {
		t.Errorf("two links took %d cycles, one took %d: want about the same", two, one)
	}
}

// Envelopes between one pair reach the receiver in send order whatever the
// protocols: FIFO pinning and deterministic routing for the ordered ones,
// the confirmation for adaptive eager.
func TestMixedProtocolsStayInOrder(t *testing.T) {
	l, eng := setup(t, 8, hw.Dims{X: 2, Y: 2, Z: 2}, 1, nil)
	l.Routing = AdaptiveRouting
	rec := &recorder{}
	var now Time
	for i, p := range []struct {
		proto Protocol
		n     int
	}{{Rendezvous, 20000}, {Adaptive, 5000}, {OnePacket, 1}, {Eager, 900}, {Adaptive, 300}, {Rendezvous, 3000}, {OnePacket, 7}} {
		now = l.Send(now, &Message{Src: 0, Dst: 7, Bytes: p.n, Header: 16, Protocol: p.proto, To: rec, Tag: i})
	}
	run(t, eng)
	for i, tag := range rec.envelopes {
		if tag != i {
			t.Fatalf("envelopes in order %v", rec.envelopes)
		}
	}
	if len(rec.got) != 7 {
		t.Fatalf("%d of 7 messages complete", len(rec.got))
	}
}

// The same run gives the same times; adaptive routing's ties depend on the
// seed.
func TestLayerIsDeterministic(t *testing.T) {
	times := func(seed int64) []Time {
		l, eng := setup(t, 64, hw.Dims{X: 4, Y: 4, Z: 4}, 1, nil)
		l.net.SetSeed(seed)
		rec := &recorder{}
		for i := 0; i < 64; i++ {
			l.Send(Time(i*10), &Message{Src: i, Dst: (i*37 + 5) % 64, Bytes: 30000, Header: 16, Protocol: Rendezvous, To: rec})
		}
		run(t, eng)
		var ts []Time
		for _, g := range rec.got {
			ts = append(ts, g.done)
		}
		return ts
	}
	a, b, c := times(1), times(1), times(2)
	same := func(x, y []Time) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Fatal("two runs with seed 1 differ")
	}
	if same(a, c) {
		t.Fatal("seeds 1 and 2 give the same times: adaptive ties ignore the seed")
	}
}

// A steady stream of packets allocates nothing per packet.
func TestPacketPathAllocatesNothing(t *testing.T) {
	l, eng := setup(t, 64, hw.Dims{X: 4, Y: 4, Z: 4}, 1, nil)
	rec := &recorder{}
	msgs := make([]Message, 200)
	for i := range msgs {
		msgs[i] = Message{Src: i % 64, Dst: (i*7 + 3) % 64, Bytes: 8000, Header: 16, Protocol: Rendezvous, To: rec}
	}
	// Warm the pools with a first half, then count the second.
	for i := 0; i < 100; i++ {
		l.Send(eng.Now(), &msgs[i])
	}
	run(t, eng)
	rec.got, rec.envelopes = make([]arrival, 0, 200), make([]int, 0, 200)
	i := 100
	allocs := testing.AllocsPerRun(1, func() {
		for ; i < 200; i++ {
			l.Send(eng.Now(), &msgs[i])
		}
		run(t, eng)
	})
	if per := allocs / float64(l.net.Packets); per > 0.01 {
		t.Errorf("%.0f allocations for the second 100 messages (%.3f per packet)", allocs, per)
	}
}

// Tiny FIFOs still move everything: one packet at a time.
func TestOnePacketFIFOs(t *testing.T) {
	l, eng := setup(t, 8, hw.Dims{X: 2, Y: 2, Z: 2}, 1, func(m *hw.Machine) {
		m.InjectionFIFO, m.ReceptionFIFO = 1, 1
	})
	rec := &recorder{}
	for i := 0; i < 8; i++ {
		l.Send(0, &Message{Src: i, Dst: 7 - i, Bytes: 5000, Header: 16, Protocol: Protocol(1 + i%2*4), To: rec})
		l.Send(0, &Message{Src: i, Dst: 0, Bytes: 3000, Header: 16, Protocol: Adaptive, To: rec})
	}
	run(t, eng)
	if len(rec.got) != 16 {
		t.Fatalf("%d of 16 messages complete", len(rec.got))
	}
}

// Everyone sending to everyone at once: receivers are crowded, trains
// wait for their reception FIFOs at their last links, and every message
// gets through (a train left waiting with no wake-up would be lost
// silently: the engine just runs out of events).
func TestCrowdedReceiversLoseNothing(t *testing.T) {
	for _, fifo := range []int{2, 32} {
		l, eng := setup(t, 27, hw.Dims{X: 3, Y: 3, Z: 3}, 1, func(m *hw.Machine) { m.ReceptionFIFO = fifo })
		l.Coprocessor = true
		rec := &sink{}
		for k := 1; k < 27; k++ {
			for r := 0; r < 27; r++ {
				p := []Protocol{Rendezvous, Eager, Adaptive}[(r+k)%3]
				l.Send(0, &Message{Src: r, Dst: (r + k) % 27, Bytes: 60000 + 32*r, Header: 16, Protocol: p, To: rec})
			}
		}
		run(t, eng)
		if rec.n != 26*27 {
			t.Errorf("fifo %d: %d of %d messages delivered", fifo, rec.n, 26*27)
		}
	}
}
