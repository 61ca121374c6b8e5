package msglayer

import (
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Data batches and control packets take the torus links one hop at a time
// (hw.Head): a batch written into an injection FIFO is a train whose head
// waits at each link of its route in that link's arbiter, and the link takes
// the heads that have reached it in round-robin order of the ports they came
// in by. The events:
//
//   - a link's arbitration (linkArb), at the cycle the link is free and a
//     head has reached it, after every other event of that cycle (prioLink),
//     so that all the heads that reach the link by then are in its arbiter;
//   - a head reaching a node where its next link is still to be chosen
//     (adaptive routing with more than one productive dimension), or a node
//     of another partition (trainHop); otherwise the next link is known
//     when the link before is granted, and the head is put in its arbiter
//     then, for the cycle it will get there;
//   - as before, the arrival of the train's first packet at the destination
//     (a chunk or a control packet), and the writer's next batch, due when
//     the train's head has left the source (known at the first grant).
//
// A link belongs to the partition of the node it leaves; a head crossing
// into another block is handed over at the cycle it reaches the node there,
// at least HopCycles (the lookahead) after the grant that sent it.

// prioLink orders a link's arbitration after the other events of its cycle
// (heads reaching it then are enqueued at runtime.PrioModel).
const prioLink = runtime.PrioModel + 1

// train is a batch of a flow's data packets, a control packet or a stream
// packet (stream.go), on its way hop by hop.
type train struct {
	h    hw.Head
	root *Layer // view 0
	m    *Message
	ctl  bool
	kind ctlKind
	// A chunk of k packets of m from packet idx on, carrying bytes, for
	// CPU rx.
	k, idx, bytes, rx int32
	// A flow's batch: the writer comes back when packet back has left
	// (if more is left to write); ser and serLast are the serialization
	// of a full packet and of the batch's last.
	back         int32
	more, left   bool
	ser, serLast Time
	// A stream packet's (stream.go; nil for a message's).
	st *streamInfo
}

func (l *Layer) newTrain() *train {
	if x := l.trains.get(); x != nil {
		return x
	}
	x := &train{}
	x.h.Ref = x
	return x
}

func (l *Layer) freeTrain(x *train) {
	if x.st != nil {
		l.freeStream(x.st)
	}
	*x = train{}
	x.h.Ref = x
	l.trains.put(x)
}

// trainKey is the tie key of a train: made from its message's ends and its
// place in the message (never from the order of events, nor from numbers
// that a layer of one partition and one in blocks give differently, such
// as a pair's message sequence, nor from the time), so that ties fall the
// same way in one partition and in blocks, and in every repetition of the
// same traffic. (Two trains of one pair that tie on everything else fall
// in the order they were enqueued.)
func trainKey(m *Message, idx int, ctl bool, kind ctlKind) uint64 {
	z := uint64(m.Src)<<42 ^ uint64(m.Dst)<<21
	z = z*0x9e3779b97f4a7c15 + uint64(idx)<<3
	if ctl {
		z += 1 + uint64(kind)
	}
	z = (z ^ z>>31) * 0xbf58476d1ce4e5b9
	return z ^ z>>29
}

// launch sets x off from node from to node to, its head ready at t (not
// before now): count packets, all of full bytes on the wire but the last
// (last bytes), written by CPU slot slot of from.
func (l *Layer) launch(x *train, from, to int, t Time, count, full, last int, adaptive bool, slot int) {
	x.root = l.Part(0)
	var key uint64
	if x.st != nil {
		key = x.st.id.key
	} else {
		key = trainKey(x.m, int(x.idx), x.ctl, x.kind)
	}
	l.net.Launch(&x.h, from, to, t, count, full, last, adaptive, slot, key)
	if x.st != nil && x.st.flip != 0 {
		l.net.Hint(&x.h, x.st.flip)
	}
	x.h.Priority = x.ctl
	if !x.ctl {
		x.h.SetReader(int(x.rx)%l.M.CPUsPerNode, rxPlaces(int(x.k), l.grain()))
	}
	if x.st != nil {
		x.h.Label = x.st.label
	} else {
		x.h.Label = x.m.Label
	}
	if x.h.Done() {
		l.started(x)
		l.arrived(x)
		return
	}
	l.ahead(x)
}

// ahead has x's head, bound for a node of l's partition, enter its next
// link's arbiter: at once if the link is known, else when it gets there.
func (l *Layer) ahead(x *train) {
	if x.h.Decided() {
		l.enqueue(x)
		return
	}
	l.Eng.AtKey(x.h.At, trainTie(&x.h, tieHop), (*trainHop)(x))
}

// enqueue chooses x's next link and puts the head in its arbiter.
func (l *Layer) enqueue(x *train) {
	l.net.Choose(&x.h)
	l.wantArb(x.h.Link(), l.net.Enqueue(&x.h))
}

// trainHop is a head reaching a node where its next link is chosen, or a
// node of another partition.
type trainHop train

func (p *trainHop) Tie() runtime.Tie { return (*train)(p).tie(tieHop) }

func (p *trainHop) Act(now Time) {
	x := (*train)(p)
	l := x.root.on(x.h.Node())
	if c := l.coarse; c != nil && c.aside && x.m != nil && x.m.lid != 0 && !x.ctl {
		if s := l.begin(x.m.lid, runtime.PrioModel, tieHop, x.idx, int32(x.h.Node())); s != nil {
			l.enqueue(x)
			s.end()
			return
		}
	}
	l.enqueue(x)
}

// linkArb is the arbitration of one link (Network.Grant), run in the
// partition of the node it leaves.
type linkArb struct {
	root *Layer
	at   Time // the cycle of the arbitration due (-1: none)
	link int32
}

// wantArb makes sure link arbitrates at t (or sooner).
func (l *Layer) wantArb(link int, t Time) {
	if l.arbs == nil {
		l.initArbs()
	}
	// (A head may be ready before now: a control packet that a layer
	// above sends from a time it worked out for its CPU.)
	t = max(t, l.Eng.Now())
	a := &l.arbs[link]
	if a.at >= 0 && a.at <= t {
		return
	}
	a.at = t
	l.Eng.ScheduleKey(t, prioLink, placeTie(tieArb, link), a)
}

// initArbs makes the links' arbitrations (for every view).
func (l *Layer) initArbs() {
	root := l.Part(0)
	arbs := make([]linkArb, l.Map.Torus.Nodes()*hw.NumDirs)
	for i := range arbs {
		arbs[i] = linkArb{root: root, at: -1, link: int32(i)}
	}
	for i := range root.Partitions() {
		root.Part(i).arbs = arbs
	}
}

func (a *linkArb) Act(now Time) {
	if now != a.at {
		return // an arbitration moved sooner
	}
	a.at = -1
	l := a.root.on(int(a.link) / hw.NumDirs)
	var rec *lease // a recording whose link this is (lease.go)
	if c := l.coarse; c != nil && c.aside {
		rec = l.begin(l.net.Watcher(int(a.link)), prioLink, tieArb, 0, a.link)
	}
	h, next := l.net.Grant(int(a.link), now)
	if next >= 0 {
		l.wantArb(int(a.link), next)
	}
	for _, r := range l.net.Rerouted() {
		l.wantArb(r.Link(), l.net.Due(r))
	}
	if h != nil {
		if link, class, k, at, ok := h.Released(); ok {
			l.giveBackSpan(link, class, k, at, at)
		}
		l.moved(h.Ref.(*train), now)
	}
	if rec != nil {
		rec.end()
	}
}

// giveBack gives a place in the buffers at the far end of link back to its
// arbiter at cycle at, in the partition of the node the link leaves (a
// span of one place: giveBackSpan).
func (l *Layer) giveBack(link int, class int8, at Time) { l.giveBackSpan(link, class, 1, at, at) }

// giveBackSpan gives k places of class at the far end of link back to its
// arbiter, evenly from cycle from to cycle to (the first at from, the last
// at to; a chunk's reception places as its packets are read), in the
// partition of the node the link leaves. Another partition is told a hop
// from now, the least it may be and no later than from, so that the event
// never outlasts the traffic it comes from: a run ends at the same cycle
// in blocks as in one partition.
func (l *Layer) giveBackSpan(link int, class int8, k int32, from, to Time) {
	if v := l.on(link / hw.NumDirs); v != l {
		r := l.newRelease()
		r.root, r.link, r.class, r.k, r.from, r.to = l.Part(0), int32(link), class, k, from, to
		l.Eng.SendKey(v.Eng, min(l.Eng.Now()+l.M.HopCycles, from), runtime.PrioModel, placeTie(tieRelease, link<<8|int(uint8(class))), r)
		return
	}
	l.pendSpan(link, class, k, from, to)
}

// pendSpan is giveBackSpan in the link's partition: the arbiter counts the
// places from their cycles on without events of their own, and is woken at
// the first only if a head waits for room (later ones: Grant asks for them).
func (l *Layer) pendSpan(link int, class int8, k int32, from, to Time) {
	if l.net.PendSpan(link, class, k, from, to) {
		l.wantArb(link, from)
	}
}

// rxPlaces is the reception places a train of k packets takes at a grain of
// g: a coarse train stands for g batches, and takes the places of one.
func rxPlaces(k, g int) int { return (k + g - 1) / g }

// linkRelease is k places given back from another partition, evenly from
// cycle from to cycle to (giveBackSpan).
type linkRelease struct {
	root     *Layer
	link     int32
	class    int8
	k        int32
	from, to Time
}

func (r *linkRelease) Act(Time) {
	l := r.root.on(int(r.link) / hw.NumDirs)
	link, class, k, from, to := int(r.link), r.class, r.k, r.from, r.to
	l.freeRelease(r)
	l.pendSpan(link, class, k, from, to)
}

func (l *Layer) newRelease() *linkRelease {
	if r := l.releases.get(); r != nil {
		return r
	}
	return &linkRelease{}
}

func (l *Layer) freeRelease(r *linkRelease) {
	l.releases.put(r)
}

// moved carries on with x, whose head was granted a link of l's partition
// at now.
func (l *Layer) moved(x *train, now Time) {
	h := &x.h
	if !x.left {
		l.started(x)
	}
	if h.Done() {
		if l.Obs != nil && x.st == nil {
			m := x.m
			e := &Event{Kind: EvRoute, Msg: m, At: now, CPU: -1, Packets: int(x.k), Index: int(x.idx),
				From: int(m.f.from), To: int(m.f.to), Left: h.Left, First: h.First, Last: h.Last}
			if x.ctl {
				e.What, e.Packets, e.Index = ctlNames[x.kind], 1, 0
				e.From, e.To = l.Map.Node(m.Src), l.Map.Node(m.Dst)
				if x.kind != ctlScout {
					e.From, e.To = e.To, e.From
				}
			}
			l.Obs.Observe(e)
		}
		if v := l.on(h.Node()); v != l {
			l.Eng.SendKey(v.Eng, now+l.M.HopCycles, runtime.PrioModel, trainTie(h, tieIn), (*trainIn)(x))
			return
		}
		l.arrived(x)
		return
	}
	if v := l.on(h.Node()); v != l {
		l.Eng.SendKey(v.Eng, h.At, runtime.PrioModel, trainTie(h, tieHop), (*trainHop)(x))
		return
	}
	l.ahead(x)
}

// started runs when x's head has left its source (x.h.Left): a flow's
// writer now knows when its FIFO has room again.
func (l *Layer) started(x *train) {
	x.left = true
	if x.st != nil {
		x.st.sink.StreamLeft(x.h.Left)
		return
	}
	if x.ctl {
		return
	}
	m := x.m
	f := &m.f
	left := x.h.Left
	f.lastLeft = left + Time(x.k-1)*x.ser
	f.nextFree = f.lastLeft + x.serLast
	if x.more {
		l.schedulePump(left+Time(x.back)*x.ser, m)
	}
}

// trainIn is a train reaching its destination in another partition.
type trainIn train

func (p *trainIn) Tie() runtime.Tie { return (*train)(p).tie(tieIn) }

func (p *trainIn) Act(now Time) {
	x := (*train)(p)
	x.root.on(x.h.Node()).arrived(x)
}

// arrived schedules x's arrival on l, the destination's view, and frees x.
func (l *Layer) arrived(x *train) {
	h := &x.h
	if x.st != nil {
		// Freed when the sink is told.
		l.Eng.AtKey(h.First, placedTie(int(x.rx), x.st.id.key, 0, tieChunk), (*streamIn)(x))
		return
	}
	if x.ctl {
		l.controlAt(h.First, x.kind, x.m, x.rx)
	} else {
		link, cls, ok := h.Reception()
		if !ok {
			link = -1
		}
		l.inject(x.m, x.k, x.idx, x.bytes, x.rx, h.First, h.Last, int32(link), cls)
	}
	l.freeTrain(x)
}
