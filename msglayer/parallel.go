package msglayer

import (
	"fmt"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// A layer in partitions (SetPartitions) runs on a runtime.Group with one
// partition per block of the torus (hw.Blocks). Everything of a node (its
// CPUs, reception FIFOs, the inboxes and preferences of its ranks, the
// receiving half of the pair channels to its ranks) belongs to its block's
// partition; each partition has a view of the layer (Part) with its own
// engine, network view, scratch, pools, pair channels and counters. A step
// of the protocol that happens at another node is an event sent to that
// node's partition (runtime.Engine.Send), never a call:
//
//   - Packets (data chunks and control packets) walk the network as
//     hw.Transit: the route is reserved up to the block boundary, and the
//     next block goes on with it when the head gets there (at least
//     HopCycles later, the lookahead); the arrival runs in the destination's
//     partition.
//   - The room in a reception FIFO is taken by a train at its last link,
//     in the partition of that link (hw.Head.SetReader), and given back a
//     hop after the reader's CPU reads the packets (giveBackSpan, an event
//     to the link's partition when the reader is in another), as a router's
//     tokens are: blocks and one partition give the same times, contended
//     or not (TestPartitionsContendedIsOnePartition).
//   - The pair channel is split: the sending half (the order in which
//     messages start) belongs to the sender's partition, the receiving half
//     (the order in which envelopes are handed over) to the receiver's.
//     Halves are kept for the run (their sequence numbers must stay in
//     step), where a layer of one partition frees an idle pair's channel.
//   - Which CPU receives a rendezvous message's data (the coprocessor, if
//     it helps) is decided by the receiver when it grants the message.
//
// A layer whose torus is one block runs exactly as a layer of one partition.

// SetPartitions splits l, built by New on g's partition 0, into one view per
// block of b; g must have b.N() partitions. The layer's settings (Routing,
// Coprocessor, Obs) must be set before: each view takes a copy. An observer
// is called by every partition, on their threads. With a single block it
// changes nothing.
func (l *Layer) SetPartitions(g *runtime.Group, b *hw.Blocks) {
	if b == nil || b.N() == 1 {
		return
	}
	if g.Parts() != b.N() {
		panic(fmt.Sprintf("msglayer: %d partitions for %d blocks", g.Parts(), b.N()))
	}
	if l.Eng != g.Part(0) {
		panic("msglayer: SetPartitions on a layer not built on the group's partition 0")
	}
	l.net.SetBlocks(b)
	l.inboxes = make([]*Inbox, l.Map.Ranks())
	l.prefer = make([]Protocol, l.Map.Ranks())
	l.coOff = make([]bool, l.Map.Torus.Nodes())
	l.views = make([]*Layer, b.N())
	l.views[0] = l
	l.trains.share()
	l.transits.share()
	l.releases.share()
	l.streamInfos.share()
	for i := 1; i < b.N(); i++ {
		v := &Layer{M: l.M, Map: l.Map, net: l.net.Part(i), Eng: g.Part(i), Routing: l.Routing, Coprocessor: l.Coprocessor, Grain: l.Grain,
			cpus: l.cpus, inboxes: l.inboxes, sends: l.sends, prefer: l.prefer, coOff: l.coOff, Obs: l.Obs}
		v.trains.dep, v.transits.dep, v.releases.dep, v.streamInfos.dep = l.trains.dep, l.transits.dep, l.releases.dep, l.streamInfos.dep
		l.views[i] = v
	}
	for _, v := range l.views {
		v.views = l.views
	}
	l.initArbs() // now, before the partitions' threads share them
}

// Partitions is the number of views (1 without SetPartitions).
func (l *Layer) Partitions() int { return max(len(l.views), 1) }

// Part is the view of partition i.
func (l *Layer) Part(i int) *Layer {
	if l.views == nil {
		return l
	}
	return l.views[i]
}

// ForRank is the view of the partition that rank's node belongs to.
func (l *Layer) ForRank(rank int) *Layer {
	if l.views == nil {
		return l
	}
	return l.on(l.Map.Node(rank))
}

// TotalMessages is the number of messages sent, summed over the views.
func (l *Layer) TotalMessages() int64 { return l.sum(func(v *Layer) int64 { return v.Messages }) }

// TotalAMs is the number of active messages sent, summed over the views.
func (l *Layer) TotalAMs() int64 { return l.sum(func(v *Layer) int64 { return v.AMs }) }

// sum adds up a count of every view.
func (l *Layer) sum(count func(*Layer) int64) int64 {
	if l.views == nil {
		return count(l)
	}
	var n int64
	for _, v := range l.views {
		n += count(v)
	}
	return n
}

// on is the view of node's partition.
func (l *Layer) on(node int) *Layer {
	if l.views == nil {
		return l
	}
	return l.views[l.net.BlockOf(node)]
}

// transit is a chunk of data packets, or a control packet, walking through
// the blocks: at each handoff the next block's view resumes it; at the end
// its arrival is scheduled in the destination's partition.
type transit struct {
	tr   hw.Transit
	root *Layer
	// What arrives: a control packet of kind about m, or a chunk of k
	// packets of m from packet idx on, carrying bytes, for CPU rx.
	m                 *Message
	ctl               bool
	kind              ctlKind
	k, idx, bytes, rx int32
	cb                Arrival // Carry's
}

func (l *Layer) newTransit() *transit {
	if x := l.transits.get(); x != nil {
		return x
	}
	return &transit{}
}

// send walks x's packets, count of them (all of payload full but the last,
// of last bytes), from node from to node to, ready at t, deterministically
// or adaptively; their arrival runs in the destination's partition. It
// returns when the head left the source, and the arrivals if they are known
// now (the walk stayed in the block; otherwise -1).
func (l *Layer) send(x *transit, from, to int, t Time, count, full, last int, adaptive bool) (left, first, lst Time) {
	if l.net.Inject(&x.tr, from, to, t, count, full, last, adaptive) {
		left, first, lst = x.tr.Left, x.tr.First, x.tr.Last
		l.arrive(x)
		return left, first, lst
	}
	x.root = l.views[0]
	l.Eng.Send(l.views[x.tr.Block].Eng, x.tr.At, runtime.PrioModel, x)
	return x.tr.Left, -1, -1
}

func (x *transit) Act(now Time) {
	v := x.root.views[x.tr.Block]
	if !v.net.Resume(&x.tr) {
		v.Eng.Send(x.root.views[x.tr.Block].Eng, x.tr.At, runtime.PrioModel, x)
		return
	}
	v.arrive(x)
}

// arrive schedules x's arrival on l, the destination's view, and frees x.
func (l *Layer) arrive(x *transit) {
	if x.cb != nil {
		x.cb.Arrived(l, x.tr.First, x.tr.Last)
	} else if x.ctl {
		l.controlAt(x.tr.First, x.kind, x.m, x.rx)
	} else {
		l.inject(x.m, x.k, x.idx, x.bytes, x.rx, x.tr.First, x.tr.Last, -1, 0)
	}
	*x = transit{}
	l.transits.put(x)
}

// maxTransitPool bounds a view's pool of free objects of a kind that one
// partition makes and another frees (pool.go), and its other pools that
// fill so.
const maxTransitPool = 4096

// An Arrival is told, in the partition of the node some packets went to,
// when they arrive (see Carry).
type Arrival interface {
	// Arrived is called no later than first, on the destination's view
	// l (whose Eng runs the destination's partition): the first packet's
	// tail reaches the node's reception FIFO at first, the last's at last.
	Arrived(l *Layer, first, last Time)
}

// Carry sends count packets back to back (all of payload size full but the
// last, of last bytes; sizes as on the wire) from node from to node to, their
// head ready at t (not before now), routed deterministically or adaptively,
// for a layer above that models its own packet traffic (the torus
// broadcast, the optimized alltoall). It must run in from's partition. It
// returns when the head left the source; a is told of the arrival in to's
// partition. In a layer of one partition (or when the route stays in its
// block) a is told at once, before Carry returns.
func (l *Layer) Carry(from, to int, t Time, count, full, last int, adaptive bool, a Arrival) (left Time) {
	if l.views == nil {
		var first, lst Time
		if adaptive {
			p := l.net.Path(from, to)
			left, first, lst = l.net.SendAdaptiveTrain(&p, t, count, full, last)
		} else {
			left, first, lst = l.net.SendTrainTo(from, to, t, count, full, last)
		}
		a.Arrived(l, first, lst)
		return left
	}
	l = l.on(from)
	x := l.newTransit()
	x.cb = a
	left, _, _ = l.send(x, from, to, t, count, full, last, adaptive)
	return left
}

// A Deposits is told, in each partition a deposit-bit train passes, of its
// arrivals at the nodes of that partition (see CarryDeposit).
type Deposits interface {
	// Deposited is called on the view l of a partition with the arrivals at
	// its nodes, in line order, no later than the first of them. arr is
	// reused after the call.
	Deposited(l *Layer, arr []hw.Arrival)
}

// CarryDeposit sends a deposit-bit train along line (hw.DepositTrain: count
// packets of full bytes but the last, of last bytes, the head ready at t).
// It must run in the partition of the line's first node. It returns when the
// head left the source; d is told of the arrivals block by block, in each
// block's partition (in a layer of one partition at once, before
// CarryDeposit returns).
func (l *Layer) CarryDeposit(line hw.Line, t Time, count, full, last int, d Deposits) (left Time) {
	if l.views == nil {
		l.route = l.Map.Torus.LineRoute(l.route[:0], line)
		var arr []hw.Arrival
		left, arr = l.net.DepositTrain(l.route, t, count, full, last, l.arrScratch[:0])
		l.arrScratch = arr[:0]
		d.Deposited(l, arr)
		return left
	}
	l = l.on(int(line.From))
	x := &depositTransit{root: l.views[0], d: d}
	done, arr := l.net.InjectDeposit(&x.tr, line, t, count, full, last, l.arrScratch[:0])
	l.arrScratch = arr[:0]
	if len(arr) > 0 {
		d.Deposited(l, arr)
	}
	if !done {
		l.Eng.Send(l.views[x.tr.Block].Eng, x.tr.At, runtime.PrioModel, x)
	}
	return x.tr.Left
}

// depositTransit is a deposit-bit train on its way through the blocks.
type depositTransit struct {
	tr   hw.DepositTransit
	root *Layer
	d    Deposits
}

func (x *depositTransit) Act(now Time) {
	v := x.root.views[x.tr.Block]
	done, arr := v.net.ResumeDeposit(&x.tr, v.arrScratch[:0])
	v.arrScratch = arr[:0]
	x.d.Deposited(v, arr)
	if !done {
		v.Eng.Send(x.root.views[x.tr.Block].Eng, x.tr.At, runtime.PrioModel, x)
	}
}
