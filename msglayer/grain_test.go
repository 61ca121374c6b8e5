package msglayer

import (
	"fmt"
	"testing"

	"github.com/bglua/bglua/hw"
)

// grainRun sends one message of bytes from rank 0 to rank dst of a 4x4x4
// torus, on BG/L changed by change, with the given grain, and returns when
// the sender was done, when the data was in, and how many events that took.
func grainRun(t *testing.T, change func(*hw.Machine), grain int, p Protocol, dst, bytes int) (sent, done Time, events uint64) {
	t.Helper()
	l, eng := setup(t, 64, hw.Dims{X: 4, Y: 4, Z: 4}, 1, change)
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
// than a link sends one, and the reception FIFO does not hold the writer
// back, so batching more packets per event changes no time, neither the
// sender's nor the receiver's. It does cut the events.
func TestGrainLoneMessage(t *testing.T) {
	const mib = 1 << 20
	for _, p := range []Protocol{Eager, Adaptive, Rendezvous} {
		for _, dst := range []int{1, 42} { // a neighbour; (2,2,2), six hops
			sent1, done1, ev1 := grainRun(t, nil, 1, p, dst, mib)
			for _, g := range []int{4, 64} {
				sent, done, ev := grainRun(t, nil, g, p, dst, mib)
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

// The same on machines whose injection FIFOs hold 1 to 4 packets (with a
// FIFO of two, a lone writer's batches go 2, 1, 2, 1: after a batch of one
// it comes back to an empty FIFO) or 32 (bgc), for every message length up
// to a few batches and one of many. With a FIFO of one or two packets the
// reader reads packet by packet at grain 1, while a coarser chunk's reading
// is charged as its first packet arrives, so the CPU is free a little
// sooner for its last packet: the data may be in earlier, by less than one
// packet's reading.
func TestGrainLoneMessageFIFOs(t *testing.T) {
	m0 := hw.BGL()
	per := m0.PayloadPerPacket()
	slack := m0.PacketReadCycles + m0.PacketOverheadCycles + m0.CopyCycles(per)
	for _, fifo := range []int{1, 2, 3, 4, 32} {
		change := func(m *hw.Machine) { m.InjectionFIFO, m.ReceptionFIFO = fifo, 64 }
		for packets := 1; packets <= 3*fifo+3; packets++ {
			for _, bytes := range []int{packets*per - 16, 300 * per} {
				name := fmt.Sprintf("fifo %d, %d bytes", fifo, bytes)
				sent1, done1, _ := grainRun(t, change, 1, Eager, 1, bytes)
				for _, g := range []int{2, 3, 7} {
					sent, done, _ := grainRun(t, change, g, Eager, 1, bytes)
					early := done1 - done
					if sent != sent1 || early < 0 || early > 0 && (fifo > 2 || early >= slack) {
						t.Errorf("%s, grain %d: sent %d, in %d; grain 1: sent %d, in %d", name, g, sent, done, sent1, done1)
					}
				}
			}
		}
	}
}

// A reception FIFO of any depth holds a lone writer back the same way at
// every grain: a link's share is never less than a batch, and a coarse
// train takes the room of one.
func TestGrainLoneMessageShallowReception(t *testing.T) {
	per := hw.BGL().PayloadPerPacket()
	for _, rx := range []int{1, 6, 24, 48, 64} {
		change := func(m *hw.Machine) { m.ReceptionFIFO = rx }
		for _, bytes := range []int{5*per - 16, 300 * per} {
			sent1, done1, _ := grainRun(t, change, 1, Eager, 1, bytes)
			for _, g := range []int{2, 4, 16} {
				if sent, done, _ := grainRun(t, change, g, Eager, 1, bytes); sent != sent1 || done != done1 {
					t.Errorf("reception FIFO %d, %d bytes, grain %d: sent %d, in %d; grain 1: sent %d, in %d", rx, bytes, g, sent, done, sent1, done1)
				}
			}
		}
	}
}

// A grain times a deep FIFO stays a depth that the FIFO's counters hold: a
// reception FIFO of 600,000 packets at the largest grain is not an overflow
// that leaves the writer waiting for ever.
func TestGrainDeepFIFO(t *testing.T) {
	change := func(m *hw.Machine) { m.ReceptionFIFO = 600000 }
	_, done1, _ := grainRun(t, change, 1, Rendezvous, 1, 1<<20)
	_, done, _ := grainRun(t, change, 4096, Rendezvous, 1, 1<<20)
	if done != done1 {
		t.Errorf("grain 4096: in at %d, grain 1: %d", done, done1)
	}
}
