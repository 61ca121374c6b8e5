package mpi

import (
	"strconv"
	"sync"
)

// Link accounting: with CountLinks on, every message a rank sends inside a
// collective carries a label naming the collective and the algorithm it
// runs ("allreduce (recursive_doubling)"), and the message layer counts the
// bytes its packets put on each torus link under that label. Traffic
// outside collectives (point-to-point calls, active messages) has label 0.

// labelTable names the labels of a run (shared by the partitions). A
// label's number is a hash of its name (labelID, ids.go), the same in
// every process; the table keeps the names met, to print them and to catch
// two names of one number.
type labelTable struct {
	on    bool
	mu    sync.Mutex
	names map[int32]string
	// hash is labelID; a test's may collide.
	hash func(string) int32
}

// CountLinks turns on the accounting of the torus links' traffic, labelled
// by collective (LinkLabel names the labels). Call it before the run.
func (w *World) CountLinks() {
	w.ml.CountLinks()
	w.labels.on = true
}

// LinkLabel names label l of the link accounting: the collective and its
// algorithm, "" for 0 (traffic outside collectives) and for a number no
// rank has labelled traffic with.
func (w *World) LinkLabel(l int32) string {
	if l <= 0 {
		return ""
	}
	w.labels.mu.Lock()
	defer w.labels.mu.Unlock()
	return w.labels.names[l]
}

// linkLabel is the label of collective coll run by algorithm alg, asked by
// r (0 unless CountLinks); a label of another name with the same number
// stops the run.
func (r *Rank) linkLabel(coll, alg string) int32 {
	w := r.w
	if !w.labels.on {
		return 0
	}
	name := coll
	if alg != "" {
		name += " (" + alg + ")"
	}
	t := &w.labels
	hash := t.hash
	if hash == nil {
		hash = labelID
	}
	l := hash(name)
	t.mu.Lock()
	had, ok := t.names[l]
	if !ok {
		if t.names == nil {
			t.names = map[int32]string{}
		}
		t.names[l] = name
	}
	t.mu.Unlock()
	if ok && had != name {
		r.collide(&IDCollisionError{What: "link label", ID: int64(l), First: strconv.Quote(had), Then: strconv.Quote(name)})
	}
	return l
}

// label is the label of what r is doing now: the collective it is in, by
// the algorithm noted so far (kept while they stay the same).
func (r *Rank) label() int32 {
	if r.coll == "" {
		return 0
	}
	cr := r.rec()
	if r.coll != cr.labColl || cr.note.ran != cr.labAlg || cr.lab == 0 {
		cr.labColl, cr.labAlg = r.coll, cr.note.ran
		cr.lab = r.linkLabel(r.coll, cr.note.ran)
	}
	return cr.lab
}

// Collective is the collective r is in ("" if none; the outermost, while
// a Lua algorithm's calls run) and the algorithm noted for it so far.
func (r *Rank) Collective() (coll, alg string) { return r.coll, r.ran() }

// Completed counts the outermost collective calls (and splits and dups) r
// has ended, and names the last and the algorithm it ran ("" for a split
// or a dup).
func (r *Rank) Completed() (n uint64, coll, alg string) {
	if r.cr == nil {
		return 0, "", ""
	}
	return r.cr.done.n, r.cr.done.coll, r.cr.done.alg
}

// Traffic counts the messages a rank has sent and received and describes
// the last of each (kept only with a Tracer): the other rank (in
// COMM_WORLD), the tag and, for a sent one, its protocol ("" under bcs).
type Traffic struct {
	Sent, Received int64
	To, SendTag    int
	Protocol       string
	From, RecvTag  int
}

// collName names the collective r is in with its algorithm, "" outside
// collectives (traces).
func (r *Rank) collName() string {
	if r.coll == "" || r.ran() == "" {
		return r.coll
	}
	return r.coll + " (" + r.ran() + ")"
}

// received notes a message from peer with tag that completed a receive of
// r's (with a Tracer).
func (r *Rank) received(peer, tag int) {
	t := &r.Traffic
	t.Received++
	t.From, t.RecvTag = peer, tag
}
