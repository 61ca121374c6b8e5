package hw

// Machine holds every constant of the modeled machine. Times are in cycles of
// the node clock. The defaults are BG/L's ([ML], "Hardware and system software
// impact"); software costs are calibrated so that [ML] Table 1 and Fig. 4a come
// out of the model (docs/model.md sets them against the published ones).
type Machine struct {
	Name string

	// ClockHz is the node clock: 700 MHz on BG/L, so one cycle is 1.43 ns.
	ClockHz float64
	// CPUsPerNode is 2 on BG/L: coprocessor mode gives the second to the
	// network, virtual-node mode runs a rank on each, heater mode idles it.
	CPUsPerNode int

	// LinkBytesPerCycle is the raw rate of one torus link in one direction:
	// 0.25 B/cycle = 175 MB/s.
	LinkBytesPerCycle float64
	// PacketMax, PacketMin and PacketGranule: torus packets are 32 to 256
	// bytes in 32-byte steps.
	PacketMax, PacketMin, PacketGranule int
	// PacketHeader is the hardware header inside every packet (16 B), so a
	// full packet carries 240 B of payload.
	PacketHeader int
	// WireOverhead is what a packet costs on the wire beyond its bytes (CRC,
	// tokens, acknowledgements): 14 B per 256-B packet, 89% efficiency.
	WireOverhead int
	// HopCycles is the extra latency of each hop ([ML] Fig. 4a slope, 90 ns).
	HopCycles int64
	// CornerTurnCycles is charged when a route changes dimension (0 on BG/L).
	CornerTurnCycles int64
	// NetworkCycles is the fixed hardware latency of a packet through the
	// injection and reception logic of the end nodes.
	NetworkCycles int64
	// InjectionFIFO is how many packets the injection FIFO a message is
	// pinned to holds: the CPU writes a message's packets at most this far
	// ahead of the link that takes them, then turns to other work.
	InjectionFIFO int
	// ReceptionFIFO is how many data packets the reception FIFOs of one CPU
	// hold (BG/L: about 1 KB per incoming link; 64 packets in all here),
	// split evenly among the six incoming links (ReceptionLinkFIFO). A data
	// train crosses the last link of its route only when the reading CPU's
	// FIFO at that link's far end has room for its packets; each place
	// frees as the CPU reads its packet, and the link's node learns of it a
	// hop later. Until then the train waits in the router before, holding
	// its place there, so a saturated receiver backs up the links that
	// lead to it and, through them, its writers' injection FIFOs. Control
	// packets (scout, grant, confirmation) use the high-priority FIFOs and
	// are not counted. 0 means unbounded.
	ReceptionFIFO int
	// DynamicBuffer and EscapeBuffer are how many packets the buffers at
	// the far end of one torus link hold: those of adaptively routed
	// traffic (BG/L's two dynamic virtual channels) and those of the
	// deterministic escape channel. A train (a batch of packets written
	// into an injection FIFO together, which the links take as one) takes a
	// place for each of its packets, at most InjectionFIFO (a train of a
	// coarse --grain takes the places of one batch). A link sends a train on
	// only when the buffer it goes into has room for it; a train keeps its
	// places until its tail has left on the next link, and the link behind
	// learns of the room a hop later (token flow control), so a blocked
	// train stops the links behind it. Deterministic trains, and adaptive
	// ones that find no dynamic room on their dimension-ordered link, take
	// the escape channel, where a train entering a ring (injected, turning
	// a corner or coming from a dynamic channel) needs room for itself and
	// a whole train more (the bubble rule, which keeps the rings free of
	// deadlock). Control packets (high-priority channel) and a route's last
	// link (into the reception FIFOs) take no place. 0 means unbounded;
	// EscapeBuffer is 0 or at least twice InjectionFIFO.
	DynamicBuffer int
	EscapeBuffer  int

	// PacketWriteCycles is the CPU cost of writing one packet into an
	// injection FIFO (50 from cache to 100 from memory).
	PacketWriteCycles int64
	// PacketReadCycles is the CPU cost of reading one packet out of a
	// reception FIFO (about 204).
	PacketReadCycles int64
	// CopyBytesPerCycle is the memory copy rate of realignment copies (4.3).
	CopyBytesPerCycle float64
	// InterruptCycles is the cost of taking an interrupt (about 1,000).
	InterruptCycles int64
	// PacketOverheadCycles is the advance loop's own work per packet, on the
	// sending and on the receiving side: polling the FIFO status, building
	// or parsing the software header, finding the message and moving its
	// offset. With the packet write, read and copy it sets how many links one
	// CPU keeps busy ([ML] Figs. 4c-f: about two bidirectional links).
	PacketOverheadCycles int64
	// CacheLine is the L1 line size (32 B). The coprocessor receives only
	// data that is whole cache lines, aligned (to keep the non-coherent L1s
	// consistent): a message whose size is a multiple of CacheLine, its
	// buffer being taken to start on a line.
	CacheLine int

	// Message-layer software costs (calibrated, [ML] Table 1).
	// MLSendCycles: set up a message and its first packet header.
	MLSendCycles int64
	// MLDispatchCycles: the advance loop finds a packet and runs its handler.
	MLDispatchCycles int64
	// EagerSetupCycles: the eager protocol's extra work per message on each
	// side (reassembly state, completion callback) over a one-packet message.
	EagerSetupCycles int64
	// RzvSetupCycles: the rendezvous protocol's software work per message on
	// each side (scout and grant handling, setting up the transfer); with it
	// the 1-byte half round trip comes to [ML] Table 1's 12,000 cycles.
	RzvSetupCycles int64
	// AdaptiveSetupCycles: the adaptive eager protocol's extra work per
	// message on each side over a one-packet message (reassembly state,
	// sequence numbers, the confirmation's bookkeeping).
	AdaptiveSetupCycles int64
	// AdaptiveHeader is the sequence number and offset every adaptively
	// routed eager packet carries so that the receiver can put it in place:
	// it comes out of the payload (240 - 8 = 232 B per packet).
	AdaptiveHeader int
	// ReorderCycles is the receiver's extra work per adaptive eager packet:
	// checking its sequence number and keeping the out-of-order ones apart
	// until the message is whole ([ML]: "packet reordering is expensive").
	ReorderCycles int64
	// CoSyncCycles is the main CPU's part of making a message the
	// coprocessor received coherent with its L1 (once per message).
	CoSyncCycles int64

	// MPI software costs on top of the message layer (calibrated, [ML] Table 1
	// "MPI" column and Fig. 4a's 3.35 us at one hop).
	// MPICallCycles: entering any MPI call (argument checks, progress poll).
	MPICallCycles int64
	// MPISendCycles: building the envelope and request of a send.
	MPISendCycles int64
	// MPIMatchCycles: matching an arriving envelope to a posted receive or
	// queueing it as unexpected.
	MPIMatchCycles int64
	// ReduceCyclesPerElement: combining one element in a reduction.
	ReduceCyclesPerElement int64
	// MPI's own work for the protocols that call it back more than once,
	// on each side of a message (charged when the message layer calls MPI's
	// device at those steps; the active-message interface does not pay it).
	// MPIEagerCycles: the upcall at the first packet that finds the Request
	// and the completion callbacks ([ML]: MPI adds 1,300 cycles to eager
	// against 750 to one-packet).
	MPIEagerCycles int64
	// MPIAdaptiveCycles: taking the receiver's confirmation, which is the
	// token for the next message ([ML]: "MPI overhead also measures the time
	// required to obtain the next token from the receiver").
	MPIAdaptiveCycles int64
	// MPIRzvCycles: MPI's request-to-send and clear-to-send handling.
	MPIRzvCycles int64

	// EagerLimit: messages up to this size use the eager protocol (1,000 B);
	// above RzvLimit the rendezvous protocol; in between (none by default)
	// the adaptive eager protocol. Messages that fit one packet use the
	// one-packet protocol whatever the limits.
	EagerLimit, RzvLimit int

	// VNComputePenalty slows mpi.compute in virtual-node mode ([ML] Fig. 5a:
	// 2-20% from shared memory bandwidth and cache).
	VNComputePenalty float64

	// FlopsPerCycle converts mpi.compute{flops=N} to cycles: BG/L's double
	// FPU does 4 floating-point operations per cycle at peak.
	FlopsPerCycle float64

	// The collective network ([ML] "Collective network"; see tree.go): a
	// tree over the partition's nodes with an integer ALU at every node.
	// TreeBytesPerCycle is its raw link rate, 4 bits per cycle = 350 MB/s;
	// 0 means the machine has none (the tree algorithms fall back).
	TreeBytesPerCycle float64
	// TreePacket is the fixed packet size, 256 B, all of it payload.
	TreePacket int
	// TreeOverhead is what a packet costs on the wire beyond its 256 B
	// (operation control, link reliability): 10 B, so 256/266 = 96%.
	TreeOverhead int
	// TreeHopCycles is the latency of one tree hop, ALU combine included.
	// An operation goes up to the tree's root and back down, 2*depth hops,
	// where depth = floor(log2 nodes) is that of the shallowest tree a node
	// with three collective links (one up, two down) allows: 16 on 65,536
	// nodes. [ML] gives 2.5 us there: 1,750 cycles / 32 hops = 54.7, so 55
	// (79 ns). A packet's serialization comes on top (TreeCycles).
	TreeHopCycles int64

	// The global interrupt network ([ML]: "configurable OR wires to perform
	// full-system hardware barriers in 1.5 us"; see gi.go). A barrier costs
	// GIBarrierCycles + 2*depth*GILevelCycles, depth as for the tree: a fixed
	// part (arming the GI register and polling it) plus the signal's trip up
	// the OR tree and back. We split the 1.5 us (1,050 cycles) of 65,536
	// nodes (depth 16) as 154 fixed + 32 levels of 28 cycles (40 ns): the
	// wires are asynchronous and fast, most of the time is their length.
	// GIBarrierCycles 0 means the machine has no such network.
	GIBarrierCycles int64
	// GILevelCycles is the global interrupt's delay per tree level and way.
	GILevelCycles int64

	// I/O nodes ([ML] "System software"): one I/O node serves a pset of
	// PsetNodes compute nodes (64 on BG/L). Output (print) is
	// function-shipped: its packets go up the collective network to the
	// pset's I/O node, whose I/O daemon writes it and replies; the daemon
	// handles one write at a time (see pset.go). 0: no I/O nodes are
	// modeled and output costs nothing.
	PsetNodes int
	// IOWriteCycles is the I/O daemon's work for one write (taking the
	// packets in, the write system call, the reply): 3,500 cycles (5 us), an
	// assumption of ours; the papers give no figure.
	IOWriteCycles int64

	// Thread units ([EMU] "Emulator implementation details"): a node of the
	// cellular design has 25 processors of 8 thread units each, 200 in
	// all, split between communication units, which take the active
	// messages and micro-tasks out of the node's InBuffer in FIFO order and
	// pay MLDispatchCycles for each, and worker units, to which a
	// communication unit hands the work whose category is "worker"
	// (waiting, without spinning, while every worker is busy). Handlers on
	// different units of a node overlap in virtual time; each runs to
	// completion. 0 (BG/L) means no thread units: handlers run in the
	// rank's advance loop (ml.advance, ml.wait) on its CPU, whatever their
	// category. CommThreads is the number of communication units per node.
	CommThreads int
	// WorkerThreads is the number of worker units per node. With none, a
	// communication unit runs the worker work itself.
	WorkerThreads int
	// HandoffCycles is what handing a piece of work to an idle worker unit
	// costs the communication unit, the worker starting when it is done.
	// [EMU] gives no figure; 0 on bgc, an assumption of ours.
	HandoffCycles int64
}

// BGL returns the Blue Gene/L machine.
func BGL() *Machine {
	return &Machine{
		Name:              "bgl",
		ClockHz:           700e6,
		CPUsPerNode:       2,
		LinkBytesPerCycle: 0.25,
		PacketMax:         256,
		PacketMin:         32,
		PacketGranule:     32,
		PacketHeader:      16,
		WireOverhead:      14,
		HopCycles:         63,
		CornerTurnCycles:  0,
		NetworkCycles:     300,
		InjectionFIFO:     8,
		ReceptionFIFO:     64,
		DynamicBuffer:     16,
		EscapeBuffer:      24,
		PacketWriteCycles: 100,
		PacketReadCycles:  204,
		CopyBytesPerCycle: 4.3,
		InterruptCycles:   1000,

		PacketOverheadCycles: 90,
		CacheLine:            32,

		MLSendCycles:        260,
		MLDispatchCycles:    310,
		EagerSetupCycles:    550,
		RzvSetupCycles:      3850,
		AdaptiveSetupCycles: 550,
		AdaptiveHeader:      8,
		ReorderCycles:       100,
		CoSyncCycles:        300,

		MPICallCycles:          100,
		MPISendCycles:          300,
		MPIMatchCycles:         350,
		ReduceCyclesPerElement: 4,
		MPIEagerCycles:         240,
		MPIAdaptiveCycles:      7780,
		MPIRzvCycles:           2350,

		EagerLimit: 1000,
		RzvLimit:   1000,

		VNComputePenalty: 0.1,
		FlopsPerCycle:    4,

		TreeBytesPerCycle: 0.5,
		TreePacket:        256,
		TreeOverhead:      10,
		TreeHopCycles:     55,
		GIBarrierCycles:   154,
		GILevelCycles:     28,

		PsetNodes:     64,
		IOWriteCycles: 3500,
	}
}

// Seconds converts cycles to seconds.
func (m *Machine) Seconds(c int64) float64 { return float64(c) / m.ClockHz }

// Cycles converts seconds to cycles, rounding to the nearest cycle.
func (m *Machine) Cycles(s float64) int64 { return int64(s*m.ClockHz + 0.5) }

// ReceptionLinkFIFO is the room, in packets, of one CPU's reception FIFOs at
// the far end of one link: ReceptionFIFO split among the six links, but at
// least an injection FIFO's worth, so that any batch fits (0: unbounded).
func (m *Machine) ReceptionLinkFIFO() int {
	if m.ReceptionFIFO <= 0 {
		return 0
	}
	return max(m.ReceptionFIFO/NumDirs, m.InjectionFIFO, 1)
}

// PayloadPerPacket is the most payload one torus packet carries.
func (m *Machine) PayloadPerPacket() int { return m.PacketMax - m.PacketHeader }

// Packets is the number of packets a message of n payload bytes needs (at
// least one: an empty message still sends its header).
func (m *Machine) Packets(n int) int {
	p := m.PayloadPerPacket()
	if n <= 0 {
		return 1
	}
	return (n + p - 1) / p
}

// PacketBytes is the size of a packet carrying n payload bytes: header plus
// payload rounded up to the packet granule.
func (m *Machine) PacketBytes(n int) int {
	b := n + m.PacketHeader
	if b < m.PacketMin {
		b = m.PacketMin
	}
	g := m.PacketGranule
	b = (b + g - 1) / g * g
	if b > m.PacketMax {
		b = m.PacketMax
	}
	return b
}

// SerializeCycles is how long a packet of b bytes occupies a link.
func (m *Machine) SerializeCycles(b int) int64 {
	return ceilDiv(float64(b+m.WireOverhead), m.LinkBytesPerCycle)
}

// CopyCycles is the CPU time of copying n bytes.
func (m *Machine) CopyCycles(n int) int64 {
	if n <= 0 {
		return 0
	}
	return ceilDiv(float64(n), m.CopyBytesPerCycle)
}

func ceilDiv(a, rate float64) int64 {
	c := a / rate
	i := int64(c)
	if float64(i) < c {
		i++
	}
	return i
}
