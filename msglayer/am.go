package msglayer

// Active messages: the message layer's own interface ([ML] "Message-layer
// support"; [EMU] sendPacket). A message names a handler; when its data is
// complete at the destination it waits in the destination's inbox until that
// rank runs its advance loop, which calls the handler.

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
// destination's inbox when the data is complete.
type AM struct{ L *Layer }

// Deliver schedules the filing at done. A rendezvous message is granted at
// once: the handler needs no posted receive.
func (a AM) Deliver(m *Message, now, done Time) {
	if done == Pending {
		a.L.Grant(m, now)
		return
	}
	a.Complete(m, done)
}

// Complete files a message in its destination's inbox when its data is in.
func (a AM) Complete(m *Message, done Time) {
	a.L.Eng.At(done, &amReady{m: m, ib: a.L.Inbox(m.Dst)})
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
