package msglayer

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
// one pair tie on everything but the order they were scheduled in (as they
// do in links' arbitration; see trainKey).

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

// mixTie spreads z over the tie key's bits.
func mixTie(z uint64, kind tieKind) uint64 {
	z += uint64(kind) * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// msgTie is the tie key of an event of kind about packet or batch idx of m
// (control packets: their kind).
func msgTie(kind tieKind, m *Message, idx int, ctl bool, ck ctlKind) uint64 {
	return mixTie(trainKey(m, idx, ctl, ck), kind)
}

// placeTie is the tie key of an event of kind about a link, a FIFO or
// another place numbered id.
func placeTie(kind tieKind, id int) uint64 { return mixTie(uint64(id), kind) }
