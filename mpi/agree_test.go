package mpi

import (
	"errors"
	"testing"
	"unsafe"
)

// TestAgreementEveryAlgorithm: under every built-in algorithm (and auto) of
// the collectives with a root or an operator, ranks that disagree get a
// *MismatchError; none returns a result as if nothing were wrong.
func TestAgreementEveryAlgorithm(t *testing.T) {
	const n = 8
	bodies := map[string]func(r *Rank) error{
		"bcast": func(r *Rank) error {
			root := 0
			if r.ID == 5 {
				root = 1
			}
			_, err := Bcast(r.World, num(r.ID), root)
			return err
		},
		"reduce": func(r *Rank) error {
			op := Op(SUM)
			if r.ID == 6 {
				op = MAX
			}
			_, err := Reduce(r.World, num(r.ID), op, 0)
			return err
		},
		"allreduce": func(r *Rank) error {
			op := Op(SUM)
			if r.ID == 3 {
				op = MAX
			}
			_, err := Allreduce(r.World, num(r.ID), op)
			return err
		},
		"gather": func(r *Rank) error {
			v := num(r.ID)
			if r.ID == 2 {
				v = vec(r.ID, 2)
			}
			_, err := Gather(r.World, v, 0)
			return err
		},
		"allgather": func(r *Rank) error {
			v := num(r.ID)
			if r.ID == 7 {
				v = vec(r.ID, 3)
			}
			_, err := AllgatherErr(r.World, v)
			return err
		},
	}
	for coll, body := range bodies {
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

// TestRequestSizeClass: the agreement check's fields keep a request in the
// 128-byte size class it had before them; every message of a collective
// algorithm makes two.
func TestRequestSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Request{}); n > 128 {
		t.Errorf("Request is %d bytes, past the 128-byte size class", n)
	}
}
