package msglayer

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
