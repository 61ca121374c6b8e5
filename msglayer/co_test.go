package msglayer

import (
	"context"
	"testing"

	"github.com/bglua/bglua/hw"
)

// A message of coprocessor work (Message.Co) runs its software steps on
// CPU 1 at both ends, in every protocol, and arrives when the same message
// from the ranks' CPUs would (less the coherence step of rendezvous data
// the coprocessor received for the rank): the ranks' CPUs stay idle. Without a
// coprocessor the mark changes nothing.
func TestCoMessageRunsOnCPU1(t *testing.T) {
	for _, bytes := range []int{8, 900, 64 << 10} { // one-packet, eager, rendezvous
		var plain, co Time
		for _, mark := range []bool{false, true} {
			l, eng := newLayer(t, 2, hw.Dims{X: 2, Y: 1, Z: 1}, 1)
			l.Coprocessor = true
			rec := &recorder{}
			l.Send(0, &Message{Src: 0, Dst: 1, Bytes: bytes, Header: 16, To: rec, Co: mark})
			if err := eng.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(rec.got) != 1 {
				t.Fatalf("%d B: %d deliveries", bytes, len(rec.got))
			}
			main0, main1 := l.CPU(0).Busy, l.CPU(1).Busy
			co0, co1 := l.CoCPU(0).Busy, l.CoCPU(1).Busy
			if mark {
				co = rec.got[0].done
				if main0 != 0 || main1 != 0 || co0 == 0 || co1 == 0 {
					t.Errorf("%d B, Co: busy CPU 0 %d/%d, CPU 1 %d/%d cycles; want only CPU 1 busy", bytes, main0, main1, co0, co1)
				}
			} else {
				plain = rec.got[0].done
				if main0 == 0 || main1 == 0 {
					t.Errorf("%d B: the ranks' CPUs did nothing (%d/%d)", bytes, main0, main1)
				}
			}
		}
		// Rendezvous data that CPU 1 receives for the rank costs the
		// rank's CPU a coherence step; for CPU 1's own work it does not.
		want := plain
		if bytes > hw.BGL().RzvLimit {
			want -= hw.BGL().CoSyncCycles
		}
		if co != want {
			t.Errorf("%d B: done at %d with Co, want %d (%d without)", bytes, co, want, plain)
		}
	}
	// Virtual-node mode: no coprocessor, the mark is ignored.
	l, eng := newLayer(t, 4, hw.Dims{X: 2, Y: 1, Z: 1}, 2)
	rec := &recorder{}
	l.Send(0, &Message{Src: 0, Dst: 2, Bytes: 900, Header: 16, To: rec, Co: true})
	if err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l.CPU(0).Busy == 0 || l.CPU(2).Busy == 0 {
		t.Errorf("vn mode, Co: the ranks' CPUs did nothing (%d/%d)", l.CPU(0).Busy, l.CPU(2).Busy)
	}
}
