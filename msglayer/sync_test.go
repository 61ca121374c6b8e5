package msglayer

import (
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// acker is a receiver that matches each message delay cycles after its
// data is in and then acknowledges it (Layer.Ack), as MPI does for a
// synchronous send whose receive is posted late.
type acker struct {
	delay Time
	match Time // when it matched the last message
}

func (a *acker) Deliver(m *Message, now, done Time) {
	if done == Pending {
		m.l.Eng.At(now+a.delay, runtime.ActionFunc(func(t Time) { a.match = t; m.l.Grant(m, t) }))
		return
	}
	m.l.Eng.At(done+a.delay, runtime.ActionFunc(func(t Time) { a.match = t; m.l.Ack(m, t) }))
}

func (a *acker) Complete(m *Message, done Time) {}

// A synchronous message's sender is done only once the receiver's
// acknowledgement is read, by every protocol; one that never is matched
// never releases its sender. Rendezvous needs no acknowledgement.
func TestSyncWaitsForAck(t *testing.T) {
	const delay = 1_000_000
	cases := []struct {
		name          string
		src, dst      int
		perNode       int
		bytes         int
		proto, wantAs Protocol
	}{
		{"onepacket", 0, 1, 1, 8, Auto, OnePacket},
		{"eager", 0, 1, 1, 800, Auto, Eager},
		{"adaptive", 0, 1, 1, 3000, Adaptive, Adaptive},
		{"rendezvous", 0, 1, 1, 100_000, Auto, Rendezvous},
		{"self", 0, 0, 1, 8, Auto, Self},
		{"vn", 0, 1, 2, 8, Auto, VN},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, eng := setup(t, 2, hw.Dims{X: 2 / tc.perNode, Y: 1, Z: 1}, tc.perNode, nil)
			rec := &acker{delay: delay}
			var sent Time = -1
			m := &Message{Src: tc.src, Dst: tc.dst, Bytes: tc.bytes, Header: 16, Protocol: tc.proto, To: rec, Sync: true, Sent: stamp(&sent)}
			l.Send(0, m)
			run(t, eng)
			if m.Protocol != tc.wantAs {
				t.Fatalf("went as %v, want %v", m.Protocol, tc.wantAs)
			}
			if sent <= rec.match {
				t.Errorf("sender done at %d, not after the match at %d", sent, rec.match)
			}
			mc := l.M
			if tc.name == "onepacket" {
				ack := mc.MLSendCycles + mc.PacketWriteCycles + mc.PacketOverheadCycles + // receiver writes it
					mc.SerializeCycles(mc.PacketBytes(0)) + mc.NetworkCycles + // one hop
					mc.MLDispatchCycles + mc.PacketReadCycles + mc.PacketOverheadCycles // sender reads it
				if want := rec.match + ack; sent != want {
					t.Errorf("sender done at %d, want %d (matched at %d, then the acknowledgement)", sent, want, rec.match)
				}
			}
		})
	}
	t.Run("never matched", func(t *testing.T) {
		l, eng := setup(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1, nil)
		var sent Time = -1
		l.Send(0, &Message{Src: 0, Dst: 1, Bytes: 8, Header: 16, To: &recorder{}, Sync: true, Sent: stamp(&sent)})
		run(t, eng)
		if sent != -1 {
			t.Errorf("sender done at %d without an acknowledgement", sent)
		}
	})
}
