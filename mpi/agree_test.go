package mpi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/bglua/bglua/runtime"
)

// TestAgreementEveryAlgorithm: under every built-in algorithm (and auto) of
// the collectives with a root or an operator, ranks that disagree get a
// *MismatchError; none returns a result as if nothing were wrong.
func TestAgreementEveryAlgorithm(t *testing.T) {
	const n = 8
	for coll, body := range agreementBodies(0) {
		for _, alg := range append(builtinNames(coll), "auto") {
			t.Run(coll+"="+alg, func(t *testing.T) {
				errs := make([]error, n)
				_, err := tryRanksWith(n, withAlg(coll, alg), func(r *Rank) { errs[r.ID] = body(r) })
				var me *MismatchError
				for _, e := range errs {
					if errors.As(e, &me) {
						break
					}
				}
				if me == nil {
					t.Fatalf("no rank got a mismatch (run: %v; ranks: %v)", err, errs)
				}
			})
		}
	}
}

// TestAgreementEveryAlgorithmBCS: the same under the bcs runtime, where a
// send waits for its receive, so a rank whose call disagrees leaves its
// peers waiting for messages it never sends or takes. The error must name
// the rank that disagrees; a run that ends waiting is a deadlock only if
// no disagreement explains it (World.Disagreement, which bglua reports
// instead). The disagreeing rank enters the call with the others, when a
// rank must get the error while the ranks run, or late, after its peers'
// messages have reached it.
func TestAgreementEveryAlgorithmBCS(t *testing.T) {
	const n = 8
	for _, late := range []Time{0, 10 * testSlice} {
		for coll, body := range agreementBodies(late) {
			for _, alg := range append(builtinNames(coll), "auto") {
				if alg == "tree" || alg == "torus" {
					continue // hardware paths, checked at one place (tree.go)
				}
				t.Run(fmt.Sprintf("%s=%s/late=%v", coll, alg, late > 0), func(t *testing.T) {
					errs := make([]error, n)
					w, err := tryRanksWith(n, withBCS(testSlice, withAlg(coll, alg)), func(r *Rank) { errs[r.ID] = body(r) })
					var me *MismatchError
					for _, e := range errs {
						if errors.As(e, &me) {
							break
						}
					}
					var dl *runtime.DeadlockError
					if me == nil && late == 0 {
						t.Fatalf("no rank got a mismatch while the ranks ran (run: %v)", err)
					}
					if me == nil && errors.As(err, &dl) {
						if _, e := w.Disagreement(); e != nil {
							me = e.(*MismatchError)
						}
					}
					if me == nil {
						t.Fatalf("no mismatch (run: %v; ranks: %v)", err, errs)
					}
					if who := fmt.Sprintf("rank %d ", agreementRank[coll]); !strings.Contains(me.Msg, who) {
						t.Errorf("%q does not name the rank that disagrees (%s)", me.Msg, who)
					}
				})
			}
		}
	}
}

// agreementRank is the rank that disagrees in agreementBodies.
var agreementRank = map[string]int{"bcast": 5, "reduce": 6, "allreduce": 3, "gather": 2, "allgather": 7}

// agreementBodies are calls of the collectives with a root or an operator
// where one rank (agreementRank) disagrees, after computing for late.
func agreementBodies(late Time) map[string]func(r *Rank) error {
	wait := func(r *Rank, coll string) {
		if late > 0 && r.ID == agreementRank[coll] {
			if err := r.Compute(late); err != nil {
				panic(err)
			}
		}
	}
	return map[string]func(r *Rank) error{
		"bcast": func(r *Rank) error {
			wait(r, "bcast")
			root := 0
			if r.ID == 5 {
				root = 1
			}
			_, err := Bcast(r.World, num(r.ID), root)
			return err
		},
		"reduce": func(r *Rank) error {
			wait(r, "reduce")
			op := Op(SUM)
			if r.ID == 6 {
				op = MAX
			}
			_, err := Reduce(r.World, num(r.ID), op, 0)
			return err
		},
		"allreduce": func(r *Rank) error {
			wait(r, "allreduce")
			op := Op(SUM)
			if r.ID == 3 {
				op = MAX
			}
			_, err := Allreduce(r.World, num(r.ID), op)
			return err
		},
		"gather": func(r *Rank) error {
			wait(r, "gather")
			v := num(r.ID)
			if r.ID == 2 {
				v = vec(r.ID, 2)
			}
			_, err := Gather(r.World, v, 0)
			return err
		},
		"allgather": func(r *Rank) error {
			wait(r, "allgather")
			v := num(r.ID)
			if r.ID == 7 {
				v = vec(r.ID, 3)
			}
			_, err := AllgatherErr(r.World, v)
			return err
		},
	}
}

// TestRequestSizeClass: the agreement check's fields keep a request in the
// 128-byte size class it had before them; every message of a collective
// algorithm makes two.
func TestRequestSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Request{}); n > 128 {
		t.Errorf("Request is %d bytes, past the 128-byte size class", n)
	}
}
