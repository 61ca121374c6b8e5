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
	tieSlotReq
	tieSlotGrant
	tieFIFO
	tieTransit
)

// A tie key is a base that says whose event it is, with the kind in its low
// four bits: a message's base is a hash of its ends (trainKey), so that the
// messages that meet at a CPU or a link in a cycle fall in no fixed order of
// their ranks, and its batches follow it by index; a place's base is its
// number. Computed with a shift and an xor on the hot path: the hash is
// made once a message (flowTie) or train (hw.Head.Key).

// dataTie is the tie key of an event of kind about batch (or packet) idx of
// a flow whose base is base.
func dataTie(base uint64, idx int, kind tieKind) uint64 {
	return base ^ uint64(idx)<<4 ^ uint64(kind)
}

// flowTie is a flow's base: the hash of its message's ends.
func flowTie(m *Message) uint64 { return trainKey(m, 0, false, 0) &^ 0xf }

// trainTie is the tie key of an event of kind about a train: its head's
// key is its hash already.
func trainTie(h *hw.Head, kind tieKind) uint64 { return h.Key&^0xf ^ uint64(kind) }

// controlTie is the tie key of a control packet of kind ck about m arriving.
func controlTie(m *Message, ck ctlKind) uint64 {
	return trainKey(m, 0, true, ck)&^0xf ^ uint64(tieControl)
}

// placeTie is the tie key of an event of kind about a link, a FIFO or
// another place numbered id.
func placeTie(kind tieKind, id int) uint64 { return uint64(id)<<4 | uint64(kind) }
