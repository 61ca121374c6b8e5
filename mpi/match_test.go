package mpi

import (
	"testing"

	"github.com/bglua/bglua/msglayer"
)

// matchModel is MPI matching as the standard states it: posted receives
// and unexpected messages in two lists, each scanned from the front.
type matchModel struct {
	posted     []*Request
	unexpected []*arrival
}

func modelMatches(q *Request, m *msglayer.Message) bool {
	return m.Ctx == q.ctx && (q.src == AnySource || q.src == m.From) && (q.tag == AnyTag || q.tag == m.Tag)
}

// take removes and returns the first posted receive m matches, or nil.
func (mod *matchModel) take(m *msglayer.Message) *Request {
	for j, q := range mod.posted {
		if modelMatches(q, m) {
			mod.posted = append(mod.posted[:j], mod.posted[j+1:]...)
			return q
		}
	}
	return nil
}

// first is the index of the first unexpected message ok accepts, or -1.
func (mod *matchModel) first(ok func(*msglayer.Message) bool) int {
	for j, x := range mod.unexpected {
		if ok(x.m) {
			return j
		}
	}
	return -1
}

// runMatch drives the queues and the model with the same operations,
// decoded from ops three bytes at a time, and fails at the first
// difference: which receive an arrival completes, which arrival a receive
// or a probe finds. It runs them indexed from the first entry, past two
// entries and as the runs use them, so that both forms and the switches
// between them meet the same operations.
func runMatch(t *testing.T, ops []byte) {
	t.Helper()
	defer func(old int) { matchListMax = old }(matchListMax)
	for _, max := range []int{0, 2, 16} {
		matchListMax = max
		runMatchOnce(t, ops)
	}
}

func runMatchOnce(t *testing.T, ops []byte) {
	t.Helper()
	var (
		pq  postedQueue
		uq  unexpectedQueue
		mod matchModel
	)
	for i := 0; i+2 < len(ops); i += 3 {
		op, a, b := ops[i]%3, int(ops[i+1]), int(ops[i+2])
		ctx := 2 * (a & 1)
		switch op {
		case 0: // a message arrives from a concrete source with a concrete tag
			m := &msglayer.Message{Ctx: ctx, From: (a >> 1) % 4, Tag: b % 3}
			got, want := pq.take(m), mod.take(m)
			if got != want {
				t.Fatalf("list max %d, op %d: arrival ctx %d from %d tag %d matched %+v, want %+v", matchListMax, i/3, m.Ctx, m.From, m.Tag, got, want)
			}
			if got == nil {
				uq.add(&arrival{m: m})
				mod.unexpected = append(mod.unexpected, &arrival{m: m})
			}
		case 1, 2: // a receive is posted (1) or probes (2); wildcards allowed
			q := &Request{ctx: ctx, src: (a>>1)%5 - 1, tag: b%4 - 1}
			got := uq.find(q.ctx, q.src, q.tag)
			wantAt := mod.first(func(m *msglayer.Message) bool { return modelMatches(q, m) })
			switch {
			case (got == nil) != (wantAt < 0):
				t.Fatalf("list max %d, op %d: receive %+v found %v, model found index %d", matchListMax, i/3, q, got, wantAt)
			case got != nil && got.m != mod.unexpected[wantAt].m:
				t.Fatalf("list max %d, op %d: receive %+v found %+v, want %+v", matchListMax, i/3, q, *got.m, *mod.unexpected[wantAt].m)
			}
			if op == 2 {
				continue
			}
			if got != nil {
				uq.remove(got)
				mod.unexpected = append(mod.unexpected[:wantAt], mod.unexpected[wantAt+1:]...)
				continue
			}
			pq.add(q)
			mod.posted = append(mod.posted, q)
		}
		if pq.n != len(mod.posted) || uq.len() != len(mod.unexpected) {
			t.Fatalf("list max %d, op %d: %d posted, %d unexpected; model %d, %d", matchListMax, i/3, pq.n, uq.len(), len(mod.posted), len(mod.unexpected))
		}
	}
	// What is left, in order: drain the unexpected queue by its own order.
	for _, x := range mod.unexpected {
		if a := uq.first(func(*msglayer.Message) bool { return true }); a == nil || a.m != x.m {
			t.Fatalf("list max %d, left over: unexpected queue out of order", matchListMax)
		} else {
			uq.remove(a)
		}
	}
	if uq.len() != 0 || len(uq.buckets) != 0 {
		t.Fatalf("list max %d, left over: %d unexpected, %d buckets after draining", matchListMax, uq.len(), len(uq.buckets))
	}
}

func TestMatchQueues(t *testing.T) {
	cases := []struct {
		name string
		ops  []byte
	}{
		// Two receives from source 0 posted, tags 1 and any; a tag-0
		// message takes the any, a tag-1 message the first.
		{"tags in one bucket", []byte{1, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 1}},
		// A wildcard-source receive posted before an exact one wins.
		{"wildcard posted first", []byte{1, 0, 0, 1, 2, 1, 0, 2, 1}},
		// An exact receive posted before a wildcard wins.
		{"exact posted first", []byte{1, 2, 1, 1, 0, 0, 0, 2, 1}},
		// Arrivals wait; an any-source receive takes the oldest.
		{"oldest unexpected", []byte{0, 4, 0, 0, 2, 0, 1, 0, 0, 1, 0, 0}},
		// Contexts do not mix.
		{"contexts apart", []byte{1, 3, 1, 0, 2, 0, 0, 3, 0}},
		// A probe leaves the message; the receive takes it.
		{"probe then receive", []byte{0, 2, 1, 2, 2, 2, 1, 2, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runMatch(t, c.ops) })
	}
	// Long runs: many receives of one source, taken in order and not.
	var long []byte
	for i := 0; i < 3000; i++ {
		long = append(long, byte(i%3), byte(i*7), byte(i*13))
	}
	t.Run("long mixed", func(t *testing.T) { runMatch(t, long) })
}

func FuzzMatchQueues(f *testing.F) {
	f.Add([]byte{1, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{0, 4, 0, 0, 2, 0, 1, 0, 0, 1, 0, 0, 2, 9, 9})
	f.Fuzz(func(t *testing.T, ops []byte) { runMatch(t, ops) })
}
