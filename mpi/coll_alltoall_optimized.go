package mpi

import (
	"math/rand/v2"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

func init() {
	register("alltoall", "optimized",
		"BG/L message-layer alltoall ([ML] Fig. 6): every rank writes its packets itself, packet k to every destination in a random order each round, adaptively routed, so that the links load evenly; near the bisection bandwidth",
		alltoallAlg(alltoallOptimized))
}

// tagAlltoallOptimized names the operations of alltoall optimized (shareOp).
const tagAlltoallOptimized = 820

// The optimized alltoall of [ML] ("we are able to optimize packet injection
// to even out network traffic"): conceptually MPICH's post-everything-and-
// wait, but at the packet level. Every rank cuts its value for each other
// rank into packets and writes them in rounds: round k sends packet k to
// every destination that has one, in an order drawn at random for every
// round and rank, so that at any moment the packets in the network go
// everywhere rather than all one way, as the pairwise and post-all orders
// make them go. The packets need no envelope (the receiver knows what comes
// from whom: MPI's counts; each packet's source and offset ride in the
// software bytes of its header) and no order, so they are routed
// adaptively, as rendezvous data: a message-layer packet stream
// (msglayer.StreamPacket). With --routing deterministic they follow BG/L's
// dimension order instead; where a destination is exactly half a ring away
// the packet takes one way or the other by its round and source node (the
// hint bits of the packet header).
//
// Costs are the message layer's per-packet ones: a write and, the first
// time a rank writes to a destination, setting up that stream
// (Layer.StreamWrite); a read at the destination (Layer.StreamRead). The
// CPU writes no more than InjectionFIFO packets ahead of the links. Each
// packet is a train of one packet of the message layer (Layer.StreamSend):
// it takes its links hop by hop in their arbiters, into room in the
// routers' buffers, and its last link into room in its reader's reception
// FIFOs, so a reader that falls behind backs up into the writers, and the
// network's load, not a formula, sets the time. Ranks of one node exchange
// through memory (the receiver copies), a rank's value for itself is
// copied.
//
// A rank writes from when it enters the call. Its CPU reads the packets
// for it as they come, in the call or not: the message layer drains its
// reception FIFOs whatever the rank is doing, as MPI's progress does on the
// machine, so that a rank late to the call never holds its senders' packets,
// and the traffic behind them, in the network (a rank blocked in an earlier
// call would otherwise wait for data stuck behind them: a deadlock the
// program does not have). A packet read before its rank is in the call is
// kept aside and copied into place when the rank enters. The rank returns
// when its packets are written and everything for it is in place.

func alltoallOptimized(c *Comm, vs []Value) ([]Value, error) {
	n := c.Size()
	if n == 1 {
		return []Value{vs[0]}, nil
	}
	c.r.needOne("alltoall over the optimized torus algorithm")
	op := c.shareOp(tagAlltoallOptimized, func() any { return newA2AOp(c) }).(*a2aOp)
	return op.run(c, vs)
}

// a2aOp is one alltoall in progress.
type a2aOp struct {
	w        *World
	members  []int     // comm rank -> world rank
	vals     [][]Value // per rank, its values (read while it writes)
	out      [][]Value // per rank, what it gets
	ranks    []a2aRank
	entered  int
	free     []*a2aPacket
	adaptive bool // route the packets adaptively
	info     WaitInfo
	label    int32 // of link accounting
}

// a2aRank is one member's side: its writer and its reader.
type a2aRank struct {
	in   bool
	proc *runtime.Proc // the process that runs its part (the rank's, or a progress context's)

	// The writer.
	rng      *rand.Rand
	order    []int32 // destinations (comm ranks on other nodes), this round's order
	round    int     // packet index being sent to each destination
	pos      int     // next place in order
	last     int     // the largest packet count of any destination
	writes   int     // packets written
	fifo     []Time  // when the last InjectionFIFO packets written left the FIFO (-1: not yet)
	fifoWait bool    // the writer waits for one of them to leave
	wrote    bool    // every packet written
	wroteAt  Time

	// The reader.
	expect int     // packets and local copies announced by writers in the call
	got    int     // read or copied
	early  []int32 // the payload bytes of each packet read before it entered
	gotAt  Time    // when the last one was in
	done   bool
	doneAt Time
}

func newA2AOp(c *Comm) *a2aOp {
	n := c.Size()
	op := &a2aOp{w: c.r.w, members: make([]int, n), vals: make([][]Value, n), out: make([][]Value, n), ranks: make([]a2aRank, n)}
	for i := range op.members {
		op.members[i] = c.World(i)
	}
	op.info = WaitInfo{Call: "alltoall (optimized)", Peer: NoPeer, Comm: c.Name}
	op.label = c.r.linkLabel("alltoall", "optimized")
	// The packets carry their offset and need no order: like rendezvous
	// data they go adaptively unless the run routes everything
	// deterministically.
	op.adaptive = op.w.ml.Routing != msglayer.Deterministic
	return op
}

// packetsFor is how many packets value v takes. They carry no envelope:
// the receiver knows what comes from whom (MPI's counts), and each packet's
// source and offset ride in the software bytes of its header.
func (op *a2aOp) packetsFor(v Value) int { return op.w.m.Packets(v.Size) }

// payload is the payload bytes of packet k of value v.
func (op *a2aOp) payload(v Value, k int) int {
	per := op.w.m.PayloadPerPacket()
	return max(0, min(per, v.Size-k*per))
}

func (op *a2aOp) run(c *Comm, vs []Value) ([]Value, error) {
	r := c.r
	r.sync()
	now := r.Now()
	me := c.rank
	st := &op.ranks[me]
	st.in, st.proc = true, r.Proc
	op.vals[me] = vs
	// What each rank gets from this one, taken now: this rank may return,
	// and reuse its values, before the others are done.
	for d, v := range vs {
		if op.out[d] == nil {
			op.out[d] = make([]Value, len(op.members))
		}
		op.out[d][me] = v
	}
	op.entered++
	mp := op.w.ml.Map
	node := mp.Node(r.ID)
	cpu := op.w.ml.CPU(r.ID)
	// Announce what is coming to every rank; copy what is on this node.
	for d, w := range op.members {
		if mp.Node(w) != node {
			k := op.packetsFor(vs[d])
			op.ranks[d].expect += k
			st.last = max(st.last, k)
			st.order = append(st.order, int32(d))
			continue
		}
		op.ranks[d].expect++
		if op.ranks[d].in {
			// Both are in: each copies the other's value for it.
			op.local(d, me, now)
			if d != me {
				op.local(me, d, now)
			}
		}
	}
	// The packets read before this rank was in go into place.
	for _, b := range st.early {
		end := cpu.Run(now, op.w.m.CopyCycles(int(b)))
		st.got++
		st.gotAt = max(st.gotAt, end)
	}
	st.early = nil
	if len(st.order) > 0 {
		st.rng = rand.New(rand.NewPCG(uint64(r.ID), uint64(op.w.Seed)^uint64(len(op.members))))
		op.shuffle(st)
		op.w.Eng.At(now, &a2aWriter{op: op, me: int32(me)})
	} else {
		st.wrote, st.wroteAt = true, cpu.Free
	}
	if op.entered == len(op.members) {
		for i := range op.ranks {
			op.check(i)
		}
	} else {
		op.check(me)
	}
	for !st.done {
		r.Block(op.info)
	}
	r.Proc.SleepUntil(st.doneAt)
	r.sync()
	return op.out[me], nil
}

// shuffle draws the order of the next round.
func (op *a2aOp) shuffle(st *a2aRank) {
	st.rng.Shuffle(len(st.order), func(i, j int) { st.order[i], st.order[j] = st.order[j], st.order[i] })
	st.pos = 0
}

// sent counts b payload bytes that rank s sent (World.Bytes, SentBytes).
func (op *a2aOp) sent(s, b int) {
	op.w.Bytes += int64(b)
	op.w.ranks[op.members[s]].SentBytes += int64(b)
}

// local has rank d copy rank s's value for it (both on one node, or s = d).
func (op *a2aOp) local(d, s int, now Time) {
	if d != s {
		op.sent(s, op.vals[s][d].Size)
	}
	cpu := op.w.ml.CPU(op.members[d])
	end := cpu.Run(now, op.w.m.CopyCycles(op.vals[s][d].Size))
	st := &op.ranks[d]
	st.got++
	st.gotAt = max(st.gotAt, end)
}

// check finishes rank i if everything is written and read.
func (op *a2aOp) check(i int) {
	st := &op.ranks[i]
	if st.done || !st.in || !st.wrote || op.entered < len(op.members) || st.got < st.expect {
		return
	}
	st.done = true
	st.doneAt = max(st.wroteAt, st.gotAt)
	if p := op.ranks[i].proc; p != nil {
		op.w.Eng.Wake(p, st.doneAt)
	}
}

// a2aWriter is one rank writing its next packet.
type a2aWriter struct {
	op *a2aOp
	me int32
}

func (wr *a2aWriter) Act(now Time) {
	op := wr.op
	me := int(wr.me)
	st := &op.ranks[me]
	m := op.w.m
	// The next packet: round st.round, destination order[pos], skipping
	// destinations that have fewer packets.
	var d int
	for {
		if st.pos == len(st.order) {
			st.round++
			if st.round == st.last {
				cpu := op.w.ml.CPU(op.members[me])
				st.wrote, st.wroteAt = true, cpu.Free
				op.check(me)
				return
			}
			op.shuffle(st)
		}
		d = int(st.order[st.pos])
		if st.round < op.packetsFor(op.vals[me][d]) {
			break
		}
		st.pos++
	}
	cpu := op.w.ml.CPU(op.members[me])
	t := max(now, cpu.Free)
	if f := m.InjectionFIFO; f > 0 && st.writes >= f {
		// Packet writes-f must have left the FIFO; its first hop may not
		// even have been taken yet (unknown, -1): that hop wakes the writer.
		switch slot := st.fifo[st.writes%f]; {
		case slot < 0:
			st.fifoWait = true
			return
		case slot > t:
			op.w.Eng.At(slot, wr)
			return
		}
	}
	end := op.w.ml.StreamWrite(op.members[me], t, st.round == 0) // round 0: the stream to d starts
	b := op.payload(op.vals[me][d], st.round)
	op.sent(me, b)
	p := op.packet()
	*p = a2aPacket{op: op, src: int32(me), dst: int32(d), fifo: -1, bytes: int32(b)}
	if f := m.InjectionFIFO; f > 0 {
		if st.fifo == nil {
			st.fifo = make([]Time, f)
		}
		p.fifo = int32(st.writes % f)
		st.fifo[p.fifo] = -1
	}
	st.writes++
	src := op.w.ml.Map.Node(op.members[me])
	op.w.ml.StreamSend(msglayer.StreamPacket{
		Src: op.members[me], Dst: op.members[d], Index: st.round, Payload: b,
		Flip: uint8(st.round + src), Adaptive: op.adaptive, Label: op.label,
	}, end, p)
	st.pos++
	op.w.Eng.At(cpu.Free, wr)
}

func (op *a2aOp) packet() *a2aPacket {
	if k := len(op.free); k > 0 {
		p := op.free[k-1]
		op.free = op.free[:k-1]
		return p
	}
	return &a2aPacket{}
}

// a2aPacket is a packet of the alltoall on its way (the message layer's
// StreamSink for it).
type a2aPacket struct {
	op       *a2aOp
	src, dst int32 // comm ranks
	fifo     int32 // its slot in the writer's injection FIFO (-1: none)
	bytes    int32 // payload
}

// StreamLeft: the packet has left its writer's injection FIFO.
func (p *a2aPacket) StreamLeft(now Time) {
	if p.fifo < 0 {
		return
	}
	op := p.op
	st := &op.ranks[p.src]
	st.fifo[p.fifo] = now
	if st.fifoWait {
		st.fifoWait = false
		op.w.Eng.At(now, &a2aWriter{op: op, me: p.src})
	}
}

// StreamArrived: the packet is in its reader's reception FIFO.
func (p *a2aPacket) StreamArrived(now Time, in msglayer.StreamSlot) {
	op := p.op
	d, b := int(p.dst), int(p.bytes)
	*p = a2aPacket{}
	op.free = append(op.free, p)
	st := &op.ranks[d]
	if !st.in {
		op.w.ml.StreamRead(op.members[d], now, b, in)
		st.early = append(st.early, int32(b))
		return
	}
	op.read(d, b, in, now)
}

// read has rank d's CPU read a packet of b payload bytes, which holds place
// in of its reception FIFOs, from now on.
func (op *a2aOp) read(d, b int, in msglayer.StreamSlot, now Time) {
	st := &op.ranks[d]
	end := op.w.ml.StreamRead(op.members[d], now, b, in)
	st.got++
	st.gotAt = max(st.gotAt, end)
	op.check(d)
}
