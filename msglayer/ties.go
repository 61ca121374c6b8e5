package msglayer

import (
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Tie keys (runtime.Engine.ScheduleKey) of the message layer's events.
//
// Events of one cycle and priority run first those without a tie key, in
// the order they were scheduled, then those with one, in tie-key order. The
// data path's events have one: a writer coming back for its next batch, a
// batch or control packet reaching a node or its reader, a link's
// arbitration, places given back (a router's, or a reception FIFO's as its
// CPU reads). Their order within a cycle then follows from what they are
// (the message's ends, the batch's place in it, the link), never from when
// they were scheduled, so
// that a model that schedules them at other moments (a run in blocks, a
// transfer advanced several batches at once and split back when something
// else reaches its resources) runs them in the same order.
//
// A tie key has 47 bits and keeps a hash of the message's ends and three
// bits of the batch's index, so two events can have equal ones: two
// batches of one message 16 packets apart reaching their reader in the
// same cycle (adaptive routes), two messages of one pair at the same batch
// in the same cycle, two messages whose hashes collide at one place. The
// engine then asks their actions for a full tie (runtime.Tied, fullTie):
// the message (its sender and its place among its sender's messages,
// Message.nth), the place, the kind, the batch's whole index and the
// control packet's kind. Every event of a message carries one, and no two
// of them have equal full ties; a stream packet's events, which have no
// message, carry its sender and its place among the sender's stream
// packets instead, marked apart from messages' (streamFullTie). A link's arbitration (one event a link,
// its tie key the link's own) and places given back (Network.Pend, a count
// of places by cycle: in any order the same) need none: events of theirs
// with equal tie keys are the same event, or do the same in either order.

// tieKind says what an event is; it is mixed into the tie key.
type tieKind uint64

const (
	tiePump tieKind = iota + 1
	tieChunk
	tieControl
	tieHop
	tieIn
	tieArb
	tieRelease
)

// A tie key puts an event first by the place where it acts (a CPU, a node,
// a link: their numbers follow the nodes), so that the events of a cycle,
// thousands when every rank does the same thing at once, run through the
// machine in the order of its memory, as the order of scheduling did; then
// by a hash of its message's ends (made once a flow, or a train's key), so
// that the messages that meet at a place fall in no fixed order of their
// ranks; then by the batch's index (its low three bits: the batches of one
// flow at one place in one cycle are neighbours, if ever) and the kind.

const (
	placeBits = 21 // CPUs or nodes: 2 million, beyond which places wrap
	otherBits = 19
)

// placedTie is the tie key of an event of kind at place, of a message or
// train whose hash is other, about batch idx.
func placedTie(place int, other uint64, idx int, kind tieKind) uint64 {
	return uint64(place)&(1<<placeBits-1)<<(otherBits+7) | other&(1<<otherBits-1)<<7 | uint64(idx&7)<<4 | uint64(kind)
}

// flowTie is the hash of a flow's message's ends.
func flowTie(m *Message) uint64 { return trainKey(m, 0, false, 0) }

// trainTie is the tie key of an event of kind about a train: at the node its
// head is at, by its key.
func trainTie(h *hw.Head, kind tieKind) uint64 { return placedTie(h.Node(), h.Key, 0, kind) }

// controlTie is the tie key of a control packet of kind ck about m arriving
// at node.
func controlTie(node int, m *Message, ck ctlKind) uint64 {
	return placedTie(node, trainKey(m, 0, true, ck), 0, tieControl)
}

// placeTie is the tie key of an event of kind about a link, a FIFO or
// another place numbered id.
func placeTie(kind tieKind, id int) uint64 { return uint64(id)<<4 | uint64(kind) }

// fullTie is the full tie (runtime.Tied) of an event of kind at place about
// m: its batch from packet idx on, or its control packet of kind ck (ctl).
// It is made of what the event is, the same in one partition and in
// blocks: m's sender and its place among the sender's messages (Layer.Send
// numbers them in the sender's partition, in the order its rank sends),
// never a pair's sequence number (a layer of one partition starts a pair
// again from 0 once it is idle).
func fullTie(m *Message, place int, kind tieKind, idx int, ctl bool, ck ctlKind) runtime.Tie {
	c := uint64(0)
	if ctl {
		c = 1 + uint64(ck)
	}
	return runtime.Tie{
		uint64(uint32(m.Src))<<32 | uint64(m.nth),
		uint64(uint32(place))<<32 | uint64(uint32(idx)),
		uint64(kind)<<8 | c,
	}
}

// tie is the full tie of x's event of kind, at the node its head is at.
func (x *train) tie(kind tieKind) runtime.Tie {
	if x.st != nil {
		return streamFullTie(x.st.id, x.h.Node(), kind)
	}
	return fullTie(x.m, x.h.Node(), kind, int(x.idx), x.ctl, x.kind)
}
