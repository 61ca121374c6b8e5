// Package msglayer models the BG/L message layer: it packetizes messages,
// charges every software step (send setup, packet writes, packet reads, copies,
// handler dispatch) to the CPU that does it, and asks hw to carry the packets.
// Protocols are chosen by size: one-packet, eager (in order), and rendezvous
// for large messages (a scout packet, a grant from the receiver once the
// message is matched, then the data).
package msglayer

import (
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Time is virtual time in cycles.
type Time = runtime.Time

// Protocol is how a message crosses the network.
type Protocol uint8

const (
	Auto       Protocol = iota // chosen by size
	OnePacket                  // payload and envelope fit one packet: no reassembly
	Eager                      // deterministically routed packets, in order
	Local                      // sender and receiver share a node or are the same rank
	Rendezvous                 // scout, grant when matched, then the data
)

var protocolNames = [...]string{"auto", "onepacket", "eager", "local", "rendezvous"}

func (p Protocol) String() string { return protocolNames[p] }

// Pending is the done time Deliver gets for a rendezvous message: its data
// moves only after the receiver calls Layer.Grant.
const Pending Time = -1

// A Receiver takes a message whose first packet has been handled at the
// destination (the envelope is known, so it can be matched) and whose data
// will be complete at done. For a rendezvous message done is Pending: the
// receiver grants it once matched, and Complete then says when its data will
// be in.
type Receiver interface {
	Deliver(m *Message, now, done Time)
	Complete(m *Message, done Time)
}

// Message is one message in flight. The fields the layer above sets are the
// ranks, sizes, protocol and the receiver; the rest it may use as it likes.
type Message struct {
	Src, Dst int
	Bytes    int // payload bytes the model charges for
	Header   int // software header carried in the first packet (envelope)
	Protocol Protocol
	To       Receiver

	// Sent, if set, is scheduled when the sender's part is over: at once
	// for the eager protocols, after the last data packet for rendezvous.
	Sent runtime.Action

	// Carried for the layer above, never inspected here.
	Payload        any
	Tag, Ctx, From int
	ID             int64 // a number the layer above gives the message (traces)
	Token          any   // the layer above's handle (the matched receive)

	l       *Layer
	scout   bool // a rendezvous message whose data has not moved yet
	packets int
	first   Time // arrival of the first packet at the destination
	last    Time // arrival of the last packet
}

// Layer is the message layer of the whole machine.
type Layer struct {
	M   *hw.Machine
	Map *hw.Mapping
	Net *hw.Network
	Eng *runtime.Engine

	cpus    []hw.CPU // node*CPUsPerNode + slot
	route   []hw.Hop
	inboxes []*Inbox // per rank, made on first use

	// Messages counts messages sent.
	Messages int64
}

// New builds the message layer over a mapping.
func New(m *hw.Machine, mp *hw.Mapping, eng *runtime.Engine) *Layer {
	return &Layer{
		M:    m,
		Map:  mp,
		Net:  hw.NewNetwork(m, mp.Torus),
		Eng:  eng,
		cpus: make([]hw.CPU, mp.Torus.Nodes()*m.CPUsPerNode),
	}
}

// CPU is the processor a rank's code runs on: slot t of its node (in
// coprocessor and heater mode every rank has slot 0).
func (l *Layer) CPU(rank int) *hw.CPU {
	c := l.Map.Coord(rank)
	return &l.cpus[l.Map.Node(rank)*l.M.CPUsPerNode+c.T]
}

// Fits reports whether n payload bytes plus header h fit one packet.
func (l *Layer) Fits(n, h int) bool { return n+h <= l.M.PayloadPerPacket() }

// Choose picks the protocol for a message of n payload bytes plus header h.
func (l *Layer) Choose(src, dst, n, h int) Protocol {
	if l.Map.Node(src) == l.Map.Node(dst) {
		return Local
	}
	if n+h <= l.M.PayloadPerPacket() {
		return OnePacket
	}
	// Eager up to the eager limit, rendezvous above the rendezvous limit;
	// between the two (adaptive eager on BG/L, not modeled yet) eager.
	if n > max(l.M.EagerLimit, l.M.RzvLimit) {
		return Rendezvous
	}
	return Eager
}

// Send runs on the sender's process at now: it charges the sender's CPU for
// the setup and for writing every packet, injects the packets and schedules
// the delivery. It returns when the sender's CPU is done with the message
// (for these protocols the send is then complete locally).
func (l *Layer) Send(now Time, m *Message) Time {
	l.Messages++
	m.l = l
	if m.Protocol == Auto || l.Map.Node(m.Src) == l.Map.Node(m.Dst) {
		m.Protocol = l.Choose(m.Src, m.Dst, m.Bytes, m.Header)
	}
	cpu := l.CPU(m.Src)
	total := m.Bytes + m.Header
	t := cpu.Run(now, l.M.MLSendCycles)
	if m.Protocol == Local {
		// Same node: the receiver copies straight from the sender's buffer.
		m.packets = 0
		m.first, m.last = t, t
		l.Eng.At(t, m)
		if m.Sent != nil {
			l.Eng.At(t, m.Sent)
		}
		return t
	}
	if m.Protocol == Rendezvous {
		// The scout: one packet with the envelope, on the ordered route.
		m.packets = 1
		m.scout = true
		t = cpu.Run(t, l.M.RzvSetupCycles)
		t = l.inject(cpu, t, m.Src, m.Dst, m.Header, m)
		l.Eng.At(m.first, m)
		return cpu.Free
	}
	if m.Protocol == Eager {
		t = cpu.Run(t, l.M.EagerSetupCycles)
	}
	m.packets = l.M.Packets(total)
	l.inject(cpu, t, m.Src, m.Dst, total, m)
	l.Eng.At(m.first, m)
	if m.Sent != nil {
		l.Eng.At(cpu.Free, m.Sent)
	}
	return cpu.Free
}

// inject has cpu write the packets of total bytes from rank src to dst from
// time t on, each entering the network as the injection FIFO lets it, and
// records in m when the first and last arrive. It returns when the CPU wrote
// the last one.
func (l *Layer) inject(cpu *hw.CPU, t Time, src, dst, total int, m *Message) Time {
	l.route = l.Net.Route(l.route[:0], l.Map.Node(src), l.Map.Node(dst))
	n := l.M.Packets(total)
	per := l.M.PayloadPerPacket()
	write := l.M.PacketWriteCycles
	t = cpu.Run(t, write)
	full, last := l.M.PacketBytes(per), l.M.PacketBytes(total-per*(n-1))
	left, first, lastArr := l.Net.SendTrain(l.route, t, n, full, last)
	m.first, m.last = first, lastArr
	if n == 1 {
		return t
	}
	// The other packets: the CPU writes one per write cycles, but packet i
	// waits for packet i-fifo to leave the FIFO, and the train leaves one
	// packet per serialization time.
	end := t + Time(n-1)*write
	if fifo := l.M.InjectionFIFO; n-1 >= fifo && fifo > 0 {
		ser := l.M.SerializeCycles(full)
		if w := left + Time(n-1-fifo)*ser + write; w > end {
			end = w
		}
	}
	cpu.Until(end, Time(n-1)*write)
	return end
}

// Act runs when the first packet of m reaches the destination: the receiving
// CPU reads the packets as they come (each no earlier than it arrives) and
// dispatches the handler; the message is complete when the last is read.
func (m *Message) Act(now Time) {
	if m.scout {
		m.readDone(now)
		m.scout = false
		m.To.Deliver(m, now, Pending)
		return
	}
	m.To.Deliver(m, now, m.readDone(now))
}

// Grant is called by the receiver of a rendezvous message once a receive
// matched it: the receiving CPU sends a grant packet back, and when it
// arrives the sender's CPU injects the data.
func (l *Layer) Grant(m *Message, now Time) {
	cpu := l.CPU(m.Dst)
	t := cpu.Run(now, l.M.MLSendCycles+l.M.RzvSetupCycles)
	g := &grant{m: m}
	l.inject(cpu, t, m.Dst, m.Src, 0, &g.pkt)
	l.Eng.At(g.pkt.first, g)
}

// grant is the grant packet of a rendezvous message on its way back.
type grant struct {
	m   *Message
	pkt Message // only its arrival times are used
}

// Act runs when the grant reaches the sender: its CPU reads it and writes the
// data packets; the receiver learns when the data will be complete.
func (g *grant) Act(now Time) {
	m := g.m
	l := m.l
	cpu := l.CPU(m.Src)
	t := cpu.Run(now, l.M.MLDispatchCycles+l.M.PacketReadCycles)
	m.packets = l.M.Packets(m.Bytes)
	l.inject(cpu, t, m.Src, m.Dst, m.Bytes, m)
	if m.Sent != nil {
		l.Eng.At(cpu.Free, m.Sent)
	}
	l.Eng.At(m.first, &rzvData{m})
}

// rzvData is the first data packet of a rendezvous message arriving.
type rzvData struct{ m *Message }

func (d *rzvData) Act(now Time) {
	d.m.To.Complete(d.m, d.m.readDone(now))
}

// readDone charges the destination CPU for taking the message in and returns
// when the data is complete. Packets of one message arrive evenly spaced, so
// the CPU finishes either at its own pace or right after the last packet.
// While a message streams in, its CPU is held (it polls the reception FIFO).
func (m *Message) readDone(now Time) Time {
	l := m.l
	cpu := l.CPU(m.Dst)
	work := l.M.MLDispatchCycles
	if m.Protocol == Local {
		return cpu.Run(now, work+l.M.CopyCycles(m.Bytes))
	}
	if m.Protocol == Eager {
		work += l.M.EagerSetupCycles
	}
	read := l.M.PacketReadCycles + l.M.CopyCycles(l.M.PayloadPerPacket())
	switch {
	case m.scout:
		read = l.M.PacketReadCycles
	case m.packets == 1:
		read = l.M.PacketReadCycles + l.M.CopyCycles(min(m.Bytes+m.Header, l.M.PayloadPerPacket()))
	}
	work += int64(m.packets) * read
	start := max(now, cpu.Free)
	done := start + work
	if tail := m.last + read; tail > done {
		done = tail
	}
	cpu.Free = done
	cpu.Busy += work
	return done
}
