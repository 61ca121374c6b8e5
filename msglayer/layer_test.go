package msglayer

import (
	"context"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

type arrival struct {
	m         *Message
	now, done Time
}

type recorder struct {
	got       []arrival
	envelopes []int // tags in the order the envelopes arrived
}

func (r *recorder) Deliver(m *Message, now, done Time) {
	r.envelopes = append(r.envelopes, m.Tag)
	if done == Pending {
		m.l.Grant(m, now) // a receive is always posted here
		return
	}
	r.got = append(r.got, arrival{m, now, done})
}

func (r *recorder) Complete(m *Message, done Time) { r.got = append(r.got, arrival{m, done, done}) }

func newLayer(t *testing.T, ranks int, dims hw.Dims, perNode int) (*Layer, *runtime.Engine) {
	t.Helper()
	mp, err := hw.MapXYZT(hw.Torus{Dims: dims}, ranks, perNode)
	if err != nil {
		t.Fatal(err)
	}
	eng := runtime.New()
	return New(hw.BGL(), mp, eng), eng
}

func TestProtocolChoice(t *testing.T) {
	// XYZT with 2 ranks per node puts t slowest: ranks 0 and 1 sit on nodes
	// 0 and 1 in slot 0, ranks 2 and 3 on the same nodes in slot 1.
	l, _ := newLayer(t, 4, hw.Dims{X: 2, Y: 1, Z: 1}, 2)
	cases := []struct {
		src, dst, n int
		want        Protocol
	}{
		{0, 1, 1, OnePacket},
		{0, 1, 240 - 16, OnePacket},
		{0, 1, 240 - 15, Eager},
		{0, 1, 1000, Eager},
		{0, 1, 1001, Rendezvous},
		{0, 1, 1 << 20, Rendezvous},
		{0, 2, 1, VN},
		{1, 1, 5, Self},
		{3, 1, 1 << 20, VN},
	}
	for _, c := range cases {
		if got := l.Choose(c.src, c.dst, c.n, 16); got != c.want {
			t.Errorf("Choose(%d->%d, %d B) = %s, want %s", c.src, c.dst, c.n, got, c.want)
		}
	}
}

// A one-packet message's latency is the sum of its steps; the eager path
// adds its setup on both sides.
func TestOnePacketAndEagerLatency(t *testing.T) {
	m := hw.BGL()
	for _, c := range []struct {
		name  string
		bytes int
		proto Protocol
		extra int64
	}{
		{"onepacket", 1, OnePacket, 0},
		{"eager", 1, Eager, 2 * (m.EagerSetupCycles + m.MPIEagerCycles)}, // the recorder is a client
	} {
		t.Run(c.name, func(t *testing.T) {
			l, eng := newLayer(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1)
			rec := &recorder{}
			msg := &Message{Src: 0, Dst: 1, Bytes: c.bytes, Header: 16, Protocol: c.proto, To: rec}
			done := l.Send(0, msg)
			if err := eng.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(rec.got) != 1 {
				t.Fatalf("%d deliveries", len(rec.got))
			}
			pkt := m.SerializeCycles(m.PacketBytes(c.bytes + 16))
			sendSide := m.MLSendCycles + m.PacketWriteCycles + m.PacketOverheadCycles + c.extra/2
			if done != sendSide {
				t.Errorf("sender done at %d, want %d", done, sendSide)
			}
			want := sendSide + pkt + m.NetworkCycles + m.MLDispatchCycles + c.extra/2 + m.PacketReadCycles + m.PacketOverheadCycles + m.CopyCycles(c.bytes+16)
			if got := rec.got[0].done; got != want {
				t.Errorf("data complete at %d, want %d", got, want)
			}
		})
	}
}

// A long message is bound by the link: its packets leave one serialization
// time apart. The sending CPU writes them a FIFO at a time, so it is done
// with the last one only when all but a FIFO's worth have left, and between
// batches it is free: its busy time is only the writes.
func TestLongMessageIsLinkBound(t *testing.T) {
	m := hw.BGL()
	l, eng := newLayer(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1)
	rec := &recorder{}
	const n = 100 * 240
	var sentAt Time
	l.Send(0, &Message{Src: 0, Dst: 1, Bytes: n - 16, Header: 16, Protocol: Eager, To: rec,
		Sent: runtime.ActionFunc(func(now Time) { sentAt = now })})
	if err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ser := m.SerializeCycles(256)
	if min := int64(100-m.InjectionFIFO-1) * ser; sentAt < min {
		t.Errorf("sender done at %d, before the FIFO could drain (%d)", sentAt, min)
	}
	write := m.PacketWriteCycles + m.PacketOverheadCycles
	if busy, want := l.CPU(0).Busy, m.MLSendCycles+m.EagerSetupCycles+m.MPIEagerCycles+100*write; busy != want {
		t.Errorf("sender CPU busy %d cycles, want %d (setup and 100 writes)", busy, want)
	}
	// The last packet leaves 99 packet times after the first and is read
	// right after it arrives.
	first := m.MLSendCycles + m.EagerSetupCycles + m.MPIEagerCycles + write + ser + m.NetworkCycles
	span := rec.got[0].done - first
	if span < 99*ser || span > 99*ser+ser {
		t.Errorf("reception spans %d cycles, want about %d (99 packet times)", span, 99*ser)
	}
}

func TestMessagesBetweenOnePairArriveInOrder(t *testing.T) {
	l, eng := newLayer(t, 8, hw.Dims{X: 2, Y: 2, Z: 2}, 1)
	rec := &recorder{}
	var now Time
	for i, n := range []int{5000, 1, 300, 1, 20000, 7} {
		msg := &Message{Src: 0, Dst: 7, Bytes: n, Header: 16, To: rec, Tag: i}
		now = l.Send(now, msg)
	}
	if err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Envelopes (what MPI matches on) arrive in send order, whatever the
	// protocol; a rendezvous message's data may complete later.
	for i, tag := range rec.envelopes {
		if tag != i {
			t.Fatalf("envelope %d is of message %d", i, tag)
		}
	}
	if len(rec.got) != 6 {
		t.Fatalf("%d messages completed, want 6", len(rec.got))
	}
}

// A rendezvous message costs a scout, a grant back and then the data: its
// data completes one round trip later than the same message sent eagerly,
// and the sender's part ends only after the grant.
func TestRendezvous(t *testing.T) {
	const n = 100 * 240
	done := map[Protocol]Time{}
	for _, p := range []Protocol{Eager, Rendezvous} {
		l, eng := newLayer(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1)
		rec := &recorder{}
		var sentAt Time = -1
		m := &Message{Src: 0, Dst: 1, Bytes: n, Header: 16, Protocol: p, To: rec,
			Sent: runtime.ActionFunc(func(now Time) { sentAt = now })}
		cpu := l.Send(0, m)
		if err := eng.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(rec.got) != 1 || sentAt < 0 {
			t.Fatalf("%s: %d completions, sent at %d", p, len(rec.got), sentAt)
		}
		if p == Rendezvous && cpu >= sentAt {
			t.Errorf("rendezvous send returned at %d, after its data was sent (%d)", cpu, sentAt)
		}
		done[p] = rec.got[0].done
	}
	// One round trip (scout and grant) plus the setup on both sides, less
	// the eager setup it does not pay.
	setup := 2 * (hw.BGL().RzvSetupCycles + hw.BGL().MPIRzvCycles) // the recorder is a client
	if d := done[Rendezvous] - done[Eager]; d < setup+1500 || d > setup+6000 {
		t.Errorf("rendezvous completes %d cycles after eager; want about one round trip more, plus %d of setup", d, setup)
	}
}

// xorshift is a deterministic stream for the random scenarios.
type xorshift uint64

func (x *xorshift) next(n int) int {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return int(uint64(*x) % uint64(n))
}

// The channel table finds what a map would, through insertions and
// deletions that make long probe runs (keys crowding a few homes).
func TestChanTable(t *testing.T) {
	for _, c := range []struct {
		name string
		keys int // distinct keys drawn from
	}{{"few", 8}, {"many", 5000}, {"crowded", 300}} {
		t.Run(c.name, func(t *testing.T) {
			var tab chanTable
			want := map[uint64]int32{} // key -> ref
			ref := func(k uint64) int32 {
				if s := tab.find(k); s != nil {
					return s.ref
				}
				return 0
			}
			x := xorshift(99)
			for op := 0; op < 200000; op++ {
				k := pairKey(x.next(c.keys), x.next(3))
				switch got := ref(k); {
				case got != want[k]:
					t.Fatalf("op %d: ref(%x) = %d, want %d", op, k, got, want[k])
				case got == 0 && len(want) < 1000:
					r := int32(firstRef + op%7)
					tab.slot(k).ref = r
					want[k] = r
				case got != 0:
					tab.remove(k)
					delete(want, k)
				}
				if tab.n != len(want) {
					t.Fatalf("op %d: %d pairs, want %d", op, tab.n, len(want))
				}
			}
			for k, r := range want {
				if ref(k) != r {
					t.Fatalf("key %x lost", k)
				}
			}
		})
	}
}
