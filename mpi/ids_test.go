package mpi

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
)

// TestContextIDsWhateverOrder: the contexts of splits, dups, views and
// splits of views are the hash of their keys, the same on every member,
// whether the ranks run in one partition or in two blocks on one or two
// threads (where they ask in an order that varies).
func TestContextIDsWhateverOrder(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 16, Y: 8, Z: 8}} // two blocks
	n := tor.Nodes()
	body := func(out [][5]int) func(r *Rank) {
		return func(r *Rank) {
			// Ranks of the second block reach the split later: in one
			// partition the last ranks ask first, in blocks either.
			r.Compute(int64(r.ID%512) * 10)
			s := r.World.Split(r.ID%3, -r.ID)
			d, err := s.Dup()
			if err != nil {
				t.Error(err)
				return
			}
			d2, err := d.Dup()
			if err != nil {
				t.Error(err)
				return
			}
			v := d2.CollView()
			vs := v.Split(r.ID%2, 0)
			out[r.ID] = [5]int{s.ctx, d.ctx, d2.ctx, v.ctx, vs.ctx}
		}
	}
	// The keys: split 0 of COMM_WORLD by color, its dup 0, the dup's
	// dup 0, the view of that, the view's split 0 by color.
	want := func(id int) [5]int {
		s := contextID(ctxKey{worldCtx, 0, id % 3})
		d := contextID(ctxKey{s, 0, 0})
		d2 := contextID(ctxKey{d, 0, 0})
		v := contextID(ctxKey{d2, viewSeq, 0})
		return [5]int{s, d, d2, v, contextID(ctxKey{v, 0, id % 2})}
	}
	runs := []struct {
		name string
		run  func(body func(*Rank)) error
	}{
		{"one partition", func(b func(*Rank)) error {
			_, err := runOn(hw.BGL(), tor, 1, n, noHardware, b)
			return err
		}},
		{"two blocks, 1 thread", func(b func(*Rank)) error { _, err := runParted(tor, 1, noHardware, b); return err }},
		{"two blocks, 2 threads", func(b func(*Rank)) error { _, err := runParted(tor, 2, noHardware, b); return err }},
	}
	for _, tc := range runs {
		out := make([][5]int, n)
		if err := tc.run(body(out)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for id, got := range out {
			if got != want(id) {
				t.Fatalf("%s: rank %d has contexts %v, want %v", tc.name, id, got, want(id))
			}
			for _, c := range got {
				if c <= 1 || c%2 != 0 {
					t.Fatalf("%s: rank %d has context %d, want even and past COMM_WORLD's", tc.name, id, c)
				}
			}
		}
	}
}

// TestContextTableAnyOrder: the table gives each key the same id in any
// order of asking, forgets a taken key once its members have all taken it,
// and reports two keys of one id, and a key of COMM_WORLD's id.
func TestContextTableAnyOrder(t *testing.T) {
	var keys []ctxKey
	for p := range 3 {
		for s := -2; s < 3; s++ {
			for c := range 4 {
				keys = append(keys, ctxKey{p * 2, s, c})
			}
		}
	}
	ids := map[int]ctxKey{}
	for _, k := range keys {
		ids[contextID(k)] = k
	}
	if len(ids) != len(keys) {
		t.Fatalf("%d keys got %d ids", len(keys), len(ids))
	}
	rng := rand.New(rand.NewSource(1))
	for range 5 {
		var tab ctxTable
		for _, i := range rng.Perm(len(keys)) {
			id, e := tab.note(keys[i], 0)
			if e != nil || ids[id] != keys[i] {
				t.Fatalf("key %v got %d (%v), want %d", keys[i], id, e, contextID(keys[i]))
			}
		}
	}

	var tab ctxTable
	k := ctxKey{0, nbcSeq, 7}
	for range 3 {
		tab.note(k, 3)
	}
	if len(tab.keys) != 0 {
		t.Errorf("a key taken by its 3 members is kept: %v", tab.keys)
	}

	tab.hash = func(k ctxKey) int { return 2 * (k.color % 2) }
	if _, e := tab.note(ctxKey{0, 0, 1}, 0); e != nil {
		t.Fatal(e)
	}
	if _, e := tab.note(ctxKey{0, 0, 1}, 0); e != nil {
		t.Errorf("the same key twice: %v", e)
	}
	if _, e := tab.note(ctxKey{0, 1, 3}, 0); e == nil || e.What != "context" || !strings.Contains(e.First, "split or dup 0") || !strings.Contains(e.Then, "split or dup 1") {
		t.Errorf("two keys of id 2: %v", e)
	}
	if _, e := tab.note(ctxKey{4, 0, 2}, 0); e == nil || e.First != "COMM_WORLD" {
		t.Errorf("a key of COMM_WORLD's id: %v", e)
	}
}

// TestIDCollisionStopsTheRun: contexts or labels that collide stop the run
// with an *IDCollisionError naming both, rather than merging two
// communicators' traffic or two collectives' links.
func TestIDCollisionStopsTheRun(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*World) error
		body  func(r *Rank)
		what  string
	}{
		{"split colors", func(w *World) error {
			w.ctxs.hash = func(ctxKey) int { return 6 }
			return nil
		}, func(r *Rank) { r.World.Split(r.ID%2, 0) }, "context"},
		{"dup of a split", func(w *World) error {
			w.ctxs.hash = func(k ctxKey) int { return 6 + 2*(k.parent%4) }
			return nil
		}, func(r *Rank) {
			s := r.World.Split(0, 0) // id 6
			s.Dup()                  // parent 6: id 10
			s.Dup()                  // another key, id 10
		}, "context"},
		{"link labels", func(w *World) error {
			w.CountLinks()
			w.labels.hash = func(string) int32 { return 5 }
			return noHardware(w)
		}, func(r *Rank) {
			Allreduce(r.World, num(1), SUM)
			Bcast(r.World, num(1), 0)
		}, "link label"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryRanksWith(8, tc.setup, tc.body)
			var ce *IDCollisionError
			if !errors.As(err, &ce) || ce.What != tc.what || ce.First == ce.Then {
				t.Fatalf("error %v, want a collision of two %ss", err, tc.what)
			}
			t.Log(err)
		})
	}
}

// TestLabelIDs: labels are positive, named back by LinkLabel once used,
// and the names of the built-in collectives' algorithms do not collide.
func TestLabelIDs(t *testing.T) {
	seen := map[int32]string{}
	for _, e := range registry {
		name := fmt.Sprintf("%s (%s)", e.Coll, e.Name)
		l := labelID(name)
		if l <= 0 {
			t.Errorf("%q: label %d", name, l)
		}
		if o, ok := seen[l]; ok {
			t.Errorf("%q and %q share label %d", name, o, l)
		}
		seen[l] = name
	}
	if len(seen) < 20 {
		t.Fatalf("only %d algorithms", len(seen))
	}
	w, err := tryRanksWith(4, func(w *World) error { w.CountLinks(); return noHardware(w) }, func(r *Rank) {
		Allreduce(r.World, num(1), SUM)
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for l := range w.labels.names {
		names = append(names, w.LinkLabel(l))
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "allreduce (") {
		t.Errorf("labels named %q, want one allreduce", names)
	}
}
