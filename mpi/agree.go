package mpi

import (
	"fmt"

	"github.com/bglua/bglua/msglayer"
)

// Agreement checks. MPI requires every rank of a communicator to call the
// same collectives in the same order with the same root, operator and, for
// buffers, the same size. A program that breaks the rule must get an error,
// never a result that depends on the algorithm (issue 18).
//
// Point-to-point algorithms (built-in ones on the collective context, Lua
// ones on their view) carry the caller's signature with every message: the
// collective, its number among the collectives of the communicator on that
// rank, root, operator and size. The signature rides in Go, on the sender's
// request that the message already points to (msglayer.Message.Sent,
// bcs.Desc.Token): no modeled byte, no event, no virtual time. The receiver
// compares it with its own when the message matches a receive, in the
// partition of the receiving rank, at the virtual time of the match: the
// same event on every thread count, so the same error. A message that no
// receive takes (two ranks that each think they are the root send and never
// receive) is found when its receiver enters its next collective on the
// communicator, or at the end of the run (World.StrayCollective).
//
// Under the bcs runtime the receiver compares when the send's descriptor
// reaches it in the descriptor exchange of a slice, before any data moves
// (bcs.go); it is woken with the error whether it waits for a receive or,
// since a bcs send waits for its receive, for a send of its own. A rank that enters the call after its
// peers' messages came, and waits for one that will not come, is found when
// the run would end in a deadlock (World.Disagreement).
//
// The hardware paths (collective network, global interrupt) and the bcs
// runtime's own collectives see every member's call at one place: they keep
// each rank's signature and compare them with the lowest rank's when the
// operation completes (tree.go, bcs.go).
//
// Operators compare by name: mpi.SUM and friends by theirs; a Lua function
// by where it was written (luabind names it "function at FILE:LINE"), so
// closures of one function agree, as the same MPI_Op created on every rank.

// callSig is what must agree among the ranks' calls of one collective.
type callSig struct {
	coll string
	root int    // -1: the collective has none
	op   string // "": none
	size int    // bytes every rank must pass alike; -1: not checked
}

// collSig is a rank's signature of one collective call on a communicator:
// what must agree, and seq, the call's number among the rank's collectives
// on that communicator. It is kept by value (in Comm, and in Request as sig
// and sigSeq): call points to a callSig that is never changed once made,
// shared by every call with the same arguments (World.intern), so a
// collective call allocates nothing and a message can be compared long
// after its sender has moved on.
type collSig struct {
	call *callSig // nil: no collective
	seq  uint32
}

// same reports whether two signatures (neither empty) are of the same call
// with the same arguments.
func (s collSig) same(t collSig) bool {
	return s.seq == t.seq && (s.call == t.call || *s.call == *t.call)
}

// sigTabMax bounds the distinct signatures a World keeps for sharing; past
// it (a program whose calls differ in size at every step) a new one is
// made for each call that differs from its communicator's previous one.
const sigTabMax = 4096

// intern returns the shared, never changed copy of s.
func (w *World) intern(s callSig) *callSig {
	w.sigMu.Lock()
	defer w.sigMu.Unlock()
	if p := w.sigs[s]; p != nil {
		return p
	}
	p := new(callSig) // not &s: s would move to the heap on every call
	*p = s
	if w.sigs == nil {
		w.sigs = map[callSig]*callSig{}
	}
	if len(w.sigs) < sigTabMax {
		w.sigs[s] = p
	}
	return p
}

// MismatchError is a collective whose ranks disagree on its arguments.
type MismatchError struct{ Msg string }

func (e *MismatchError) Error() string { return e.Msg }

// mismatch carries a *MismatchError from deep in an algorithm to the
// collective's entry point (catch), which returns it.
type mismatch struct{ err *MismatchError }

// catch turns the panic of a mismatch found inside an algorithm into the
// entry point's error; other panics go on.
func catch(err *error) {
	if p := recover(); p != nil {
		m, ok := p.(mismatch)
		if !ok {
			panic(p)
		}
		*err = m.err
	}
}

// bufSize is the size that every rank must pass alike for a buffer: a
// number, an array of numbers or a phantom. Other values (strings, tables)
// are objects, as mpi4py's lower-case calls send them, and may differ.
func bufSize(v Value) int {
	switch v.Data.(type) {
	case float64, []float64, Phantom:
		return v.Size
	}
	return -1
}

// opSize is bufSize for reductions with a predefined operator; a Lua
// operator takes values of any size.
func opSize(v Value, op Op) int {
	if _, ok := op.(*Builtin); ok {
		return bufSize(v)
	}
	return -1
}

// begin starts this rank's call of a collective on c: it numbers the call,
// makes its signature the one c's messages carry, and checks that no
// message of an earlier call waits here untaken.
func (c *Comm) begin(coll string, root int, op Op, size int) {
	r := c.r
	s := callSig{coll: c.callName(coll), root: root, op: opLabel(op), size: size}
	call := c.cur.call
	if call == nil || *call != s {
		call = r.w.intern(s)
	}
	prev := c.cur
	c.cur = collSig{call: call, seq: c.collSeq}
	c.collSeq++
	if !c.noted {
		r.noteComm(c)
	}
	if prev.call != nil && r.home().collStray > 0 {
		if err := c.stray(prev); err != nil {
			panic(mismatch{err})
		}
	}
}

// noteComm makes c the rank's handle on its context for the checks of
// arriving messages (commOf). COMM_WORLD needs no note.
func (r *Rank) noteComm(c *Comm) {
	r = r.home()
	c.noted = true
	if c == r.World {
		return
	}
	for i, o := range r.collComms {
		if o.ctx == c.ctx {
			r.collComms[i] = c
			return
		}
	}
	r.collComms = append(r.collComms, c)
}

// commOf is the rank's handle on the communicator of context ctx that has
// called a collective, or nil.
func (r *Rank) commOf(ctx int) *Comm {
	if r.World != nil && r.World.ctx == ctx && r.World.noted {
		return r.World
	}
	for _, c := range r.collComms {
		if c.ctx == ctx {
			return c
		}
	}
	return nil
}

// opLabel is an operator's name in a signature ("" for none).
func opLabel(op Op) string {
	if op == nil {
		return ""
	}
	return op.Name()
}

// sigFor is the signature messages on ctx carry when c sends or
// receives them: the current call's on the collective context, the
// enclosing call's on a Lua algorithm's view, else none.
func (c *Comm) sigFor(ctx int) collSig {
	if ctx != c.ctx {
		return c.cur
	}
	return c.outer
}

// sigOf is the signature carried by the message m (empty if none).
func sigOf(m *msglayer.Message) collSig {
	switch s := m.Sent.(type) {
	case *Request:
		return s.signature()
	case *msgBox:
		return s.q.signature()
	}
	return collSig{}
}

// signature is the collective call q belongs to (empty if none).
func (q *Request) signature() collSig { return collSig{call: q.sig, seq: q.sigSeq} }

// check compares the signature of a message from rank from (in q's
// communicator) with q's own, and records a mismatch on q.
func (q *Request) check(s collSig, from int) {
	if s.call == nil || q.sig == nil {
		return
	}
	if mine := q.signature(); !s.same(mine) {
		q.bad = describe(q.comm.Name, from, s, q.comm.rank, mine)
	}
}

// describe says how the calls of ranks a and b (in the communicator named
// comm) differ, the higher rank first: "rank 3 has root 1 but rank 0 has
// root 0 (COMM_WORLD)".
func describe(comm string, a int, sa collSig, b int, sb collSig) *MismatchError {
	if a < b {
		a, b, sa, sb = b, a, sb, sa
	}
	if sa.seq != sb.seq && sa.call.coll == sb.call.coll {
		return &MismatchError{Msg: fmt.Sprintf("rank %d is in its %s collective call but rank %d in its %s, both %s (%s): the ranks do not call the same collectives",
			a, ordinal(sa.seq), b, ordinal(sb.seq), sa.call.coll, comm)}
	}
	return differ(comm, a, *sa.call, b, *sb.call)
}

// differ says how two ranks' calls differ (rank a's first), or nil.
func differ(comm string, a int, sa callSig, b int, sb callSig) *MismatchError {
	var what string
	switch {
	case sa.coll != sb.coll:
		what = fmt.Sprintf("rank %d called %s but rank %d called %s", a, sa.coll, b, sb.coll)
	case sa.root != sb.root:
		what = fmt.Sprintf("%s: rank %d has root %d but rank %d has root %d", sa.coll, a, sa.root, b, sb.root)
	case sa.op != sb.op:
		what = fmt.Sprintf("%s: rank %d has operator %s but rank %d has operator %s", sa.coll, a, sa.op, b, sb.op)
	case sa.size != sb.size && sa.size >= 0 && sb.size >= 0:
		what = fmt.Sprintf("%s: rank %d passes %s but rank %d passes %s", sa.coll, a, plural(sa.size, "byte"), b, plural(sb.size, "byte"))
	default:
		return nil
	}
	return &MismatchError{Msg: what + " (" + comm + ")"}
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

func ordinal(seq uint32) string {
	n := seq + 1
	suf := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suf = "st"
	case n%10 == 2:
		suf = "nd"
	case n%10 == 3:
		suf = "rd"
	}
	return fmt.Sprintf("%d%s", n, suf)
}

// Err is the disagreement found when q's message matched, or while q's
// rank waited in the collective call q belongs to, or nil.
func (q *Request) Err() error {
	if op := q.collective(); op != nil {
		return op.err
	}
	if e := q.disagreement(); e != nil {
		return e
	}
	return nil
}

func (q *Request) disagreement() *MismatchError {
	if q.bad != nil {
		return q.bad
	}
	if r := q.r; q.sig != nil && r.collBad != nil {
		e := r.collBad
		r.collBad = nil
		return e
	}
	return nil
}

// mustAgree raises, inside an algorithm, the disagreement found on q.
func (q *Request) mustAgree() {
	if e := q.disagreement(); e != nil {
		panic(mismatch{e})
	}
}

// arrived notes a message of a collective algorithm (signature s) that
// reached r before a receive took it. If r waits in the same call of the
// communicator and the calls differ, the message is one r's call will never
// take: r is woken to raise the disagreement (a rank that waits for a
// message that will not come would otherwise end in a deadlock).
func (r *Rank) arrived(m *msglayer.Message, s collSig) {
	r.collStray++
	r.disagrees(m.Ctx, m.From, s)
}

// disagrees is arrived for a message on context ctx from rank from (in its
// communicator), whichever the runtime: under bcs, a send descriptor that
// reached r in the descriptor exchange (bcs.go).
func (r *Rank) disagrees(ctx, from int, s collSig) {
	c := r.commOf(ctx &^ 1)
	if c == nil {
		return
	}
	mine := c.sigFor(ctx)
	if mine.call == nil || mine.seq != s.seq || *mine.call == *s.call {
		return
	}
	// The context that waits in the call: the rank, or the progress
	// context of a nonblocking collective (c.r).
	if x := c.r; x.awaiting != nil && x.awaiting.sig != nil && x.collBad == nil {
		x.collBad = describe(c.Name, from, s, c.rank, mine)
		x.wake()
	}
}

// stray looks for messages of the call prev (or earlier) of c that wait in
// this rank's unexpected queue: by the time the rank has finished a call,
// it has taken every message the call's algorithm sends it, unless the
// ranks disagreed.
func (c *Comm) stray(prev collSig) *MismatchError {
	r := c.r.home()
	for a := r.unexpected.all.head; a != nil; a = a.next {
		s := sigOf(a.m)
		if s.call == nil || a.m.Ctx&^1 != c.ctx || s.seq > prev.seq {
			continue
		}
		return c.strayError(a.m.From, s, prev)
	}
	return nil
}

// strayError describes a message from rank from, sent in its call s, that
// this rank's call mine did not take.
func (c *Comm) strayError(from int, s, mine collSig) *MismatchError {
	if s.seq == mine.seq {
		if e := describe(c.Name, from, s, c.rank, mine); e != nil {
			return e
		}
	}
	return &MismatchError{Msg: fmt.Sprintf("rank %d never took the message rank %d sent it in its %s collective call (%s) on %s: the ranks disagree on the collectives they call",
		c.rank, from, ordinal(s.seq), s.call.coll, c.Name)}
}

// Disagreement is the error of a run that ended in a deadlock because
// ranks disagreed on a collective, with the rank it belongs to, or nil: a
// message of a collective algorithm that no receive took, sent to a rank
// that is in the same call with other arguments, or already past that
// call. It covers what the checks as messages arrive cannot see: a message
// that came before its receiver entered the call, or a rank that finished
// while its peer still waits to send to it (under bcs a send waits for
// its receive). Ranks are looked at in order, and each rank's messages in
// the order they reached it (under bcs: the unmatched sends exchanged to
// it), with every partition at rest: the same answer for any thread count.
func (w *World) Disagreement() (rank int, err error) {
	for _, r := range w.ranks {
		if r == nil {
			continue
		}
		if w.bcs != nil {
			for _, d := range w.bcs.s.Pending(r.ID) {
				if q, ok := d.Token.(*Request); ok && q.sig != nil {
					if e := r.untaken(d.Ctx, d.Src, q.signature()); e != nil {
						return r.ID, e
					}
				}
			}
			continue
		}
		if r.collStray == 0 {
			continue
		}
		for a := r.unexpected.all.head; a != nil; a = a.next {
			if s := sigOf(a.m); s.call != nil {
				if e := r.untaken(a.m.Ctx, a.m.From, s); e != nil {
					return r.ID, e
				}
			}
		}
	}
	return 0, nil
}

// untaken is the disagreement that a message of call s on context ctx,
// from rank from, shows if r's call on that communicator is the same one
// with other arguments or a later one; nil if r has not reached it.
func (r *Rank) untaken(ctx, from int, s collSig) *MismatchError {
	c := r.commOf(ctx &^ 1)
	if c == nil {
		return nil
	}
	mine := c.sigFor(ctx)
	switch {
	case mine.call == nil || mine.seq < s.seq:
		return nil
	case mine.seq == s.seq:
		return describe(c.Name, from, s, c.rank, mine) // nil if they agree
	}
	return c.strayError(from, s, mine)
}

// StrayCollective is the error of the first message of a collective
// algorithm (by rank, then arrival) that no receive took, with the rank
// that did not take it and when it came, or nil: called at the end of a run
// that ended well, with every partition at rest.
func (w *World) StrayCollective() (rank int, at Time, err error) {
	for _, r := range w.ranks {
		if r == nil || r.collStray == 0 {
			continue
		}
		for a := r.unexpected.all.head; a != nil; a = a.next {
			s := sigOf(a.m)
			if s.call == nil {
				continue
			}
			c := r.commOf(a.m.Ctx &^ 1)
			if c == nil {
				c = r.World
			}
			mine := c.sigFor(a.m.Ctx)
			if mine.call == nil {
				mine = s
			}
			return r.ID, a.done, c.strayError(a.m.From, s, mine)
		}
	}
	return 0, 0, nil
}
