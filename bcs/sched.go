package bcs

import (
	"slices"
	"sort"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// Time is virtual time in cycles.
type Time = runtime.Time

// Any matches any source or tag in a receive descriptor.
const Any = -1

// Params are the costs of the runtime on one machine and partition.
type Params struct {
	Slice   Time // the time slice: strobes come at least this far apart
	Strobe  Time // the global strobe: an Xfer-And-Signal to every node
	CAW     Time // a Compare-And-Write over every node (global query)
	Micro   Time // a microstrobe: CAW that the microphase is over, then a broadcast
	Desc    Time // NIC work per descriptor: written at the source, read at the destination
	Match   Time // NIC work per descriptor examined while matching
	Latency Time // one packet across the partition's diameter
	// Capacity is how many bytes a node may send, and receive, in the
	// point-to-point microphase of one slice; larger messages are chunked.
	Capacity int
	// PerElement is the NIC's cost of combining one element in a reduce.
	PerElement Time
	// BytesPerCycle is one link's payload rate, for collectives' data volume.
	BytesPerCycle float64
}

// NewParams derives the costs from machine m on torus t with the given slice:
//
//	Strobe  = one broadcast on the collective network (TreeLatency), or
//	          Latency on a machine without one
//	CAW     = one global-interrupt round (GILatency; 1.5 us on 65,536 BG/L
//	          nodes, under the 2 us of [BCS] Table 2.1), or 2 x Latency
//	Micro   = CAW + Strobe
//	Desc    = PacketWriteCycles + PacketReadCycles (a descriptor is a packet)
//	Match   = MPIMatchCycles
//	Latency = diameter x (HopCycles) + 2 corner turns + one full packet's
//	          serialization + NetworkCycles
//	Capacity = what one link carries, in payload bytes, in 90% of the slice
//	          less the strobe, six microstrobes and two latencies (the
//	          margin keeps slices with descriptor work from overrunning)
func NewParams(m *msglayer.Machine, t msglayer.Torus, slice Time) Params {
	nodes := t.Nodes()
	diam := 0
	for _, d := range [3]int{t.Dims.X, t.Dims.Y, t.Dims.Z} {
		if t.Mesh {
			diam += d - 1
		} else {
			diam += d / 2
		}
	}
	full := m.PacketBytes(m.PayloadPerPacket())
	p := Params{
		Slice:         slice,
		Desc:          m.PacketWriteCycles + m.PacketReadCycles,
		Match:         m.MPIMatchCycles,
		Latency:       Time(diam)*m.HopCycles + 2*m.CornerTurnCycles + m.SerializeCycles(full) + m.NetworkCycles,
		PerElement:    m.ReduceCyclesPerElement,
		BytesPerCycle: m.LinkBytesPerCycle * float64(m.PayloadPerPacket()) / float64(full+m.WireOverhead),
	}
	p.Strobe = p.Latency
	if m.HasTree() {
		p.Strobe = m.TreeLatency(nodes)
	}
	p.CAW = 2 * p.Latency
	if m.HasGI() {
		p.CAW = m.GILatency(nodes)
	}
	p.Micro = p.CAW + p.Strobe
	if room := slice*9/10 - p.Strobe - 6*p.Micro - 2*p.Latency; room > 0 {
		p.Capacity = int(float64(room) * p.BytesPerCycle)
	}
	if p.Capacity < m.PayloadPerPacket() {
		p.Capacity = m.PayloadPerPacket()
	}
	return p
}

// Desc is a point-to-point descriptor: a send or a receive that a rank has
// posted to the runtime.
type Desc struct {
	Send  bool
	Owner int // world rank that posted it
	Dst   int // sends: world rank of the receiver
	// The envelope: context, tag, and the sender's rank in its communicator
	// (sends) or the source wanted (receives, possibly Any). Tag may be Any
	// in a receive.
	Ctx, Tag, Src int
	Bytes         int
	Payload       any
	ID            int64 // the caller's name for the message (traces)
	Token         any   // carried for the caller, never inspected here (CancelRecv compares it)
	// Bound is, for a receive, the send a matched probe took out of
	// matching (Take): the receive matches it and nothing else.
	Bound *Desc
	// Done is called, for both descriptors of a pair, when the last chunk
	// of the data has arrived.
	Done func(now Time)

	// Match is the descriptor this one was matched with (nil before).
	Match  *Desc
	posted Time
	left   int
	moved  bool // a first chunk has gone (a zero-byte message needs one)
}

func (r *Desc) accepts(s *Desc) bool {
	return s.Ctx == r.Ctx && (r.Src == Any || r.Src == s.Src) && (r.Tag == Any || r.Tag == s.Tag)
}

// Phase is the microphase that carries out a collective.
type Phase uint8

const (
	// PhaseBcast: a broadcast from one node over the network (barrier: no data).
	PhaseBcast Phase = iota
	// PhaseReduce: a binomial reduction done by the network side; AllToo
	// sends the result back down to every member.
	PhaseReduce
	// PhaseVolume: data moved between members in the point-to-point
	// microphase (gather, scatter, allgather, alltoall, ...), chunked over
	// slices when it does not fit.
	PhaseVolume
)

// Coll is one collective operation, posted by every member of a
// communicator. The caller fills in the fields before Ready.
type Coll struct {
	Phase   Phase
	Members []int // world ranks, to restart them
	Bytes   int   // PhaseBcast: the data; PhaseReduce: one contribution; PhaseVolume: the most any node sends or receives
	Elems   int   // PhaseReduce: elements combined at each step
	AllToo  bool  // PhaseReduce: everyone gets the result (allreduce)
	// Done is called when the operation has completed on the network side.
	Done func(now Time)

	ready Time
	left  int
}

// Sched is the buffered-coscheduling runtime of one job: the global strobe,
// the microphases of every slice, and the descriptors between them.
//
// Slice k begins with strobe k at time S_k. What ranks posted before S_k
// (in slice k-1 or before) is exchanged in the descriptor exchange
// microphase (DEM), matched in the message scheduling microphase (MSM),
// and moved in the point-to-point (P2P), broadcast-and-barrier (BB) and
// reduce microphases of slice k; ranks whose operations completed restart at
// S_{k+1}. Each microphase begins with a microstrobe. S_{k+1} = max(S_k +
// Slice, end of slice k's microphases): the strobe keeps to the slice unless
// the work overruns it. Strobes are only sent while there is something to
// do; when the runtime is idle the slice numbers still advance on the same
// grid, so a rank that posts later joins the slice it would have been in.
type Sched struct {
	P    Params
	eng  *runtime.Engine
	bulk *msglayer.Bulk // the point-to-point microphase's transfers
	mp   *msglayer.Mapping

	// Restart wakes a rank at the start of a slice; Exchanged, if set, is
	// told of every send descriptor that reached its receiver's node in the
	// descriptor exchange, in exchange order (for probe, and for the
	// caller's checks of what d carries before any data moves).
	Restart   func(rank int, now Time)
	Exchanged func(d *Desc)
	// WakeNow wakes a rank at once (core primitives act outside the slices).
	WakeNow func(rank int, now Time)
	// EMDS, if set, records per-slice metrics (see EMDS).
	EMDS *EMDS
	// OnSlice, if set, is told of every slice strobed: its number and the
	// times its phases end: [0] the strobe (slice start), [1] the strobe
	// broadcast, [2] DEM, [3] MSM, [4] P2P, [5] BB, [6] reduce.
	OnSlice func(k int64, marks [7]Time)

	slice Time // number of the last strobe sent
	start Time // when it was sent
	end   Time // when its microphases ended
	armed bool
	next  Time // when the armed strobe comes
	// prevStart is when the slice before the armed strobe's began.
	prevStart Time

	posted  []*Desc   // not yet exchanged, in post order
	sends   [][]*Desc // per rank: sends exchanged to it, not yet matched
	recvs   [][]*Desc // per rank: receives posted, not yet matched
	xfers   []*Desc   // matched sends with data left to move, in match order
	colls   []*Coll   // every member posted, not yet scheduled
	volume  []*Coll   // PhaseVolume collectives with data left
	restart []int     // ranks to restart at the next strobe
	marked  []bool
	flying  int // completions scheduled that have not happened yet

	// scratch, per node, reset after use
	outN, inN   []int
	budOut      []int
	budIn       []int
	touchedNode []int
	touchedRank []int
	rankMark    []bool
	chunkBuf    []int

	cs *coreState // the core primitives' events and variables

	// Totals over the run: strobes sent (idle slices send none), messages
	// matched, chunks moved, collectives done.
	Strobes, Matched, Chunks, CollsDone int64
}

// New returns the runtime of a job whose ranks are placed by mp, its data
// moved on net (a network of its own: tests; a run uses NewOn).
func New(eng *runtime.Engine, net *msglayer.Network, mp *msglayer.Mapping, p Params) *Sched {
	return newSched(eng, msglayer.NewBulk(net), mp, p)
}

// NewOn returns the runtime of a job over message layer l (its network,
// mapping and machine) with the given slice.
func NewOn(eng *runtime.Engine, l *msglayer.Layer, slice Time) *Sched {
	return newSched(eng, l.Bulk(), l.Map, NewParams(l.M, l.Map.Torus, slice))
}

func newSched(eng *runtime.Engine, bulk *msglayer.Bulk, mp *msglayer.Mapping, p Params) *Sched {
	n, nodes := mp.Ranks(), mp.Torus.Nodes()
	return &Sched{
		P: p, eng: eng, bulk: bulk, mp: mp,
		sends: make([][]*Desc, n), recvs: make([][]*Desc, n), marked: make([]bool, n), rankMark: make([]bool, n),
		outN: make([]int, nodes), inN: make([]int, nodes), budOut: make([]int, nodes), budIn: make([]int, nodes),
	}
}

// SliceAt is the number of the slice that time t (now or later) falls in.
func (s *Sched) SliceAt(t Time) int64 {
	if s.armed {
		if t < s.next {
			return s.slice
		}
		return s.slice + 1 + (t-s.next)/s.P.Slice
	}
	base := max(s.start+s.P.Slice, s.end)
	if t < base {
		return s.slice
	}
	return s.slice + 1 + (t-base)/s.P.Slice
}

// gridAfter is the first strobe time after t on the current grid.
func (s *Sched) gridAfter(t Time) (at Time, k int64) {
	base := max(s.start+s.P.Slice, s.end)
	if t < base {
		return base, s.slice + 1
	}
	j := (t-base)/s.P.Slice + 1
	return base + j*s.P.Slice, s.slice + 1 + j
}

// arm makes sure a strobe comes after time t.
func (s *Sched) arm(t Time) {
	if s.armed {
		return
	}
	at, k := s.gridAfter(t)
	if s.EMDS != nil {
		// The grid's slices skipped while idle, as empty slices.
		for j := s.slice + 1; j < k; j++ {
			st := max(s.start+s.P.Slice, s.end) + (j-s.slice-1)*s.P.Slice
			s.EMDS.idle(j, st, s.P.Slice)
		}
	}
	s.prevStart = s.start
	if k-1 > s.slice {
		s.prevStart = at - s.P.Slice // the last skipped slice began then
	}
	s.next = at
	s.slice = k - 1 // strobe will increment
	s.armed = true
	s.eng.At(at, strobeAction{s})
}

type strobeAction struct{ s *Sched }

func (a strobeAction) Act(now Time) { a.s.strobe(now) }

// Post hands a point-to-point descriptor to the runtime at the current time.
func (s *Sched) Post(d *Desc) {
	d.posted = s.eng.Now()
	d.left = d.Bytes
	s.posted = append(s.posted, d)
	s.arm(d.posted)
}

// Ready says that every member of c has posted it; it will be scheduled in
// the slice after the current one.
func (s *Sched) Ready(c *Coll) {
	c.ready = s.eng.Now()
	c.left = c.Bytes
	s.colls = append(s.colls, c)
	s.arm(c.ready)
}

// Probe returns the first send exchanged to rank that a receive with this
// envelope would match, or nil.
func (s *Sched) Probe(rank, ctx, src, tag int) *Desc {
	r := Desc{Ctx: ctx, Src: src, Tag: tag}
	for _, d := range s.sends[rank] {
		if r.accepts(d) {
			return d
		}
	}
	return nil
}

// Take is Probe for a matched probe: it also takes the send out of
// matching, so that only a receive bound to it (Desc.Bound) can match it.
func (s *Sched) Take(rank, ctx, src, tag int) *Desc {
	r := Desc{Ctx: ctx, Src: src, Tag: tag}
	for i, d := range s.sends[rank] {
		if r.accepts(d) {
			s.sends[rank] = slices.Delete(s.sends[rank], i, i+1)
			return d
		}
	}
	return nil
}

// CancelRecv takes back the receive of rank whose Token is token if no send
// has matched it yet (it is not exchanged, or waits for a send), and
// reports whether it did.
func (s *Sched) CancelRecv(rank int, token any) bool {
	for i, d := range s.posted {
		if !d.Send && d.Owner == rank && d.Token == token {
			s.posted = slices.Delete(s.posted, i, i+1)
			return true
		}
	}
	for i, d := range s.recvs[rank] {
		if d.Token == token {
			s.recvs[rank] = slices.Delete(s.recvs[rank], i, i+1)
			return true
		}
	}
	return false
}

// Pending lists the sends exchanged to rank that no receive has matched,
// in exchange order. The list is the runtime's: read it, do not keep it.
func (s *Sched) Pending(rank int) []*Desc { return s.sends[rank] }

// MarkRestart restarts rank at the next strobe.
func (s *Sched) MarkRestart(rank int) {
	if !s.marked[rank] {
		s.marked[rank] = true
		s.restart = append(s.restart, rank)
	}
	s.arm(s.eng.Now())
}

func (s *Sched) touchNode(n int) {
	if s.outN[n] == 0 && s.inN[n] == 0 && s.budOut[n] == 0 && s.budIn[n] == 0 {
		s.touchedNode = append(s.touchedNode, n)
	}
}

func (s *Sched) clearNodes() {
	for _, n := range s.touchedNode {
		s.outN[n], s.inN[n], s.budOut[n], s.budIn[n] = 0, 0, 0, 0
	}
	s.touchedNode = s.touchedNode[:0]
}

// strobe runs slice k: restarts, then the five microphases, timed from now.
func (s *Sched) strobe(now Time) {
	s.armed = false
	prev := s.prevStart
	s.slice++
	s.start = now
	s.Strobes++
	var rec *SliceRecord
	if s.EMDS != nil {
		rec = s.EMDS.begin(s.slice, now, now-prev)
		if s.EMDS.Blocked != nil {
			s.EMDS.Blocked(rec)
		}
	}
	s.restartRanks(now)

	demStart := now + s.P.Strobe
	demEnd := s.dem(now, demStart, rec)
	sched, msmEnd := s.msm(now, demEnd, rec)
	p2pEnd := s.p2p(now, msmEnd, sched, rec)
	bbEnd := s.bb(p2pEnd, sched)
	t := s.reduce(bbEnd, sched)

	s.end = t
	if s.OnSlice != nil {
		s.OnSlice(s.slice, [7]Time{now, demStart, demEnd, msmEnd, p2pEnd, bbEnd, t})
	}
	if rec != nil {
		s.EMDS.finish(rec, demEnd-demStart, msmEnd-demEnd, t-now)
	}
	if len(s.posted) > 0 || len(s.xfers) > 0 || len(s.volume) > 0 || len(s.colls) > 0 || s.flying > 0 || len(s.restart) > 0 {
		s.arm(now)
	}
}

// restartRanks restarts, at now, the ranks whose operations completed in the
// last slice, in rank order.
func (s *Sched) restartRanks(now Time) {
	sort.Ints(s.restart)
	for _, r := range s.restart {
		s.marked[r] = false
		s.Restart(r, now)
	}
	s.restart = s.restart[:0]
}

// dem is the descriptor exchange microphase of the slice strobed at now,
// from t: send descriptors posted before now go to the receiving node;
// receives stay local. It returns when it ends.
func (s *Sched) dem(now, t Time, rec *SliceRecord) Time {
	p := &s.P
	keep := 0
	maxDesc := 0
	for _, d := range s.posted {
		if d.posted >= now { // posted in the slice that starts now
			s.posted[keep] = d
			keep++
			continue
		}
		node := s.mp.Node(d.Owner)
		s.touchNode(node)
		s.outN[node]++
		maxDesc = max(maxDesc, s.outN[node])
		if rec != nil {
			rec.local(node).NP2PDEM++
		}
		if d.Send {
			dn := s.mp.Node(d.Dst)
			s.touchNode(dn)
			s.inN[dn]++
			maxDesc = max(maxDesc, s.inN[dn])
			s.sends[d.Dst] = append(s.sends[d.Dst], d)
			s.touchRank(d.Dst)
			if s.Exchanged != nil {
				s.Exchanged(d)
			}
		} else {
			s.recvs[d.Owner] = append(s.recvs[d.Owner], d)
			s.touchRank(d.Owner)
		}
	}
	clear(s.posted[keep:])
	s.posted = s.posted[:keep]
	t += p.Micro
	if maxDesc > 0 {
		t += Time(maxDesc)*p.Desc + p.Latency
	}
	if rec != nil {
		for _, n := range s.touchedNode {
			rec.local(n).LTDEM = p.Micro + Time(max(s.outN[n], s.inN[n]))*p.Desc
		}
	}
	s.clearNodes()
	return t
}

// msm is the message scheduling microphase from t: it matches every rank
// that got new descriptors and queries the collectives every member posted
// before now. It returns those collectives, to be scheduled in this slice,
// and when it ends.
func (s *Sched) msm(now, t Time, rec *SliceRecord) ([]*Coll, Time) {
	p := &s.P
	sort.Ints(s.touchedRank)
	maxWork := 0
	for _, r := range s.touchedRank {
		s.rankMark[r] = false
		work := s.match(r, rec)
		node := s.mp.Node(r)
		s.touchNode(node)
		s.outN[node] += work
		maxWork = max(maxWork, s.outN[node])
	}
	s.touchedRank = s.touchedRank[:0]
	if rec != nil {
		for _, n := range s.touchedNode {
			rec.local(n).LTMSM = p.Micro + Time(s.outN[n])*p.Match
		}
	}
	s.clearNodes()
	t += p.Micro + Time(maxWork)*p.Match
	var sched []*Coll
	keepC := 0
	for _, c := range s.colls {
		if c.ready >= now {
			s.colls[keepC] = c
			keepC++
			continue
		}
		sched = append(sched, c)
		t += p.CAW // the global query that all members posted
		if rec != nil {
			rec.NCOLLMSM++
			last := -1
			for _, r := range c.Members { // members are in rank order, a node's ranks together or not
				if n := s.mp.Node(r); n != last {
					l := rec.local(n)
					if l.lastColl != rec.NCOLLMSM {
						l.lastColl = rec.NCOLLMSM
						l.NCOLLMSM++
					}
					last = n
				}
			}
		}
	}
	clear(s.colls[keepC:])
	s.colls = s.colls[:keepC]
	return sched, t
}

// p2p is the point-to-point microphase from t: chunks of matched messages
// within each node's budget, and the data of the volume collectives
// (sched's and those left from earlier slices). It returns when the last
// chunk arrives (or the microstrobe's end if nothing moves).
func (s *Sched) p2p(now, t Time, sched []*Coll, rec *SliceRecord) Time {
	p := &s.P
	t += p.Micro
	p2pStart := t
	end := t
	// Each node's budget is shared: first every transfer gets an equal
	// share of its sender's and receiver's budgets (so a small message is
	// not held back by a large one), then what is left goes in match order.
	for _, d := range s.xfers {
		src, dst := s.mp.Node(d.Owner), s.mp.Node(d.Dst)
		s.touchNode(src)
		s.touchNode(dst)
		s.outN[src]++
		s.inN[dst]++
	}
	moved := s.chunkBuf[:0]
	for pass := 0; pass < 2; pass++ {
		for i, d := range s.xfers {
			src, dst := s.mp.Node(d.Owner), s.mp.Node(d.Dst)
			free := min(p.Capacity-s.budOut[src], p.Capacity-s.budIn[dst])
			if pass == 0 {
				free = min(free, p.Capacity/max(s.outN[src], s.inN[dst]))
				moved = append(moved, 0)
			}
			chunk := min(d.left-moved[i], free)
			if chunk <= 0 && (d.left > 0 || d.moved || pass == 1) {
				continue
			}
			s.budOut[src] += max(chunk, 1)
			s.budIn[dst] += max(chunk, 1)
			moved[i] += chunk
			d.moved = true
		}
	}
	keep := 0
	for i, d := range s.xfers {
		chunk := moved[i]
		if chunk == 0 && d.left > 0 || !d.moved {
			s.xfers[keep] = d
			keep++
			continue
		}
		src, dst := s.mp.Node(d.Owner), s.mp.Node(d.Dst)
		arrive := s.move(src, dst, chunk, p2pStart)
		d.left -= chunk
		s.Chunks++
		if rec != nil {
			rec.local(src).NP2PMSM++
			if dst != src {
				rec.local(dst).NP2PMSM++
			}
			rec.local(src).done(arrive - now)
			rec.local(dst).done(arrive - now)
		}
		end = max(end, arrive)
		if d.left > 0 {
			s.xfers[keep] = d
			keep++
			continue
		}
		s.complete(arrive, d)
	}
	s.chunkBuf = moved[:0]
	clear(s.xfers[keep:])
	s.xfers = s.xfers[:keep]
	s.clearNodes()
	keepV := 0
	for _, c := range s.volume {
		chunk := min(c.left, p.Capacity)
		c.left -= chunk
		arrive := p2pStart + p.Latency + Time(float64(chunk)/p.BytesPerCycle+0.5)
		end = max(end, arrive)
		if c.left > 0 {
			s.volume[keepV] = c
			keepV++
			continue
		}
		s.completeColl(arrive, c)
	}
	clear(s.volume[keepV:])
	s.volume = s.volume[:keepV]
	for _, c := range sched {
		if c.Phase != PhaseVolume {
			continue
		}
		chunk := min(c.left, p.Capacity)
		c.left -= chunk
		arrive := p2pStart + p.Latency + Time(float64(chunk)/p.BytesPerCycle+0.5)
		end = max(end, arrive)
		if c.left > 0 {
			s.volume = append(s.volume, c)
			continue
		}
		s.completeColl(arrive, c)
	}
	return end
}

// bb is the broadcast-and-barrier microphase after the point-to-point one
// ended at end. It returns when it ends.
func (s *Sched) bb(end Time, sched []*Coll) Time {
	p := &s.P
	t := end + p.Micro
	for _, c := range sched {
		if c.Phase == PhaseBcast {
			t = s.broadcast(t, c.Bytes)
			s.completeColl(t, c)
		}
	}
	return t
}

// reduce is the reduce microphase from t: a binomial tree over the members,
// on the network side. It returns when it ends.
func (s *Sched) reduce(t Time, sched []*Coll) Time {
	p := &s.P
	t += p.Micro
	for _, c := range sched {
		if c.Phase == PhaseReduce {
			levels := Time(ceilLog2(len(c.Members)))
			step := p.Latency + Time(float64(c.Bytes)/p.BytesPerCycle+0.5) + Time(max(c.Elems, 1))*p.PerElement
			t += levels * step
			if c.AllToo {
				t = s.broadcast(t, c.Bytes)
			}
			s.completeColl(t, c)
		}
	}
	return t
}

func (s *Sched) touchRank(r int) {
	if !s.rankMark[r] {
		s.rankMark[r] = true
		s.touchedRank = append(s.touchedRank, r)
	}
}

// match pairs rank r's receives, in the order they were posted, with the
// sends exchanged to it, in the order they were exchanged (MPI's order: no
// overtaking between a pair). It returns the descriptors examined.
func (s *Sched) match(r int, rec *SliceRecord) int {
	work := 0
	recvs := s.recvs[r]
	keep := 0
	for _, q := range recvs {
		d := q.Bound
		if d != nil {
			work++
		} else {
			found := -1
			for i, x := range s.sends[r] {
				work++
				if q.accepts(x) {
					found = i
					break
				}
			}
			if found < 0 {
				work++
				recvs[keep] = q
				keep++
				continue
			}
			d = s.sends[r][found]
			s.sends[r] = append(s.sends[r][:found], s.sends[r][found+1:]...)
		}
		q.Match, d.Match = d, q
		s.xfers = append(s.xfers, d)
		s.Matched++
	}
	clear(recvs[keep:])
	s.recvs[r] = recvs[:keep]
	if len(s.sends[r]) == 0 {
		s.sends[r] = nil
	}
	if keep == 0 {
		s.recvs[r] = nil
	}
	return work
}

// move sends n bytes from node src to node dst through the torus from t
// and returns when the last packet arrives.
func (s *Sched) move(src, dst, n int, t Time) Time { return s.bulk.Move(src, dst, n, t) }

// broadcast carries bytes from one node to all from t: the collective
// network if the machine has one, else a pipelined flood over the torus.
func (s *Sched) broadcast(t Time, bytes int) Time {
	p := &s.P
	return t + p.Strobe + Time(float64(bytes)/p.BytesPerCycle+0.5)
}

func (s *Sched) complete(at Time, d *Desc) {
	s.flying++
	s.eng.At(at, doneAction{s, d})
}

type doneAction struct {
	s *Sched
	d *Desc
}

func (a doneAction) Act(now Time) {
	s, d := a.s, a.d
	s.flying--
	q := d.Match
	if d.Done != nil {
		d.Done(now)
	}
	if q.Done != nil {
		q.Done(now)
	}
	s.MarkRestart(d.Owner)
	s.MarkRestart(q.Owner)
}

func (s *Sched) completeColl(at Time, c *Coll) {
	s.flying++
	s.CollsDone++
	s.eng.At(at, collAction{s, c})
}

type collAction struct {
	s *Sched
	c *Coll
}

func (a collAction) Act(now Time) {
	s, c := a.s, a.c
	s.flying--
	if c.Done != nil {
		c.Done(now)
	}
	for _, r := range c.Members {
		s.MarkRestart(r)
	}
}

func ceilLog2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}
