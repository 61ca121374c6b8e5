package msglayer

// rxFIFO is the reception FIFOs of one CPU, rxDepth packets deep: a
// writer takes a slot per data packet when it injects it, and the slot frees
// when the CPU has read the packet. A chunk's packets are read one after
// another between two times known when the chunk arrives, so its slots free
// evenly over that span. Writers that find no room wait, in the order they
// came, and are let in again one by one as slots free.
type rxFIFO struct {
	l          *Layer
	free       int32
	frees      []slotFree // slots that free over known spans
	head, tail *Message   // writers waiting for room
	wakeAt     Time       // a wake-up is scheduled at this time (0: none)
	idx        int32      // the CPU's index
}

// slotFree is k slots freeing evenly from from to to (the first at from).
type slotFree struct {
	from, to Time
	k, given int32 // given: how many are back already
}

// back is how many of s's slots have freed by now.
func (s *slotFree) back(now Time) int32 {
	switch {
	case now >= s.to:
		return s.k
	case now < s.from:
		return 0
	case s.k == 1:
		return 1
	}
	return 1 + int32(int64(s.k-1)*(now-s.from)/(s.to-s.from))
}

// fifo is CPU i's reception FIFOs.
func (l *Layer) fifo(i int32) *rxFIFO {
	if l.rx == nil {
		l.rx = make([]*rxFIFO, len(l.cpus))
	}
	f := l.rx[i]
	if f == nil {
		f = &rxFIFO{l: l, free: int32(l.rxDepth()), idx: i}
		l.rx[i] = f
	}
	return f
}

// catchUp frees the slots read by now.
func (f *rxFIFO) catchUp(now Time) { f.frees = catchUp(&f.free, f.frees, now) }

// catchUp adds to *free the slots of frees that are back by now and
// returns the spans not over yet.
func catchUp(free *int32, frees []slotFree, now Time) []slotFree {
	keep := 0
	for i := range frees {
		s := &frees[i]
		if b := s.back(now); b > s.given {
			*free += b - s.given
			s.given = b
		}
		if s.given < s.k {
			frees[keep] = *s
			keep++
		}
	}
	return frees[:keep]
}

// take reserves up to want slots at now and returns how many it got. If
// writers still wait, the next one is let in if enough slots are left.
func (f *rxFIFO) take(now Time, want int32) int32 {
	f.catchUp(now)
	k := min(want, f.free)
	f.free -= k
	if f.head != nil && k > 0 {
		f.admit(now)
	}
	return k
}

// give frees k slots evenly from from to to (a chunk's packets read).
func (f *rxFIFO) give(from, to Time, k int32) {
	f.frees = append(f.frees, slotFree{from: from, to: max(to, from), k: k})
	if f.head != nil {
		f.wakeUp(f.when(f.batch() - f.free))
	}
}

// wait puts m's writer on the list until slots free.
func (f *rxFIFO) wait(m *Message) {
	m.next = nil
	if f.tail != nil {
		f.tail.next = m
	} else {
		f.head = m
	}
	f.tail = m
	if t := f.when(f.batch() - f.free); t != 0 {
		f.wakeUp(t)
	}
}

// admit lets the first waiting writer try again now if enough slots are
// free for a batch, else makes sure it is looked at when they are. Writers
// are let in one at a time and only for a batch (an injection FIFO's worth,
// at most half the reception FIFO), so that a crowded receiver's FIFO
// refills a batch at a time rather than packet by packet: a grain of the
// simulation, not of the machine (the receiver still has the rest of its
// FIFO to read meanwhile).
func (f *rxFIFO) admit(now Time) {
	need := f.batch()
	if f.free < need {
		if t := f.when(need - f.free); t != 0 {
			f.wakeUp(max(t, now+1))
		}
		return
	}
	m := f.head
	f.head = m.next
	if f.head == nil {
		f.tail = nil
	}
	m.next = nil
	if m.f.remote {
		f.l.Eng.AtKey(now, placedTie(int(m.f.rx), m.f.tie, m.f.sent, tieSlotReq), (*slotReq)(m)) // asks again, here
		return
	}
	f.l.schedulePump(now, m)
}

// batch is how many free slots let a waiting writer in.
func (f *rxFIFO) batch() int32 {
	return int32(max(1, min(f.l.injDepth(), f.l.rxDepth()/2)))
}

// grain is Grain, at least 1.
func (l *Layer) grain() int { return max(l.Grain, 1) }

// injDepth is how many packets a writer writes ahead of the link at most:
// the injection FIFO (at least one packet), times the grain (at most
// maxDepth).
func (l *Layer) injDepth() int { return l.depth(max(l.M.InjectionFIFO, 1)) }

// rxDepth is how many data packets may be on their way to one CPU and not
// yet read (0: no bound): the reception FIFOs, times the grain (at most
// maxDepth).
func (l *Layer) rxDepth() int { return l.depth(l.M.ReceptionFIFO) }

// depth is n packets times the grain, at most maxDepth.
func (l *Layer) depth(n int) int {
	if g := l.grain(); n <= maxDepth/g {
		return n * g
	}
	return maxDepth
}

// maxDepth bounds the FIFO depths in packets, counted in int32: as good as
// unbounded (a billion packets is 240 GiB of data).
const maxDepth = 1 << 30

// when is when n more slots will have freed (when all on their way have, if
// that is fewer), or 0 if none is on its way.
func (f *rxFIFO) when(n int32) Time {
	if len(f.frees) == 0 {
		return 0
	}
	n = max(n, 1)
	lo, hi := f.l.Eng.Now(), Time(0)
	for i := range f.frees {
		hi = max(hi, f.frees[i].to)
	}
	freed := func(t Time) int32 {
		var c int32
		for i := range f.frees {
			c += f.frees[i].back(t) - f.frees[i].given
		}
		return c
	}
	if lo >= hi || freed(hi) < n {
		return hi
	}
	for lo < hi { // the first t with freed(t) >= n
		mid := lo + (hi-lo)/2
		if freed(mid) >= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// wakeUp makes sure the waiting writers are looked at by t.
func (f *rxFIFO) wakeUp(t Time) {
	t = max(t, f.l.Eng.Now())
	if f.wakeAt == 0 || t < f.wakeAt {
		f.wakeAt = t
		f.l.Eng.AtKey(t, placeTie(tieFIFO, int(f.idx)), f)
	}
}

// Act lets the first waiting writer try again if slots have freed.
func (f *rxFIFO) Act(now Time) {
	if now >= f.wakeAt {
		f.wakeAt = 0 // this is the wake-up that was due (or a later one)
	}
	if f.head == nil {
		return
	}
	f.catchUp(now)
	f.admit(now)
}
