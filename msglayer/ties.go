package msglayer

import "github.com/bglua/bglua/hw"

// Tie keys (runtime.Engine.ScheduleKey) of the message layer's events.
//
// Events of one cycle and priority run first those without a tie key, in
// the order they were scheduled, then those with one, in tie-key order. The
// data path's events have one: a writer coming back for its next batch, a
// batch or control packet reaching a node or its reader, a link's
// arbitration, a place given back, a request for room in a reception FIFO
// and its answer, a FIFO looking at its waiting writers. Their order within
// a cycle then follows from what they are (the message's ends, the batch's
// place in it, the link, the FIFO), never from when they were scheduled, so
// that a model that schedules them at other moments (a run in blocks, a
// transfer advanced several batches at once and split back when something
// else reaches its resources) runs them in the same order. Two messages of
// one pair at the same batch in the same cycle have equal tie keys and run
// in an order the engine's queue fixes (as they tie in links' arbitration;
// see trainKey).

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
