package msglayer

import (
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// flow is the data packets of one message on their way from the CPU that
// writes them to the CPU that reads them.
//
// The writer works in batches: it writes as many packets as its injection
// FIFO has room for (and the reader's reception FIFO), they leave one after
// another as the links take them, and when only one of them is left in the
// FIFO the writer comes back for the next batch. Between batches its CPU is
// free for other work, so that one CPU feeding several links, or sending
// and receiving at once, interleaves them at the grain of a FIFO. Each batch
// reaches the reader as a chunk that its CPU reads as the packets come.
type flow struct {
	// What the reader's end reads too, first (Message keeps it with the
	// rest of what the receiving side reads).
	tie      uint64 // the hash in its events' tie keys (flowTie)
	total    int    // packets
	per      int    // payload bytes per packet
	w, rx    int32  // indices of the writer's and the reader's CPU
	from, to int32  // nodes
	// The writer's.
	cpu      *hw.CPU // the writer
	sent     int     // packets written so far
	bytes    int     // bytes carried, header included
	adaptive bool    // routed adaptively
	sub      int     // at a coarse grain: the last of the batches the batch being written stands for (0: none)
	lastLeft Time    // when the last packet written left the FIFO (-1: none yet)
	nextFree Time    // when the FIFO's port is free for the next packet
}

// startData sets up and starts m's data flow, written by CPU index w from
// rank m.Src's node and read by CPU index rx of m.Dst's node.
func (l *Layer) startData(t Time, m *Message, w, rx int) {
	f := &m.f
	f.cpu = &l.cpus[w]
	f.w, f.rx = int32(w), int32(rx)
	l.shapeFlow(m)
	f.sent = 0
	f.lastLeft = -1
	f.nextFree = 0
	m.got = 0
	m.done = 0
	if l.coarse != nil {
		l.cpus[f.w].Writers++
		if m.Protocol == Rendezvous && f.total >= minLeasePackets && l.beginData(t, m) {
			return
		}
		l.cpuTouched(w)
		l.cpuTouched(rx)
	}
	l.pump(t, m)
}

// shapeFlow sets what m's flow is made of, which follows from its
// envelope and the machine: its nodes, packets and their size, bytes, tie
// hash and routing (the reader's mirror across processes is shaped alike).
func (l *Layer) shapeFlow(m *Message) {
	f := &m.f
	f.from, f.to = int32(l.Map.Node(m.Src)), int32(l.Map.Node(m.Dst))
	f.per = l.M.PayloadPerPacket()
	f.tie = flowTie(m)
	f.bytes = m.Bytes
	f.adaptive = false
	switch m.Protocol {
	case OnePacket, Eager:
		f.bytes += m.Header
	case Adaptive:
		f.bytes += m.Header
		f.per -= l.M.AdaptiveHeader
		f.adaptive = l.Routing != Deterministic
	case Rendezvous:
		f.adaptive = l.Routing != Deterministic
	}
	f.total = 1
	if f.bytes > 0 {
		f.total = (f.bytes + f.per - 1) / f.per
	}
}

// pumpAct is a message's writer coming back for its next batch.
type pumpAct Message

func (p *pumpAct) Act(now Time) {
	m := (*Message)(p)
	if m.lid != 0 && m.l.coarse.aside {
		if s := m.l.begin(m.lid, runtime.PrioModel, tiePump, int32(m.f.sent), 0); s != nil {
			m.l.cpuTouched(int(m.f.w))
			m.l.pump(now, m)
			s.end()
			return
		}
	}
	m.l.pump(now, m)
}

func (p *pumpAct) Tie() runtime.Tie {
	m := (*Message)(p)
	return fullTie(m, int(m.f.w), tiePump, m.f.sent, false, 0)
}

// schedulePump has m's writer come back at t.
func (l *Layer) schedulePump(t Time, m *Message) {
	l.Eng.AtKey(t, placedTie(int(m.f.w), m.f.tie, m.f.sent, tiePump), (*pumpAct)(m))
}

// packetBytes is the payload of packet i of f.
func (f *flow) packetBytes(i int) int {
	if i < f.total-1 {
		return f.per
	}
	return f.bytes - f.per*(f.total-1)
}

// batchBytes is the payload of the k packets of f from packet i on.
func (f *flow) batchBytes(i, k int) int {
	if i+k < f.total {
		return k * f.per
	}
	return f.bytes - f.per*i
}

// serialize is M.SerializeCycles(b) for a packet of b bytes, from a table
// (the machine's constants do not change under a running layer).
func (l *Layer) serialize(b int) Time {
	if b < len(l.serTab) {
		if c := l.serTab[b]; c > 0 {
			return c
		}
	} else if b <= l.M.PacketMax {
		l.serTab = make([]Time, l.M.PacketMax+1)
	} else {
		return l.M.SerializeCycles(b)
	}
	c := l.M.SerializeCycles(b)
	l.serTab[b] = c
	return c
}

// copyCycles is M.CopyCycles(n), from a table for the sizes of chunks.
func (l *Layer) copyCycles(n int) Time {
	if n < len(l.copyTab) {
		if c := l.copyTab[n]; c > 0 {
			return c
		}
	} else if n <= l.M.PacketMax*max(l.M.InjectionFIFO, 1) {
		// (Chunks of a coarser --grain are fewer: they need no table.)
		l.copyTab = make([]Time, l.M.PacketMax*max(l.M.InjectionFIFO, 1)+1)
	} else {
		return l.M.CopyCycles(n)
	}
	c := l.M.CopyCycles(n)
	l.copyTab[n] = c
	return c
}

// grain is Grain, at least 1.
func (l *Layer) grain() int { return max(l.Grain, 1) }

// writeCycles is the writer's CPU time per packet.
func (l *Layer) writeCycles() Time { return l.M.PacketWriteCycles + l.M.PacketOverheadCycles }

// pump writes m's next batch of packets from now on and injects them.
func (l *Layer) pump(now Time, m *Message) {
	f := &m.f
	fifo := max(l.M.InjectionFIFO, 1)
	room := fifo
	if f.lastLeft > now {
		room-- // the last packet of the previous batch is still in the FIFO
	}
	if room == 0 {
		l.schedulePump(f.lastLeft, m)
		return
	}
	left := f.total - f.sent
	k := min(room, left)
	f.sub = 0
	if g := l.grain(); g > 1 && left > room {
		k, f.sub = coarseBatch(room, fifo, left, g)
	}
	start := max(now, f.cpu.Free)
	end := f.cpu.Run(now, Time(k)*l.writeCycles())
	l.write(now, m, k, start, end)
}

// coarseBatch is how many packets a writer writes at a grain of g > 1, and
// the size of the last batch among them: the next g batches, as the writer
// would write them with nothing else to do, the first of room < left
// packets, but never the message's last batch, so that the writer is done
// writing when the FIFO lets it be. Alone, a writer comes back when one
// packet of its batch is left in the FIFO (for a batch of one, when it has
// left): its next batch is a FIFO less one packet after a batch of two or
// more, a whole FIFO after a batch of one.
func coarseBatch(room, fifo, left, g int) (k, last int) {
	if fifo >= 3 { // every batch after the first is fifo-1
		next := fifo - 1
		end := (left-room-1)%next + 1 // the message's last batch
		if n := room + (g-1)*next; n < left-end {
			return n, min(next, n)
		}
		return left - end, min(next, left-end)
	}
	b := room
	for range g {
		b = min(b, left-k)
		if k+b == left {
			break
		}
		k, last = k+b, b
		if b >= 2 {
			b = fifo - 1
		} else {
			b = fifo
		}
	}
	return k, last
}

// write injects k packets of m that the writer's CPU writes from start to
// end; they leave no earlier than now. (The reader's reception FIFO is the
// last link's to wait for: see hw.Head.SetReader.)
func (l *Layer) write(now Time, m *Message, k int, start, end Time) {
	f := &m.f
	// The writer comes back when packet back of this batch leaves: then
	// only one is left in the FIFO, and the next batch is written while the
	// link sends that one (after a batch of one, when that one has left).
	// A coarse batch comes back as the last batch it stands for would.
	sub := f.sub
	if sub <= 0 || sub > k {
		sub = k
	}
	back := max(k-min(sub, 2), 0)
	m0 := l.M
	write := l.writeCycles()
	ready := max(start+write, f.nextFree, now)

	// The batch goes as a train: deterministically along the x, y, z
	// route, or adaptively, its head choosing at each hop (so that the
	// batches of a message may take different ways and overtake each
	// other); it takes each link when its head gets there (links.go).
	full := m0.PacketBytes(f.per)
	lastB := m0.PacketBytes(f.packetBytes(f.sent + k - 1))
	x := l.newTrain()
	x.m, x.k, x.idx, x.bytes, x.rx = m, int32(k), int32(f.sent), int32(f.batchBytes(f.sent, k)), f.rx
	x.back, x.more = int32(back), f.sent+k < f.total
	x.ser, x.serLast = l.serialize(full), l.serialize(lastB)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvWrite, Msg: m, At: l.Eng.Now(), CPU: int(f.w), Start: start, End: end,
			Packets: k, Index: f.sent, From: int(f.from), To: int(f.to), Ready: ready, Left: -1, First: -1, Last: -1})
	}
	f.sent += k
	l.launch(x, int(f.from), int(f.to), ready, k, full, lastB, f.adaptive, int(f.w)%m0.CPUsPerNode)
	if f.sent < f.total {
		return
	}
	if c := l.coarse; c != nil {
		if !l.exitHook(m, exitWritten, end) {
			return
		}
		l.cpus[f.w].Writers--
	}
	l.written(end, m)
}

// inject schedules the arrival of a chunk of k packets of m from packet idx
// on, carrying bytes, for CPU rx, the first at first and the last at last,
// in the reception FIFOs at the far end of link (class cls; -1: none).
func (l *Layer) inject(m *Message, k, idx, bytes, rx int32, first, last Time, link int32, cls int8) {
	c := l.newChunk()
	*c = chunk{m: m, k: k, idx: idx, bytes: bytes, rx: rx, last: last, link: link, cls: cls}
	l.Eng.AtKey(first, placedTie(int(rx), m.f.tie, int(idx), tieChunk), c)
}

// written runs when the writer has written m's last data packet (its CPU is
// done at end).
func (l *Layer) written(end Time, m *Message) {
	switch m.Protocol {
	case Adaptive:
		// The sender keeps its place until the receiver confirms.
	case Rendezvous:
		l.sent(end, m)
	default:
		l.sent(end, m)
		l.release(end, m)
	}
}

// chunk is one batch of a flow's packets reaching the reader: the first at
// the time it is scheduled, the last at last.
type chunk struct {
	m     *Message
	k     int32 // packets
	idx   int32 // the first one's index in the message
	bytes int32 // payload bytes
	rx    int32
	last  Time
	link  int32 // the reception FIFOs' link (-1: none)
	cls   int8
}

func (l *Layer) newChunk() *chunk {
	if n := len(l.chunkPool); n > 0 {
		c := l.chunkPool[n-1]
		l.chunkPool = l.chunkPool[:n-1]
		return c
	}
	return &chunk{}
}

func (l *Layer) freeChunk(c *chunk) {
	*c = chunk{}
	l.chunkPool = append(l.chunkPool, c)
}

// readCost is what reading a chunk of k packets and bytes of m costs CPU
// index rx (first: the message's first chunk, which finds the message):
// the work, the part of it per packet, and the copy of one packet (the last
// one, whatever it carries, is copied after it arrives).
func (l *Layer) readCost(m *Message, rx int32, k, bytes int32, first bool) (work, per, copyOne Time) {
	mc := l.M
	per = mc.PacketReadCycles + mc.PacketOverheadCycles
	if m.Protocol == Adaptive {
		per += mc.ReorderCycles
	}
	copyAll := l.copyCycles(int(bytes))
	copyOne = copyAll
	if k > 1 {
		// The last packet carries what the ones before it leave.
		copyOne = l.copyCycles(int(bytes) - int(k-1)*m.f.per)
	}
	if m.Protocol == Rendezvous && l.isCo(rx) {
		// The coprocessor puts aligned packets straight in place.
		copyAll, copyOne = 0, 0
	}
	work = Time(k)*per + copyAll
	if first {
		work += l.dispatchCycles(m)
		switch m.Protocol {
		case Eager:
			work += mc.EagerSetupCycles + l.clientCost(m, mc.MPIEagerCycles)
		case Adaptive:
			work += mc.AdaptiveSetupCycles + l.clientCost(m, mc.MPIEagerCycles)
		}
	}
	return work, per, copyOne
}

// Act reads the chunk: the reader's CPU takes each packet out of the FIFO
// and puts its data in place. Its work goes on the CPU's timeline now (the
// CPU is not held while the rest of the chunk streams in); the data is in,
// and the chunk's FIFO slots free, when that work is done and the last
// packet has been read.
func (c *chunk) Tie() runtime.Tie { return fullTie(c.m, int(c.rx), tieChunk, int(c.idx), false, 0) }

func (c *chunk) Act(now Time) {
	m := c.m
	f := &m.f
	l := m.l.on(int(f.to))
	var rec *lease // the recording of m's flow (lease.go)
	if k := l.coarse; k != nil {
		if m.lid != 0 && k.aside {
			rec = l.begin(m.lid, runtime.PrioModel, tieChunk, c.idx, 0)
		}
		l.cpuTouched(int(c.rx))
	}
	work, per, copyOne := l.readCost(m, c.rx, c.k, c.bytes, m.got == 0)
	cpu := &l.cpus[c.rx]
	start := max(now, cpu.Free)
	end := cpu.Run(now, work)
	done := max(end, c.last+per+copyOne)
	m.got += int(c.k)
	m.done = max(m.done, done)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvRead, Msg: m, At: now, CPU: int(c.rx), Start: start, End: end,
			Packets: int(c.k), Index: int(c.idx), From: int(f.from), To: int(f.to), First: now, Last: c.last, Done: done})
	}
	if c.link >= 0 {
		// The first packet is out of the FIFO once read, the rest follow
		// until done; the link's node learns of each place a hop later.
		hop := l.M.HopCycles
		l.giveBackSpan(int(c.link), c.cls, int32(rxPlaces(int(c.k), l.grain())), min(start+work-Time(c.k-1)*per, done)+hop, done+hop)
	}
	l.freeChunk(c)
	if m.got == f.total && (l.coarse == nil || l.exitHook(m, exitReceived, now)) {
		l.received(m, now)
	}
	if rec != nil {
		rec.end()
	}
}
