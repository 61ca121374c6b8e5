package msglayer

import "math/bits"

// channel keeps the messages from one rank to another in order, as MPI's
// matching needs. An eager message holds it until its last packet is
// written (FIFO pinning: all its packets enter the network behind those of
// the message before, and deterministic routing keeps them so); a
// rendezvous message holds it only for its scout; an adaptive eager message
// until the receiver confirms it was matched ([ML]: "the sender has to wait
// for the confirmation before sending a new message"). Messages to other
// destinations are not held up.
//
// Adaptively routed packets may still overtake deterministic ones sent
// before them, so every message also carries a sequence number of its pair,
// and the receiver hands envelopes to the layer above in that order,
// holding back one that overtook another until the other is in ([ML]:
// "forcing the MPI library to reorder them in software").
type channel struct {
	key        uint64
	idx        int32 // in the layer's arena (Layer.chanArena)
	busy       bool
	head, tail *Message // waiting to start
	sent       uint32   // sequence number of the next message
	delivered  uint32   // sequence number of the next envelope to hand over
	held       *Message // envelopes that came early, by sequence number
}

func pairKey(src, dst int) uint64 { return uint64(uint32(src))<<32 | uint64(uint32(dst)) }

// enter starts m at t if its pair's channel is free, else queues it.
func (l *Layer) enter(t Time, m *Message) {
	key := pairKey(m.Src, m.Dst)
	s := l.chans.slot(key)
	ch := l.chanOf(s)
	if ch == nil {
		ch = l.newChannel(key)
		ch.sent = s.seq // in partitions, a half may have been idle (park)
		s.hold(ch)
	}
	m.ch, m.pair = ch, ch
	m.seq = ch.sent
	ch.sent++
	if !ch.busy {
		ch.busy = true
		l.start(t, m)
		return
	}
	m.next = nil
	if ch.tail != nil {
		ch.tail.next = m
	} else {
		ch.head = m
	}
	ch.tail = m
}

// startAct starts a message that waited for its channel.
type startAct Message

func (s *startAct) Act(now Time) { (*Message)(s).l.start(now, (*Message)(s)) }

// release lets the next message of m's pair start at t (m no longer holds
// the channel).
func (l *Layer) release(t Time, m *Message) {
	ch := m.ch
	if ch == nil {
		return
	}
	m.ch = nil
	if next := ch.head; next != nil {
		ch.head = next.next
		if ch.head == nil {
			ch.tail = nil
		}
		next.next = nil
		l.Eng.At(t, (*startAct)(next))
		return
	}
	ch.busy = false
	l.idle(ch)
}

// newChannel is a channel for key, from the pool if it has one. Every
// channel a layer makes stays in its arena, where the pair tables find it
// by index.
func (l *Layer) newChannel(key uint64) *channel {
	var ch *channel
	if n := len(l.chanPool); n > 0 {
		ch = l.chanPool[n-1]
		l.chanPool = l.chanPool[:n-1]
	} else {
		ch = &channel{idx: int32(len(l.chanArena))}
		l.chanArena = append(l.chanArena, ch)
	}
	ch.key = key
	return ch
}

// freeChannel puts ch back in the pool.
func (l *Layer) freeChannel(ch *channel) {
	*ch = channel{idx: ch.idx}
	l.chanPool = append(l.chanPool, ch)
}

// chanOf is the channel slot s holds, or nil.
func (l *Layer) chanOf(s *chanSlot) *channel {
	if s.ref < firstRef {
		return nil
	}
	return l.chanArena[s.ref-firstRef]
}

// idle frees the channel if nothing of its pair is left in flight. In
// partitions the sending half of a pair is idle when no message of the
// pair waits for it or holds it: park keeps its count and frees it.
func (l *Layer) idle(ch *channel) {
	if l.views != nil {
		if !ch.busy && ch.head == nil {
			l.park(&l.chans, ch, ch.sent)
		}
		return
	}
	if ch.busy || ch.head != nil || ch.sent != ch.delivered {
		return
	}
	l.chans.remove(ch.key)
	l.freeChannel(ch)
}

// park frees ch, a half of a pair in table t, keeping only seq, its next
// sequence number, in the pair's slot: the halves of a pair keep their
// numbers in step, and in partitions neither knows when the other is done,
// so the numbers stay (24 bytes a pair and half, at most half a table's
// slots full), but the channel goes back to the pool.
func (l *Layer) park(t *chanTable, ch *channel, seq uint32) {
	s := t.find(ch.key)
	if s == nil || s.ref != ch.idx+firstRef {
		return
	}
	s.ref, s.seq = noChan, seq
	l.freeChannel(ch)
}

// deliver hands m's envelope to its receiver (done as Deliver takes it),
// once every message sent before it between the pair has been handed over.
func (l *Layer) deliver(m *Message, now, done Time) {
	ch := m.pair
	if ch == nil {
		l.handOver(m, now, done)
		return
	}
	if l.views != nil {
		key := pairKey(m.Src, m.Dst)
		s := l.rchans.slot(key)
		if s.ref == noChan && m.seq == s.seq {
			// In order with nothing held, as almost every message is: the
			// receiving half needs no channel.
			m.pair = nil
			l.handOver(m, now, done)
			if s = l.rchans.find(key); s.ref == noChan {
				s.seq++
				return
			}
			// A later message of the pair came meanwhile and is held.
			l.deliverHeld(l.chanOf(s), now)
			return
		}
		if ch = l.chanOf(s); ch == nil {
			ch = l.newChannel(key)
			ch.delivered = s.seq
			s.hold(ch)
		}
	}
	if m.seq != ch.delivered {
		if l.Obs != nil {
			l.Obs.Observe(&Event{Kind: EvHold, Msg: m, At: l.Eng.Now(), CPU: -1, Done: done})
		}
		m.hold = done
		p := &ch.held
		for *p != nil && (*p).seq < m.seq {
			p = &(*p).next
		}
		m.next = *p
		*p = m
		return
	}
	m.pair = nil
	l.handOver(m, now, done)
	l.deliverHeld(ch, now)
}

// deliverHeld counts the envelope just handed over on ch, hands over those
// held that are next in order, and frees the channel if its pair is idle
// (in partitions: the receiving half once nothing is held).
func (l *Layer) deliverHeld(ch *channel, now Time) {
	ch.delivered++
	for h := ch.held; h != nil && h.seq == ch.delivered; h = ch.held {
		ch.held = h.next
		h.next = nil
		h.pair = nil
		l.handOver(h, now, h.hold)
		ch.delivered++
	}
	if l.views != nil {
		if ch.held == nil {
			l.park(&l.rchans, ch, ch.delivered)
		}
		return
	}
	l.idle(ch)
}

// handOver calls the receiver; an adaptive eager message is then matched
// (or queued as unexpected, in order) and its sender may go on: confirm it,
// after whatever the receiver did with it.
func (l *Layer) handOver(m *Message, now, done Time) {
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvDeliver, Msg: m, At: l.Eng.Now(), CPU: -1, Done: done})
	}
	// (The protocol is read first: after Deliver the receiver may already
	// have given m's memory back to the sender's end; see Receiver.)
	adaptive := m.Protocol == Adaptive
	m.To.Deliver(m, now, done)
	if adaptive {
		cpu := l.endCPU(m, m.Dst)
		t := cpu.Run(max(done, now), l.M.MLSendCycles)
		if l.Obs != nil {
			l.Obs.Observe(&Event{Kind: EvPost, Msg: m, What: "confirm", At: l.Eng.Now(), CPU: l.endIndex(m, m.Dst), Start: t - l.M.MLSendCycles, End: t})
		}
		l.sendControl(ctlConfirm, m, cpu, t, m.Dst, m.Src, l.Routing == AdaptiveRouting)
	}
}

// chanTable finds the channel of a pair: an open-addressing hash table
// (linear probing, at most half full, deletion by shifting back), a few
// times faster than a Go map for what every message does to it: a lookup
// when it is sent, an insertion, a deletion when its pair has nothing in
// flight any more. A slot may also hold a pair without a channel: in
// partitions, a half whose pair has nothing in flight keeps only its count
// (chanSlot.seq), and its channel goes back to the pool.
//
// The slots hold no pointers (a channel is named by its index in the
// layer's arena): in partitions the tables keep a slot for every pair that
// ever spoke, 4 million per table in an alltoall of 2,048 ranks, which the
// garbage collector would otherwise scan at every collection.
type chanTable struct {
	slots []chanSlot
	n     int
	shift uint8
}

// chanSlot holds a pair's channel, or its count while it has none, and its
// key beside it, so that a probe past other pairs' slots reads no channel.
type chanSlot struct {
	key uint64
	seq uint32 // without a channel: the half's next sequence number
	ref int32  // 0: a free slot; noChan: a pair without a channel; else firstRef + the channel's index
}

const (
	noChan   = 1
	firstRef = 2
)

// hold makes ch the slot's channel.
func (s *chanSlot) hold(ch *channel) { s.ref = ch.idx + firstRef }

func (t *chanTable) home(key uint64) int {
	return int((key * 0x9e3779b97f4a7c15) >> t.shift)
}

// find is key's slot, or nil.
func (t *chanTable) find(key uint64) *chanSlot {
	if t.n == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	for i := t.home(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ref == 0 {
			return nil
		}
		if s.key == key {
			return s
		}
	}
}

// slot is key's slot, added (without a channel, count 0) if it is not in
// the table. It stays valid until the next insertion.
func (t *chanTable) slot(key uint64) *chanSlot {
	if s := t.find(key); s != nil {
		return s
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	i := t.home(key)
	for t.slots[i].ref != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = chanSlot{key: key, ref: noChan}
	t.n++
	return &t.slots[i]
}

// remove takes key's slot out.
func (t *chanTable) remove(key uint64) {
	mask := len(t.slots) - 1
	i := t.home(key)
	for t.slots[i].key != key || t.slots[i].ref == 0 {
		i = (i + 1) & mask
	}
	// Shift back the entries after it that would no longer be found.
	for j := (i + 1) & mask; t.slots[j].ref != 0; j = (j + 1) & mask {
		if h := t.home(t.slots[j].key); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = chanSlot{}
	t.n--
}

func (t *chanTable) grow() {
	old := t.slots
	size := max(2*len(old), 64)
	t.slots = make([]chanSlot, size)
	t.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for _, s := range old {
		if s.ref != 0 {
			*t.slot(s.key) = s
		}
	}
}
