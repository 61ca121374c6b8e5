// Package msglayer models the BG/L message layer: it packetizes messages,
// charges every software step (send setup, packet writes, packet reads,
// copies, handler dispatch) to the CPU that does it, and asks hw to carry the
// packets. Its protocols are those of [ML]: one-packet, eager (in order),
// adaptive eager (adaptively routed, confirmed), rendezvous (a scout, a grant
// once matched, then adaptively routed data the coprocessor may receive) and
// virtual-node (two ranks of one node: the receiver copies and acknowledges).
//
// A message's packets are written by its sender's CPU a few at a time, as
// its injection FIFO drains, and read by the receiving CPU as they arrive,
// so that a CPU serving several messages at once interleaves them and
// becomes the bottleneck when the links could go faster ([ML] Figs. 4c-f).
// The receiving CPUs' FIFOs are bounded: senders wait when a receiver falls
// behind.
package msglayer

import (
	"fmt"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Time is virtual time in cycles.
type Time = runtime.Time

// Protocol is how a message crosses the network.
type Protocol uint8

const (
	Auto       Protocol = iota // chosen by size (see Choose)
	OnePacket                  // payload and envelope fit one packet: no reassembly
	Eager                      // deterministically routed packets, in order
	Self                       // a rank sending to itself: one copy, no packet
	Rendezvous                 // scout, grant when matched, then the data
	Adaptive                   // adaptive eager: adaptively routed, confirmed when matched
	VN                         // virtual-node mode, both ranks on one node: address, copy, ack
)

var protocolNames = [...]string{"auto", "onepacket", "eager", "self", "rendezvous", "adaptive", "vn"}

func (p Protocol) String() string { return protocolNames[p] }

// ProtocolNames lists the protocols a sender may ask for, as ParseProtocol
// reads them.
const ProtocolNames = "auto, onepacket, eager, adaptive, rendezvous, vn"

// ParseProtocol reads a protocol name of ml.send's opts.
func ParseProtocol(s string) (Protocol, bool) {
	for i, n := range protocolNames {
		if n == s && Protocol(i) != Self {
			return Protocol(i), true
		}
	}
	return 0, false
}

// Routing says how the packets that allow either routing are routed: the
// rendezvous data, the adaptive eager packets and the control packets
// (grant, confirmation). One-packet, eager and scout packets keep MPI's order
// and are always routed deterministically.
type Routing uint8

const (
	// PerProtocol routes each protocol's packets its own way: rendezvous
	// data and adaptive eager packets adaptively, the rest deterministically.
	PerProtocol Routing = iota
	// Deterministic routes all of them deterministically.
	Deterministic
	// AdaptiveRouting routes all of them adaptively.
	AdaptiveRouting
)

// ParseRouting reads --routing: "deterministic", "adaptive", or "" for the
// per-protocol default.
func ParseRouting(s string) (Routing, bool) {
	switch s {
	case "", "per-protocol":
		return PerProtocol, true
	case "deterministic":
		return Deterministic, true
	case "adaptive":
		return AdaptiveRouting, true
	}
	return 0, false
}

// Pending is the done time Deliver gets for a rendezvous message: its data
// moves only after the receiver calls Layer.Grant.
const Pending Time = -1

// A Receiver takes a message whose envelope the destination has read (so it
// can be matched) and whose data will be complete at done. For a rendezvous
// message done is Pending: the receiver grants it once matched, and Complete
// then says when its data will be in.
//
// The active-message interface (AM) is the message layer's own receiver. Any
// other receiver is a client library, MPI, that the layer calls back at each
// protocol step; the machine's MPI*Cycles fields are what those callbacks
// cost on top.
//
// Once Deliver has been called for a message that is neither adaptive eager
// nor synchronous nor rendezvous, the layer reads and writes nothing of it
// any more (it may have to hand over envelopes held behind it, which are
// other messages): a receiver that has taken it may let the sender's end
// reuse its memory at once (mpi's pool of send boxes, on another thread in
// partitions).
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
	// Sync makes the sender's part end only once the receiver has also
	// acknowledged the message with Ack, which it does when a receive
	// matched it: MPI's synchronous send. A rendezvous message needs no
	// acknowledgement (its grant says it was matched): Ack does nothing.
	Sync  bool
	syncs uint8 // Sync: how many of the sender's two ends came (data left, ack read)
	cross uint8 // over processes: what this copy is (crossCounted, crossMirror, ...)
	// Co marks a message of work the coprocessors progress (coprocessor
	// mode): its software steps at both ends (posting, packet writes and
	// reads, control packets, delivery) run on CPU 1 of the sender's and
	// the receiver's nodes instead of the ranks' CPUs. Without a
	// coprocessor it changes nothing.
	Co bool
	To Receiver

	// Sent, if set, is scheduled when the sender's part is over: when its
	// CPU has written the last packet (one-packet, eager, rendezvous), when
	// the receiver's confirmation came back (adaptive eager) or its
	// acknowledgement (virtual-node).
	Sent runtime.Action

	// Carried for the layer above, never inspected here.
	Payload        any
	Tag, Ctx, From int
	ID             int64 // a number the layer above gives the message (traces)

	// What the receiving side reads is above and in the next fields, up to
	// the reader's part of the flow (200 bytes, four cache lines at most
	// of a message the receiving CPU finds out of the cache); the rest
	// after is the sender's, or rarer.
	l    *Layer
	pair *channel // the pair's channel until the envelope is handed over
	seq  uint32   // the message's place among its pair's
	nth  uint32   // the message's place among its sender's (Layer.sends), in its events' full ties
	lid  uint32   // the lease watching its flow (lease.go; 0: none)
	got  int      // data packets read at the destination
	done Time     // when the data packets read so far are in
	f    flow     // the data packets

	Token any // the layer above's handle (the matched receive)
	// Label is what the sender was doing, as the layer above numbers it
	// (0: nothing it names): with link accounting on (CountLinks), the
	// links the message's packets take, its control packets' too, count
	// its bytes under it.
	Label int32
	rzvRx int32    // in partitions: the CPU the receiver chose for rendezvous data
	ch    *channel // the pair's channel while the message holds or waits for it
	hold  Time     // done time of an envelope held back for an earlier one
	next  *Message // in a channel's queue or held list, or a FIFO's wait list
	syncT Time     // Sync: when the first of the sender's two ends is
	ref   msgRef   // its name across processes, once it has one (envelope.go)
}

// client reports whether the receiver is a client library rather than the
// active-message interface.
func (m *Message) client() bool {
	_, am := m.To.(AM)
	return !am
}

// Layer is the message layer of the whole machine. In partitions (see
// SetPartitions) it is the view of partition 0, and each partition has a
// view of its own: its network and Eng are then that partition's.
type Layer struct {
	M   *hw.Machine
	Map *hw.Mapping
	net *hw.Network
	Eng *runtime.Engine

	// Routing is the --routing choice for packets that allow either.
	Routing Routing
	// Coprocessor is set in coprocessor mode: CPU 1 of every node receives
	// the aligned rendezvous data for its node (unless turned off with
	// SetCoHelp) and runs the work units of CoRun.
	Coprocessor bool
	// Grain coarsens how message data is simulated: a writer writes up to
	// Grain injection FIFOs' worth of packets in one batch, against Grain
	// reception FIFOs of room at its reader, so a large message costs
	// about Grain times fewer events. 0 and 1 simulate the FIFOs the
	// machine has; above that a CPU's work interleaves with other work
	// (and with its other links) at the coarser grain, which changes
	// results where one CPU serves several links or messages at once
	// ([ML] Figs. 4c-f). Set it before SetPartitions.
	Grain int

	cpus    []hw.CPU // node*CPUsPerNode + slot
	route   []hw.Hop
	inboxes []*Inbox // per rank, made on first use
	sends   []uint32 // per rank: the messages it has sent (Message.nth), counted in its partition
	streams []uint32 // per rank: the stream packets it has sent (StreamSend), made on first use

	prefer []Protocol // per rank: the protocol its Auto messages use
	coOff  []bool     // per node: coprocessor help turned off
	chans  chanTable
	rchans chanTable // in partitions: the receiving halves

	serTab      []Time // serialize's table, by packet bytes (0: not worked out yet)
	copyTab     []Time // copyCycles's, by bytes
	chunkPool   []*chunk
	ctlPool     []*control
	chanPool    []*channel
	chanArena   []*channel    // every channel made, by index (chanSlot.ref)
	transits    pool[transit] // made and freed in different partitions (pool.go)
	trains      pool[train]
	streamInfos pool[streamInfo]
	releases    pool[linkRelease]
	arbs        []linkArb // per link: its arbitration (made on first use; shared by the views)
	arrScratch  []hw.Arrival

	// Messages counts messages sent; AMs those of them that are active
	// messages (Send of an AM, DepositAM).
	Messages, AMs int64

	// Obs, if set, is told of every step the layer models (tests' traces).
	Obs Observer

	views []*Layer   // per partition (SetPartitions); nil: one partition
	dist  *distLayer // over several processes (Distributed); nil: one

	coarse *coarsen // exact coarsening (lease.go); nil: off
}

// Observer is told of each step the layer models, as the layer models it:
// what a CPU did and when, packets written into the network and read out of
// it, control packets, envelopes handed to the receiver, senders released.
// The scenario tests (testdata/*.scn) trace runs with it. With Layer.Obs
// nil the layer pays one comparison per step.
type Observer interface {
	Observe(e *Event)
}

// EventKind says what an observed Event is.
type EventKind uint8

const (
	EvPost     EventKind = iota // the sender's CPU posts Msg (setup cycles)
	EvWrite                     // the writer's CPU writes Packets data packets (from Index on) into the network
	EvRead                      // the reader's CPU reads Packets data packets (from Index on)
	EvCtlSend                   // a CPU writes a control packet (What: scout, grant, confirm, address, ack)
	EvCtlRead                   // a CPU reads a control packet
	EvCopy                      // a CPU copies a message within its node (self, vn)
	EvHold                      // an envelope that overtook an earlier one of its pair is held back
	EvDeliver                   // the envelope is handed to the receiver (Done: Pending for rendezvous)
	EvComplete                  // a rendezvous message's data is complete at Done
	EvSent                      // the sender's part is over at Done (Msg.Sent runs then)
	EvRoute                     // written packets (or a control packet, What) crossed their last link: Left, First, Last known
)

var eventNames = [...]string{"post", "write", "read", "ctl-send", "ctl-read", "copy", "hold", "deliver", "complete", "sent", "route"}

func (k EventKind) String() string { return eventNames[k] }

// Event is one observed step. At is the engine's time when the layer took
// it; the other times are what it worked out then.
type Event struct {
	Kind EventKind
	Msg  *Message
	What string // control packets: which one
	At   Time

	// CPU work: the CPU (node*CPUsPerNode+slot; -1: none) busy from Start
	// to End.
	CPU        int
	Start, End Time

	// Packets: how many, the first one's index in its message, the nodes
	// they go from and to, when the first left the source and when the
	// first and the last arrived (EvRoute; EvWrite and EvCtlSend give
	// Ready, when the head is ready to leave, the links being taken hop
	// by hop later).
	Packets, Index    int
	From, To          int
	Left, First, Last Time
	Ready             Time
	Done              Time // EvRead: the data read so far is in; EvDeliver, EvComplete, EvSent: as named
}

// New builds the message layer over a mapping.
func New(m *hw.Machine, mp *hw.Mapping, eng *runtime.Engine) *Layer {
	return &Layer{
		M:     m,
		Map:   mp,
		net:   hw.NewNetwork(m, mp.Torus),
		Eng:   eng,
		cpus:  make([]hw.CPU, mp.Torus.Nodes()*m.CPUsPerNode),
		sends: make([]uint32, mp.Ranks()),
	}
}

// CPU is the processor a rank's code runs on: slot t of its node (in
// coprocessor and heater mode every rank has slot 0).
func (l *Layer) CPU(rank int) *hw.CPU {
	i := l.cpuIndex(rank)
	l.cpuTouched(i)
	return &l.cpus[i]
}

func (l *Layer) cpuIndex(rank int) int {
	i := l.Map.Node(rank) * l.M.CPUsPerNode
	if l.Map.PerNode > 1 {
		i += l.Map.Coord(rank).T // (with one rank a node, its slot is 0)
	}
	return i
}

// endIndex is the CPU that runs m's software steps at rank's end (rank is
// m.Src or m.Dst): the rank's own, or for a message of coprocessor work
// (Message.Co) the coprocessor of its node where there is one.
func (l *Layer) endIndex(m *Message, rank int) int {
	if m.Co {
		if i := l.coIndex(l.Map.Node(rank)); i >= 0 {
			return i
		}
	}
	return l.cpuIndex(rank)
}

func (l *Layer) endCPU(m *Message, rank int) *hw.CPU {
	i := l.endIndex(m, rank)
	l.cpuTouched(i)
	return &l.cpus[i]
}

// EndCPU is the CPU that runs m's software steps at rank's end (m.Src or
// m.Dst): for the layer above, which charges its own steps of m there.
func (l *Layer) EndCPU(m *Message, rank int) *hw.CPU { return l.endCPU(m, rank) }

// CoCPU is the coprocessor of rank's node (CPU 1), or nil when the run is
// not in coprocessor mode.
func (l *Layer) CoCPU(rank int) *hw.CPU {
	if i := l.coIndex(l.Map.Node(rank)); i >= 0 {
		l.cpuTouched(i)
		return &l.cpus[i]
	}
	return nil
}

func (l *Layer) coIndex(node int) int {
	if !l.Coprocessor || l.M.CPUsPerNode < 2 || l.Map.PerNode > 1 {
		return -1
	}
	return node*l.M.CPUsPerNode + 1
}

// SetCoHelp turns the coprocessor's help with rendezvous receptions on or
// off for rank's node and returns what it was.
func (l *Layer) SetCoHelp(rank int, on bool) bool {
	if l.coOff == nil {
		l.coOff = make([]bool, l.Map.Torus.Nodes())
	}
	n := l.Map.Node(rank)
	was := !l.coOff[n]
	l.coOff[n] = !on
	return was
}

// Prefer makes p the protocol of rank's messages sent with Auto (where p
// applies; otherwise the size rule still chooses) and returns the previous
// choice. Auto restores the size rule. It is how a protocol study makes MPI
// use one protocol for every message ([ML] Table 1, Figs. 4c-f).
func (l *Layer) Prefer(rank int, p Protocol) Protocol {
	if l.prefer == nil {
		l.prefer = make([]Protocol, l.Map.Ranks())
	}
	was := l.prefer[rank]
	l.prefer[rank] = p
	return was
}

// Fits reports whether n payload bytes plus header h fit one packet.
func (l *Layer) Fits(n, h int) bool { return n+h <= l.M.PayloadPerPacket() }

// Choose picks the protocol for a message of n payload bytes plus header h
// from rank src to rank dst by the size rule: a rank to itself and two ranks
// of one node (virtual-node mode) have their own protocols; then one-packet
// if it fits one packet, eager up to EagerLimit bytes, adaptive eager up to
// RzvLimit, rendezvous above (with the default limits, 1,000 and 1,000,
// adaptive eager is never chosen by size).
func (l *Layer) Choose(src, dst, n, h int) Protocol {
	switch {
	case src == dst:
		return Self
	case l.Map.Node(src) == l.Map.Node(dst):
		return VN
	case l.Fits(n, h):
		return OnePacket
	case n <= l.M.EagerLimit:
		return Eager
	case n <= l.M.RzvLimit:
		return Adaptive
	}
	return Rendezvous
}

// resolve is the protocol m goes with: the one asked for where it applies,
// else the rank's preference, else the size rule. Ranks of one node always
// use the virtual-node protocol (or Self): the torus does not loop back.
func (l *Layer) resolve(m *Message) Protocol {
	p := m.Protocol
	if m.Src == m.Dst || l.Map.Node(m.Src) == l.Map.Node(m.Dst) {
		return l.Choose(m.Src, m.Dst, m.Bytes, m.Header)
	}
	if p == Auto && l.prefer != nil {
		p = l.prefer[m.Src]
	}
	switch p {
	case Auto, Self, VN:
		return l.Choose(m.Src, m.Dst, m.Bytes, m.Header)
	case OnePacket:
		if !l.Fits(m.Bytes, m.Header) {
			return Eager
		}
	}
	return p
}

// Send runs on the sender's process at now: it charges the sender's CPU for
// posting the message and starts its protocol, or queues it behind an
// earlier message to the same destination that must stay ahead of it. It
// returns when the sender's CPU is done with what it did now; the rest of
// the packets are written later, as the injection FIFO drains.
func (l *Layer) Send(now Time, m *Message) Time {
	if l.views != nil {
		l = l.on(l.Map.Node(m.Src))
	}
	l.Messages++
	m.nth = l.sends[m.Src]
	l.sends[m.Src]++
	if !m.client() {
		l.AMs++
	}
	m.l = l
	m.Protocol = l.resolve(m)
	cpu := l.endCPU(m, m.Src)
	setup := l.M.MLSendCycles
	switch m.Protocol {
	case Eager:
		setup += l.M.EagerSetupCycles + l.clientCost(m, l.M.MPIEagerCycles)
	case Adaptive:
		setup += l.M.AdaptiveSetupCycles + l.clientCost(m, l.M.MPIEagerCycles)
	case Rendezvous:
		setup += l.M.RzvSetupCycles + l.clientCost(m, l.M.MPIRzvCycles)
	}
	t := cpu.Run(now, setup)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvPost, Msg: m, What: "send", At: l.Eng.Now(), CPU: l.endIndex(m, m.Src), Start: t - setup, End: t})
	}
	switch m.Protocol {
	case Self, VN:
		// Two ranks of one node talk through the scratchpad's virtual
		// FIFOs, in order; nothing to pin.
		l.start(t, m)
	default:
		l.enter(t, m)
	}
	if l.dist != nil {
		l.tellEnvelope(m)
	}
	return cpu.Free
}

func (l *Layer) clientCost(m *Message, c int64) int64 {
	if c != 0 && m.client() {
		return c
	}
	return 0
}

// start begins m's protocol at t, once it holds its pair's channel.
func (l *Layer) start(t Time, m *Message) {
	switch m.Protocol {
	case Self:
		// The receiver is the sender: it copies the data from its own buffer.
		l.Eng.At(t, (*selfCopy)(m))
		l.sent(t, m)
	case VN:
		// The address of the send buffer goes in one virtual packet.
		l.Eng.At(l.vnPacket(m, m.Src, "address", t), (*vnAddress)(m))
	case Rendezvous:
		// The scout: one packet with the envelope, on the ordered route.
		cpu := l.endCPU(m, m.Src)
		end := l.sendControl(ctlScout, m, cpu, t, m.Src, m.Dst, false)
		l.release(end, m)
	default:
		l.startData(t, m, l.endIndex(m, m.Src), l.endIndex(m, m.Dst))
	}
}

// selfCopy is a message from a rank to itself: one copy, then delivery.
type selfCopy Message

func (s *selfCopy) Act(now Time) {
	m := (*Message)(s)
	l := m.l
	d := l.dispatchCycles(m) + l.M.CopyCycles(m.Bytes)
	done := l.endCPU(m, m.Dst).Run(now, d)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvCopy, Msg: m, At: l.Eng.Now(), CPU: l.endIndex(m, m.Dst), Start: done - d, End: done})
	}
	l.handOver(m, now, done)
}

// vnAddress is the virtual-node protocol's address packet reaching the
// other CPU of the node: it reads it, copies the data straight from the
// sender's buffer (each CPU sees the other's memory) and acknowledges.
type vnAddress Message

func (v *vnAddress) Act(now Time) {
	m := (*Message)(v)
	l := m.l
	cpu := l.endCPU(m, m.Dst)
	d := l.dispatchCycles(m) + l.M.PacketReadCycles + l.M.PacketOverheadCycles + l.M.CopyCycles(m.Bytes)
	done := cpu.Run(now, d)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvCopy, Msg: m, What: "address", At: l.Eng.Now(), CPU: l.endIndex(m, m.Dst), Start: done - d, End: done})
	}
	l.handOver(m, now, done)
	l.Eng.At(l.vnPacket(m, m.Dst, "ack", done), (*vnAck)(m))
}

// vnAck is the acknowledgement reaching the sender: its buffer is free.
type vnAck Message

func (v *vnAck) Act(now Time) {
	m := (*Message)(v)
	l := m.l
	d := l.M.PacketReadCycles + l.M.PacketOverheadCycles
	end := l.endCPU(m, m.Src).Run(now, d)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvCtlRead, Msg: m, What: "ack", At: l.Eng.Now(), CPU: l.endIndex(m, m.Src), Start: end - d, End: end})
	}
	l.sent(end, m)
}

// sent has m.Sent run at t: the sender's part is over. A synchronous
// message's part has two ends, its data left and the receiver's
// acknowledgement read: Sent runs at the later.
func (l *Layer) sent(t Time, m *Message) {
	if m.Sync && m.Protocol != Rendezvous {
		if m.syncs++; m.syncs == 1 {
			m.syncT = t
			return
		}
		t = max(t, m.syncT)
	}
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvSent, Msg: m, At: l.Eng.Now(), CPU: -1, Done: t})
	}
	if m.Sent != nil {
		l.Eng.At(t, m.Sent)
	}
}

// Grant is called by the receiver of a rendezvous message once a receive
// matched it: the receiving CPU sends a grant packet back, and when it
// arrives the sender's CPU writes the data.
func (l *Layer) Grant(m *Message, now Time) {
	if l.views != nil {
		l = l.on(l.Map.Node(m.Dst))
		// The receiver decides now which of its CPUs takes the data.
		m.rzvRx = int32(l.rzvCPU(m))
	}
	cpu := l.endCPU(m, m.Dst)
	d := l.M.MLSendCycles + l.M.RzvSetupCycles
	t := cpu.Run(now, d)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvPost, Msg: m, What: "grant", At: l.Eng.Now(), CPU: l.endIndex(m, m.Dst), Start: t - d, End: t})
	}
	l.sendControl(ctlGrant, m, cpu, t, m.Dst, m.Src, l.Routing == AdaptiveRouting)
}

// Ack is called by the receiver of a synchronous message (Message.Sync)
// once a receive matched it, at now: the receiving CPU posts and writes an
// acknowledgement packet (a control packet on the torus, a virtual packet
// within a node) and the sender's CPU reads it; only then is the sender's
// part over. A rendezvous message's grant already said so: Ack does nothing
// for it, nor for a message that is not synchronous.
func (l *Layer) Ack(m *Message, now Time) {
	if !m.Sync || m.Protocol == Rendezvous {
		return
	}
	if l.views != nil {
		l = l.on(l.Map.Node(m.Dst))
	}
	cpu := l.CPU(m.Dst)
	d := l.M.MLSendCycles
	t := cpu.Run(now, d)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvPost, Msg: m, What: "sync-ack", At: l.Eng.Now(), CPU: l.cpuIndex(m.Dst), Start: t - d, End: t})
	}
	if m.Protocol == Self || m.Protocol == VN {
		l.Eng.At(l.vnPacket(m, m.Dst, "sync-ack", t), (*vnAck)(m))
		return
	}
	l.sendControl(ctlAck, m, cpu, t, m.Dst, m.Src, l.Routing == AdaptiveRouting)
}

// received runs when the destination has read the last data packet of m
// (at now; the data is in at m.done).
func (l *Layer) received(m *Message, now Time) {
	if m.cross != 0 {
		l.dist.allRead(m)
	}
	switch m.Protocol {
	case Rendezvous:
		// (A message of the coprocessor's own work needs no sync: CPU 1
		// uses the data itself.)
		done, co := m.done, l.isCo(m.f.rx) && !m.Co
		if co {
			// The coprocessor received it: the main CPU makes its L1
			// coherent with the data before using it.
			done = l.endCPU(m, m.Dst).Run(done, l.M.CoSyncCycles)
		}
		if l.Obs != nil {
			e := &Event{Kind: EvComplete, Msg: m, At: l.Eng.Now(), CPU: -1, Done: done}
			if co {
				e.CPU, e.Start, e.End = l.endIndex(m, m.Dst), done-l.M.CoSyncCycles, done
			}
			l.Obs.Observe(e)
		}
		m.To.Complete(m, done)
	default:
		l.deliver(m, now, m.done)
	}
}

func (l *Layer) isCo(cpu int32) bool {
	return l.M.CPUsPerNode > 1 && l.Map.PerNode == 1 && int(cpu)%l.M.CPUsPerNode == 1
}

// rzvCPU is the CPU that receives m's rendezvous data: the coprocessor of
// the destination node when it helps and the data is whole cache lines,
// else the destination rank's CPU.
func (l *Layer) rzvCPU(m *Message) int {
	node := l.Map.Node(m.Dst)
	if co := l.coIndex(node); co >= 0 && (l.coOff == nil || !l.coOff[node]) {
		if cl := l.M.CacheLine; cl > 0 && m.Bytes%cl == 0 {
			return co
		}
	}
	return l.endIndex(m, m.Dst)
}

// vnPacket charges rank's CPU, from t, for writing one virtual packet of the
// vn protocol (the send buffer's address, or the acknowledgement) and
// returns when it is written.
func (l *Layer) vnPacket(m *Message, rank int, what string, t Time) Time {
	d := l.M.PacketWriteCycles + l.M.PacketOverheadCycles
	end := l.endCPU(m, rank).Run(t, d)
	if l.Obs != nil {
		n := l.Map.Node(rank)
		l.Obs.Observe(&Event{Kind: EvCtlSend, Msg: m, What: what, At: l.Eng.Now(), CPU: l.endIndex(m, rank), Start: end - d, End: end,
			Packets: 1, From: n, To: n, Left: end, First: end, Last: end})
	}
	return end
}

// SetSeed seeds adaptive routing's choices between links free at the same
// time (the run's seed).
func (l *Layer) SetSeed(seed int64) { l.net.SetSeed(seed) }

// LinkBusy is the serialization time summed over the links of l's
// partition.
func (l *Layer) LinkBusy() int64 {
	_, _, busy := l.net.Totals()
	return busy
}

// CountLinks turns on the accounting of every torus link's traffic
// (Links, DimBusy). Call it after SetPartitions, before the run.
func (l *Layer) CountLinks() { l.net.CountLinks() }

// Links lists the traffic of every link that carried any, in link order
// (nil unless CountLinks): bytes on the wire, cycles held, and bytes per
// label (Message.Label, Multicast.Label, StreamPacket.Label).
func (l *Layer) Links() []hw.LinkUse { return l.net.Links() }

// LinkName names a link (an index of Links) by the node it leaves and its
// direction: "(3,1,0)+x".
func (l *Layer) LinkName(link int) string {
	x, y, z := l.Map.Torus.NodeCoord(link / hw.NumDirs)
	d := hw.Dir(link % hw.NumDirs)
	return fmt.Sprintf("(%d,%d,%d)%c%c", x, y, z, "+-"[int(d)&1], "xyz"[d.Dim()])
}

// DimBusy is the cycles the links of each dimension were held, summed over
// them (0s unless CountLinks).
func (l *Layer) DimBusy() [3]int64 { return l.net.DimBusy() }

// NetTotals is what crossed the torus in every partition: packets, bytes on
// the wire (headers and overhead included) and the links' summed busy time.
func (l *Layer) NetTotals() (packets, wire, busy int64) { return l.net.Totals() }

// Bulk is a Bulk that moves data on l's network (the buffered-coscheduling
// runtime's transfers).
func (l *Layer) Bulk() *Bulk { return NewBulk(l.net) }
