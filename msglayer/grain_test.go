package msglayer

import (
	"testing"

	"github.com/bglua/bglua/hw"
)

// grainRun sends one message of bytes from rank 0 to rank dst of a 4x4x4
// torus with the given grain and returns when the sender was done, when
// the data was in, and how many events that took.
func grainRun(t *testing.T, grain int, p Protocol, dst, bytes int) (sent, done Time, events uint64) {
	t.Helper()
	l, eng := setup(t, 64, hw.Dims{X: 4, Y: 4, Z: 4}, 1, nil)
	l.Grain = grain
	rec := &recorder{}
	m := &Message{Src: 0, Dst: dst, Bytes: bytes, Header: 16, Protocol: p, To: rec, Sent: stamp(&sent)}
	l.Send(0, m)
	run(t, eng)
	if len(rec.got) != 1 {
		t.Fatalf("grain %d, %v: %d deliveries, want 1", grain, p, len(rec.got))
	}
	return sent, rec.got[0].done, eng.Events()
}

// A message alone on its writer, its links and its reader goes at the
// link's pace whatever the grain: the CPUs write and read a packet faster
// than a link sends one, so batching more packets per event changes no
// time. It does cut the events.
func TestGrainLoneMessage(t *testing.T) {
	const bytes = 1 << 20
	for _, p := range []Protocol{Eager, Adaptive, Rendezvous} {
		for _, dst := range []int{1, 42} { // a neighbour; (2,2,2), six hops
			sent1, done1, ev1 := grainRun(t, 1, p, dst, bytes)
			for _, g := range []int{4, 64} {
				sent, done, ev := grainRun(t, g, p, dst, bytes)
				if sent != sent1 || done != done1 {
					t.Errorf("%v to rank %d, grain %d: sent %d, in %d; grain 1: sent %d, in %d", p, dst, g, sent, done, sent1, done1)
				}
				if ev*uint64(g)/2 > ev1 {
					t.Errorf("%v to rank %d, grain %d: %d events, grain 1: %d (want at most 2/%d of them)", p, dst, g, ev, ev1, g)
				}
			}
		}
	}
}
