package hw

// GI is the global interrupt network of one partition ([ML]: "configurable
// OR wires to perform full-system hardware barriers in 1.5 us"). A node
// raises its wire when all its tasks have arrived; the OR (AND of the
// inverted signals) propagates up a tree over the partition and back down,
// and every node sees it fall together. Pure model: no goroutines, no clock.
type GI struct {
	M     *Machine
	Nodes int
	Depth int // as the collective network's: TreeDepth(Nodes)

	// Free is when the channel can start the next barrier: a barrier holds
	// it until every node has seen it complete.
	Free int64

	// Barriers counts the barriers done.
	Barriers int64
}

// NewGI returns the idle global interrupt network of a partition of nodes
// nodes.
func NewGI(m *Machine, nodes int) *GI {
	return &GI{M: m, Nodes: nodes, Depth: TreeDepth(nodes)}
}

// GILatency is the time of a global-interrupt barrier on a partition of
// nodes nodes, from the last node's arrival to every node's release: a fixed
// part plus the trip up and down the tree, GIBarrierCycles +
// 2*depth*GILevelCycles (1,050 cycles = 1.5 us on 65,536 BG/L nodes).
func (m *Machine) GILatency(nodes int) int64 {
	return m.GIBarrierCycles + 2*int64(TreeDepth(nodes))*m.GILevelCycles
}

// Latency is GILatency for this partition.
func (g *GI) Latency() int64 { return g.M.GILatency(g.Nodes) }

// Barrier runs one barrier whose last node arrives at ready and returns when
// every node is released.
func (g *GI) Barrier(ready int64) int64 {
	done := max(ready, g.Free) + g.Latency()
	g.Free = done
	g.Barriers++
	return done
}
