package mpi

import (
	"fmt"

	"github.com/bglua/bglua/runtime"
)

// Nonblocking collectives (MPI-3: MPI_Iallreduce and friends).
//
// A nonblocking collective runs the blocking collective's algorithm, the
// one the run has in force (built-in, --coll choice, or a Lua algorithm),
// as it is, on a process of its own that acts for the rank: a progress
// context. The context is a Rank that shares the rank's identity and its
// matching queues (its receives match in the rank's queues, home) but
// blocks on its own process, so the algorithm's waits park it, not the
// rank, and the rank's process goes on with the program. No algorithm has
// a nonblocking twin.
//
// Each call gets a private communicator: the group of the communicator it
// was started on and a context pair of its own, derived from that
// communicator's context and the call's number among its collectives
// (Rank.context), the same on every rank without communication, since
// MPI has every rank start the collectives of a communicator in one order.
// So several outstanding nonblocking collectives on one communicator, and
// the blocking ones after them, never take each other's messages. The call
// itself is numbered among the communicator's collectives and its
// signature checked as a blocking call's (begin): ranks that start
// different collectives, or the same one with another root, operator or
// size, get the same errors as for blocking calls.
//
// Who progresses the schedule is modeled (World.Progress):
//
//   - ProgressCoprocessor (the default): in coprocessor mode the node's
//     CPU 1 runs it. The context's software steps (the MPI costs of its
//     sends and receives, combining, and the message layer's posting,
//     packet writes and reads of its messages, which carry msglayer's Co
//     mark) go on CPU 1, and the schedule advances as its messages come,
//     whatever the rank does. Where there is no coprocessor (virtual-node
//     and heater modes) it is ProgressInline.
//   - ProgressInline: as most MPI libraries, the schedule advances only
//     while the rank is inside an MPI call: the starting call, blocked in a
//     wait, a blocking call or a probe, or polling with test, testall or
//     iprobe; and once the rank's program has ended (Finish). Its steps
//     run on the rank's CPU. When the context is due to go on while the
//     rank is elsewhere (computing), it parks at its gate until the rank
//     next enters such a call.
//
// The contexts of a rank are kept for reuse: one that has finished waits,
// idle (runtime.Proc.Idle: not a deadlock), for the next call.

// ProgressModel says who advances the ranks' nonblocking collectives.
type ProgressModel uint8

const (
	// ProgressCoprocessor: CPU 1 in coprocessor mode; elsewhere as
	// ProgressInline.
	ProgressCoprocessor ProgressModel = iota
	// ProgressInline: only while the rank is inside an MPI call.
	ProgressInline
)

// ProgressModels are the names ParseProgressModel takes.
var ProgressModels = []string{"coprocessor", "inline"}

func (p ProgressModel) String() string { return ProgressModels[p] }

// ParseProgressModel reads a progress model's name.
func ParseProgressModel(s string) (ProgressModel, error) {
	for i, n := range ProgressModels {
		if s == n {
			return ProgressModel(i), nil
		}
	}
	return 0, fmt.Errorf("unknown progress model %q (valid: coprocessor, inline)", s)
}

// progress is a rank's state of its nonblocking collectives.
type progress struct {
	idle    []*Rank // contexts with nothing to do
	gated   []*Rank // contexts parked at their gate
	inCall  int     // > 0 while the rank is inside an MPI call that progresses
	pending int     // started, not complete
	made    int     // contexts made
	all     []*Rank // contexts made, in order
	// tracks[k] is when the last nonblocking call of the bcs runtime
	// drawn on progress track k (from made on) ended (bcsTrack).
	tracks []Time
}

// nbcOp is one nonblocking collective call.
type nbcOp struct {
	coll  string // its name: "iallreduce"
	c     *Comm  // its private communicator; c.r is the progress context
	run   func(c *Comm) (Value, []Value, error)
	q     *Request
	start Time
	// What it gives: one value or one per rank (many); err if it failed.
	val  Value
	vals []Value
	many bool
	err  error
	// bytes is, under the bcs runtime, what the rank brought to it.
	bytes int64
}

// The request of a nonblocking collective is a Request whose Value.Data is
// its *nbcOp (requests stay in their 128-byte size class); its result is
// read with Result.

func (q *Request) collective() *nbcOp {
	op, _ := q.Value.Data.(*nbcOp)
	return op
}

// Collective is the name of the nonblocking collective q is the request
// of ("iallreduce"), or "".
func (q *Request) Collective() string {
	if op := q.collective(); op != nil {
		return op.coll
	}
	return ""
}

// Result is what a completed nonblocking collective gives, as its blocking
// form returns it: one value (many false) or one per rank of the
// communicator (nil where the blocking form returns nil).
func (q *Request) Result() (v Value, vs []Value, many bool) {
	op := q.collective()
	if op == nil {
		return q.Value, nil, false
	}
	return op.val, op.vals, op.many
}

// home is the rank a context acts for (the rank itself for its own).
func (r *Rank) home() *Rank {
	if r.main != nil {
		return r.main
	}
	return r
}

// Home is the rank a context acts for: itself, or the rank a progress
// context progresses a nonblocking collective of.
func (r *Rank) Home() *Rank { return r.home() }

// Progressing is, for the process of a progress context, the nonblocking
// collective it runs ("iallreduce"); "" for any other process.
func Progressing(p *runtime.Proc) string {
	if x, ok := p.Data.(*Rank); ok && x.main != nil && x.nbc != nil {
		return x.nbc.coll
	}
	return ""
}

// ProgressIndex numbers a progress context among its rank's (from 0).
func (r *Rank) ProgressIndex() int { return r.index }

// IsProgress reports whether r is a progress context.
func (r *Rank) IsProgress() bool { return r.main != nil }

// OnCoprocessor reports whether r's software runs on the node's CPU 1 (a
// progress context under coprocessor progress).
func (r *Rank) OnCoprocessor() bool { return r.onCo }

// ProgressModel is the progress model in force for the rank's nonblocking
// collectives: the World's, inline where the rank has no coprocessor.
func (r *Rank) ProgressModel() ProgressModel {
	if r.w.Progress == ProgressCoprocessor && r.HasCoprocessor() {
		return ProgressCoprocessor
	}
	return ProgressInline
}

// PendingCollectives is the number of nonblocking collectives the rank
// started that are not complete.
func (r *Rank) PendingCollectives() int {
	if p := r.home().prog; p != nil {
		return p.pending
	}
	return 0
}

// inline reports whether the context advances only inside its rank's MPI
// calls.
func (r *Rank) inline() bool { return r.main != nil && !r.onCo }

// gate parks a progress context under inline progress until its rank is
// inside an MPI call; elsewhere it does nothing.
func (r *Rank) gate() {
	if !r.inline() {
		return
	}
	p := r.main.prog
	for p.inCall == 0 {
		if !r.parked {
			r.parked = true
			p.gated = append(p.gated, r)
		}
		coll := ""
		if r.nbc != nil {
			coll = r.nbc.coll
		}
		r.Proc.Block(&WaitInfo{Coll: coll, Call: "progress", Peer: NoPeer, Note: fmt.Sprintf("inline progress: waits for rank %d to enter an MPI call", r.ID)})
	}
}

// openGate notes that the rank enters an MPI call that progresses its
// nonblocking collectives and lets its parked contexts go on; it reports
// whether it did (closeGate's argument). A progress context opens nothing.
func (r *Rank) openGate() bool {
	p := r.prog
	if p == nil || r.main != nil {
		return false
	}
	p.inCall++
	if len(p.gated) > 0 {
		e := r.Proc.Engine()
		for _, x := range p.gated {
			x.parked = false
			e.Wake(x.Proc, e.Now())
		}
		p.gated = p.gated[:0]
	}
	return true
}

func (r *Rank) closeGate(opened bool) {
	if opened {
		r.prog.inCall--
	}
}

// Finish is the end of the rank's program: as MPI_Finalize does, it lets
// the nonblocking collectives still under way progress from now on.
func (r *Rank) Finish() {
	r.openGate() // never closed
}

// poll is a test or iprobe of the rank: under inline progress its parked
// contexts take their steps that are due now before it looks.
func (r *Rank) poll() {
	p := r.prog
	if p == nil || r.main != nil || len(p.gated) == 0 {
		return
	}
	open := r.openGate()
	r.Proc.SleepUntil(r.Now()) // they were woken now: they run first
	r.closeGate(open)
}

// startNBC starts the nonblocking collective coll ("iallreduce") on c, whose
// arguments the caller has checked: run is the blocking entry point to
// call on the private communicator. root, op and size are the call's
// signature (begin); part is the rank's data as the bcs runtime's
// collective takes it (v or vs).
func (c *Comm) startNBC(coll string, root int, op Op, size int, many bool, part bcsCall, run func(pc *Comm) (Value, []Value, error)) (_ *Request, err error) {
	r := c.r
	w := r.w
	r.busy(w.m.MPICallCycles)
	defer r.sync()
	defer catch(&err)
	c.begin(coll, root, op, size)
	h := r.home()
	if h.prog == nil {
		h.prog = &progress{}
		if w.OnSwitch != nil && h.Proc.OnRun == nil {
			h.Proc.OnRun = func() { w.OnSwitch(h) }
		}
	}
	if c.bcsServes(coll[1:], op) {
		part.coll, part.name, part.root, part.op = coll[1:], coll, root, op
		return c.startBCS(coll, many, part), nil
	}
	x := h.progressContext()
	pc := &Comm{r: x, ctx: r.nbcContext(c.ctx, c.cur.seq, c.size), ranks: c.ranks, rank: c.rank, size: c.size, nbc: c, Name: c.Name}
	o := &nbcOp{coll: coll, c: pc, run: run, start: r.Now(), many: many}
	o.q = &Request{r: r, comm: c, src: NoPeer, Value: Value{Data: o}}
	x.nbc = o
	h.prog.pending++
	e := x.Proc.Engine()
	e.Wake(x.Proc, e.Now()) // an idle context; a new one is due now already
	if x.inline() {
		// The call itself is an MPI call: the schedule takes its first
		// steps (posts its first messages) inside it.
		open := h.openGate()
		r.Proc.SleepUntil(r.Now())
		h.closeGate(open)
	}
	return o.q, nil
}

// Under the bcs runtime (bcs.go) a nonblocking collective that its blocking
// form would have the runtime schedule (no algorithm chosen for it, a
// predefined operator) needs no progress context: the call posts the
// rank's part as the blocking call does, numbered among the communicator's
// collectives in the same sequence, and returns. The network side carries
// it out in the slice after the last member posted it, and the request is
// complete once its microphase has moved the data; a rank waiting for it
// restarts at the next strobe, as from a blocking call. Otherwise (a
// point-to-point or Lua algorithm chosen with --coll, or a Lua operator,
// which the network side cannot run) the blocking form's algorithm runs on
// a progress context over the bcs transport, restarted at the strobes with
// its rank (World.bcsWake).

// bcsServes reports whether the bcs runtime's own collective serves the
// nonblocking form of coll on c.
func (c *Comm) bcsServes(coll string, op Op) bool {
	if c.r.w.bcs == nil || c.inForce(coll) != "bcs" {
		return false
	}
	_, builtin := op.(*Builtin)
	return op == nil || builtin
}

// startBCS posts part, this rank's part of the nonblocking collective coll
// of the bcs runtime, and returns its request.
func (c *Comm) startBCS(coll string, many bool, part bcsCall) *Request {
	r := c.r
	defer c.noteAlg(coll, "bcs")()
	o := &nbcOp{coll: coll, c: c, start: r.Now(), many: many, bytes: int64(part.v.Size + sumSize(part.vs))}
	o.q = &Request{r: r, comm: c, src: NoPeer, Value: Value{Data: o}}
	r.home().prog.pending++
	b := c.bcsPost(part)
	b.started = append(b.started, o)
	return o.q
}

// bcsDone completes o, a rank's call of b, when b's microphase has moved
// its data (now). It wakes no one: b's members restart at the next strobe.
func (o *nbcOp) bcsDone(b *bcsOp, now Time) {
	c := o.c
	o.val, o.vals, o.err = b.result(c.rank)
	h := c.r.home()
	h.prog.pending--
	o.q.done = true
	if w := h.w; w.OnCollective != nil {
		w.OnCollective(h, h.prog.bcsTrack(o.start, now), o.coll, "bcs", o.start, o.bytes)
	}
	o.c = nil
}

// bcsTrack is the progress track to draw a call of the bcs runtime from
// start to end on: the first past the contexts made so far that is free at
// start. A context made later has the next index, but its calls start
// after this one ended.
func (p *progress) bcsTrack(start, end Time) int {
	k := p.made
	for k < len(p.tracks) && p.tracks[k] > start {
		k++
	}
	for len(p.tracks) <= k {
		p.tracks = append(p.tracks, 0)
	}
	p.tracks[k] = end
	return k
}

// progressContext is an idle progress context of the rank, or a new one.
func (r *Rank) progressContext() *Rank {
	p := r.prog
	if n := len(p.idle); n > 0 {
		x := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return x
	}
	w := r.w
	x := &Rank{w: w, ID: r.ID, part: r.part, cnt: r.cnt, main: r, index: p.made}
	p.made++
	p.all = append(p.all, x)
	// Its own handle on COMM_WORLD, for what it calls there (point to
	// point from a Lua algorithm; a Lua operator's combining cost).
	x.World = &Comm{r: x, ctx: 0, rank: r.ID, size: len(w.ranks), Name: "COMM_WORLD"}
	x.onCo = r.ProgressModel() == ProgressCoprocessor
	e := r.Proc.Engine()
	x.Proc = e.Spawn(r.ID, e.Now(), x.progressBody)
	x.Proc.Data = x // Progressing
	if w.OnSwitch != nil {
		x.Proc.OnRun = func() { w.OnSwitch(x) }
	}
	return x
}

// progressBody is the process of a progress context: it runs the
// collectives it is given, one at a time, and waits idle in between.
func (x *Rank) progressBody(p *runtime.Proc) {
	w := x.w
	for {
		o := x.nbc
		if o == nil {
			p.Idle = true
			p.Block(&WaitInfo{Call: "idle", Peer: NoPeer})
			p.Idle = false
			continue
		}
		if w.OnSwitch != nil {
			w.OnSwitch(x)
		}
		x.gate()
		b0 := x.SentBytes
		o.val, o.vals, o.err = o.run(o.c)
		x.sync()
		h := x.main
		h.forgetComm(o.c)
		x.nbc = nil
		if x.cr != nil {
			x.cr.last = x.cr.last[:0]
		}
		q := o.q
		q.done = true
		h.prog.pending--
		if w.OnCollective != nil {
			w.OnCollective(x, x.index, o.coll, x.rec().ranAlg, o.start, x.SentBytes-b0)
		}
		o.c, o.run = nil, nil
		h.prog.idle = append(h.prog.idle, x)
		// Wake the context that started it (the rank, or a progress
		// context whose Lua algorithm did) if it waits for it.
		if s := q.r; s.awaiting == nil || s.awaiting == q {
			s.wake()
		}
	}
}

// forgetComm drops c from the rank's communicators that called collectives
// (a nonblocking collective's private one, once complete).
func (r *Rank) forgetComm(c *Comm) {
	for i, o := range r.collComms {
		if o == c {
			r.collComms = append(r.collComms[:i], r.collComms[i+1:]...)
			return
		}
	}
}

// nbcSeq is the sequence number of a nonblocking collective's private
// communicator in a context's key (split and dup number theirs from 0,
// views -1); the call's number among its communicator's collectives is the
// color.
const nbcSeq = -2

// nbcContext is the context of the private communicator of the
// nonblocking collective numbered seq among the collectives of the
// communicator of context parent, with size members, asked by r. The key
// is dropped once every member has taken it, so a long run does not keep
// one a call.
func (r *Rank) nbcContext(parent int, seq uint32, size int) int {
	return r.takeContext(ctxKey{parent, nbcSeq, int(seq)}, size)
}

// BlockingForm is the collective whose algorithms the nonblocking
// collective coll ("iallreduce", "igatherv") runs ("allreduce", "gather"),
// and whether coll is one.
func BlockingForm(coll string) (string, bool) {
	if len(coll) < 2 || coll[0] != 'i' {
		return "", false
	}
	b, err := CanonColl(coll[1:])
	return b, err == nil
}

// callName is the name a collective's call has on c: its own, or on the
// private communicator of a nonblocking collective the i-name.
func (c *Comm) callName(coll string) string {
	if c.nbc != nil {
		return "i" + coll
	}
	return coll
}

// The nonblocking entry points: the blocking form's checks, then the
// blocking form on the private communicator.

// Ibarrier starts a barrier.
func Ibarrier(c *Comm) (*Request, error) {
	return c.startNBC("ibarrier", -1, nil, -1, false, bcsCall{}, func(pc *Comm) (Value, []Value, error) {
		return Value{}, nil, Barrier(pc)
	})
}

// Ibcast starts a Bcast.
func Ibcast(c *Comm, v Value, root int) (*Request, error) {
	if err := c.checkRoot(root); err != nil {
		return nil, err
	}
	return c.startNBC("ibcast", root, nil, -1, false, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		x, err := Bcast(pc, v, root)
		return x, nil, err
	})
}

// Ireduce starts a Reduce.
func Ireduce(c *Comm, v Value, op Op, root int) (*Request, error) {
	if err := c.checkRoot(root); err != nil {
		return nil, err
	}
	return c.startNBC("ireduce", root, op, opSize(v, op), false, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		x, err := Reduce(pc, v, op, root)
		return x, nil, err
	})
}

// Iallreduce starts an Allreduce.
func Iallreduce(c *Comm, v Value, op Op) (*Request, error) {
	return c.startNBC("iallreduce", -1, op, opSize(v, op), false, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		x, err := Allreduce(pc, v, op)
		return x, nil, err
	})
}

// Igather starts a Gather (vary: Gatherv).
func Igather(c *Comm, v Value, root int, vary bool) (*Request, error) {
	if err := c.checkRoot(root); err != nil {
		return nil, err
	}
	size := bufSize(v)
	if vary {
		size = -1
	}
	return c.startNBC("igather", root, nil, size, true, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		vs, err := gather(pc, v, root, size)
		return Value{}, vs, err
	})
}

// Iscatter starts a Scatter.
func Iscatter(c *Comm, vs []Value, root int) (*Request, error) {
	if err := c.checkRoot(root); err != nil {
		return nil, err
	}
	if c.Rank() == root && len(vs) != c.Size() {
		return nil, fmt.Errorf("root has %d values for %d ranks of %s", len(vs), c.Size(), c.Name)
	}
	return c.startNBC("iscatter", root, nil, -1, false, bcsScatterCall(c, vs, root), func(pc *Comm) (Value, []Value, error) {
		x, err := Scatter(pc, vs, root)
		return x, nil, err
	})
}

// Iallgather starts an Allgather (vary: Allgatherv).
func Iallgather(c *Comm, v Value, vary bool) (*Request, error) {
	size := bufSize(v)
	if vary {
		size = -1
	}
	return c.startNBC("iallgather", -1, nil, size, true, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		vs, err := allgather(pc, v, size)
		return Value{}, vs, err
	})
}

// Ialltoall starts an Alltoall.
func Ialltoall(c *Comm, vs []Value) (*Request, error) {
	if len(vs) != c.Size() {
		return nil, fmt.Errorf("%d values for %d ranks of %s", len(vs), c.Size(), c.Name)
	}
	return c.startNBC("ialltoall", -1, nil, -1, true, bcsCall{vs: vs}, func(pc *Comm) (Value, []Value, error) {
		out, err := Alltoall(pc, vs)
		return Value{}, out, err
	})
}

// IreduceScatter starts a ReduceScatter.
func IreduceScatter(c *Comm, vs []Value, op Op) (*Request, error) {
	if len(vs) != c.Size() {
		return nil, fmt.Errorf("%d values for %d ranks of %s", len(vs), c.Size(), c.Name)
	}
	return c.startNBC("ireduce_scatter", -1, op, -1, false, bcsCall{vs: vs}, func(pc *Comm) (Value, []Value, error) {
		x, err := ReduceScatter(pc, vs, op)
		return x, nil, err
	})
}

// Iscan starts a Scan.
func Iscan(c *Comm, v Value, op Op) (*Request, error) {
	return c.startNBC("iscan", -1, op, opSize(v, op), false, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		x, err := Scan(pc, v, op)
		return x, nil, err
	})
}

// Iexscan starts an Exscan.
func Iexscan(c *Comm, v Value, op Op) (*Request, error) {
	return c.startNBC("iexscan", -1, op, opSize(v, op), false, bcsCall{v: v}, func(pc *Comm) (Value, []Value, error) {
		x, err := Exscan(pc, v, op)
		return x, nil, err
	})
}
