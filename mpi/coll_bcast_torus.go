package mpi

import (
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

func init() {
	register("bcast", "torus",
		"torus deposit bit ([ML] Fig. 3): the root's packets pipelined over up to three edge-disjoint routes of deposit-bit lines, every node reading each packet and forwarding some; CPU bound near 2 links' worth (COMM_WORLD or a copy on a partition every node of which runs the job; else the default)",
		bcastAlg(bcastTorus))
	registerParams("bcast", "torus", ParamSpec{Name: "routes", Min: 1, Max: 3, Default: 3,
		Doc: "edge-disjoint routes the packets are dealt to, at most one per dimension of the partition longer than one node"})
}

// tagBcastTorus names the operations of bcast torus (see shareOp).
const tagBcastTorus = 210

// The deposit-bit broadcast of [ML] ("Message-layer support for MPI
// collective operations", Fig. 3, Fig. 5b), after van de Geijn's pipelined
// mesh broadcast, over the message layer's deposit-bit line multicast
// (msglayer.Multicast): the root cuts its data into packets and deals them
// round robin to edge-disjoint routes of lines, three on a 3D partition. A
// packet of a route goes out from the root as deposit-bit lines; every node
// it reaches reads it (Multicast.Read) and writes it again for each line
// the route has it send (Multicast.Write), no more than InjectionFIFO
// packets ahead of the links. Each packet of each line is an engine event
// at the nodes it reaches and reserves its links on the network at the time
// it is written, so the broadcast contends with other traffic.
//
// A node's CPU reads every packet of every route, and the busiest ones also
// write up to three lines a packet triple: with BG/L's costs (350 cycles a
// packet read, 190 a write) that is about 1,600 cycles per 720 bytes where
// the three links need 1,080. The broadcast is CPU bound at about two links'
// worth, as [ML] measured ("the processor is unable to keep up with the
// torus traffic").
//
// A node reads packets only once its rank is in the call (they wait in its
// reception FIFO before); the root starts injecting when it enters. The
// node's CPU is that of its lowest-slot rank; in virtual-node mode the other
// rank copies the data from it once the node has it all (a rank on the
// root's node, from the root's buffer). The root returns when it has
// written its last packet, every other rank when its data is in. Reception
// FIFOs are not bounded here: a node that falls behind delays what it
// forwards, not the lines that pass it.
//
// It serves a communicator of the whole job (as the collective network) on
// a partition whose every node runs a rank of it (the routes forward
// through every node); otherwise it runs the default algorithm and the
// World records why (Fallbacks).

func bcastTorus(c *Comm, v Value, root int) (Value, error) {
	if c.size == 1 {
		return v, nil
	}
	if c.size != len(c.r.w.ranks) {
		c.treeFallback("bcast", "torus", reasonSubComm)
		return treeDefaultBcast(c, v, root)
	}
	c.r.needOne("bcast over the torus deposit-bit algorithm")
	op := c.shareOp(tagBcastTorus, func() any { return newTorusBcast(c, root) }).(*torusBcast)
	if op.why != "" {
		c.treeFallback("bcast", "torus", op.why)
		return treeDefaultBcast(c, v, root)
	}
	return op.run(c, v)
}

// reasonIdleNodes is why the torus broadcast cannot run on a partition with
// nodes that run no rank of the job.
const reasonIdleNodes = "nodes of the partition run no rank of the job (the deposit-bit routes forward through every node)"

// torusBcast is one broadcast in progress.
type torusBcast struct {
	w       *World
	procs   map[int]*runtime.Proc // world rank -> the process running its part, once in
	why     string                // set when it cannot run: every rank falls back
	mc      *msglayer.Multicast
	root    int // world rank
	rootIn  bool
	value   Value
	total   int // bytes sent (no envelope: MPI's count tells the receivers the size)
	packets int
	handler []int32 // per node: the world rank whose CPU reads its packets
	nodes   []torusNode
	sent    int // packets the root has written, all lines of each
	line    int // lines of the current packet written
	free    []*torusPacket
	info    WaitInfo
}

// torusNode is one node's side of the broadcast.
type torusNode struct {
	entered bool    // its handler rank is in the call
	done    bool    // it has read every packet (or, for the root's node, the root has entered)
	doneAt  Time    // when its CPU is done with them
	got     int32   // packets read
	pending []int32 // packets that came before its rank entered, in order
}

func newTorusBcast(c *Comm, root int) *torusBcast {
	w := c.r.w
	mp := w.ml.Map
	nodes := mp.Torus.Nodes()
	op := &torusBcast{w: w, root: c.World(root), handler: make([]int32, nodes)}
	for v := range op.handler {
		op.handler[v] = -1
	}
	for id := range mp.Ranks() {
		v := mp.Node(id)
		if h := op.handler[v]; h < 0 || mp.Coord(id).T < mp.Coord(int(h)).T {
			op.handler[v] = int32(id)
		}
	}
	for _, h := range op.handler {
		if h < 0 {
			op.why = reasonIdleNodes
			return op
		}
	}
	op.mc = w.ml.NewMulticast(mp.Node(op.root), c.param("bcast", "torus", "routes"))
	op.mc.Label = c.r.linkLabel("bcast", "torus")
	op.nodes = make([]torusNode, nodes)
	op.info = WaitInfo{Call: "bcast (torus deposit bit)", Peer: NoPeer, Comm: c.Name}
	return op
}

// run is one rank's part: the root starts the stream, a node's handler rank
// reads what has come, and every rank waits for its data.
func (op *torusBcast) run(c *Comm, v Value) (Value, error) {
	r := c.r
	if op.procs == nil {
		op.procs = map[int]*runtime.Proc{}
	}
	op.procs[r.ID] = r.Proc
	r.sync()
	now := r.Now()
	mp := op.w.ml.Map
	node := mp.Node(r.ID)
	rootNode := mp.Node(op.root)
	switch {
	case r.ID == op.root:
		op.value = v
		op.rootIn = true
		op.total = v.Size
		op.packets = op.w.m.Packets(op.total)
		op.w.Eng.At(now, (*torusInject)(op))
		// The data is in the root node's memory: its other rank may copy it.
		op.finish(rootNode, now)
		for op.sent < op.packets {
			r.Block(op.info)
		}
		r.sync()
		return v, nil
	case node == rootNode:
		// A second rank of the root's node copies from the root's buffer.
	case int(op.handler[node]) == r.ID:
		n := &op.nodes[node]
		n.entered = true
		for _, j := range n.pending {
			op.read(node, int(j), now)
		}
		n.pending = nil
	}
	n := &op.nodes[node]
	for !n.done {
		r.Block(op.info)
	}
	r.Proc.SleepUntil(n.doneAt)
	if node == rootNode || int(op.handler[node]) != r.ID {
		r.busy(op.w.m.CopyCycles(op.value.Size))
	}
	r.sync()
	return op.value, nil
}

// payload is the payload bytes of packet j.
func (op *torusBcast) payload(j int) int {
	per := op.w.m.PayloadPerPacket()
	return max(0, min(per, op.total-j*per))
}

// write has node's CPU (that of rank) write one packet j along line k of
// the node's lines for it, no earlier than t and once the injection FIFO has
// room, and schedules its arrival at every node of the line. It returns when
// the CPU is done.
func (op *torusBcast) write(node, rank int, t Time, k, j int) Time {
	payload := op.payload(j)
	t, arr := op.mc.Write(node, rank, t, j, k, payload)
	op.w.Bytes += int64(payload)
	if node == op.w.ml.Map.Node(op.root) {
		op.w.ranks[op.root].SentBytes += int64(payload)
	} else {
		op.w.ranks[op.handler[node]].SentBytes += int64(payload)
	}
	for _, a := range arr {
		p := op.packet()
		p.node, p.j = a.Node, int32(j)
		op.w.Eng.At(a.First, p)
	}
	return t
}

func (op *torusBcast) packet() *torusPacket {
	if k := len(op.free); k > 0 {
		p := op.free[k-1]
		op.free = op.free[:k-1]
		return p
	}
	return &torusPacket{op: op}
}

// torusPacket is packet j of the broadcast reaching a node.
type torusPacket struct {
	op   *torusBcast
	node int32
	j    int32
}

func (p *torusPacket) Act(now Time) {
	op := p.op
	node, j := int(p.node), int(p.j)
	op.free = append(op.free, p)
	n := &op.nodes[node]
	if !n.entered {
		n.pending = append(n.pending, int32(j))
		return
	}
	op.read(node, j, now)
}

// read has node's CPU read packet j from now on, write it along the lines
// its route has the node send, and finish the node after its last packet.
func (op *torusBcast) read(node, j int, now Time) {
	h := int(op.handler[node])
	t := op.mc.Read(h, now, op.payload(j))
	for k, lines := 0, op.mc.Lines(node, j); k < lines; k++ {
		t = op.write(node, h, t, k, j)
	}
	n := &op.nodes[node]
	if n.got++; int(n.got) == op.packets {
		op.finish(node, op.w.ml.CPU(h).Free)
	}
}

// finish marks node done at t and wakes its ranks then.
func (op *torusBcast) finish(node int, t Time) {
	n := &op.nodes[node]
	n.done, n.doneAt = true, t
	mp := op.w.ml.Map
	for s := 0; s < mp.PerNode; s++ {
		if id, ok := op.w.ml.RankAt(node, s); ok && id != op.root && op.procs[id] != nil {
			op.w.Eng.Wake(op.procs[id], t)
		}
	}
}

// torusInject is the root writing its packets, one line at a time, each when
// its CPU and its injection FIFO let it.
type torusInject torusBcast

func (ti *torusInject) Act(now Time) {
	op := (*torusBcast)(ti)
	rootNode := op.w.ml.Map.Node(op.root)
	cpu := op.w.ml.CPU(op.root)
	j := op.sent
	op.write(rootNode, op.root, now, op.line, j)
	if op.line++; op.line == op.mc.Lines(rootNode, j) {
		op.line = 0
		op.sent++
	}
	if op.sent < op.packets {
		op.w.Eng.At(cpu.Free, ti)
		return
	}
	if p := op.procs[op.root]; p != nil {
		op.w.Eng.Wake(p, cpu.Free)
	}
}
