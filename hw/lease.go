package hw

// Watching links. The message layer may take a transfer's links out of the
// event-by-event model for a while (it knows what the transfer does to them
// without running its events) and must then hear of anything else that
// reads or changes one of them before it hands them back. A watched link
// calls OnTouch before any of the Network's methods reads or changes it;
// the callback brings the link to its state at that moment (it may call
// the Network itself, with the link no longer watched).

// MaxWatcher is the largest id a link can be watched under.
const MaxWatcher = 1<<16 - 1

// Watch marks link l watched under id, at most MaxWatcher (0: not
// watched). OnTouch must be set before a link is watched. (The id is kept
// in the link's record, so that looking costs no other cache line.)
func (n *Network) Watch(l int, id uint32) {
	if id > MaxWatcher {
		panic("hw: a link watched under an id past MaxWatcher")
	}
	a := &n.links[l].arb
	if id != 0 && a.watch == 0 {
		n.watched++
	} else if id == 0 && a.watch != 0 {
		n.watched--
	}
	a.watch = uint16(id)
}

// Watcher is the id link l is watched under (0: none).
func (n *Network) Watcher(l int) uint32 { return uint32(n.links[l].arb.watch) }

// touch tells the watcher of link l, if any, that l is about to be read or
// changed.
func (n *Network) touch(l int) {
	if n.watched != 0 && n.links[l].arb.watch != 0 {
		n.OnTouch(l)
	}
}

// touchAll tells the watchers of every watched link: the whole network's
// state is about to be read (statistics).
func (n *Network) touchAll() {
	for l := 0; n.watched != 0 && l < len(n.links); l++ {
		if n.links[l].arb.watch != 0 {
			n.OnTouch(l)
		}
	}
}

// LinkState is what a link holds between events when no head waits for
// it: when it is next free, its arbiter's round-robin port, the room at its
// far end and the places coming back there, and its accounting.
type LinkState struct {
	Free        int64
	RR          uint8
	Room        [numClasses]int32
	Pend        []pending
	Busy, Bytes int64
	Labels      []LabelBytes
}

// Idle reports whether link l is as an unused link is from cycle t on, for
// everything a head reaching it at t or later can tell: free before t, no
// head waiting or due, its far end's room all back by t.
func (n *Network) Idle(l int, t int64) bool {
	lk := &n.links[l]
	if lk.free >= t || !lk.arb.empty() || lk.arb.starved {
		return false
	}
	if !n.armed || !n.bounded {
		return len(lk.pend) == 0
	}
	room := lk.room
	for i := range lk.pend {
		p := &lk.pend[i]
		if p.to > t {
			return false
		}
		room[p.class] += p.k - p.given
	}
	return room == n.full
}

// SaveLink copies link l's state into s (no head may wait for it).
func (n *Network) SaveLink(l int, s *LinkState) {
	lk := &n.links[l]
	if !lk.arb.empty() {
		panic("hw: SaveLink of a link with heads waiting")
	}
	s.Free, s.RR, s.Room, s.Busy, s.Bytes = lk.free, lk.arb.rr, lk.room, lk.busy, lk.bytes
	s.Pend = append(s.Pend[:0], lk.pend...)
	s.Labels = append(s.Labels[:0], lk.labels...)
}

// RestoreLink sets link l's state to s (no head may wait for it).
func (n *Network) RestoreLink(l int, s *LinkState) {
	lk := &n.links[l]
	if !lk.arb.empty() {
		panic("hw: RestoreLink of a link with heads waiting")
	}
	lk.free, lk.arb.rr, lk.arb.starved, lk.room, lk.busy, lk.bytes = s.Free, s.RR, false, s.Room, s.Busy, s.Bytes
	lk.pend = append(lk.pend[:0], s.Pend...)
	lk.labels = append(lk.labels[:0], s.Labels...)
}

// Shift moves s's times by d cycles.
func (s *LinkState) Shift(d int64) {
	s.Free += d
	for i := range s.Pend {
		s.Pend[i].from += d
		s.Pend[i].to += d
	}
}

// Quiet reports whether link l has no head waiting or due (the state
// SaveLink can copy).
func (n *Network) Quiet(l int) bool {
	lk := &n.links[l]
	return lk.arb.empty() && !lk.arb.starved
}

// Counters are the network's totals that every link adds to.
type Counters struct {
	Packets, WireBytes, LinkBusy int64
	DimBusy                      [3]int64
}

// Counters is the network's totals now (without telling watchers).
func (n *Network) Counters() Counters {
	return Counters{n.Packets, n.WireBytes, n.LinkBusy, n.dimBusy}
}

// AddCounters adds c to the network's totals.
func (n *Network) AddCounters(c Counters) {
	n.Packets += c.Packets
	n.WireBytes += c.WireBytes
	n.LinkBusy += c.LinkBusy
	for d := range c.DimBusy {
		n.dimBusy[d] += c.DimBusy[d]
	}
}

// Sub is c less o.
func (c Counters) Sub(o Counters) Counters {
	r := Counters{c.Packets - o.Packets, c.WireBytes - o.WireBytes, c.LinkBusy - o.LinkBusy, c.DimBusy}
	for d := range r.DimBusy {
		r.DimBusy[d] -= o.DimBusy[d]
	}
	return r
}

// Add is c plus o.
func (c Counters) Add(o Counters) Counters {
	r := Counters{c.Packets + o.Packets, c.WireBytes + o.WireBytes, c.LinkBusy + o.LinkBusy, c.DimBusy}
	for d := range r.DimBusy {
		r.DimBusy[d] += o.DimBusy[d]
	}
	return r
}

// ChoiceTies is how many adaptive choices so far were broken by the tie
// hash between equally good links.
func (n *Network) ChoiceTies() int64 { return n.ties }

// Offsets is the signed hops from node a to node c along each dimension,
// as a head launched from a to c has them to go, and their sum.
func (n *Network) Offsets(a, c int) (delta [3]int32, hops int32) { return n.offsets(a, c) }

// LinkHold is a link's whole state, heads waiting included, held aside
// (HoldLink) while the link takes another state for a while.
type LinkHold struct{ lk link }

// HoldLink sets link l aside in h and gives it state s, with no head
// waiting; PutLink puts it back.
func (n *Network) HoldLink(l int, s *LinkState, h *LinkHold) {
	h.lk = n.links[l]
	n.links[l] = link{}
	lk := &n.links[l]
	lk.arb.watch = h.lk.arb.watch
	lk.free, lk.arb.rr, lk.room, lk.busy, lk.bytes = s.Free, s.RR, s.Room, s.Busy, s.Bytes
	lk.pend = append([]pending(nil), s.Pend...)
	lk.labels = append([]LabelBytes(nil), s.Labels...)
}

// PutLink puts back the state HoldLink set aside.
func (n *Network) PutLink(l int, h *LinkHold) { n.links[l] = h.lk }

// Globals is what a transfer's events change in the network outside its
// links: the totals and the count of ties adaptive routing broke by hash.
type Globals struct {
	c    Counters
	ties int64
}

// SaveGlobals is the network's Globals now; RestoreGlobals puts them back
// (after events run aside, on an engine of their own, to see what they do).
func (n *Network) SaveGlobals() Globals { return Globals{n.Counters(), n.ties} }

// RestoreGlobals: see SaveGlobals.
func (n *Network) RestoreGlobals(g Globals) {
	n.Packets, n.WireBytes, n.LinkBusy, n.dimBusy = g.c.Packets, g.c.WireBytes, g.c.LinkBusy, g.c.DimBusy
	n.ties = g.ties
}

// LinkSnap is a link's whole state, the heads waiting for it included
// (SnapLink, PlaceLink).
type LinkSnap struct {
	State   LinkState
	starved bool
}

// SnapLink copies link l's state into s and calls fn with each head
// waiting for it, port by port in port order, each port's first to last.
func (n *Network) SnapLink(l int, s *LinkSnap, fn func(h *Head)) {
	lk := &n.links[l]
	st := &s.State
	st.Free, st.RR, st.Room, st.Busy, st.Bytes = lk.free, lk.arb.rr, lk.room, lk.busy, lk.bytes
	st.Pend = append(st.Pend[:0], lk.pend...)
	st.Labels = append(st.Labels[:0], lk.labels...)
	s.starved = lk.arb.starved
	for _, pq := range lk.arb.q {
		for h := pq.head; h != nil; h = h.next {
			fn(h)
		}
	}
}

// PlaceLink sets link l to s's state with heads waiting for it, in the
// order SnapLink gave them (no head may wait for it before).
func (n *Network) PlaceLink(l int, s *LinkSnap, heads []*Head) {
	n.RestoreLink(l, &s.State)
	lk := &n.links[l]
	if len(heads) > 0 && !n.armed {
		n.initArbiters()
	}
	for _, h := range heads {
		lk.arb.push(h)
	}
	lk.arb.starved = s.starved
}

// Shift moves s's times by d cycles.
func (s *LinkSnap) Shift(d int64) { s.State.Shift(d) }

// CopyMoved makes h a copy of src (in no queue) for a transfer like src's
// moved elsewhere and later: its nodes and links moved by node (a node's
// index to the node's), its times by dt cycles, with its own key and ref.
func (h *Head) CopyMoved(src *Head, node func(int) int, dt int64, key uint64, ref any) {
	*h = *src
	h.next, h.prev = nil, nil
	h.Key, h.Ref = key, ref
	h.Left += dt
	h.At += dt
	if src.hops == 0 {
		h.First += dt
		h.Last += dt
	}
	h.node, h.dest = int32(node(int(src.node))), int32(node(int(src.dest)))
	link := func(l int32) int32 {
		if l < 0 {
			return l
		}
		return int32(node(int(l)/NumDirs)*NumDirs) + l%NumDirs
	}
	h.in = link(src.in)
	if src.freed >= 0 {
		h.freed = link(src.freed)
		h.freedAt += dt
	}
}

// Copy is s with slices of its own.
func (s *LinkSnap) Copy() LinkSnap {
	c := *s
	c.State.Pend = append([]pending(nil), s.State.Pend...)
	c.State.Labels = append([]LabelBytes(nil), s.State.Labels...)
	return c
}
