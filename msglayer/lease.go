package msglayer

import (
	"unsafe"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Exact coarsening of lone transfers.
//
// A rendezvous transfer's data flow, alone on its CPUs and links, does the
// same thing wherever it starts and whenever: its events and the state it
// leaves follow from its shape (its length, the way its route runs, its
// CPUs' slots and how long each is still busy when it starts) and from
// nothing else. The first flow of a shape runs aside (a recording): on an
// engine of its own, from its resources' state as it starts and with
// nothing else on them, while the layer logs every event it runs, which of
// its resources (its two CPUs, the links of its routes) each event touches
// last, what it tells the layers above and when (its exits), and the state
// it leaves each resource in; then all it changed is put back. That is the
// shape's template. It also keeps copies of the flow as the events that
// write every ckEvery-th batch and its last batch leave it (checkpoints):
// the trains on their way, the chunks and arbitrations due, the writer's
// next batch if due, the links' and CPUs' states.
//
// A flow of a shape with a template whose resources are idle when it
// starts (the recorded one too) then runs none of its events (a lease):
// its resources are watched, and at the place in the order of events
// where its flow would have touched a resource for the last time, the
// resource takes the state the template says (relative to the flow's
// start); its exits are told there too. Those places are events of their
// own (milestones), with the cycles, priorities and tie keys the flow's
// own events would have had, so the run's order of events is the same. If
// anything else reads or changes a resource still leased (another
// message's head at one of its links, a rank's CPU work), the lease breaks
// first: the flow's events run on an engine of their own up to that event,
// and the flow goes on event by event from there. They run from the last
// checkpoint the lease is past, moved to the flow's start and nodes (as
// when a rank's next message leaves while the last packets of the one
// before are still on the links: the last batch's), else from the flow's
// start. Either way
// every event sees what event-by-event simulation gives it.
//
// A template holds only when the order of the flow's own events of one
// cycle and priority, which their tie keys fix, is the same for the new
// flow (the keys mix in the message's ends), and when adaptive routing
// broke no tie between links by its hash (which mixes in the nodes). A
// shape whose leases keep breaking before the checkpoint is leased less
// and less often (backoff).
//
// Leases are made only where they cannot be told from the events they
// stand for: one process, no observer (traces), the batch grain, a torus
// (not a mesh), in blocks a flow within its partition's block.

// coarsen is the state of the layer's leases and recordings.
type coarsen struct {
	leases    []*lease // by id-1
	freeIDs   []uint32
	templates map[shapeKey]*template
	backoff   map[shapeKey]backoff // shapes whose last recording failed or last lease broke
	acting    uint32               // the recording whose event runs now
	replaying bool                 // a broken lease's events run again: exits are not told again
	tplBytes  int64                // what the templates take (template.size)
	budget    int64                // the most they may take (maxTemplateBytes, this partition's share)
	aside     bool                 // a recording runs on an engine of its own: exits are not told

	CoarseCounts // for tests and --stats
}

// backoff is how a shape whose flows are seldom alone is left to run event
// by event: a recording that makes no template, or a lease that breaks
// before its checkpoint, costs more than the flow's events (it logs them,
// or runs them on an engine of its own after the milestones), so after the
// n-th in a row (strikes) the next 2^n - 1 flows of the shape are neither
// recorded nor leased. A lease to its end forgets them. It goes by the order in which flows of the shape
// start in the partition, which the events fix: the same every run.
type backoff struct {
	strikes uint8
	skip    uint32
}

// maxStrikes bounds the back-off: one flow in 1,024 of a shape still tries.
const maxStrikes = 10

// strike is a recording of shape key that failed or a lease that broke.
func (c *coarsen) strike(key shapeKey) {
	b := c.backoff[key]
	b.strikes = min(b.strikes+1, maxStrikes)
	b.skip = 1<<b.strikes - 1
	c.backoff[key] = b
}

// maxTemplates bounds the templates a layer keeps (each holds its flow's
// events: a few kilobytes a batch), and the shapes it backs off from.
const maxTemplates = 4096

// maxTemplateBytes bounds the memory the templates of a run take, over all
// its partitions (each keeps its share): a flow of a shape seen once makes
// one too, and flows of ever new shapes (their CPUs busy for other times
// as each starts) would otherwise keep adding them. Past it, flows of new
// shapes run event by event.
const maxTemplateBytes = 256 << 20

// size is about the bytes tpl takes.
func (tpl *template) size() int64 {
	n := uintptr(len(tpl.log))*unsafe.Sizeof(logEvent{}) + uintptr(len(tpl.exits))*unsafe.Sizeof(exit{}) +
		uintptr(len(tpl.final))*unsafe.Sizeof(resFinal{}) + uintptr(len(tpl.miles)+len(tpl.groups)+len(tpl.linkAt))*4
	for _, ck := range tpl.cks {
		n += unsafe.Sizeof(*ck) + uintptr(len(ck.links))*unsafe.Sizeof(ckLink{}) +
			uintptr(len(ck.hops))*unsafe.Sizeof(ckTrain{}) + uintptr(len(ck.chunks))*unsafe.Sizeof(ckChunk{}) +
			uintptr(len(ck.arbs))*unsafe.Sizeof(ckArb{})
		for i := range ck.links {
			n += uintptr(len(ck.links[i].heads)) * unsafe.Sizeof(ckTrain{})
		}
	}
	return int64(n)
}

// minLeasePackets is the least packets a flow has for a lease: shorter
// ones run few events, fewer than the bookkeeping costs.
const minLeasePackets = 64

// The resources of a flow: 0 its writer's CPU, 1 its reader's, 2 on the
// links that its routes may take.
const resLinks = 2

// shapeKey is what a flow's events and the state it leaves follow from.
type shapeKey struct {
	total, bytes, per int
	first             Time // the reader's work on the first chunk beyond the others
	adaptive, co      bool
	delta             [3]int32
	wslot, rxslot     int32
	wBusy, rxBusy     Time // how long after the start each CPU is still busy (0: free)
}

// logEvent is one event of a recorded flow: when (from the start), its
// priority and what it is (kind, and the batch's first packet or the
// node or link it acts at, as the tie key takes them).
type logEvent struct {
	t     Time
	prio  int32
	kind  tieKind
	idx   int32 // pump, chunk, hop: the batch's first packet
	place int32 // hop: the node; arbitration: the link
	// events: the flow's events dispatched up to and including this one.
	events uint64
}

// exitKind is what a flow tells the layer above.
type exitKind uint8

const (
	exitWritten  exitKind = iota + 1 // the writer wrote the last packet (written)
	exitReceived                     // the reader read the last one (received)
)

// exit is a flow's telling the layer above, at event ev (in the log).
type exit struct {
	ev   int32
	kind exitKind
	at   Time // written's end, relative to the start
	msg  msgState
}

// msgState is the part of a message that its flow changes, relative to the
// flow's start.
type msgState struct {
	sent, got, sub     int
	lastLeft, nextFree Time
	done               Time
}

// resFinal is the state a flow leaves a resource in, relative to its start.
type resFinal struct {
	last int32 // the log's event that touched it last (-1: never)
	cpu  hw.CPU
	link hw.LinkState
}

// template is a recorded flow.
type template struct {
	from     int // the recorded flow's source node
	msgEnd   msgState
	log      []logEvent
	exits    []exit
	final    []resFinal // per resource: its CPUs, then the links it used
	linkAt   []int32    // the links it used: their places in the box (boxLinks)
	counters hw.Counters
	// The milestones: events of the log at which resources are released or
	// exits are told, in order, the last one the log's last event.
	miles []int32
	// groups lists the log's runs of events of one cycle and priority (the
	// first's index, then the count): their tie keys must come in the same
	// order for a flow that uses the template.
	groups []int32
	// cks are copies of the flow every ckEvery batches and at its writer's
	// last batch (checkpoints), in order: a lease broken past one runs only
	// what is left after it.
	cks []*checkpoint
}

// ckEvery is how many batches a recording writes between checkpoints (and
// one more at its last batch): a 1 MiB transfer has about ten.
const ckEvery = 64

// checkpoint is a recorded flow as its event ck.ev (one that writes a
// batch) leaves it, relative to its start: what a lease broken after that
// event puts in place, translated, to run only the events after it on an
// engine of its own, instead of all of them from the start.
type checkpoint struct {
	ev       int32 // the log's event
	mile     int   // its place in the template's milestones
	events   uint64
	counters hw.Counters // what the flow's events up to it added
	msg      msgState
	cpus     [2]hw.CPU // Free relative to the start, Busy what the flow added
	links    []ckLink  // per link of the template (final's order)
	hops     []ckTrain // trains whose head reaches a node where it chooses
	chunks   []ckChunk // chunks on their way to the reader
	arbs     []ckArb   // arbitrations due (one that moved sooner too)
	pump     Time      // when the writer comes back for its next batch (-1: not due)
}

// ckLink is a link's state in a checkpoint: as LinkSnap gives it (times
// relative, Busy and Bytes what the flow added), the trains waiting for it
// in order, and when it arbitrates (-1: not due).
type ckLink struct {
	snap  hw.LinkSnap
	heads []ckTrain
	arbAt Time
}

// ckTrain is a train of the flow (its head's times relative to the start,
// its nodes the recorded flow's), and when its hop is due (hops only).
type ckTrain struct {
	x  train
	at Time
}

// ckChunk is a chunk due at at (relative to the start).
type ckChunk struct {
	c  chunk
	at Time
}

// ckArb is an arbitration of link r (an index into the template's links)
// due at at.
type ckArb struct {
	r  int
	at Time
}

// recording is a flow being watched to make a template.
type recording struct {
	key    shapeKey
	log    []logEvent
	exits  []exit
	last   []int32 // per resource: the log's last event that touched it
	final  []resFinal
	start  []resFinal  // states at the start (the CPU's busy count, the links' counters)
	cnt0   hw.Counters // the network's counters as the event running began
	counts hw.Counters // what the flow's events added to them
	ties0  int64
	bad    bool
	events uint64
	cks    []*checkpoint // by box link, until makeTemplate
	pumps  int           // the writer's batches so far
}

// lease is a flow watched: recorded, or leased from a template.
type lease struct {
	id    uint32
	l     *Layer
	m     *Message
	t0    Time
	cpus  [2]int32
	links []int32
	rec   *recording
	// A lease from a template:
	tpl      *template
	key      shapeKey
	startCPU [2]hw.CPU
	startLnk []hw.LinkState
	startMsg flow
	released []bool
	mile     int // the next milestone
	counted  uint64
	keys     []uint64 // per milestone: its event's tie key for this flow
	dead     bool
}

// coarseOn reports whether l may lease and record flows now.
func (l *Layer) coarseOn() bool {
	return l.coarse != nil && l.Obs == nil && l.dist == nil && l.grain() == 1 && !l.Map.Torus.Mesh
}

// EnableCoarsening turns exact coarsening on (see lease.go), in every
// partition (after SetPartitions): each leases the flows of its own block.
func (l *Layer) EnableCoarsening() {
	for i := range l.Partitions() {
		v := l.Part(i)
		if v.coarse != nil {
			continue
		}
		v.coarse = &coarsen{templates: map[shapeKey]*template{}, backoff: map[shapeKey]backoff{},
			budget: maxTemplateBytes / int64(l.Partitions())}
		v.net.OnTouch = v.linkTouched
	}
}

// Settle brings every flow still leased when the run stopped to where the
// run stopped (Engine.StopPoint), in every partition, so that the state
// left (statistics, the CPUs, the links) is event-by-event simulation's.
func (l *Layer) Settle() {
	for i := range l.Partitions() {
		v := l.Part(i)
		c := v.coarse
		if c == nil {
			continue
		}
		for _, s := range c.leases {
			if s != nil && s.tpl != nil && !s.dead {
				t, key, act := v.Eng.StopPoint()
				s.breakAt(t, key, act, true)
			}
		}
	}
}

// CoarseCounts is what exact coarsening did: flows recorded, leased, of
// those broken (and of those, broken past a checkpoint of their template:
// only what came after it ran again) and leased to their end, the events
// the leases did not run, and the flows a back-off left to run event by
// event.
type CoarseCounts struct {
	Recorded, Leased, Broken, FromCheck, Completed, NotRun, Skipped int64
}

// Coarsened sums the counts of exact coarsening over every partition.
func (l *Layer) Coarsened() CoarseCounts {
	var k CoarseCounts
	for i := range l.Partitions() {
		if c := l.Part(i).coarse; c != nil {
			k.Recorded += c.Recorded
			k.Leased += c.Leased
			k.Broken += c.Broken
			k.FromCheck += c.FromCheck
			k.Completed += c.Completed
			k.NotRun += c.NotRun
			k.Skipped += c.Skipped
		}
	}
	return k
}

// beginData is startData's hook: it records m's flow, or leases it and
// reports true (then the flow runs none of its events).
func (l *Layer) beginData(t Time, m *Message) bool {
	c := l.coarse
	f := &m.f
	// (startData asks only of rendezvous flows of minLeasePackets or more.)
	if !l.coarseOn() || c.replaying || c.acting != 0 || f.from == f.to || f.w == f.rx || l.Eng.Ended() {
		return false
	}
	b := l.net.Block()
	if l.views != nil && (l.net.BlockOf(int(f.from)) != b || l.net.BlockOf(int(f.to)) != b) {
		return false // only a flow within this partition's block
	}
	// Its CPUs must be no other flow's writer's: a writer writes through
	// its own reference to its CPU (a reader reads through the layer,
	// which tells the leases of the CPUs it reaches). (Read once the flow
	// is known to be within the block: another partition's CPUs are its
	// own thread's to count.)
	if l.cpus[f.w].Watch != 0 || l.cpus[f.rx].Watch != 0 || l.cpus[f.w].Writers != 1 || l.cpus[f.rx].Writers != 0 {
		return false
	}
	links := l.boxLinks(int(f.from), int(f.to), f.adaptive)
	for _, k := range links {
		node := int(k) / hw.NumDirs
		if l.views != nil && (l.net.BlockOf(node) != b || l.net.BlockOf(l.Map.Torus.Neighbor(node, hw.Dir(k%hw.NumDirs))) != b) {
			return false
		}
		if l.net.Watcher(int(k)) != 0 || !l.net.Idle(int(k), t) || l.arbs != nil && l.arbs[k].at >= 0 {
			return false
		}
	}
	key := l.shapeOf(t, m)
	if b, ok := c.backoff[key]; ok && b.skip > 0 {
		b.skip--
		c.backoff[key] = b
		c.Skipped++
		return false
	}
	cpus := [2]int32{f.w, f.rx}
	tpl := c.templates[key]
	if tpl == nil {
		if len(c.templates) >= maxTemplates || c.tplBytes >= c.budget || len(c.backoff) >= maxTemplates {
			return false
		}
		if tpl = l.recordAside(key, t, m, cpus, links); tpl == nil {
			c.strike(key)
			return false
		}
	}
	return l.leaseFrom(tpl, key, t, m, cpus, links)
}

// recordAside runs m's flow, starting at t, on an engine of its own, from
// its resources' state now and with nothing else on them, to make the
// template of shape key; it puts everything the flow changed back as it
// was and returns the template (nil: the flow makes none).
func (l *Layer) recordAside(key shapeKey, t Time, m *Message, cpus [2]int32, links []int32) *template {
	c := l.coarse
	net := l.net
	glob := net.SaveGlobals()
	cpu0 := [2]hw.CPU{l.cpus[cpus[0]], l.cpus[cpus[1]]}
	lnk0 := make([]hw.LinkState, len(links))
	for i, k := range links {
		net.SaveLink(int(k), &lnk0[i])
	}
	f0, got0, done0 := m.f, m.got, m.done
	s := l.record(key, t, m, cpus, links)
	eng := l.Eng
	priv := runtime.NewAt(t)
	l.Eng, c.aside, c.acting = priv, true, s.id
	l.cpuTouched(int(cpus[0]))
	l.pump(t, m)
	s.end()
	ran := priv.RunAll()
	l.Eng, c.aside, c.acting = eng, false, 0
	if !s.dead {
		s.free() // (a flow alone always ends: this is a safeguard)
	}
	tpl := c.templates[key]
	if tpl != nil && ran != s.rec.events {
		// Events of the flow that stood for nothing (an arbitration moved
		// sooner) are not in the log.
		delete(c.templates, key)
		c.tplBytes -= tpl.size()
		tpl = nil
	}
	for i, k := range cpus {
		setCPU(&l.cpus[k], &cpu0[i])
	}
	var hold hw.LinkHold
	for i, k := range links {
		net.HoldLink(int(k), &lnk0[i], &hold)
		if l.arbs != nil {
			l.arbs[k].at = -1
		}
	}
	net.RestoreGlobals(glob)
	m.f, m.got, m.done = f0, got0, done0
	return tpl
}

// shapeOf is m's flow's shape, starting at t.
func (l *Layer) shapeOf(t Time, m *Message) shapeKey {
	f := &m.f
	delta, _ := l.net.Offsets(int(f.from), int(f.to))
	work1, _, _ := l.readCost(m, f.rx, 1, int32(f.per), true)
	work, _, _ := l.readCost(m, f.rx, 1, int32(f.per), false)
	busy := func(i int32) Time { return max(l.cpus[i].Free-t, 0) }
	k := shapeKey{
		total: f.total, bytes: f.bytes, per: f.per, first: work1 - work,
		adaptive: f.adaptive, co: l.isCo(f.rx), delta: delta,
		wslot: f.w % int32(l.M.CPUsPerNode), rxslot: f.rx % int32(l.M.CPUsPerNode),
		wBusy: busy(f.w), rxBusy: busy(f.rx),
	}
	return k
}

// boxLinks lists the links of every minimal route from node a to node c
// (the one route of deterministic routing), in a fixed order.
func (l *Layer) boxLinks(a, c int, adaptive bool) []int32 {
	var out []int32
	if !adaptive {
		for _, h := range l.net.Route(nil, a, c) {
			out = append(out, int32(hw.LinkIndex(int(h.Node), h.Dir)))
		}
		return out
	}
	t := l.Map.Torus
	delta, _ := l.net.Offsets(a, c)
	var dirs [3]hw.Dir
	for d := range 3 {
		dirs[d] = hw.DirOf(d, int(delta[d]))
	}
	nx := t.Neighbor
	x0 := a
	for i := int32(0); i <= abs32(delta[0]); i++ {
		y0 := x0
		for j := int32(0); j <= abs32(delta[1]); j++ {
			node := y0
			for k := int32(0); k <= abs32(delta[2]); k++ {
				for d, left := range [3]bool{i < abs32(delta[0]), j < abs32(delta[1]), k < abs32(delta[2])} {
					if left {
						out = append(out, int32(hw.LinkIndex(node, dirs[d])))
					}
				}
				if k < abs32(delta[2]) {
					node = nx(node, dirs[2])
				}
			}
			if j < abs32(delta[1]) {
				y0 = nx(y0, dirs[1])
			}
		}
		if i < abs32(delta[0]) {
			x0 = nx(x0, dirs[0])
		}
	}
	return out
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// newLease makes a lease watching m's flow's resources.
func (l *Layer) newLease(t Time, m *Message, cpus [2]int32, links []int32) *lease {
	c := l.coarse
	var id uint32
	if n := len(c.freeIDs); n > 0 {
		id = c.freeIDs[n-1]
		c.freeIDs = c.freeIDs[:n-1]
	} else {
		c.leases = append(c.leases, nil)
		id = uint32(len(c.leases))
	}
	s := &lease{id: id, l: l, m: m, t0: t, cpus: cpus, links: links}
	c.leases[id-1] = s
	for _, i := range cpus {
		l.cpus[i].Watch = id
	}
	for _, k := range links {
		l.net.Watch(int(k), id)
	}
	m.lid = id
	return s
}

// unwatch stops watching resource r of s.
func (s *lease) unwatch(r int) {
	if r < resLinks {
		if cpu := &s.l.cpus[s.cpus[r]]; cpu.Watch == s.id {
			cpu.Watch = 0
		}
		return
	}
	if k := int(s.links[r-resLinks]); s.l.net.Watcher(k) == s.id {
		s.l.net.Watch(k, 0)
	}
}

// free ends s: nothing of its flow is watched any more.
func (s *lease) free() {
	c := s.l.coarse
	for r := range resLinks + len(s.links) {
		s.unwatch(r)
	}
	c.leases[s.id-1] = nil
	c.freeIDs = append(c.freeIDs, s.id)
	if s.m.lid == s.id {
		s.m.lid = 0
	}
	s.dead = true
}

// resOfCPU is the resource of s that CPU index i is (-1: none).
func (s *lease) resOfCPU(i int32) int {
	for r, x := range s.cpus {
		if x == i {
			return r
		}
	}
	return -1
}

// resOfLink is the resource of s that link k is (-1: none).
func (s *lease) resOfLink(k int32) int {
	for i, x := range s.links {
		if x == k {
			return resLinks + i
		}
	}
	return -1
}

// saveRes is resource r's state now, relative to t0 (times) and to base
// (counts), if base is given.
func (s *lease) saveRes(r int, out *resFinal) {
	n := s.l.net
	if r < resLinks {
		out.cpu = s.l.cpus[s.cpus[r]]
		return
	}
	n.SaveLink(int(s.links[r-resLinks]), &out.link)
}

// cpuTouched is the hook of every read or change of CPU index i from
// outside its flow's events.
func (l *Layer) cpuTouched(i int) {
	if l.cpus[i].Watch != 0 {
		l.cpuWatched(i)
	}
}

// cpuWatched is cpuTouched of a CPU watched.
func (l *Layer) cpuWatched(i int) {
	if l.views != nil {
		// (The layers above reach every CPU through the first view.)
		l = l.on(i / l.M.CPUsPerNode)
	}
	c := l.coarse
	if c.replaying {
		// (A broken lease's events running again touch its resources
		// as they were, set aside from what holds them now: breakAt.)
		return
	}
	s := c.leases[l.cpus[i].Watch-1]
	s.touched(s.resOfCPU(int32(i)))
}

// linkTouched is the network's OnTouch.
func (l *Layer) linkTouched(k int) {
	if l.views != nil {
		l = l.on(k / hw.NumDirs) // (the statistics read every link through the first view)
	}
	c := l.coarse
	id := l.net.Watcher(k)
	if c == nil || id == 0 || c.replaying {
		return
	}
	s := c.leases[id-1]
	s.touched(s.resOfLink(int32(k)))
}

// touched is resource r of s about to be read or changed.
func (s *lease) touched(r int) {
	c := s.l.coarse
	if rec := s.rec; rec != nil {
		// A recording runs aside (recordAside): only the flow's own
		// events touch its resources.
		if c.acting != s.id {
			panic("msglayer: a recorded flow's resource touched from outside it")
		}
		rec.last[r] = int32(len(rec.log) - 1)
		return
	}
	if !s.released[r] {
		if e := s.l.Eng; e.Ended() {
			// (A rank's process unwinding at the end of a stopped run.)
			t, key, act := e.StopPoint()
			s.breakAt(t, key, act, true)
			return
		}
		s.brk(s.l.Eng.Current())
	}
}

// record starts watching m's flow to make the template of shape key.
func (l *Layer) record(key shapeKey, t Time, m *Message, cpus [2]int32, links []int32) *lease {
	s := l.newLease(t, m, cpus, links)
	nres := resLinks + len(links)
	rec := &recording{key: key, last: make([]int32, nres),
		final: make([]resFinal, nres), start: make([]resFinal, nres),
		cnt0: l.net.Counters(), ties0: l.net.ChoiceTies()}
	for r := range rec.last {
		rec.last[r] = -1
		s.saveRes(r, &rec.start[r])
	}
	rec.log = append(rec.log, logEvent{}) // the start, within the event that starts it
	s.rec = rec
	l.coarse.Recorded++
	return s
}

// begin runs before an event of m's flow (pump, chunk, hop) or of a link
// (arbitration): if it belongs to a recording, it is logged. It returns
// the recording's lease to end with (nil: none).
func (l *Layer) begin(id uint32, prio int32, kind tieKind, idx, place int32) *lease {
	c := l.coarse
	if id == 0 || int(id) > len(c.leases) {
		return nil
	}
	s := c.leases[id-1]
	if s == nil || s.rec == nil {
		return nil
	}
	rec := s.rec
	rec.events++
	rec.log = append(rec.log, logEvent{t: l.Eng.Now() - s.t0, prio: prio, kind: kind, idx: idx, place: place, events: rec.events})
	rec.cnt0 = l.net.Counters()
	c.acting = id
	return s
}

// end runs after an event begin logged: it makes the template once the
// flow is over.
func (s *lease) end() {
	c := s.l.coarse
	c.acting = 0
	if s.dead {
		return
	}
	rec := s.rec
	rec.counts = rec.counts.Add(s.l.net.Counters().Sub(rec.cnt0))
	if c.aside && rec.log[len(rec.log)-1].kind == tiePump {
		rec.pumps++
		n := len(rec.exits)
		if last := n > 0 && rec.exits[n-1].kind == exitWritten && rec.exits[n-1].ev == int32(len(rec.log)-1); last || rec.pumps%ckEvery == 0 {
			s.capture()
		}
	}
	m := s.m
	if m.got < m.f.total || m.f.sent < m.f.total {
		return
	}
	for _, k := range s.links {
		if s.l.arbs[k].at >= 0 || !s.l.net.Quiet(int(k)) {
			return
		}
	}
	if s.l.net.ChoiceTies() != rec.ties0 {
		rec.bad = true
	}
	if !rec.bad {
		s.l.makeTemplate(s)
	}
	s.free()
}

// exitHook records or suppresses a flow's exit: it reports false if the
// exit must not be told (a recording running aside, whose exits the lease
// from its template tells, or a broken lease's events running again).
func (l *Layer) exitHook(m *Message, kind exitKind, at Time) bool {
	c := l.coarse
	if c.replaying {
		return false
	}
	if m.lid == 0 || !c.aside || c.acting != m.lid {
		return true
	}
	s := c.leases[m.lid-1]
	rec := s.rec
	rec.exits = append(rec.exits, exit{ev: int32(len(rec.log) - 1), kind: kind, at: at - s.t0, msg: s.msgNow()})
	return false
}

// msgNow is the flow's part of s's message now, relative to its start.
func (s *lease) msgNow() msgState {
	m := s.m
	f := &m.f
	return msgState{sent: f.sent, got: m.got, sub: f.sub, lastLeft: f.lastLeft - s.t0, nextFree: f.nextFree - s.t0, done: m.done - s.t0}
}

// setMsg sets s's message's flow state from st.
func (s *lease) setMsg(st *msgState) {
	m := s.m
	f := &m.f
	f.sent, m.got, f.sub = st.sent, st.got, st.sub
	f.lastLeft, f.nextFree, m.done = st.lastLeft+s.t0, st.nextFree+s.t0, st.done+s.t0
}

// makeTemplate makes the template of s's recording, over.
func (l *Layer) makeTemplate(s *lease) {
	rec := s.rec
	tpl := &template{from: int(s.m.f.from), msgEnd: s.msgNow(), log: rec.log, exits: rec.exits, final: rec.final,
		counters: rec.counts}
	for r := range rec.final {
		fin := &tpl.final[r]
		s.saveRes(r, fin)
		fin.last = rec.last[r]
		st := &rec.start[r]
		if r < resLinks {
			fin.cpu.Free -= s.t0
			fin.cpu.Busy -= st.cpu.Busy
			continue
		}
		fin.link.Shift(-s.t0)
		fin.link.Busy -= st.link.Busy
		fin.link.Bytes -= st.link.Bytes
		fin.link.Labels = nil // (the flow's bytes go under its own label: release)
	}
	miles := map[int32]bool{int32(len(rec.log) - 1): true}
	// The links of the box the flow never looked at are not its.
	final := tpl.final[:resLinks]
	for r := range tpl.final {
		switch last := tpl.final[r].last; {
		case last < 0 && r >= resLinks:
			continue
		case last <= 0:
			return // a CPU never used, or a resource only used as it started
		}
		miles[tpl.final[r].last] = true
		if r >= resLinks {
			final = append(final, tpl.final[r])
			tpl.linkAt = append(tpl.linkAt, int32(r-resLinks))
		}
	}
	tpl.final = final
	for _, x := range tpl.exits {
		if x.ev <= 0 {
			return
		}
		miles[x.ev] = true
	}
	for _, ck := range rec.cks {
		miles[ck.ev] = true // (a lease knows it is past a checkpoint by its milestones)
	}
	for i := range rec.log {
		if miles[int32(i)] {
			tpl.miles = append(tpl.miles, int32(i))
		}
	}
	for i := 1; i < len(rec.log); {
		j := i + 1
		for j < len(rec.log) && rec.log[j].t == rec.log[i].t && rec.log[j].prio == rec.log[i].prio {
			j++
		}
		if j-i > 1 {
			tpl.groups = append(tpl.groups, int32(i), int32(j-i))
		}
		i = j
	}
	for _, ck := range rec.cks {
		if ck = tpl.placeCheckpoint(ck); ck != nil {
			tpl.cks = append(tpl.cks, ck)
		}
	}
	l.coarse.templates[rec.key] = tpl
	l.coarse.tplBytes += tpl.size()
}

// translate is node moved by the offset from node a to node b.
func (l *Layer) translate(node, a, b int) int {
	t := l.Map.Torus
	x, y, z := t.NodeCoord(node)
	ax, ay, az := t.NodeCoord(a)
	bx, by, bz := t.NodeCoord(b)
	return t.NodeIndex((x+bx-ax+t.X)%t.X, (y+by-ay+t.Y)%t.Y, (z+bz-az+t.Z)%t.Z)
}

// eventKey is the tie key of the flow's event ev of tpl in lease s, whose
// template was recorded from a flow starting at node from.
func (s *lease) tieOf(ev *logEvent, from int) uint64 {
	m := s.m
	f := &m.f
	switch ev.kind {
	case tiePump:
		return placedTie(int(f.w), f.tie, int(ev.idx), tiePump)
	case tieChunk:
		return placedTie(int(f.rx), f.tie, int(ev.idx), tieChunk)
	case tieHop:
		node := s.l.translate(int(ev.place), from, int(f.from))
		return placedTie(node, trainKey(m, int(ev.idx), false, 0), 0, tieHop)
	case tieArb:
		link := int(ev.place)
		node := s.l.translate(link/hw.NumDirs, from, int(f.from))
		return placeTie(tieArb, node*hw.NumDirs+link%hw.NumDirs)
	}
	panic("msglayer: an event of a flow of no kind")
}

// leaseFrom leases m's flow from tpl, starting at t, if the template's
// order of events holds for it.
func (l *Layer) leaseFrom(tpl *template, key shapeKey, t Time, m *Message, cpus [2]int32, links []int32) bool {
	s := &lease{m: m, l: l}
	from := tpl.from
	for g := 0; g < len(tpl.groups); g += 2 {
		i, n := tpl.groups[g], tpl.groups[g+1]
		prev := s.tieOf(&tpl.log[i], from)
		for j := i + 1; j < i+n; j++ {
			k := s.tieOf(&tpl.log[j], from)
			if k <= prev {
				return false
			}
			prev = k
		}
	}
	keys := make([]uint64, len(tpl.miles))
	for j, i := range tpl.miles {
		keys[j] = s.tieOf(&tpl.log[i], from)
	}
	used := make([]int32, len(tpl.linkAt))
	for i, p := range tpl.linkAt {
		used[i] = links[p]
	}
	s = l.newLease(t, m, cpus, used)
	s.tpl, s.keys, s.key = tpl, keys, key
	s.startCPU = [2]hw.CPU{l.cpus[cpus[0]], l.cpus[cpus[1]]}
	s.startLnk = make([]hw.LinkState, len(used))
	for i, k := range used {
		l.net.SaveLink(int(k), &s.startLnk[i])
	}
	s.startMsg = m.f
	s.released = make([]bool, resLinks+len(used))
	l.coarse.Leased++
	s.schedule()
	return true
}

// milestone is the event of a lease's next milestone.
type milestone lease

func (p *milestone) Act(now Time) { (*lease)(p).reach() }

func (p *milestone) Tie() runtime.Tie {
	s := (*lease)(p)
	ev := &s.tpl.log[s.tpl.miles[s.mile]]
	m := s.m
	switch ev.kind {
	case tiePump:
		return fullTie(m, int(m.f.w), tiePump, int(ev.idx), false, 0)
	case tieChunk:
		return fullTie(m, int(m.f.rx), tieChunk, int(ev.idx), false, 0)
	case tieHop:
		return fullTie(m, s.l.translate(int(ev.place), s.tpl.from, int(m.f.from)), tieHop, int(ev.idx), false, 0)
	}
	return runtime.Tie{}
}

// schedule queues s's next milestone.
func (s *lease) schedule() {
	i := s.tpl.miles[s.mile]
	ev := &s.tpl.log[i]
	s.l.Eng.ScheduleKey(s.t0+ev.t, ev.prio, s.keys[s.mile], (*milestone)(s))
}

// reach is s's next milestone: the resources its flow is done with take
// their state, and the layer above is told what the flow tells it there.
func (s *lease) reach() {
	if s.dead {
		// The lease broke: its flow's events ran instead, and this one
		// stands for none.
		s.l.Eng.Void()
		return
	}
	l := s.l
	tpl := s.tpl
	i := tpl.miles[s.mile]
	for r := range tpl.final {
		if tpl.final[r].last != i {
			continue
		}
		s.release(r)
	}
	ev := &tpl.log[i]
	l.Eng.AddEvents(int64(ev.events-s.counted) - 1) // (the milestone is one)
	s.counted = ev.events
	last := s.mile == len(tpl.miles)-1
	if last {
		l.net.AddCounters(tpl.counters)
		l.coarse.Completed++
		delete(l.coarse.backoff, s.key)
		l.coarse.NotRun += int64(ev.events) - int64(len(tpl.miles))
	}
	for j := range tpl.exits {
		x := &tpl.exits[j]
		if x.ev != i {
			continue
		}
		s.setMsg(&x.msg)
		switch x.kind {
		case exitWritten:
			l.cpus[s.m.f.w].Writers--
			l.written(s.t0+x.at, s.m)
		case exitReceived:
			l.received(s.m, l.Eng.Now())
		}
		if s.dead {
			return // an exit touched a resource still leased: the lease broke
		}
	}
	if last {
		s.setMsg(&tpl.msgEnd)
		s.free()
		return
	}
	s.mile++
	s.schedule()
}

// release gives resource r of s the state the template leaves it in.
func (s *lease) release(r int) {
	fin := &s.tpl.final[r]
	s.released[r] = true
	s.unwatch(r)
	if r < resLinks {
		cpu := &s.l.cpus[s.cpus[r]]
		cpu.Free = fin.cpu.Free + s.t0
		cpu.Busy = s.startCPU[r].Busy + fin.cpu.Busy
		return
	}
	st := &s.startLnk[r-resLinks]
	var ls hw.LinkState
	ls.Free, ls.RR, ls.Room = fin.link.Free, fin.link.RR, fin.link.Room
	ls.Pend = append(ls.Pend, fin.link.Pend...)
	ls.Shift(s.t0)
	ls.Busy, ls.Bytes = st.Busy+fin.link.Busy, st.Bytes+fin.link.Bytes
	ls.Labels = append(ls.Labels, st.Labels...)
	if s.m.Label != 0 && fin.link.Bytes != 0 {
		// Every byte the flow puts on a link counts under its label.
		ls.Labels = addLabel(ls.Labels, s.m.Label, fin.link.Bytes)
	}
	s.l.net.RestoreLink(int(s.links[r-resLinks]), &ls)
}

// addLabel adds b bytes under label to ls, as a link counts them (a label
// new to it goes last).
func addLabel(ls []hw.LabelBytes, label int32, b int64) []hw.LabelBytes {
	for i := range ls {
		if ls[i].Label == label {
			ls[i].Bytes += b
			return ls
		}
	}
	return append(ls, hw.LabelBytes{Label: label, Bytes: b})
}

// brk breaks s: its flow's events run from its start (or its template's
// checkpoint) up to the event that runs now, and the flow goes on event by
// event.
func (s *lease) brk(t Time, key uint64, act runtime.Action) { s.breakAt(t, key, act, false) }

// breakAt is brk up to the event of time t, key key and action act (or,
// over, where the run stopped).
func (s *lease) breakAt(t Time, key uint64, act runtime.Action, over bool) {
	l := s.l
	c := l.coarse
	c.Broken++
	var ck *checkpoint // the last one the lease is past
	for _, k := range s.tpl.cks {
		if k.mile < s.mile {
			ck = k
		}
	}
	if ck == nil {
		c.strike(s.key)
	} else {
		c.FromCheck++
		c.NotRun += int64(ck.events) - int64(s.mile) // (each milestone reached ran as an event)
	}
	eng := l.Eng
	if l.arbs == nil {
		l.initArbs()
	}
	// The resources already released that the events to run touch are set
	// aside while those run from their state at the start or the
	// checkpoint (other traffic may use them now), then put back.
	type held struct {
		cpu  hw.CPU
		link hw.LinkHold
		at   Time
	}
	var later []held
	var skip []bool
	for r, done := range s.released {
		if ck != nil && s.tpl.final[r].last <= ck.ev {
			// The events after the checkpoint never touch it.
			if skip == nil {
				skip = make([]bool, len(s.released))
			}
			skip[r] = true
			continue
		}
		if done {
			if later == nil {
				later = make([]held, len(s.released))
			}
			h := &later[r]
			if r < resLinks {
				h.cpu = l.cpus[s.cpus[r]]
			} else {
				k := s.links[r-resLinks]
				l.net.HoldLink(int(k), &s.startLnk[r-resLinks], &h.link)
				h.at = l.arbs[k].at
				l.arbs[k].at = -1
			}
		}
		if ck == nil {
			s.restoreStart(r)
		}
	}
	s.free()
	m := s.m
	m.f = s.startMsg
	m.got, m.done = 0, 0
	var priv *runtime.Engine
	if ck == nil {
		priv = runtime.NewAt(s.t0)
		l.Eng = priv
		c.replaying = true
		l.pump(s.t0, m)
	} else {
		priv = runtime.NewAt(s.t0 + s.tpl.log[ck.ev].t)
		l.Eng = priv
		c.replaying = true
		s.restoreCheckpoint(ck, skip)
	}
	ran := priv.RunBefore(t, key, act)
	c.replaying = false
	l.Eng = eng
	priv.MoveTo(eng)
	if over && ran > 0 {
		// (Only an event run moves the clock: a flow may start later
		// than the event that starts it.)
		eng.Reach(priv.Now())
	}
	if ck != nil {
		ran += ck.events
	}
	eng.AddEvents(int64(ran) - int64(s.counted))
	for r, done := range s.released {
		if !done || skip != nil && skip[r] {
			continue
		}
		h := &later[r]
		if r < resLinks {
			setCPU(&l.cpus[s.cpus[r]], &h.cpu)
			continue
		}
		k := s.links[r-resLinks]
		l.net.PutLink(int(k), &h.link)
		l.arbs[k].at = h.at
	}
}

// restoreCheckpoint puts s's flow where its template's checkpoint ck has
// it, moved to s's start and nodes, on the layer's engine (one of s's own):
// the message's state, the resources the events after ck touch (all but
// skip's), the trains on their way, the chunks due, the arbitrations due,
// and the network's totals as the events up to ck left them.
func (s *lease) restoreCheckpoint(ck *checkpoint, skip []bool) {
	l := s.l
	m := s.m
	f := &m.f
	s.setMsg(&ck.msg)
	l.net.AddCounters(ck.counters)
	from := s.tpl.from
	node := func(n int) int { return l.translate(n, from, int(f.from)) }
	link := func(k int32) int32 {
		if k < 0 {
			return k
		}
		return int32(node(int(k)/hw.NumDirs)*hw.NumDirs) + k%hw.NumDirs
	}
	newTrain := func(y *ckTrain) *train {
		x := l.newTrain()
		*x = y.x
		x.root, x.m, x.rx = l.Part(0), m, f.rx
		x.h.CopyMoved(&y.x.h, node, s.t0, trainKey(m, int(x.idx), false, 0), x)
		x.h.Label = m.Label
		return x
	}
	for r := range resLinks {
		if skip != nil && skip[r] {
			continue
		}
		cpu := &l.cpus[s.cpus[r]]
		cpu.Free = ck.cpus[r].Free + s.t0
		cpu.Busy = s.startCPU[r].Busy + ck.cpus[r].Busy
	}
	var heads []*hw.Head
	for j := range ck.links {
		r := resLinks + j
		k := s.links[j]
		if skip != nil && skip[r] {
			continue
		}
		cl := &ck.links[j]
		st := &s.startLnk[j]
		snap := cl.snap.Copy()
		snap.Shift(s.t0)
		snap.State.Busy += st.Busy
		snap.State.Bytes += st.Bytes
		snap.State.Labels = append([]hw.LabelBytes(nil), st.Labels...)
		if m.Label != 0 && cl.snap.State.Bytes != 0 {
			snap.State.Labels = addLabel(snap.State.Labels, m.Label, cl.snap.State.Bytes)
		}
		heads = heads[:0]
		for i := range cl.heads {
			heads = append(heads, &newTrain(&cl.heads[i]).h)
		}
		l.net.PlaceLink(int(k), &snap, heads)
		l.arbs[k].at = -1
		if cl.arbAt >= 0 {
			l.arbs[k].at = cl.arbAt + s.t0
		}
	}
	for i := range ck.hops {
		x := newTrain(&ck.hops[i])
		l.Eng.AtKey(ck.hops[i].at+s.t0, trainTie(&x.h, tieHop), (*trainHop)(x))
	}
	for i := range ck.chunks {
		y := &ck.chunks[i]
		cc := l.newChunk()
		*cc = y.c
		cc.m, cc.rx, cc.last, cc.link = m, f.rx, y.c.last+s.t0, link(y.c.link)
		l.Eng.AtKey(y.at+s.t0, placedTie(int(cc.rx), f.tie, int(cc.idx), tieChunk), cc)
	}
	for _, a := range ck.arbs {
		k := s.links[a.r]
		l.Eng.ScheduleKey(a.at+s.t0, prioLink, placeTie(tieArb, int(k)), &l.arbs[k])
	}
	if ck.pump >= 0 {
		l.schedulePump(ck.pump+s.t0, m)
	}
}

// restoreStart puts resource r of s back in its state at the start.
func (s *lease) restoreStart(r int) {
	if r < resLinks {
		setCPU(&s.l.cpus[s.cpus[r]], &s.startCPU[r])
		return
	}
	s.l.net.RestoreLink(int(s.links[r-resLinks]), &s.startLnk[r-resLinks])
}

// setCPU sets a CPU's time and work to src's (its Watch stays).
func setCPU(dst, src *hw.CPU) { dst.Free, dst.Busy = src.Free, src.Busy }

// capture copies the flow of s's recording (aside: the engine holds its
// events only) as its event now leaves it: the recording's checkpoint.
func (s *lease) capture() {
	l := s.l
	rec := s.rec
	ck := &checkpoint{ev: int32(len(rec.log) - 1), events: rec.events, counters: rec.counts, msg: s.msgNow(), pump: -1}
	for i, k := range s.cpus {
		ck.cpus[i] = l.cpus[k]
		ck.cpus[i].Free -= s.t0
		ck.cpus[i].Busy -= rec.start[i].cpu.Busy
	}
	same := func(n int) int { return n }
	ok := true
	snapTrain := func(x *train, at Time) ckTrain {
		if x.m != s.m || x.ctl || x.st != nil {
			ok = false
		}
		y := ckTrain{x: *x, at: at - s.t0}
		y.x.m, y.x.root = nil, nil
		y.x.h.CopyMoved(&x.h, same, -s.t0, 0, nil)
		return y
	}
	l.Eng.EachPending(func(t Time, _ uint64, act runtime.Action) {
		switch a := act.(type) {
		case *chunk:
			if a.m != s.m {
				ok = false
				return
			}
			y := ckChunk{c: *a, at: t - s.t0}
			y.c.m = nil
			y.c.last -= s.t0
			ck.chunks = append(ck.chunks, y)
		case *trainHop:
			ck.hops = append(ck.hops, snapTrain((*train)(a), t))
		case *pumpAct:
			if (*Message)(a) != s.m || ck.pump >= 0 {
				ok = false
				return
			}
			ck.pump = t - s.t0
		case *linkArb:
			r := s.resOfLink(a.link)
			if r < 0 {
				ok = false
				return
			}
			ck.arbs = append(ck.arbs, ckArb{r: r - resLinks, at: t - s.t0})
		default:
			ok = false
		}
	})
	ck.links = make([]ckLink, len(s.links))
	for i, k := range s.links {
		cl := &ck.links[i]
		l.net.SnapLink(int(k), &cl.snap, func(h *hw.Head) {
			cl.heads = append(cl.heads, snapTrain(h.Ref.(*train), 0))
		})
		cl.snap.Shift(-s.t0)
		st := &rec.start[resLinks+i].link
		cl.snap.State.Busy -= st.Busy
		cl.snap.State.Bytes -= st.Bytes
		cl.snap.State.Labels = nil
		cl.arbAt = -1
		if l.arbs != nil && l.arbs[k].at >= 0 {
			cl.arbAt = l.arbs[k].at - s.t0
		}
	}
	if ok {
		rec.cks = append(rec.cks, ck)
	}
}

// placeCheckpoint has the template's checkpoint's links, in final's order
// (from the box's): nil if a link the flow never used holds anything.
func (tpl *template) placeCheckpoint(ck *checkpoint) *checkpoint {
	if ck == nil {
		return nil
	}
	at := map[int]int{}
	for j, b := range tpl.linkAt {
		at[int(b)] = j
	}
	links := make([]ckLink, len(tpl.linkAt))
	for b := range ck.links {
		j, ok := at[b]
		if !ok {
			if len(ck.links[b].heads) > 0 || ck.links[b].arbAt >= 0 {
				return nil
			}
			continue
		}
		links[j] = ck.links[b]
	}
	arbs := ck.arbs[:0:0]
	for _, a := range ck.arbs {
		j, ok := at[a.r]
		if !ok {
			return nil
		}
		arbs = append(arbs, ckArb{r: j, at: a.at})
	}
	ck.links, ck.arbs = links, arbs
	ck.mile = -1
	for i, e := range tpl.miles {
		if e == ck.ev {
			ck.mile = i
		}
	}
	if ck.mile < 0 {
		return nil
	}
	return ck
}
