package mpi

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// What ran: every collective call notes the algorithm it ran, so that a
// choice is never replaced unseen. The algorithm in force (the --coll
// choice, "auto", or "bcs" for the bcs runtime's own collectives) runs; it
// notes itself, or, where it is automatic, the algorithm it picked (first
// note wins, so that an algorithm made of others, such as reduce_bcast,
// is what is noted). A hardware algorithm that does not serve the
// communicator clears the note and gives its reason (noteFallback); the
// algorithm that runs instead notes itself. Rank 0 of the communicator
// records each call in the World (Algorithms, shown by --stats), and every
// rank keeps the last algorithm of each collective on each communicator
// (LastAlgorithm, mpi.coll.algorithm's second result).

// algNote is the note of the call a rank is in.
type algNote struct {
	ran, why string
}

// noteRan notes that alg runs the call, unless an algorithm is noted already.
func (c *Comm) noteRan(alg string) {
	if n := &c.r.rec().note; n.ran == "" {
		n.ran = alg
	}
}

// noteFallback notes that alg of coll, which the call had chosen, does not
// apply for reason why: the algorithm that runs instead notes itself. When
// alg is a part of the call's algorithm (the reduce of reduce_bcast), the
// call keeps its algorithm and the part's fallback is its reason.
func (c *Comm) noteFallback(coll, alg, why string) {
	n := &c.r.rec().note
	switch {
	case n.ran == alg:
		*n = algNote{why: why}
	case n.why == "":
		n.why = fmt.Sprintf("its %s=%s fell back: %s", coll, alg, why)
	}
}

// AlgorithmUse is how the calls of one collective ran on a family of
// communicators (those of one split or dup, whatever their color).
type AlgorithmUse struct {
	Coll   string
	Comm   string // the communicator's name, "(color N)" left out
	Comms  int    // communicators of the family that made such calls
	Chosen string // the algorithm in force: --coll's, "auto" or "bcs"
	Ran    string // the algorithm that ran
	Reason string // why Ran is not Chosen, if it is a fallback
	Calls  int
}

type algUseKey struct{ coll, comm, chosen, ran, why string }

type algRecords struct {
	mu    sync.Mutex
	calls map[algUseKey]int
	ctxs  map[algUseKey]map[int]bool
}

// familyName is c's name without the colors of its splits.
func familyName(name string) string {
	if !strings.Contains(name, "(color ") {
		return name
	}
	var b strings.Builder
	for name != "" {
		i := strings.Index(name, "(color ")
		if i < 0 {
			b.WriteString(name)
			break
		}
		b.WriteString(name[:i])
		j := strings.IndexByte(name[i:], ')')
		if j < 0 {
			break
		}
		name = name[i+j+1:]
	}
	return b.String()
}

// record is called by every rank of c at the end of a call of coll: rank 0
// records it in the World; every rank keeps it as its last of coll on c.
func (c *Comm) record(coll, chosen string) {
	n := c.r.rec().note
	ctx := c.ctx
	if c.nbc != nil { // a nonblocking collective's: its communicator's
		ctx = c.nbc.ctx
	}
	c.r.home().setLast(ctx, coll, n.ran)
	if c.rank != 0 {
		return
	}
	w := c.r.w
	k := algUseKey{coll, familyName(c.Name), chosen, n.ran, n.why}
	rec := &w.algRec
	if w.parted {
		rec.mu.Lock()
		defer rec.mu.Unlock()
	}
	if rec.calls == nil {
		rec.calls = map[algUseKey]int{}
		rec.ctxs = map[algUseKey]map[int]bool{}
	}
	rec.calls[k]++
	if rec.ctxs[k] == nil {
		rec.ctxs[k] = map[int]bool{}
	}
	rec.ctxs[k][ctx] = true
}

// Algorithms lists, per collective and family of communicators, the
// algorithms that ran (sorted by collective, communicator, then algorithm).
func (w *World) Algorithms() []AlgorithmUse {
	rec := &w.algRec
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := make([]AlgorithmUse, 0, len(rec.calls))
	for k, n := range rec.calls {
		out = append(out, AlgorithmUse{Coll: k.coll, Comm: k.comm, Comms: len(rec.ctxs[k]), Chosen: k.chosen, Ran: k.ran, Reason: k.why, Calls: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Coll != b.Coll:
			return a.Coll < b.Coll
		case a.Comm != b.Comm:
			return a.Comm < b.Comm
		case a.Chosen != b.Chosen:
			return a.Chosen < b.Chosen
		case a.Ran != b.Ran:
			return a.Ran < b.Ran
		}
		return a.Reason < b.Reason
	})
	return out
}

// lastAlg is the algorithm that ran a rank's last call of a collective on
// a communicator.
type lastAlg struct {
	ctx       int
	coll, ran string
}

func (r *Rank) setLast(ctx int, coll, ran string) {
	cr := r.rec()
	for i := range cr.last {
		if cr.last[i].ctx == ctx && cr.last[i].coll == coll {
			cr.last[i].ran = ran
			return
		}
	}
	cr.last = append(cr.last, lastAlg{ctx, coll, ran})
}

// LastAlgorithm is the algorithm that ran this rank's last call of coll on
// c, or "" before its first.
func (c *Comm) LastAlgorithm(coll string) string {
	coll = canonColl(coll)
	if c.r.cr == nil {
		return ""
	}
	for _, l := range c.r.cr.last {
		if l.ctx == c.ctx && l.coll == coll {
			return l.ran
		}
	}
	return ""
}
