package msglayer

import (
	"context"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// sink takes every message and grants rendezvous ones at once.
type sink struct{ n int }

func (s *sink) Deliver(m *Message, now, done Time) {
	if done == Pending {
		m.l.Grant(m, now)
		return
	}
	s.n++
}

func (s *sink) Complete(*Message, Time) { s.n++ }

// benchPackets sends b.N messages of bytes each between pseudo-random pairs
// of an 8x8x8 torus, a new one every gap cycles, with protocol p, and
// reports the packets routed and delivered per host second.
func benchPackets(b *testing.B, p Protocol, bytes int, gap Time, setup ...func(*Layer)) {
	mp, err := hw.MapXYZT(hw.Torus{Dims: hw.Dims{X: 8, Y: 8, Z: 8}}, 512, 1)
	if err != nil {
		b.Fatal(err)
	}
	eng := runtime.New()
	l := New(hw.BGL(), mp, eng)
	for _, f := range setup {
		f(l)
	}
	rec := &sink{}
	// A ring of messages reused once delivered: far more slots than are
	// ever in flight at these gaps.
	msgs := make([]Message, 4096)
	x := uint32(12345)
	i := 0
	var drive runtime.ActionFunc
	drive = func(now Time) {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		src := int(x % 512)
		dst := int((x >> 9) % 512)
		if dst == src {
			dst = (dst + 1) % 512
		}
		m := &msgs[i%len(msgs)]
		*m = Message{Src: src, Dst: dst, Bytes: bytes, Header: 16, Protocol: p, To: rec}
		l.Send(now, m)
		i++
		if i < b.N {
			eng.At(now+gap, drive)
		}
	}
	eng.At(0, drive)
	b.ReportAllocs()
	b.ResetTimer()
	if err := eng.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if rec.n != b.N {
		b.Fatalf("%d of %d messages delivered", rec.n, b.N)
	}
	b.ReportMetric(float64(l.net.Packets)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(eng.Events())/float64(l.net.Packets), "events/packet")
}

// The packet path: packets routed (deterministically in trains, or one by
// one adaptively), injected, read and delivered, per host second.
func BenchmarkPacketPath(b *testing.B) {
	b.Run("onepacket", func(b *testing.B) { benchPackets(b, OnePacket, 64, 200) })
	b.Run("eager-64KiB", func(b *testing.B) { benchPackets(b, Eager, 64<<10, 20000) })
	// The measure: packets of a 1 MiB eager stream routed and
	// delivered per host second.
	b.Run("eager-1MiB", func(b *testing.B) { benchPackets(b, Eager, 1<<20, 320000) })
	b.Run("rendezvous-64KiB-adaptive", func(b *testing.B) { benchPackets(b, Rendezvous, 64<<10, 20000) })
	b.Run("adaptive-eager-4KiB", func(b *testing.B) { benchPackets(b, Adaptive, 4<<10, 2000) })
}

// Rank 0 of an 8x8x8 torus sends 1 MiB to each of its nine binomial-tree
// children at once (their flows share its CPU and, three by three, its
// links), b.N times; reported per message.
func BenchmarkFanOut(b *testing.B) {
	mp, err := hw.MapXYZT(hw.Torus{Dims: hw.Dims{X: 8, Y: 8, Z: 8}}, 512, 1)
	if err != nil {
		b.Fatal(err)
	}
	eng := runtime.New()
	l := New(hw.BGL(), mp, eng)
	rec := &sink{}
	msgs := make([]Message, 9)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i := range msgs {
			msgs[i] = Message{Src: 0, Dst: 1 << (8 - i), Bytes: 1 << 20, Header: 16, Protocol: Rendezvous, To: rec}
			l.Send(eng.Now(), &msgs[i])
		}
		if err := eng.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if rec.n != 9*b.N {
		b.Fatalf("%d of %d messages delivered", rec.n, 9*b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(9*b.N), "ns/message")
	b.ReportMetric(float64(eng.Events())/float64(9*b.N), "events/message")
}
