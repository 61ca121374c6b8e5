package mpi

import (
	"fmt"
	"sync"
)

// Context ids and link labels are functions of what they name, so that
// every process of a run over several (docs/distributed.md) computes the
// same numbers without a counter they share: a communicator's context is a
// hash of its key (the parent's context, the split or dup number, the
// color), a link label a hash of its name. They are only compared (and
// labels printed by name), so which numbers they are changes no output.
// Two keys that hash alike would silently merge two communicators' traffic:
// each World keeps the keys it has given ids to and stops the run with an
// *IDCollisionError instead.

// worldCtx is COMM_WORLD's context (its collectives' is 1).
const worldCtx = 0

// contextID is the context of the communicator derived from the one of
// context parent by its seq-th split or dup, for the members of one color:
// an even number in [2, 2^62) (its collectives' context is the next odd
// one). Views and nonblocking collectives' private communicators have
// their own seq (viewSeq, nbcSeq).
func contextID(k ctxKey) int {
	z := mix64(uint64(k.parent) + 0x9e3779b97f4a7c15)
	z = mix64(z ^ uint64(k.seq)*0xc2b2ae3d27d4eb4f)
	z = mix64(z ^ uint64(k.color)*0x165667b19e3779f9)
	return int(z>>2) &^ 1
}

// mix64 is SplitMix64's finalizer: every bit of the result depends on every
// bit of z.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// labelID is the link label of name: a positive int32 (0 is traffic outside
// collectives).
func labelID(name string) int32 {
	z := uint64(0xcbf29ce484222325) // FNV-1a, then mixed
	for i := 0; i < len(name); i++ {
		z = (z ^ uint64(name[i])) * 0x100000001b3
	}
	l := int32(mix64(z) >> 33)
	if l == 0 {
		l = 1
	}
	return l
}

// An IDCollisionError stops a run in which two different keys got the same
// context id, or two link labels' names the same number: a chance of
// about 2^-61 for two contexts, 2^-31 for two labels, reported rather than
// letting two communicators' messages match each other.
type IDCollisionError struct {
	What        string // "context" or "link label"
	ID          int64
	First, Then string // the keys (or names) that share ID, in the order this process met them
	Rank        int
	Time        Time
}

func (e *IDCollisionError) Error() string {
	return fmt.Sprintf("mpi: the %ss of %s and of %s have the same id %d, which would mix them up (rank %d, cycle %d)",
		e.What, e.First, e.Then, e.ID, e.Rank, e.Time)
}

// collide stops the run at the collision e, met by r, and ends r's process.
func (r *Rank) collide(e *IDCollisionError) {
	e.Rank, e.Time = r.ID, r.Now()
	r.Proc.Engine().Stop(e)
	r.Proc.Exit()
}

// ctxTable holds the keys this World has given context ids to, by id:
// those of context for the run, those of takeContext until every member
// has taken theirs.
type ctxTable struct {
	mu   sync.Mutex // in partitions
	keys map[int]ctxEntry
	// hash is contextID; a test's may collide.
	hash func(ctxKey) int
}

type ctxEntry struct {
	k    ctxKey
	left int // takeContext: members yet to take it (0: a context for the run)
}

func (k ctxKey) String() string {
	switch k.seq {
	case viewSeq:
		return fmt.Sprintf("(the view of context %d)", k.parent)
	case nbcSeq:
		return fmt.Sprintf("(nonblocking collective %d of context %d)", k.color, k.parent)
	}
	return fmt.Sprintf("(split or dup %d of context %d, color %d)", k.seq, k.parent, k.color)
}

// context returns the context id for a communicator derived from parent by
// its seq-th split or dup, for the members of one color. Every member asks
// with the same key and gets the same id, whoever asks first and in
// whatever process.
func (r *Rank) context(parent, seq, color int) int {
	return r.contextOf(ctxKey{parent, seq, color}, 0)
}

// takeContext is context for a key that each of size members asks for
// once: the key is forgotten when the last has taken it, so that a long
// run does not keep one a nonblocking call.
func (r *Rank) takeContext(k ctxKey, size int) int { return r.contextOf(k, size) }

// contextOf is the id of k, noted for size members to take (0: for the
// run); a collision with another key stops the run.
func (r *Rank) contextOf(k ctxKey, size int) int {
	w := r.w
	t := &w.ctxs
	unlock := w.locked(&t.mu)
	id, e := t.note(k, size)
	unlock()
	if e != nil {
		r.collide(e)
	}
	return id
}

// note is contextOf under the lock.
func (t *ctxTable) note(k ctxKey, size int) (int, *IDCollisionError) {
	hash := t.hash
	if hash == nil {
		hash = contextID
	}
	id := hash(k)
	if id == worldCtx {
		return id, &IDCollisionError{What: "context", ID: int64(id), First: "COMM_WORLD", Then: k.String()}
	}
	if t.keys == nil {
		t.keys = map[int]ctxEntry{}
	}
	en, ok := t.keys[id]
	switch {
	case !ok:
		en = ctxEntry{k: k, left: size}
	case en.k != k:
		return id, &IDCollisionError{What: "context", ID: int64(id), First: en.k.String(), Then: k.String()}
	}
	if size > 0 {
		if en.left--; en.left == 0 {
			delete(t.keys, id)
			return id, nil
		}
	}
	t.keys[id] = en
	return id, nil
}
