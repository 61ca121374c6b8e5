package hw

// IONodes are the I/O nodes of a partition: one per pset of PsetNodes
// compute nodes (nodes in index order: x fastest, so a pset of 64 nodes on
// an 8x8x8 torus is one z plane), each with an I/O daemon that handles one
// write at a time.
type IONodes struct {
	M    *Machine
	free []int64 // per pset: when its daemon is next free
	// Writes and Bytes count what was shipped.
	Writes, Bytes int64
}

// NewIONodes returns the idle I/O nodes of a partition of nodes nodes, or
// nil if the machine models none.
func NewIONodes(m *Machine, nodes int) *IONodes {
	if m.PsetNodes <= 0 || !m.HasTree() {
		return nil
	}
	return &IONodes{M: m, free: make([]int64, (nodes+m.PsetNodes-1)/m.PsetNodes)}
}

// Pset is the pset of a compute node.
func (io *IONodes) Pset(node int) int { return node / io.M.PsetNodes }

// Write ships bytes of output written at cycle t by a task on node to its
// I/O node, and returns when the daemon's reply is back (the task waits for
// it) and the task's CPU cycles (writing the packets, reading the reply):
//
//	up    = t + write + depth hops + the packets' serialization
//	start = max(up, when the pset's daemon is free); it is busy IOWriteCycles
//	done  = start + IOWriteCycles + depth hops + one packet + read
//
// where depth = TreeDepth(PsetNodes) + 1 is the way from a compute node to
// the I/O node at the root of its pset's tree.
func (io *IONodes) Write(node int, t int64, bytes int) (done, cpu int64) {
	up, cpu := IOShip(io.M, t, bytes)
	return io.Serve(io.Pset(node), up, bytes), cpu
}

// IOShip is the first half of IONodes.Write, on the writing task's side: when
// the packets of a write of bytes at t are in at the pset's I/O node (up),
// and the task's CPU cycles.
func IOShip(m *Machine, t int64, bytes int) (up, cpu int64) {
	p := int64(m.TreePackets(bytes))
	hops := int64(TreeDepth(m.PsetNodes)+1) * m.TreeHopCycles
	up = t + m.PacketWriteCycles + hops + m.TreeSerializeCycles() + (p-1)*m.TreePeriod()
	return up, p*m.PacketWriteCycles + m.PacketReadCycles
}

// Serve is the second half of IONodes.Write, at the I/O node of pset ps: the
// daemon takes the write in at up (when it is free) and its reply is back at
// the task at done.
func (io *IONodes) Serve(ps int, up int64, bytes int) (done int64) {
	m := io.M
	hops := int64(TreeDepth(m.PsetNodes)+1) * m.TreeHopCycles
	start := max(up, io.free[ps])
	io.free[ps] = start + m.IOWriteCycles
	io.Writes++
	io.Bytes += int64(bytes)
	return io.free[ps] + hops + m.TreeSerializeCycles() + m.PacketReadCycles
}
