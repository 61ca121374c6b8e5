// Package mpi gives MPI semantics over the message layer: ranks, communicators
// with isolated matching, point-to-point requests in MPI's non-overtaking
// order, and collective algorithms built on point-to-point. Every call runs on
// the calling rank's process and charges its software costs to the rank's CPU.
package mpi

import (
	"fmt"
	"strings"
	"sync"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// Time is virtual time in cycles.
type Time = runtime.Time

// Wildcards and special values, as in MPI.
const (
	AnySource = -1
	AnyTag    = -1
	Undefined = -32766
	ProcNull  = -2
)

// EnvelopeBytes is the MPI envelope (source, tag, context, size) carried in the
// first packet of every message.
const EnvelopeBytes = 16

// World is one MPI job: every rank, their message queues and the communicator
// contexts they share.
type World struct {
	Eng *runtime.Engine
	ml  *msglayer.Layer
	m   *msglayer.Machine
	// ComputeFactor scales mpi.compute (1 + VNComputePenalty in virtual-node mode).
	ComputeFactor float64
	// Seed seeds the random choices of algorithms (--seed).
	Seed int64

	ranks   []*Rank
	algs    map[string]string // collective -> algorithm chosen for this run
	params  map[string]Params // collective -> the parameters of its algorithm
	ext     *extTable         // algorithms registered from Lua for this run
	hwc     *treeState        // collective and global-interrupt networks
	algRec  algRecords        // the algorithms that ran (coll_record.go)
	io      *msglayer.IONodes // made on first output; nil if none are modeled
	ioMade  bool
	tr      transport                // point-to-point: direct, or bcs
	bcs     *bcsState                // the buffered coscheduling runtime, if used
	splits  map[splitKey]*splitTable // Split calls under way
	ctxs    ctxTable                 // the context ids given (ids.go)
	splitMu sync.Mutex               // splits and their tables, in partitions
	hwcMu   sync.Mutex               // making hwc, in partitions
	// The collective calls' signatures, shared by every call with the
	// same arguments (agree.go), under sigMu in partitions.
	sigs  map[callSig]*callSig
	sigMu sync.Mutex
	// labels numbers the collectives of link accounting (links.go).
	labels labelTable

	// In partitions (the layer's SetPartitions before NewWorld): parted is
	// set, counts has one entry per partition (counts[0] is the World's own
	// Counts) and ios one I/O model per partition.
	parted  bool
	payload msglayer.PayloadCodec // over several processes: the values' codec (Crossing)
	// members is, over several processes, a handle of this process's
	// ranks on each communicator that joins came for (memberOf).
	members map[int]*Comm
	// tellAll tells every other process of a run over several what a
	// is (SetTell).
	tellAll func(from *runtime.Engine, a runtime.Action)
	counts  []*Counts
	ios     []*msglayer.IONodes // per partition: its psets' daemons, made on first use
	iosMade []bool

	// Progress is who advances the ranks' nonblocking collectives
	// (nbc.go); set it before the run.
	Progress ProgressModel
	// OnSwitch, if set, is called with the context that goes on acting
	// for a rank each time one of a rank's processes gets the baton back,
	// once the rank has started a nonblocking collective (its progress
	// contexts and its own process): the layer above keeps its per-rank
	// state following the one that runs (nbc.go).
	OnSwitch func(r *Rank)
	// OnCollective, if set, is called by a progress context when the
	// nonblocking collective coll (its i-name) that ran algorithm alg
	// completes, with when it started (now is its end) and the payload
	// bytes its algorithm sent; under the bcs runtime, for a call the
	// runtime carried out, with the rank itself and the bytes it brought.
	// track numbers the progress track to draw it on (the context's index).
	OnCollective func(x *Rank, track int, coll, alg string, start Time, bytes int64)

	// Tracer, if set, sees every message leave its sender and complete at its
	// receiver (Chrome trace flow arrows): rank is the end's, peer the other
	// end's.
	// Both ends carry the payload bytes and tag; the start the protocol
	// and the collective that sent it ("allreduce (ring)"; "" outside
	// collectives).
	Tracer interface {
		Flow(start bool, id int64, rank, peer int, t Time, bytes, tag int, protocol, coll string)
	}

	// Counts of the run, or in partitions of partition 0 (TotalMessages,
	// TotalBytes sum them over the partitions).
	Counts
}

// Counts counts point-to-point messages and their payload bytes,
// collectives' included; and holds the partition's pools of send boxes
// and of messages (pool.go). 64 bytes: partitions' counts on their own
// cache lines.
type Counts struct {
	Messages, Bytes int64
	boxes           []*sendBox
	msgs            []*msgBox
}

// TotalMessages is the number of point-to-point messages of every partition.
func (w *World) TotalMessages() int64 {
	var n int64
	for _, c := range w.counts {
		n += c.Messages
	}
	return n
}

// TotalBytes is the payload of every partition's point-to-point messages.
func (w *World) TotalBytes() int64 {
	var n int64
	for _, c := range w.counts {
		n += c.Bytes
	}
	return n
}

// Parted reports whether the world runs in partitions.
func (w *World) Parted() bool { return w.parted }

// A OnePartitionError stops a run in partitions that reached something
// modeled for a run of one partition only (the torus broadcast and the
// optimized alltoall, which drive the torus hardware from every node; the
// ml module's thread units): the caller should have chosen one partition
// for such a run (bglua decides before the run), so it is a mistake of the
// caller, reported rather than modeled wrongly.
type OnePartitionError struct {
	What string
	Rank int
	Time Time
}

func (e *OnePartitionError) Error() string {
	return fmt.Sprintf("mpi: %s needs a run in one partition (rank %d, cycle %d)", e.What, e.Rank, e.Time)
}

// NeedOnePartition stops a run in partitions at what, which only a run of
// one partition models (the caller's own layers above, e.g. the ml module's
// thread units), and ends the rank's process; elsewhere it does
// nothing.
func (r *Rank) NeedOnePartition(what string) { r.needOne(what) }

// EndWindow is called, in a run in partitions, at the end of every window
// (runtime.Group.AfterWindow), with every partition at rest: it completes
// the hardware collectives whose last member joined in the window before.
func (w *World) EndWindow(end Time) {
	if w.hwc != nil {
		w.hwc.endWindow(w, end)
	}
}

// locked locks mu in a run in partitions, where ranks of several partitions
// share what it guards, and returns its unlock; alone it does nothing.
func (w *World) locked(mu *sync.Mutex) (unlock func()) {
	if !w.parted {
		return func() {}
	}
	mu.Lock()
	return mu.Unlock
}

// Part is the partition the rank runs on (0 in a run of one).
func (r *Rank) Part() int { return r.part }

// Partitions is the number of partitions the world runs in (1 alone).
func (w *World) Partitions() int { return len(w.counts) }

// needOne stops a run in partitions at what, which only a run of one
// partition models, and ends the rank's process; elsewhere it does nothing.
func (r *Rank) needOne(what string) {
	if !r.w.parted {
		return
	}
	r.Proc.Engine().Stop(&OnePartitionError{What: what, Rank: r.ID, Time: r.Now()})
	r.Proc.Exit()
}

type ctxKey struct {
	parent, seq, color int
}

// NewWorld creates a job of size ranks over the message layer. A layer in
// partitions (msglayer.Layer.SetPartitions, called before) gives a world in
// partitions: each rank's process runs on its node's partition (Attach), its
// calls run there, counters are kept per partition, and the I/O daemon of a
// pset runs in the partition of its first node (outputParted). What only a
// run of one partition models stops the run with a *OnePartitionError
// (needOne).
func NewWorld(ml *msglayer.Layer, size int) *World {
	w := &World{Eng: ml.Eng, ml: ml, m: ml.M, ComputeFactor: 1, ranks: make([]*Rank, size)}
	w.tr = direct{w}
	w.counts = []*Counts{&w.Counts}
	if n := ml.Partitions(); n > 1 {
		w.parted = true
		for range n - 1 {
			w.counts = append(w.counts, &Counts{})
		}
		w.ios = make([]*msglayer.IONodes, n)
		w.iosMade = make([]bool, n)
	}
	return w
}

// Output charges rank r for writing bytes of output now: the write is
// function-shipped to its pset's I/O node (msglayer.IONodes) and the rank waits
// for the reply. Nothing happens on a machine without I/O nodes.
func (r *Rank) Output(bytes int) {
	w := r.w
	if w.parted {
		r.outputParted(bytes)
		return
	}
	if !w.ioMade {
		w.io, w.ioMade = w.ml.NewIONodes(), true
	}
	if w.io == nil {
		return
	}
	done, cpu := w.io.Write(w.ml.Map.Node(r.ID), r.Now(), bytes)
	r.busy(cpu)
	r.Proc.SleepUntil(max(done, w.ml.CPU(r.ID).Free))
}

// outputParted is Output in partitions. The write's packets reach the I/O
// node of the rank's pset, whose daemon belongs to the partition of the
// pset's first node (a pset may span blocks), as an event there; the reply
// wakes the rank. Both take at least the lookahead (on BG/L the tree's way
// to the I/O node is longer already).
func (r *Rank) outputParted(bytes int) {
	w := r.w
	if w.m.PsetNodes <= 0 || !w.m.HasTree() {
		return
	}
	now := r.Now()
	up, cpu := w.ml.IOShip(now, bytes)
	r.busy(cpu)
	e := r.Proc.Engine()
	look := e.Group().Lookahead()
	ps := w.ml.Map.Node(r.ID) / w.m.PsetNodes
	owner := w.ml.ForNode(ps * w.m.PsetNodes).Eng
	x := &ioWrite{r: r, ps: ps, bytes: bytes}
	if owner == e {
		e.At(up, x)
	} else {
		e.Send(owner, max(up, now+look), runtime.PrioModel, x)
	}
	r.ioWait = true
	for r.ioWait {
		r.Proc.Block(r.waiting(WaitInfo{Call: "print", Peer: NoPeer, Note: "waiting for the I/O node"}))
	}
	r.sync()
}

// ioWrite is a rank's write arriving at its pset's I/O node.
type ioWrite struct {
	r     *Rank
	ps    int
	bytes int
}

func (x *ioWrite) Act(now Time) {
	w := x.r.w
	e := w.ml.ForNode(x.ps * w.m.PsetNodes).Eng
	i := max(e.Part(), 0)
	if !w.iosMade[i] {
		w.ios[i], w.iosMade[i] = w.ml.NewIONodes(), true
	}
	done := w.ios[i].Serve(x.ps, now, x.bytes)
	// (The rank's partition by its node: over processes the rank's
	// process is not this one's.)
	if re := w.ml.ForRank(x.r.ID).Eng; re == e {
		e.At(done, (*ioDone)(x.r))
	} else {
		e.Send(re, max(done, now+e.Group().Lookahead()), runtime.PrioModel, (*ioDone)(x.r))
	}
}

// ioDone is the I/O node's reply, back at the rank.
type ioDone Rank

func (d *ioDone) Act(now Time) {
	r := (*Rank)(d)
	r.ioWait = false
	r.wake()
}

// Size is the number of ranks.
func (w *World) Size() int { return len(w.ranks) }

// Rank returns rank i's state (nil before Attach).
func (w *World) Rank(i int) *Rank { return w.ranks[i] }

// Attach binds rank id to the process that runs it and returns its state.
func (w *World) Attach(id int, p *runtime.Proc) *Rank {
	r := &Rank{w: w, ID: id, Proc: p, part: max(p.Engine().Part(), 0)}
	r.cnt = w.counts[r.part]
	r.World = &Comm{r: r, ctx: 0, rank: id, size: len(w.ranks), Name: "COMM_WORLD"}
	w.ranks[id] = r
	return r
}

// Rank is the MPI state of one rank. The fields that every message of
// the rank touches (sending, posting a receive, completing and waking)
// come first, so that they share a few cache lines: between two of its
// messages a rank's state has usually left the cache while the other
// ranks ran.
type Rank struct {
	w    *World
	ID   int
	Proc *runtime.Proc
	// awaiting is the one request the rank blocks on in wait: the others
	// complete without waking it (a switch to a process that would only
	// block again). nil: every completion wakes it.
	awaiting *Request
	// spare is a completed receive of a collective algorithm kept for the
	// next one (collRecv).
	spare *Request
	cnt   *Counts // its partition's counts
	sent  int64   // messages this rank has sent (message ids, in partitions)
	// Nonblocking collectives (nbc.go). main is, for a progress context
	// (a Rank that acts for a rank on a process of its own), the rank it
	// acts for; nil for the rank itself, which holds its contexts in prog.
	// onCo: the context's work runs on the node's coprocessor.
	main *Rank
	prog *progress
	// owed is when the CPU work the rank's own calls charged ends (Clock).
	owed Time
	// SentBytes counts the payload bytes this rank has sent, collectives'
	// messages included.
	SentBytes int64
	// Agreement checks (agree.go): how many messages of collective
	// algorithms wait in its unexpected queue; a disagreement found by a
	// message that arrived while it waited in a collective (and
	// collComms below).
	collStray int
	collBad   *MismatchError
	// coll names the collective the rank is in, for deadlock reports.
	coll string
	onCo bool
	// probing is set while the rank blocks in probe, so arrivals wake it.
	probing bool
	// parked: a progress context waits at its gate (inline progress);
	// index numbers it among its rank's.
	parked bool
	// ioWait is set while the rank waits for its I/O node (in partitions).
	ioWait bool
	// cw is what the rank blocks on in a collective's receive (wi
	// otherwise).
	cw collWait

	posted     postedQueue
	unexpected unexpectedQueue

	World *Comm
	part  int // the partition the rank's process runs on (0 alone)
	// collComms are the rank's communicators other than COMM_WORLD that
	// called collectives (few: a list), each its latest handle on its
	// context (agreement checks).
	collComms []*Comm
	// probed are the messages matched probes took out of matching and no
	// Mrecv has received yet (mprobe.go), in the order they were probed.
	probed []*arrival
	// cr is what the rank keeps of its collective calls, from its first
	// (rec): a program without collectives, as a halo exchange, pays 8
	// bytes a rank for it, not 168 (a Rank of 568 bytes, not 728: the
	// 576-byte size class rather than 768).
	cr *collRec
	// mlHWSeq counts this rank's ml.tree_* and ml.gi_barrier calls.
	mlHWSeq uint32
	// Traffic describes, with a Tracer, the messages the rank sent and
	// received (the trace's call args).
	Traffic Traffic
	// wi is what the rank blocks on now; kept here so a blocking receive
	// allocates no description.
	wi WaitInfo

	nbc   *nbcOp // a progress context's collective under way
	index int
	// Ext is free for the layer above (one value a context).
	Ext any
}

// collRec is what a rank keeps of its collective calls.
type collRec struct {
	// note is what the collective call under way ran; last the algorithm
	// of its last call of each collective on each communicator.
	note algNote
	last []lastAlg
	// lab is the link-accounting label of collective labColl run by
	// labAlg (links.go).
	labColl, labAlg string
	lab             int32
	// ranColl and ranAlg are the last collective call that ended and its
	// algorithm; done the last outermost one (Completed).
	ranColl, ranAlg string
	done            struct {
		n         uint64
		coll, alg string
	}
}

// rec is r's record of its collective calls, made at the first.
func (r *Rank) rec() *collRec {
	if r.cr == nil {
		r.cr = new(collRec)
	}
	return r.cr
}

// ran is the algorithm noted for the collective call under way ("" if
// none).
func (r *Rank) ran() string {
	if r.cr == nil {
		return ""
	}
	return r.cr.note.ran
}

// waiting records what the rank is about to block on.
func (r *Rank) waiting(w WaitInfo) *WaitInfo {
	r.wi = w
	return &r.wi
}

// waited is a wait on a list of requests over: r.wi lets go of the list,
// which would otherwise keep the requests (and what they received) alive
// until the rank's next wait, after its program has dropped them (a halo
// step's twelve requests while the rank posts the next step's: 1.8 of the
// 5.2 KiB a rank of requests on 32,768 ranks).
func (r *Rank) waited() { r.wi.Reqs = nil }

// collWait is what a rank blocked in a receive or a sendrecv of a
// collective algorithm waits for: the fields of the WaitInfo of such a
// wait, which it reads as. A collective blocks about once a message, and
// this record (56 bytes, Rank.cw) is among the rank's first cache lines,
// which the message has just used, where wi's 112 bytes take lines of
// their own, out of the cache by then.
type collWait struct {
	coll, comm string
	peer, tag  int
	call       uint8 // collWaitCalls
}

// The calls a collWait names.
const (
	collRecvWait = iota
	collSendrecvWait
)

var collWaitCalls = [...]string{collRecvWait: "recv", collSendrecvWait: "sendrecv"}

func (w *collWait) String() string {
	i := WaitInfo{Coll: w.coll, Call: collWaitCalls[w.call], Peer: w.peer, Tag: w.tag, Comm: w.comm}
	return i.String()
}

// collWaiting records that the rank is about to block in a collective
// algorithm's call (collRecvWait, collSendrecvWait) for a message from
// peer with tag on the communicator named comm.
func (r *Rank) collWaiting(call uint8, peer, tag int, comm string) *collWait {
	r.cw = collWait{coll: r.coll, comm: comm, peer: peer, tag: tag, call: call}
	return &r.cw
}

// arrival is a message that reached its rank before a receive matched it.
// Now is the current virtual time.
func (r *Rank) Now() Time { return r.Proc.Now() }

// Clock is the time the rank reads (mpi.wtime, mpi.cycles, os.clock): now,
// or later while its CPU is still busy with work its own calls charged. A
// call may return with the CPU busy past now (a local reduction such as
// mpi.SUM(a, b) places its work on the CPU and returns), and the rank's next
// step can only start once that work is done, so a reading after a call
// includes the whole cost of the call. Work the message layer charges the
// CPU at its own events (reading packets that arrive, writing those a grant
// releases) is not the rank's call and is not counted until the rank waits
// for it. Reading the clock advances nothing.
func (r *Rank) Clock() Time { return max(r.Proc.Now(), r.owed) }

// Machine is the modeled machine.
func (r *Rank) Machine() *msglayer.Machine { return r.w.m }

// WorldOf is the job the rank belongs to.
func (r *Rank) WorldOf() *World { return r.w }

// cpu runs d cycles of this rank's software and returns when it ends.
func (r *Rank) cpu(d int64) Time {
	r.owed = r.cpuUnit().Run(r.Proc.Now(), d)
	return r.owed
}

// cpuUnit is the CPU the context's software runs on: the rank's, or for a
// progress context in coprocessor progress its node's CPU 1.
func (r *Rank) cpuUnit() *msglayer.CPU {
	if r.onCo {
		return r.w.ml.CoCPU(r.ID)
	}
	return r.w.ml.CPU(r.ID)
}

// busy occupies the rank's CPU for d cycles. Virtual time is not advanced
// here: every software step is placed on the CPU's own timeline, and the rank
// catches up with it (sync) when it polls or when its MPI call returns. This
// keeps a call to one process switch at most instead of one per step.
func (r *Rank) busy(d int64) {
	r.cpu(d)
}

// Sync lets virtual time pass until the rank's CPU has done the work placed
// on it (for layers that charge the CPU directly, as ml does).
func (r *Rank) Sync() { r.sync() }

// Block parks the rank until Wake, saying what it waits for.
func (r *Rank) Block(w WaitInfo) { r.Proc.Block(r.waiting(w)) }

// Wake resumes the rank now if it is blocked.
func (r *Rank) Wake() { r.wake() }

// sync lets virtual time pass until the rank's CPU has done its work.
func (r *Rank) sync() {
	if f := r.cpuUnit().Free; f > r.Proc.Now() {
		r.Proc.SleepUntil(f)
		r.gate()
	}
}

// Compute models d cycles of local computation. A computation that would
// end past what virtual time can hold is an error, and nothing is charged.
func (r *Rank) Compute(d int64) error {
	if d < 0 {
		return fmt.Errorf("%d cycles: a duration must not be negative", d)
	}
	if r.w.ComputeFactor != 1 {
		x := float64(d)*r.w.ComputeFactor + 0.5
		if !(x < float64(1<<63)) {
			return fmt.Errorf("%d cycles with the virtual-node penalty (x%g) are past what virtual time can hold (%d cycles)", d, r.w.ComputeFactor, runtime.Never)
		}
		d = int64(x)
	}
	start := max(r.Now(), r.w.ml.CPU(r.ID).Free)
	if d > runtime.Never-start {
		return fmt.Errorf("%d cycles from cycle %d end past what virtual time can hold (%d cycles)", d, start, runtime.Never)
	}
	r.busy(d)
	r.sync()
	return nil
}

// Call charges the cost of entering an MPI call that does nothing else (wtime,
// test, iprobe), so that polling loops advance virtual time.
func (r *Rank) Call() {
	r.busy(r.w.m.MPICallCycles)
	r.sync()
}

// wake resumes the rank if it is blocked waiting on something that changed.
func (r *Rank) wake() {
	e := r.Proc.Engine()
	e.Wake(r.Proc, e.Now())
}

// WaitInfo says what a blocked rank waits for, for deadlock reports.
type WaitInfo struct {
	Coll string // the collective the call is part of, if any
	Call string
	Peer int // rank in Comm, or AnySource; -3 when not applicable
	Tag  int
	Comm string
	N    int // number of requests, for waitall/waitany
	Note string
	// Reqs are the requests of a waitall or waitany: String names those
	// still pending (the peers a deadlocked rank waits for).
	Reqs []*Request
}

// maxPendingShown is how many pending requests a WaitInfo names.
const maxPendingShown = 4

// NoPeer marks a WaitInfo without a peer.
const NoPeer = -3

func (w *WaitInfo) String() string {
	s := w.Call
	if w.Coll != "" {
		s = w.Coll + " (" + w.Call + ")"
	}
	switch {
	case w.Peer == AnySource:
		s += " from any source"
	case w.Peer >= 0 && (w.Call == "send" || w.Call == "ssend" || strings.HasSuffix(w.Call, "send)")):
		s += fmt.Sprintf(" to %d", w.Peer)
	case w.Peer >= 0:
		s += fmt.Sprintf(" from %d", w.Peer)
	}
	switch {
	case w.N == 1:
		s += " of 1 request"
	case w.N > 1:
		s += fmt.Sprintf(" of %d requests", w.N)
	}
	if w.Peer != NoPeer {
		if w.Tag == AnyTag {
			s += " any tag"
		} else {
			s += fmt.Sprintf(" tag %d", w.Tag)
		}
	}
	if w.Comm != "" {
		s += " on " + w.Comm
	}
	if w.Note != "" {
		s += " (" + w.Note + ")"
	}
	if p := pendingOf(w.Reqs); p != "" {
		s += " (pending: " + p + ")"
	}
	return s
}

// pendingOf names the requests of qs not done yet: each a send to or a
// receive from a rank of its communicator with its tag, the first
// maxPendingShown of them and how many more.
func pendingOf(qs []*Request) string {
	var b strings.Builder
	n := 0
	for _, q := range qs {
		if q == nil || q.done {
			continue
		}
		n++
		if n > maxPendingShown {
			continue
		}
		if n > 1 {
			b.WriteString(", ")
		}
		if op := q.collective(); op != nil {
			fmt.Fprintf(&b, "%s on %s", op.coll, q.comm.Name)
			continue
		}
		b.WriteString(q.kind())
		switch {
		case q.isSend:
			fmt.Fprintf(&b, " to %d", q.src)
		case q.src == AnySource:
			b.WriteString(" from any source")
		default:
			fmt.Fprintf(&b, " from %d", q.src)
		}
		if q.tag == AnyTag {
			b.WriteString(" any tag")
		} else {
			fmt.Fprintf(&b, " tag %d", q.tag)
		}
	}
	if n > maxPendingShown {
		fmt.Fprintf(&b, " and %d more", n-maxPendingShown)
	}
	return b.String()
}

// Layer is the message layer the world's ranks run over.
func (w *World) Layer() *msglayer.Layer { return w.ml }

// Machine is the machine description in force.
func (w *World) Machine() *msglayer.Machine { return w.m }
