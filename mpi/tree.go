package mpi

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// The hardware collectives: the collective network (tree) and the global
// interrupt network (gi), message-layer primitives (msglayer.Collective).
// They serve the whole partition only ([ML]: "we support only MPI collective
// operations that involve all of the compute nodes in a partition (i.e.,
// operations on the MPI_COMM_WORLD communicator)"), that is a communicator holding every rank of the job: COMM_WORLD, a dup of
// it, or a split that kept everyone. In virtual-node mode that means both
// tasks of every node: the node's tree interface is one, so its two tasks
// combine through shared memory first (the lower slot, the node's "tree
// task", does the combine and the packet traffic; the other copies the result
// out of its partner's buffer). A communicator with one task per node does
// not qualify: the other tasks would need the same network at the same time.
//
// Synchronization is a rendezvous in Go, without messages: every rank of the
// communicator joins the operation numbered by its count of hardware calls on
// that communicator, and blocks; the last one computes the result with the
// ALU, the network's timing (msglayer.Collective) and each rank's CPU costs,
// then wakes every rank at the cycle it completes. Host cost: O(1) per rank
// plus O(ranks x elements) once per operation, whatever the tree's depth.
//
// Timing of one operation (all ranks; P packets of TreePacket bytes a pass):
//
//	ready  = the last rank's arrival (its CPU done with the call's entry),
//	         plus, in virtual-node mode, the tree task's combine of its
//	         partner's contribution (elements x ReduceCyclesPerElement)
//	pass   = a pass of the Collective: write the first packet, 2*depth
//	         hops, one packet per max(serialization, write, read), read the
//	         last packet
//	reductions: every pass is preceded by elements x ReduceCyclesPerElement
//	         of conversion (to ALU words, exponents, aligned mantissas); a
//	         floating-point sum has two passes and converts back at the end
//	done   = the end of the last pass; a virtual-node partner copies the
//	         last packet of the result out of its tree task's buffer after it
//
// What goes on the network per element: 8 bytes (one ALU word) for MAX, MIN,
// LAND, LOR, BAND, BOR; for a MAXLOC/MINLOC pair two passes, 8 bytes (the
// best value) then 16 (index and value of the pairs that hold it); for SUM 4
// bytes of exponents, then the fixed-point mantissa in sumMantissaBytes. The
// bytes depend on the operator and the element count only, never on the
// values, so an mpi.bytes phantom of 8m bytes costs what m doubles cost
// (m/2 pairs for MAXLOC and MINLOC).
//
// sumMantissaBytes is what one element of a floating-point sum carries in
// the mantissa pass: a 128-bit fixed-point word. The collective network's
// two passes (docs/model.md) are "exponent max, then mantissa sum": the
// software knows only the largest exponent when it writes the mantissas, so
// their width is set in advance, the same for every value; 128 bits hold a
// 53-bit mantissa, the 17 bits of headroom a sum over 65,536 nodes needs
// and the sign, and leave 57 bits for contributions smaller than the
// largest. (The model used to size the pass from the values' span as well,
// hw.FloatSum.PassBytes, 8 bytes when every contribution had nearly the
// same exponent; that needs the smallest exponent too, which the first pass
// does not compute, and made a sum of real doubles faster than a phantom of
// the same size.) The result is still the exact sum rounded once: it
// differs from what a 128-bit window gives only for contributions more than
// 2^57 below the largest.
const sumMantissaBytes = 16

// Operators: the ALU adds, compares and does bitwise logic on integers, so
// every predefined operator but PROD runs on it: SUM exactly (Collective.Sum),
// MAX and MIN on order-preserving integer images of the doubles, LAND and LOR
// on 0/1 words, BAND and BOR on the 64-bit integers MPI's BAND and BOR use,
// MAXLOC and MINLOC in two passes (integer max or min, then integer min of
// the indices holding it). Results do not depend on the order of the ranks.
// Differences from the rank-order reference: a SUM is the exact sum rounded
// once (the reference rounds at every step); BOR of integers beyond 2^53 is
// rounded once instead of at every step; NaN values in MAXLOC/MINLOC give
// unspecified results.
//
// When a hardware algorithm does not apply to the communicator (a
// sub-communicator, a machine without the network) it runs the default
// point-to-point algorithm instead and the World counts the reason
// (Fallbacks, shown by --stats): a choice made for the whole run cannot
// serve every communicator of a program. An operator the ALU cannot do
// (PROD, a user's function) is the call's own, and an error
// (AlgorithmError); values that are not numbers decline on their rank (the
// default algorithm then reports them, as every predefined operator needs
// numbers). The communicator test is the same on
// every rank; the value test is each rank's own, so a program that passes
// numbers on some ranks and strings on others gets an error on the ranks
// that took the tree, as the point-to-point algorithms report mixed values.

// Fallback counts the calls of a hardware algorithm that ran the default
// algorithm instead, for one reason.
type Fallback struct {
	Coll   string // "barrier", "bcast", "reduce" or "allreduce"
	Alg    string // "tree" or "gi"
	Reason string
	Calls  int
}

// Fallbacks lists the hardware algorithms' fallbacks of the run so far, by
// collective, algorithm and reason.
func (w *World) Fallbacks() []Fallback {
	st := lookupTreeState(w)
	if st == nil {
		return nil
	}
	out := make([]Fallback, 0, len(st.fallbacks))
	for k, n := range st.fallbacks {
		out = append(out, Fallback{Coll: k.coll, Alg: k.alg, Reason: k.reason, Calls: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Coll != b.Coll {
			return a.Coll < b.Coll
		}
		if a.Alg != b.Alg {
			return a.Alg < b.Alg
		}
		return a.Reason < b.Reason
	})
	return out
}

// Collective is the partition's collective and global interrupt networks
// (nil before the first hardware collective of the run).
func (w *World) Collective() *msglayer.Collective {
	if st := lookupTreeState(w); st != nil {
		return st.net
	}
	return nil
}

// The algorithms the hardware ones fall back to. The automatic choices they
// use try the hardware only when treeApplies or giApplies holds, which is
// exactly when the hardware algorithms do not fall back, so this cannot loop.
func treeDefaultBarrier(c *Comm) error { return barrierDissemination(c) }

func treeDefaultBcast(c *Comm, v Value, root int) (Value, error) { return bcastAuto(c, v, root) }

func treeDefaultReduce(c *Comm, v Value, op Op, root int) (Value, error) {
	return reduceBinomial(c, v, op, root)
}

func treeDefaultAllreduce(c *Comm, v Value, op Op) (Value, error) { return p2pAllreduce(c, v, op) }

// treeApplies reports whether the collective network serves c: the machine
// has one and c holds every rank of the job. The same on every rank of c; it
// charges and records nothing, for the automatic choice.
func treeApplies(c *Comm) bool { return c.hwWhyNot(false) == "" }

// giApplies is treeApplies for the global interrupt network.
func giApplies(c *Comm) bool { return c.hwWhyNot(true) == "" }

// hwWhyNot says why the collective network (gi false) or the global
// interrupt network (gi true) cannot serve c, or "".
func (c *Comm) hwWhyNot(gi bool) string {
	w := c.r.w
	switch {
	case gi && !w.m.HasGI():
		return "the machine has no global interrupt network"
	case !gi && !w.m.HasTree():
		return "the machine has no collective network"
	case c.size != len(w.ranks):
		return reasonSubComm
	}
	return ""
}

const (
	reasonSubComm    = "sub-communicator (the network serves the whole partition: COMM_WORLD or a copy of it)"
	reasonOnePerNode = "one task per node in virtual-node mode (the network serves whole nodes: both tasks of each)"
)

// treeOpWhyNot says why the ALU cannot reduce with op, or "".
func treeOpWhyNot(op Op) string {
	b, ok := op.(*Builtin)
	switch {
	case !ok:
		return fmt.Sprintf("operator %s is not predefined (the ALU runs no user code)", op.Name())
	case b == PROD:
		return "operator PROD (the ALU cannot multiply)"
	}
	return ""
}

// treeValueWhyNot says why the ALU cannot reduce v, or "".
func treeValueWhyNot(v Value) string {
	switch v.Data.(type) {
	case float64, []float64, Phantom:
		return ""
	}
	return fmt.Sprintf("values are %s (the ALU reduces numbers and arrays of numbers)", kind(v.Data))
}

// treeFallback records, once per call (at rank 0 of c), that alg of coll
// fell back for a reason that holds on every rank.
func (c *Comm) treeFallback(coll, alg, why string) {
	if c.rank != 0 {
		c.noteFallback(coll, alg, why)
		return
	}
	defer func() { c.noteFallback(coll, alg, why) }()
	st := c.r.w.tree()
	if why == reasonSubComm {
		// Worked out once per communicator: it costs a pass over the nodes.
		st.mu.Lock()
		one, ok := st.onePer[c.ctx]
		st.mu.Unlock()
		if !ok {
			one = c.onePerNode()
			st.mu.Lock()
			st.onePer[c.ctx] = one
			st.mu.Unlock()
		}
		if one {
			why = reasonOnePerNode
		}
	}
	st.record(coll, alg, why)
}

// onePerNode reports whether c, in virtual-node mode, holds exactly one task
// of every node that runs any (O(size), only when a fallback is recorded).
func (c *Comm) onePerNode() bool {
	w := c.r.w
	mp := w.ml.Map
	if mp.PerNode < 2 {
		return false
	}
	seen := make([]bool, mp.Torus.Nodes())
	for i := 0; i < c.size; i++ {
		n := mp.Node(c.World(i))
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	nodes := 0
	for _, occupied := range w.tree().nodeOf(w) {
		if occupied {
			nodes++
		}
	}
	return nodes == c.size
}

// Per-World state of the hardware collectives (World.hwc), made on first use.

type treeState struct {
	net       *msglayer.Collective
	ops       map[opKey]*treeOp
	fallbacks map[fallbackKey]int
	onePer    map[int]bool // context -> holds one task of every node (vn)
	role      []uint8      // per world rank, made on first use
	occupied  []bool       // per node: runs a rank
	free      []*treeOp
	col       []float64
	mu        sync.Mutex // fallbacks, onePer, role and occupied, in partitions; in partitions also ops, free and ready

	// In partitions, the operations every member has joined, completed at
	// the end of the window after the last join (World.EndWindow).
	ready []readyOp

	// treeOps and giOps count the operations done on the collective and
	// global interrupt networks (one per collective call, not per rank).
	treeOps, giOps int64
}

// NetworkOps is how many operations the collective (tree) and global
// interrupt networks did: one per collective call that ran on them.
func (w *World) NetworkOps() (tree, gi int64) {
	if w.hwc == nil {
		return 0, 0
	}
	return w.hwc.treeOps, w.hwc.giOps
}

// readyOp is an operation every member has joined, waiting in a run in
// partitions for the end of the window.
type readyOp struct {
	k opKey
	o *treeOp
}

type opKey struct {
	ctx int
	seq uint32
}

type fallbackKey struct{ coll, alg, reason string }

// Roles of a rank on its node.
const (
	roleShared  = 1 << iota // another task of the job runs on the same node
	rolePartner             // a task with a lower slot runs there: it is not the tree task
)

func lookupTreeState(w *World) *treeState { return w.hwc }

// tree returns the world's hardware-collective state, making it on first use.
//
// In partitions every partition may record fallbacks: the state is made
// once, under a lock, and what they record is kept under its lock; the
// networks themselves are used only in a run of one partition (needOne).
func (w *World) tree() *treeState {
	if w.parted {
		w.hwcMu.Lock()
		defer w.hwcMu.Unlock()
	}
	if w.hwc == nil {
		w.hwc = &treeState{
			net: w.ml.NewCollective(),
			ops: map[opKey]*treeOp{}, fallbacks: map[fallbackKey]int{},
			onePer: map[int]bool{},
		}
	}
	return w.hwc
}

func (st *treeState) record(coll, alg, why string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.fallbacks[fallbackKey{coll, alg, why}]++
}

// nodeOf returns, per node, whether a rank of w runs there; roles per rank.
func (st *treeState) nodeOf(w *World) []bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.roles(w)
	return st.occupied
}

func (st *treeState) roles(w *World) []uint8 {
	if st.role != nil {
		return st.role
	}
	mp := w.ml.Map
	n := mp.Ranks()
	st.role = make([]uint8, n)
	st.occupied = make([]bool, mp.Torus.Nodes())
	count := make([]uint8, mp.Torus.Nodes())
	low := make([]uint8, mp.Torus.Nodes())
	for r := 0; r < n; r++ {
		node, t := mp.Node(r), uint8(mp.Coord(r).T)
		if !st.occupied[node] || t < low[node] {
			low[node] = t
		}
		st.occupied[node] = true
		count[node] = min(count[node]+1, 2)
	}
	for r := 0; r < n; r++ {
		node := mp.Node(r)
		if count[node] > 1 {
			st.role[r] |= roleShared
		}
		if uint8(mp.Coord(r).T) != low[node] {
			st.role[r] |= rolePartner
		}
	}
	return st.role
}

// Kinds of hardware operation.
type treeKind uint8

const (
	kindGI treeKind = iota
	kindBarrier
	kindBcast
	kindReduce
)

// treeCall is what one rank brings to an operation.
type treeCall struct {
	coll string // "allreduce", "ml.tree_reduce", ...: what the rank called
	alg  string // "tree" or "gi", for fallback records
	kind treeKind
	v    Value
	op   Op
	root int // bcast and reduce; -1 for every rank (allreduce)
}

// treeOp is one operation in progress on one communicator.
type treeOp struct {
	n                 int // ranks of the communicator
	coll              string
	kind              treeKind
	op                *Builtin // the operator, if predefined (a user's may hold its rank's state)
	opName            string
	root              int
	arrived, declined int
	local             int  // members of this process that arrived (of a run over several)
	maxAt             Time // latest arrival
	maxAtShared       Time // latest arrival of a task that shares its node (-1: none)
	vals              []Value
	rootVal           Value
	declRank          int
	declVal           Value
	err               error

	done    bool
	res     Value
	readers int // participants yet to read the result
	// lastEnd is, in partitions, the end of the latest window in which a
	// member joined: the operation completes at the end of the window
	// after it (endWindow).
	lastEnd Time

	// Each member's call, as an index into sigs (the distinct calls, in
	// joining order), and a member's Comm (for the communicator's group
	// and name): compared with the lowest rank's when the operation
	// completes (agree), so that the rank named does not depend on who
	// joined first, nor, in partitions, on the thread count.
	comm  *Comm
	sigOf []uint8
	sigs  []callSig
	// procs is each member's process that joined (the rank's, or a
	// progress context's for a nonblocking collective), to wake.
	procs []*runtime.Proc
	co    []bool // each member's: on its coprocessor (Rank.onCo)
}

// join numbers this call on c and returns the operation it belongs to.
func (st *treeState) join(c *Comm, ctx int, call *treeCall) (*treeOp, opKey) {
	// Every member calls the hardware on a communicator in the same order,
	// so each handle's own count names the call alike on all of them.
	seq := &c.hwSeq
	if ctx == mlCtx {
		seq = &c.r.mlHWSeq
	}
	k := opKey{ctx, *seq}
	*seq++
	op, _ := call.op.(*Builtin)
	o := st.opOf(k, c.size, call.coll, call.kind, call.root, op, opName(call.op))
	st.sign(o, c, c.rank, joinSig(c, ctx, call), c.r.Proc, c.r.onCo)
	return o, k
}

// opOf is the operation k, made if it is not under way yet.
func (st *treeState) opOf(k opKey, n int, coll string, kind treeKind, root int, op *Builtin, name string) *treeOp {
	o := st.ops[k]
	if o == nil {
		if n := len(st.free); n > 0 {
			o = st.free[n-1]
			st.free = st.free[:n-1]
			*o = treeOp{vals: o.vals, sigOf: o.sigOf, sigs: o.sigs[:0], procs: o.procs, co: o.co}
		} else {
			o = &treeOp{}
		}
		o.n, o.coll, o.kind, o.root, o.maxAtShared = n, coll, kind, root, -1
		o.op, o.opName = op, name
		st.ops[k] = o
	}
	return o
}

// joinSig is the signature of c's call of the operation.
func joinSig(c *Comm, ctx int, call *treeCall) callSig {
	size := -1
	if ctx != mlCtx && c.cur.call != nil {
		size = c.cur.call.size
	}
	return callSig{coll: c.callName(call.coll), root: call.root, op: opLabel(call.op), size: size}
}

// sign notes the call sig of member rank of o, whose process is p (nil: a
// member of another process) on its coprocessor or not; c is a member's
// handle of the communicator (this process's).
func (st *treeState) sign(o *treeOp, c *Comm, rank int, sig callSig, p *runtime.Proc, co bool) {
	if o.comm == nil {
		o.comm = c
		o.sigs = o.sigs[:0]
		if cap(o.sigOf) < o.n {
			o.sigOf = make([]uint8, o.n)
		}
		o.sigOf = o.sigOf[:o.n]
		if cap(o.procs) < o.n {
			o.procs = make([]*runtime.Proc, o.n)
		}
		o.procs = o.procs[:o.n]
		if cap(o.co) < o.n {
			o.co = make([]bool, o.n)
		}
		o.co = o.co[:o.n]
	}
	o.procs[rank], o.co[rank] = p, co
	i := 0
	for i < len(o.sigs) && o.sigs[i] != sig {
		i++
	}
	if i == len(o.sigs) {
		if i == math.MaxUint8 {
			i = 0 // a pathological program: report some disagreement, not this one
		} else {
			o.sigs = append(o.sigs, sig)
		}
	}
	o.sigOf[rank] = uint8(i)
}

// agree sets o.err if the members' calls differ: the lowest rank whose call
// differs from rank 0's is named, with rank 0's.
func (o *treeOp) agree() {
	if o.err != nil || len(o.sigs) < 2 {
		return
	}
	base := o.sigs[o.sigOf[0]]
	for i, si := range o.sigOf {
		if e := differ(o.comm.Name, i, o.sigs[si], 0, base); e != nil {
			o.err = e
			return
		}
	}
}

func opName(op Op) string {
	if op == nil {
		return "none"
	}
	return op.Name()
}

// run takes part in the operation: the rank arrives, waits for the others,
// and returns its result once the modeled operation has completed for it.
func (st *treeState) run(c *Comm, ctx int, call *treeCall) (Value, error) {
	r := c.r
	r.sync() // arrive when the CPU has finished entering the call
	if r.w.parted {
		return st.runParted(c, ctx, call)
	}
	o, k := st.join(c, ctx, call)
	st.arrive(c, o, call, r.Now())
	if o.arrived+o.declined < o.n {
		info := WaitInfo{Call: call.coll + " (" + hwName(call.alg) + ")", Peer: NoPeer, Comm: c.Name}
		for !o.done {
			r.Block(info)
		}
	} else {
		delete(st.ops, k)
		st.complete(c, o, c.rank, r.Now())
	}
	return st.result(c, o)
}

// arrive records c.rank's arrival at o at now with its call's value.
func (st *treeState) arrive(c *Comm, o *treeOp, call *treeCall, now Time) {
	o.local++
	st.arriveAt(c.r.w, o, c.rank, c.r.ID, call.root, call.v, now)
}

// arriveAt is member rank's arrival (world rank id) at now with v.
func (st *treeState) arriveAt(w *World, o *treeOp, rank, id, root int, v Value, now Time) {
	o.arrived++
	o.maxAt = max(o.maxAt, now)
	if st.roles(w)[id]&roleShared != 0 {
		o.maxAtShared = max(o.maxAtShared, now)
	}
	switch o.kind {
	case kindReduce:
		if cap(o.vals) < o.n {
			o.vals = make([]Value, o.n)
		}
		o.vals = o.vals[:o.n]
		o.vals[rank] = v
	case kindBcast:
		if rank == root {
			o.rootVal = v
		}
	}
}

// result is c.rank's result of the completed o; the last reader recycles o.
func (st *treeState) result(c *Comm, o *treeOp) (Value, error) {
	res, err := o.res, o.err
	if o.root >= 0 && c.rank != o.root && o.kind == kindReduce {
		res = Value{}
	}
	if o.readers--; o.readers == 0 {
		st.recycle(o)
	}
	return res, err
}

// runParted is run in partitions. The members join under the state's lock,
// from any partition, in no set order; what they bring is kept so that the
// order does not matter (a maximum, a count, a slot per rank, each rank's
// call). Every member waits; the operation completes at the end of the
// window after the one in which the last member joined (World.EndWindow,
// joinedParted), when every partition is at rest, so that the networks,
// the CPUs and the wake-ups of all members are handled by one goroutine in
// a set order. The networks' latency is far longer than two windows (a hop
// each), so no member is woken before it could have been. Over several
// processes each join is also told to the others (tellJoin), which keep
// every operation and charge and wake their own members.
func (st *treeState) runParted(c *Comm, ctx int, call *treeCall) (Value, error) {
	r := c.r
	st.mu.Lock()
	o, k := st.join(c, ctx, call)
	st.arrive(c, o, call, r.Now())
	st.joinedParted(r, o, k)
	st.mu.Unlock()
	if r.w.tellAll != nil {
		r.w.tellJoin(c, ctx, call, k, false)
	}
	info := WaitInfo{Call: call.coll + " (" + hwName(call.alg) + ")", Peer: NoPeer, Comm: c.Name}
	for !o.done { // written at the end of a window, read in a later one
		r.Block(info)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.result(c, o)
}

// joinedParted notes, in partitions (under st.mu), that a member of o (key
// k) joined or declined in r's partition's window. Once every member has,
// o is ready, and completes at the end of the window after the one of the
// last join (endWindow), which every join asks for (Engine.Keep): a
// window later, every process of a run over several knows every join, and
// a window after any join runs whether that process knew the operation
// ready or not.
func (st *treeState) joinedParted(r *Rank, o *treeOp, k opKey) {
	e := r.Proc.Engine()
	o.lastEnd = max(o.lastEnd, e.WindowEnd())
	e.Keep(o.lastEnd)
	if o.arrived+o.declined < o.n {
		return
	}
	delete(st.ops, k)
	st.ready = append(st.ready, readyOp{k, o})
}

// endWindow completes, in a run in partitions, the operations every member
// had joined before the window that ended at end, in the order of their
// last arrivals (then the message layer's before MPI's, by communicator
// name and call): every partition is at rest.
func (st *treeState) endWindow(w *World, end Time) {
	if len(st.ready) == 0 {
		return
	}
	sort.Slice(st.ready, func(i, j int) bool {
		a, b := st.ready[i], st.ready[j]
		if a.o.maxAt != b.o.maxAt {
			return a.o.maxAt < b.o.maxAt
		}
		if ma, mb := a.k.ctx == mlCtx, b.k.ctx == mlCtx; ma != mb {
			return ma
		}
		if a.o.comm.Name != b.o.comm.Name { // not the context: its number depends on who asked first
			return a.o.comm.Name < b.o.comm.Name
		}
		return a.k.seq < b.k.seq
	})
	keep := st.ready[:0]
	for _, ro := range st.ready {
		o := ro.o
		if o.lastEnd >= end {
			keep = append(keep, ro) // its last join was in this window
			continue
		}
		o.agree()
		if o.arrived == 0 { // every member declined: nobody waits
			st.recycle(o)
		} else {
			st.complete(o.comm, o, -1, end)
		}
	}
	clear(st.ready[len(keep):])
	st.ready = keep
}

func hwName(alg string) string {
	if alg == "gi" {
		return "global interrupt"
	}
	return "collective network"
}

// decline notes that this rank of c runs the default algorithm instead of
// call (for a reason of its own values), so that ranks that took the
// hardware learn it instead of waiting forever.
func (st *treeState) decline(c *Comm, ctx int, call *treeCall, why string) {
	c.noteFallback(call.coll, call.alg, why)
	if c.rank == 0 {
		st.record(call.coll, call.alg, why)
	}
	if parted := c.r.w.parted; parted {
		st.mu.Lock()
		defer st.mu.Unlock()
	}
	o, k := st.join(c, ctx, call)
	if o.declined++; o.declined == 1 || c.rank < o.declRank {
		o.declRank, o.declVal = c.rank, call.v // the lowest rank, whatever the order
	}
	if c.r.w.parted {
		st.joinedParted(c.r, o, k)
		if c.r.w.tellAll != nil {
			c.r.w.tellJoin(c, ctx, call, k, true)
		}
		return
	}
	if o.arrived+o.declined < o.n {
		return
	}
	delete(st.ops, k)
	switch {
	case o.arrived == 0:
		st.recycle(o)
	default:
		st.complete(c, o, c.rank, c.r.Now())
	}
}

func (st *treeState) recycle(o *treeOp) {
	clear(o.vals)
	clear(o.procs)
	o.rootVal, o.declVal, o.res, o.op, o.comm = Value{}, Value{}, Value{}, nil, nil
	st.free = append(st.free, o)
}

// complete runs on the last rank to join at now (self: its rank in c), or in
// partitions at the end of the window (now: its end; self: -1): it computes
// the result and every rank's completion, charges the CPUs and wakes the
// ranks (each on its own engine, never before now).
func (st *treeState) complete(c *Comm, o *treeOp, self int, now Time) {
	w := c.r.w
	o.done = true
	o.readers = o.local
	o.agree()
	if o.err == nil && o.declined > 0 {
		var why string
		if o.op != nil {
			if _, err := o.op.Combine(o.declVal, o.declVal); err != nil {
				why = err.Error() + "; "
			}
		}
		o.err = fmt.Errorf("rank %d of %s passed %s, which the collective network cannot reduce, while other ranks took it (%s%s)",
			o.declRank, c.Name, kind(o.declVal.Data), why, "every rank must pass values of the same kind")
	}
	var tr treeReduction
	switch {
	case o.err != nil:
	case o.kind == kindReduce && o.op == nil:
		o.err = fmt.Errorf("mpi: %s on the collective network without a predefined operator", o.coll) // not reached: such calls decline
	case o.kind == kindReduce:
		tr, o.err = st.reduce(o.op, o.vals)
		o.res = tr.res
	case o.kind == kindBcast:
		o.res = o.rootVal
	}
	if o.err != nil {
		for i := 0; i < o.n; i++ {
			if p := o.procs[i]; i != self && p != nil {
				p.Engine().Wake(p, now)
			}
		}
		return
	}

	var tc msglayer.TreeCost
	if o.kind == kindGI {
		st.giOps++
	} else {
		st.treeOps++
	}
	switch o.kind {
	case kindGI:
		tc = st.net.GIBarrier(o.maxAt)
	case kindBarrier:
		tc = st.net.Barrier(o.maxAt)
	case kindBcast:
		tc = st.net.Broadcast(o.maxAt, o.res.Size)
	case kindReduce:
		tc = st.net.Reduce(o.maxAt, o.maxAtShared, tr.elems, tr.passes, tr.convertBack, o.res.Size)
	}
	role := st.roles(w)
	for i := 0; i < o.n; i++ {
		id := c.World(i)
		done, cost := tc.End, tc.Work
		switch {
		case o.kind == kindBcast && i == o.root:
			cost = tc.RootWork
		case role[id]&rolePartner != 0:
			done, cost = tc.End+tc.Copy, tc.Copy
		case role[id]&roleShared != 0:
			cost += tc.Combine
		}
		if p := o.procs[i]; p != nil {
			// (Members of other processes are charged and woken there.)
			done = st.net.Charge(id, o.co[i], done, cost, now)
			if i != self {
				p.Engine().Wake(p, done)
			}
		}
	}
}

// treeReduction is what the ALU computes and what it costs.
type treeReduction struct {
	res         Value
	elems       int   // numbers per rank
	passes      []int // bytes per node of each pass
	convertBack bool  // a floating-point sum converts its fixed-point result
}

// reduce computes b over vals (one value per rank, in any order) as the
// collective network's ALU does. Values the predefined operator would
// reject give the operator's own error.
func (st *treeState) reduce(b *Builtin, vals []Value) (treeReduction, error) {
	first := vals[0]
	reject := func(v Value) error {
		_, err := b.Combine(first, v)
		if err == nil {
			_, err = b.Combine(v, v)
		}
		if err == nil {
			err = fmt.Errorf("mpi.%s: values the collective network cannot reduce (%s and %s)", b.Name(), kind(first.Data), kind(v.Data))
		}
		return err
	}
	var tr treeReduction
	switch d := first.Data.(type) {
	case Phantom:
		n := 0
		for _, v := range vals {
			p, ok := v.Data.(Phantom)
			if !ok {
				return tr, reject(v)
			}
			n = max(n, p.N)
		}
		e := (n + 7) / 8
		tr.res, tr.elems = Value{Data: Phantom{N: n}, Size: n}, e
		if b.loc != 0 {
			pairs := (n + 15) / 16
			tr.elems, tr.passes = 2*pairs, []int{8 * pairs, 16 * pairs}
			return tr, nil
		}
		tr.passes, tr.convertBack = b.passes(e)
		return tr, nil
	case float64:
		for _, v := range vals {
			if _, ok := v.Data.(float64); !ok {
				return tr, reject(v)
			}
		}
		if b.loc != 0 {
			return tr, reject(first)
		}
		out := st.element(b, vals, func(v Value) float64 { return v.Data.(float64) })
		tr.res, tr.elems = Value{Data: out, Size: 8}, 1
		tr.passes, tr.convertBack = b.passes(1)
		return tr, nil
	case []float64:
		m := len(d)
		for _, v := range vals {
			if x, ok := v.Data.([]float64); !ok || len(x) != m {
				return tr, reject(v)
			}
		}
		if b.loc != 0 {
			if m != 2 {
				return tr, reject(first)
			}
			tr.res, tr.elems = Value{Data: st.loc(b, vals), Size: 16}, 2
			tr.passes = []int{8, 16}
			return tr, nil
		}
		out := make([]float64, m)
		for j := range out {
			out[j] = st.element(b, vals, func(v Value) float64 { return v.Data.([]float64)[j] })
		}
		tr.res, tr.elems = Value{Data: out, Size: 8 * m}, m
		tr.passes, tr.convertBack = b.passes(m)
		return tr, nil
	}
	return tr, reject(first)
}

// passes is the bytes per node of each pass for m elements, and whether the
// result converts back from fixed point (a sum).
func (b *Builtin) passes(m int) ([]int, bool) {
	if b == SUM {
		return []int{4 * m, sumMantissaBytes * m}, true
	}
	return []int{8 * m}, false
}

// element combines element x(v) of every value.
func (st *treeState) element(b *Builtin, vals []Value, x func(Value) float64) float64 {
	col := st.col[:0]
	for _, v := range vals {
		col = append(col, x(v))
	}
	st.col = col
	switch b {
	case SUM:
		return st.net.Sum(col)
	case MAX, MIN:
		return st.net.Max(col, b == MIN)
	case LAND, LOR:
		return st.net.Logical(col, b == LOR)
	case BAND, BOR:
		return st.net.Bitwise(col, b == BOR)
	}
	panic("mpi: no ALU mapping for " + b.Name())
}

// loc is MAXLOC or MINLOC over {value, index} pairs in two ALU passes: the
// best value (max, or min, of the values' integer images; -0 counts as +0,
// as == does), then the smallest index among the pairs that hold it, with
// that pair's value.
func (st *treeState) loc(b *Builtin, vals []Value) []float64 {
	val, idx := st.net.Loc(len(vals), func(i int) (float64, float64) {
		p := vals[i].Data.([]float64)
		return p[0], p[1]
	}, b.loc < 0)
	return []float64{val, idx}
}

// The hardware algorithms of the collectives (registered in
// coll_barrier_gi.go, coll_barrier_tree.go, coll_bcast_tree.go,
// coll_reduce_tree.go, coll_allreduce_tree.go).

func barrierGI(c *Comm) error {
	if why := c.hwWhyNot(true); why != "" {
		c.treeFallback("barrier", "gi", why)
		return treeDefaultBarrier(c)
	}
	_, err := c.r.w.tree().run(c, c.ctx, &treeCall{coll: "barrier", alg: "gi", kind: kindGI, root: -1})
	return err
}

func barrierTree(c *Comm) error {
	if why := c.hwWhyNot(false); why != "" {
		c.treeFallback("barrier", "tree", why)
		return treeDefaultBarrier(c)
	}
	_, err := c.r.w.tree().run(c, c.ctx, &treeCall{coll: "barrier", alg: "tree", kind: kindBarrier, root: -1})
	return err
}

func bcastTree(c *Comm, v Value, root int) (Value, error) {
	if why := c.hwWhyNot(false); why != "" {
		c.treeFallback("bcast", "tree", why)
		return treeDefaultBcast(c, v, root)
	}
	return c.r.w.tree().run(c, c.ctx, &treeCall{coll: "bcast", alg: "tree", kind: kindBcast, v: v, root: root})
}

func reduceTree(c *Comm, v Value, op Op, root int) (Value, error) {
	if why := c.hwWhyNot(false); why != "" {
		c.treeFallback("reduce", "tree", why)
		return treeDefaultReduce(c, v, op, root)
	}
	call := &treeCall{coll: "reduce", alg: "tree", kind: kindReduce, v: v, op: op, root: root}
	if why := treeOpWhyNot(op); why != "" {
		return Value{}, c.cannot("reduce", "tree", why)
	}
	st := c.r.w.tree()
	if why := treeValueWhyNot(v); why != "" {
		st.decline(c, c.ctx, call, why)
		return treeDefaultReduce(c, v, op, root)
	}
	return st.run(c, c.ctx, call)
}

func allreduceTree(c *Comm, v Value, op Op) (Value, error) {
	if why := c.hwWhyNot(false); why != "" {
		c.treeFallback("allreduce", "tree", why)
		return treeDefaultAllreduce(c, v, op)
	}
	call := &treeCall{coll: "allreduce", alg: "tree", kind: kindReduce, v: v, op: op, root: -1}
	if why := treeOpWhyNot(op); why != "" {
		return Value{}, c.cannot("allreduce", "tree", why)
	}
	st := c.r.w.tree()
	if why := treeValueWhyNot(v); why != "" {
		st.decline(c, c.ctx, call, why)
		return treeDefaultAllreduce(c, v, op)
	}
	return st.run(c, c.ctx, call)
}

func treeReduceWhyNot(v Value, op Op) string {
	if why := treeOpWhyNot(op); why != "" {
		return why
	}
	return treeValueWhyNot(v)
}

// The message layer's direct use of the hardware (ml.tree_bcast,
// ml.tree_reduce, ml.gi_barrier): whole-partition operations, numbered apart
// from MPI's, that cost no MPI call and never fall back: what the hardware
// cannot do is an error.

// mlCtx numbers the message layer's hardware operations (MPI contexts are >= 0).
const mlCtx = -1

func (r *Rank) hwCheck(gi bool, fname string) error {
	if why := r.World.hwWhyNot(gi); why != "" {
		return fmt.Errorf("%s: %s", fname, why)
	}
	return nil
}

// TreeBcast is root's v on every rank of the job, over the collective network.
func (r *Rank) TreeBcast(v Value, root int) (Value, error) {
	if err := r.hwCheck(false, "ml.tree_bcast"); err != nil {
		return Value{}, err
	}
	if root < 0 || root >= len(r.w.ranks) {
		return Value{}, fmt.Errorf("ml.tree_bcast: root %d out of range 0..%d", root, len(r.w.ranks)-1)
	}
	defer r.sync()
	return r.w.tree().run(r.World, mlCtx, &treeCall{coll: "ml.tree_bcast", alg: "tree", kind: kindBcast, v: v, root: root})
}

// TreeAllreduce combines every rank's v with op on the collective network's
// ALU and returns the result on every rank of the job.
func (r *Rank) TreeAllreduce(v Value, op Op) (Value, error) {
	if err := r.hwCheck(false, "ml.tree_reduce"); err != nil {
		return Value{}, err
	}
	if why := treeReduceWhyNot(v, op); why != "" {
		return Value{}, fmt.Errorf("ml.tree_reduce: %s", why)
	}
	defer r.sync()
	return r.w.tree().run(r.World, mlCtx, &treeCall{coll: "ml.tree_reduce", alg: "tree", kind: kindReduce, v: v, op: op, root: -1})
}

// GIBarrier blocks until every rank of the job has entered it, over the
// global interrupt network.
func (r *Rank) GIBarrier() error {
	if err := r.hwCheck(true, "ml.gi_barrier"); err != nil {
		return err
	}
	defer r.sync()
	_, err := r.w.tree().run(r.World, mlCtx, &treeCall{coll: "ml.gi_barrier", alg: "gi", kind: kindGI, root: -1})
	return err
}
