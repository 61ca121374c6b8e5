package mpi

import (
	"fmt"
	"slices"
	"testing"
)

// A phantom (mpi.bytes) and real doubles of the same size take the same
// virtual time on every algorithm of every collective (and on the bcs
// runtime's own collectives), on communicators of several sizes: the algorithm in force runs on both alike (no silent
// substitution), or refuses both with the same error.
func TestPhantomTimesEqualReal(t *testing.T) {
	// payload makes rank w's value of b bytes for destination or slot d:
	// doubles, or a phantom of their size.
	type payload func(w, d, b int) Value
	real := func(w, d, b int) Value { return vec(w+d, b/8) }
	phantom := func(w, d, b int) Value { return Value{Data: Phantom{N: b}, Size: b} }
	per := func(mk payload, w, n, b int) []Value {
		vs := make([]Value, n)
		for d := range vs {
			vs[d] = mk(w, d, b)
		}
		return vs
	}
	calls := map[string]func(c *Comm, mk payload, b int) error{
		"bcast": func(c *Comm, mk payload, b int) error {
			root := c.Size() / 2
			_, err := Bcast(c, mk(c.Rank(), 0, b), root)
			return err
		},
		"reduce": func(c *Comm, mk payload, b int) error {
			if _, err := Reduce(c, mk(c.Rank(), 0, b), SUM, c.Size()-1); err != nil {
				return err
			}
			_, err := Reduce(c, mk(c.Rank(), 0, b), MAX, 0)
			return err
		},
		"allreduce": func(c *Comm, mk payload, b int) error {
			if _, err := Allreduce(c, mk(c.Rank(), 0, b), SUM); err != nil {
				return err
			}
			_, err := Allreduce(c, mk(c.Rank(), 0, b), MIN)
			return err
		},
		"gather": func(c *Comm, mk payload, b int) error {
			_, err := Gather(c, mk(c.Rank(), 0, b), 0)
			return err
		},
		"scatter": func(c *Comm, mk payload, b int) error {
			_, err := Scatter(c, per(mk, c.Rank(), c.Size(), b), c.Size()-1)
			return err
		},
		"allgather": func(c *Comm, mk payload, b int) error {
			_, err := AllgatherErr(c, mk(c.Rank(), 0, b))
			return err
		},
		"alltoall": func(c *Comm, mk payload, b int) error {
			_, err := Alltoall(c, per(mk, c.Rank(), c.Size(), b))
			return err
		},
		"reduce_scatter": func(c *Comm, mk payload, b int) error {
			_, err := ReduceScatter(c, per(mk, c.Rank(), c.Size(), b), SUM)
			return err
		},
		"scan": func(c *Comm, mk payload, b int) error {
			_, err := Scan(c, mk(c.Rank(), 0, b), SUM)
			return err
		},
		"exscan": func(c *Comm, mk payload, b int) error {
			_, err := Exscan(c, mk(c.Rank(), 0, b), SUM)
			return err
		},
	}
	// run returns every rank's clock after the calls, and the first error.
	run := func(t *testing.T, coll, alg string, bcsRuntime bool, n, b int, mk payload) ([]Time, error) {
		ends := make([]Time, n)
		setup := withAlg(coll, alg)
		if bcsRuntime {
			setup = withBCS(testSlice, setup)
		}
		_, err := tryRanksWith(n, setup, func(r *Rank) {
			if err := calls[coll](r.World, mk, b); err != nil {
				fail(r, err)
				return
			}
			ends[r.ID] = r.Clock()
		})
		return ends, err
	}
	for _, coll := range collectives() {
		if calls[coll] == nil {
			continue // barrier: no payload
		}
		sizes := []int{4 << 10}
		if coll == "bcast" || coll == "reduce" || coll == "allreduce" {
			sizes = append(sizes, 32<<10) // past the automatic choice's size rules
		}
		// Every algorithm under the direct runtime, and the bcs runtime's
		// own collectives (what auto runs there).
		algs := append(algNames(coll), "bcs")
		for _, alg := range algs {
			bcsRuntime := alg == "bcs"
			if bcsRuntime {
				alg = "auto"
			}
			for _, n := range []int{1, 2, 3, 7, 8, 64} {
				for _, b := range sizes {
					name := fmt.Sprintf("%s/%s/n=%d/%dB", coll, alg, n, b)
					if bcsRuntime {
						name = fmt.Sprintf("%s/bcs/n=%d/%dB", coll, n, b)
					}
					t.Run(name, func(t *testing.T) {
						rt, rerr := run(t, coll, alg, bcsRuntime, n, b, real)
						pt, perr := run(t, coll, alg, bcsRuntime, n, b, phantom)
						if fmt.Sprint(rerr) != fmt.Sprint(perr) {
							t.Fatalf("errors differ:\n  doubles: %v\n  phantom: %v", rerr, perr)
						}
						if rerr != nil {
							if !isAlgorithmError(rerr) {
								t.Fatalf("not a documented refusal: %v", rerr)
							}
							return
						}
						if !slices.Equal(rt, pt) {
							i := 0
							for rt[i] == pt[i] {
								i++
							}
							t.Errorf("rank %d ends at %d cycles on doubles, %d on a phantom", i, rt[i], pt[i])
						}
					})
				}
			}
		}
	}
}

func isAlgorithmError(err error) bool {
	for ; err != nil; err = unwrap(err) {
		if _, ok := err.(*AlgorithmError); ok {
			return true
		}
	}
	return false
}

func unwrap(err error) error {
	u, ok := err.(interface{ Unwrap() error })
	if !ok {
		return nil
	}
	return u.Unwrap()
}
