package hw

import "testing"

func TestIONodes(t *testing.T) {
	m := BGL()
	io := NewIONodes(m, 512)
	if len(io.free) != 8 || io.Pset(63) != 0 || io.Pset(64) != 1 || io.Pset(511) != 7 {
		t.Fatalf("psets: %d, node 63 in %d, 64 in %d", len(io.free), io.Pset(63), io.Pset(64))
	}
	// An idle daemon: the round trip of one packet plus the daemon's work.
	done, cpu := io.Write(0, 1000, 10)
	hops := int64(TreeDepth(64)+1) * m.TreeHopCycles
	want := 1000 + m.PacketWriteCycles + 2*hops + 2*m.TreeSerializeCycles() + m.IOWriteCycles + m.PacketReadCycles
	if done != want || cpu != m.PacketWriteCycles+m.PacketReadCycles {
		t.Errorf("idle write: done %d cpu %d, want %d and %d", done, cpu, want, m.PacketWriteCycles+m.PacketReadCycles)
	}
	// A second write in the same pset at the same time waits for the
	// daemon; one in another pset does not.
	same, _ := io.Write(1, 1000, 10)
	other, _ := io.Write(64, 1000, 10)
	if same != done+m.IOWriteCycles || other != done {
		t.Errorf("same pset done at %d (want %d), other pset at %d (want %d)", same, done+m.IOWriteCycles, other, done)
	}
	// More bytes, more packets.
	big, bigCPU := io.Write(128, 1000, 3*m.TreePacket)
	if big != done+2*m.TreePeriod() || bigCPU != 3*m.PacketWriteCycles+m.PacketReadCycles {
		t.Errorf("3-packet write: done %d cpu %d", big, bigCPU)
	}
	if NewIONodes(BGC(), 64) != nil {
		t.Errorf("bgc models no I/O nodes")
	}
}
