package msglayer

import (
	"fmt"

	"github.com/bglua/bglua/runtime"
)

// Active messages: the message layer's own interface ([ML] "Message-layer
// support"; [EMU] sendPacket). A message names a handler; when its data is
// complete at the destination it waits in the destination's inbox until that
// rank runs its advance loop, which calls the handler. On a machine with
// thread units ([EMU], units.go) it goes to the destination node's InBuffer
// instead, and a thread unit runs its handler without the rank polling.

// Inbox holds the active messages that reached one rank, in the order their
// data completed.
type Inbox struct {
	Ready []*Message
	// OnReady, if set, is called when a message becomes ready (to wake a
	// rank waiting in its advance loop).
	OnReady func()
}

// Take removes and returns the ready messages.
func (ib *Inbox) Take() []*Message {
	m := ib.Ready
	ib.Ready = nil
	return m
}

// Inbox returns rank's inbox, creating it on first use (most ranks of an MPI
// program never receive an active message).
func (l *Layer) Inbox(rank int) *Inbox {
	if l.inboxes == nil {
		l.inboxes = make([]*Inbox, l.Map.Ranks())
	}
	ib := l.inboxes[rank]
	if ib == nil {
		ib = &Inbox{}
		l.inboxes[rank] = ib
	}
	return ib
}

// AM is the receiver of active messages: it files a message in its
// destination's inbox when the data is complete, or, when U is set (a
// machine with thread units), in the InBuffer of the destination's node,
// for a unit of Category to run.
type AM struct {
	L        *Layer
	U        *Units
	Category Category
}

// dispatchCycles is what the CPU that reads m's first packet pays to find
// it and run its handler: MLDispatchCycles, except for an active message
// on a machine with thread units, whose communication unit pays it.
func (l *Layer) dispatchCycles(m *Message) Time {
	if a, ok := m.To.(AM); ok && a.U != nil {
		return 0
	}
	return l.M.MLDispatchCycles
}

// Deliver schedules the filing at done. A rendezvous message is granted at
// once: the handler needs no posted receive.
func (a AM) Deliver(m *Message, now, done Time) {
	if done == Pending {
		a.L.Grant(m, now)
		return
	}
	a.Complete(m, done)
}

// Complete files a message in its destination's inbox, or its node's
// InBuffer, when its data is in.
func (a AM) Complete(m *Message, done Time) {
	if a.U != nil {
		a.U.Post(done, &Item{Node: a.L.Map.Node(m.Dst), Rank: m.Dst, Category: a.Category, Data: m})
		return
	}
	l := a.L
	if l.views != nil {
		l = l.ForRank(m.Dst)
	}
	l.Eng.At(done, &amReady{m: m, ib: l.Inbox(m.Dst)})
}

type amReady struct {
	m  *Message
	ib *Inbox
}

func (r *amReady) Act(now Time) {
	r.ib.Ready = append(r.ib.Ready, r.m)
	if r.ib.OnReady != nil {
		r.ib.OnReady()
	}
}

// Unhandled is the active messages ready for rank that its advance loop has
// not taken.
func (l *Layer) Unhandled(rank int) []*Message {
	if l.inboxes == nil || l.inboxes[rank] == nil {
		return nil
	}
	return l.inboxes[rank].Ready
}

// AMHeader is the software header of an active message (handler id, source,
// length), carried in its first packet.
const AMHeader = 16

// AMSend is an active message to send.
type AMSend struct {
	Src, Dst int
	Bytes    int
	Protocol Protocol
	Payload  any
	// Sent, if set, is scheduled when the send is complete.
	Sent runtime.Action
	// Units, if set, are the machine's thread units; Category says which
	// units of the destination's node run the handler.
	Units    *Units
	Category Category
}

// CheckAM says why an active message of n bytes cannot go from src to dst by
// proto, or nil if it can: the one-packet protocol needs the message and its
// header to fit a packet, the virtual-node one two ranks of one node.
func (l *Layer) CheckAM(src, dst, n int, proto Protocol) error {
	switch {
	case proto == OnePacket && !l.Fits(n, AMHeader):
		return fmt.Errorf("%d bytes do not fit one packet (at most %d with the %d-byte header)", n, l.M.PayloadPerPacket()-AMHeader, AMHeader)
	case proto == VN && l.Map.Node(src) != l.Map.Node(dst):
		return fmt.Errorf("protocol \"vn\" is for two ranks of one node (virtual-node mode); ranks %d and %d are on nodes %d and %d",
			src, dst, l.Map.Node(src), l.Map.Node(dst))
	}
	return nil
}

// SendAM checks a (CheckAM) and sends it at now, from the sender's process.
func (l *Layer) SendAM(now Time, a AMSend) error {
	if err := l.CheckAM(a.Src, a.Dst, a.Bytes, a.Protocol); err != nil {
		return err
	}
	l.Send(now, a.message(l))
	return nil
}

// SendAMFromUnit checks a and sends it from a handler on a thread unit: it
// leaves at the unit's clock t, from an event of its own, its packets
// written as the rank's own are, by the node's CPU.
func (l *Layer) SendAMFromUnit(t Time, a AMSend) error {
	if err := l.CheckAM(a.Src, a.Dst, a.Bytes, a.Protocol); err != nil {
		return err
	}
	l.Eng.At(t, &sendAt{l: l, m: a.message(l)})
	return nil
}

func (a AMSend) message(l *Layer) *Message {
	to := AM{L: l}
	if a.Units != nil {
		to.U, to.Category = a.Units, a.Category
	}
	m := &Message{
		Src: a.Src, Dst: a.Dst, Bytes: a.Bytes, Header: AMHeader, Protocol: a.Protocol,
		To: to, Payload: a.Payload, From: a.Src, Sent: a.Sent,
	}
	return m
}

// sendAt is a send posted for later.
type sendAt struct {
	l *Layer
	m *Message
}

func (s *sendAt) Act(now Time) { s.l.Send(now, s.m) }
