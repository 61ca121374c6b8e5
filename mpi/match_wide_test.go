package mpi

import (
	"math/rand"
	"testing"

	"github.com/bglua/bglua/msglayer"
)

// TestMatchQueuesWide drives the queues against the model of runMatch with
// wider source, tag and context ranges from fixed seeds, and with
// shareOp's removals (first with a predicate); it checks that the posted
// queue drains in post order, ends as an empty list without a map, and that
// no removed entry is still referenced from the queues' storage.
func TestMatchQueuesWide(t *testing.T) {
	defer func(old int) { matchListMax = old }(matchListMax)
	for seed := int64(0); seed < 300; seed++ {
		for _, max := range []int{0, 1, 2, 3, 16} {
			matchListMax = max
			rng := rand.New(rand.NewSource(seed))
			nsrc, ntag, nctx := 1+rng.Intn(40), 1+rng.Intn(5), 1+rng.Intn(3)
			var (
				pq  postedQueue
				uq  unexpectedQueue
				mod matchModel
			)
			removed := map[*Request]bool{}
			removedA := map[*arrival]bool{}
			check := func(where string) {
				if !pq.indexed {
					for _, q := range pq.list[len(pq.list):cap(pq.list)] {
						if q != nil {
							t.Fatalf("seed %d max %d %s: list keeps a reference past its length", seed, max, where)
						}
					}
				} else {
					for _, b := range pq.buckets {
						for _, q := range b[len(b):cap(b)] {
							if q != nil {
								t.Fatalf("seed %d max %d %s: bucket keeps a reference past its length", seed, max, where)
							}
						}
						for _, q := range b {
							if removed[q] {
								t.Fatalf("seed %d max %d %s: removed receive still in a bucket", seed, max, where)
							}
						}
					}
				}
				for a := uq.all.head; a != nil; a = a.next {
					if removedA[a] {
						t.Fatalf("removed arrival still linked")
					}
				}
			}
			steps := 50 + rng.Intn(400)
			for i := 0; i < steps; i++ {
				ctx := rng.Intn(nctx)
				switch op := rng.Intn(10); {
				case op < 4:
					m := &msglayer.Message{Ctx: ctx, From: rng.Intn(nsrc), Tag: rng.Intn(ntag)}
					got, want := pq.take(m), mod.take(m)
					if got != want {
						t.Fatalf("seed %d max %d step %d: take mismatch", seed, max, i)
					}
					if got != nil {
						removed[got] = true
					} else {
						a := &arrival{m: m}
						uq.add(a)
						mod.unexpected = append(mod.unexpected, a)
					}
				case op < 9:
					q := &Request{ctx: ctx, src: rng.Intn(nsrc+1) - 1, tag: rng.Intn(ntag+1) - 1}
					got := uq.find(q.ctx, q.src, q.tag)
					wantAt := mod.first(func(m *msglayer.Message) bool { return modelMatches(q, m) })
					if (got == nil) != (wantAt < 0) || got != nil && got != mod.unexpected[wantAt] {
						t.Fatalf("seed %d max %d step %d: find mismatch", seed, max, i)
					}
					if op == 8 {
						continue // probe
					}
					if got != nil {
						uq.remove(got)
						removedA[got] = true
						if got.prev != nil || got.next != nil || got.bprev != nil || got.bnext != nil {
							t.Fatalf("removed arrival keeps links")
						}
						mod.unexpected = append(mod.unexpected[:wantAt], mod.unexpected[wantAt+1:]...)
						continue
					}
					pq.add(q)
					mod.posted = append(mod.posted, q)
				default: // shareOp-like: the first of a context and tag, any source
					tag := rng.Intn(ntag)
					ok := func(m *msglayer.Message) bool { return m.Ctx == ctx && m.Tag == tag }
					got, wantAt := uq.first(ok), mod.first(ok)
					if (got == nil) != (wantAt < 0) || got != nil && got != mod.unexpected[wantAt] {
						t.Fatalf("seed %d max %d step %d: first mismatch", seed, max, i)
					}
					if got != nil {
						uq.remove(got)
						removedA[got] = true
						mod.unexpected = append(mod.unexpected[:wantAt], mod.unexpected[wantAt+1:]...)
					}
				}
				if pq.n != len(mod.posted) || uq.len() != len(mod.unexpected) {
					t.Fatalf("seed %d max %d step %d: counts", seed, max, i)
				}
				check("step")
			}
			// Drain posted in post order: an arrival for each, in order.
			for len(mod.posted) > 0 {
				q := mod.posted[0]
				src, tag := q.src, q.tag
				if src == AnySource {
					src = 0
				}
				if tag == AnyTag {
					tag = 0
				}
				m := &msglayer.Message{Ctx: q.ctx, From: src, Tag: tag}
				if pq.take(m) != mod.take(m) {
					t.Fatalf("seed %d max %d: drain mismatch", seed, max)
				}
			}
			if pq.n != 0 || pq.indexed || pq.buckets != nil || len(pq.list) != 0 {
				t.Fatalf("seed %d max %d: posted not empty after drain: n %d indexed %v buckets %d list %d", seed, max, pq.n, pq.indexed, len(pq.buckets), len(pq.list))
			}
		}
	}
}
