package mpi

import (
	"testing"

	"github.com/bglua/bglua/msglayer"
)

// A message's signature crosses to the receiver's World: its mirror reads
// the same collective call as the sender's message (interned there), and
// is delivered by that World; a message of no collective has none.
func TestCrossingMirror(t *testing.T) {
	send, recv := &World{}, &World{}
	call := &callSig{coll: "allreduce", op: "sum", root: -1, size: 8}
	for _, q := range []*Request{{sig: call, sigSeq: 3}, {}} {
		m := &msglayer.Message{Src: 1, Dst: 2, Sent: q}
		sig := send.Crossing(nil).AppendSig(nil, m)
		mirror := &msglayer.Message{Src: 1, Dst: 2}
		if err := recv.Crossing(nil).Mirror(mirror, sig); err != nil {
			t.Fatal(err)
		}
		got, want := sigOf(mirror), sigOf(m)
		if (got.call == nil) != (want.call == nil) || want.call != nil && (!got.same(want) || got.call == call) {
			t.Errorf("mirror's signature %+v, sender's %+v (the mirror's own copy)", got, want)
		}
		if d, ok := mirror.To.(deliverer); !ok || d.w != recv {
			t.Errorf("mirror delivered by %#v, want the receiver's World", mirror.To)
		}
	}
	if err := recv.Crossing(nil).Mirror(&msglayer.Message{}, []byte{9}); err == nil {
		t.Errorf("a signature that does not read back made a mirror")
	}
}
