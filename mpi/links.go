package mpi

import "sync"

// Link accounting: with CountLinks on, every message a rank sends inside a
// collective carries a label naming the collective and the algorithm it
// runs ("allreduce (recursive_doubling)"), and the message layer counts the
// bytes its packets put on each torus link under that label. Traffic
// outside collectives (point-to-point calls, active messages) has label 0.

// labelTable numbers the labels of a run (shared by the partitions).
type labelTable struct {
	on    bool
	mu    sync.Mutex
	names []string // label i+1's name
	index map[string]int32
}

// CountLinks turns on the accounting of the torus links' traffic, labelled
// by collective (LinkLabel names the labels). Call it before the run.
func (w *World) CountLinks() {
	w.ml.CountLinks()
	w.labels.on = true
}

// LinkLabel names label l of the link accounting: the collective and its
// algorithm, "" for 0 (traffic outside collectives).
func (w *World) LinkLabel(l int32) string {
	if l <= 0 {
		return ""
	}
	w.labels.mu.Lock()
	defer w.labels.mu.Unlock()
	return w.labels.names[l-1]
}

// linkLabel is the label of collective coll run by algorithm alg.
func (w *World) linkLabel(coll, alg string) int32 {
	if !w.labels.on {
		return 0
	}
	name := coll
	if alg != "" {
		name += " (" + alg + ")"
	}
	t := &w.labels
	t.mu.Lock()
	defer t.mu.Unlock()
	if l, ok := t.index[name]; ok {
		return l
	}
	if t.index == nil {
		t.index = map[string]int32{}
	}
	t.names = append(t.names, name)
	l := int32(len(t.names))
	t.index[name] = l
	return l
}

// label is the label of what r is doing now: the collective it is in, by
// the algorithm noted so far (kept while they stay the same).
func (r *Rank) label() int32 {
	if r.coll == "" {
		return 0
	}
	if r.coll != r.labColl || r.note.ran != r.labAlg || r.lab == 0 {
		r.labColl, r.labAlg = r.coll, r.note.ran
		r.lab = r.w.linkLabel(r.coll, r.note.ran)
	}
	return r.lab
}

// Collective is the collective r is in ("" if none; the outermost, while
// a Lua algorithm's calls run) and the algorithm noted for it so far.
func (r *Rank) Collective() (coll, alg string) { return r.coll, r.note.ran }

// Completed counts the outermost collective calls (and splits and dups) r
// has ended, and names the last and the algorithm it ran ("" for a split
// or a dup).
func (r *Rank) Completed() (n uint64, coll, alg string) {
	return r.done.n, r.done.coll, r.done.alg
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
	if r.coll == "" || r.note.ran == "" {
		return r.coll
	}
	return r.coll + " (" + r.note.ran + ")"
}

// received notes a message from peer with tag that completed a receive of
// r's (with a Tracer).
func (r *Rank) received(peer, tag int) {
	t := &r.Traffic
	t.Received++
	t.From, t.RecvTag = peer, tag
}
