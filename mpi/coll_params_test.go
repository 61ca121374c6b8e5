package mpi

import (
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
)

// A built-in algorithm takes its own parameters only, each a whole number
// in its range; an external one any; the choice in force shows them.
func TestSetAlgorithmParams(t *testing.T) {
	for _, tc := range []struct {
		coll, alg string
		ps        Params
		err       string
		want      string // Algorithm(coll) afterwards
	}{
		{"bcast", "torus", Params{{"routes", 2.0}}, "", "torus:routes=2"},
		{"bcast", "torus", nil, "", "torus"},
		{"bcast", "mine", Params{{"seg", 32768.0}, {"name", "x"}}, "", "mine:seg=32768,name=x"},
		{"bcast", "torus", Params{{"seg", 1.0}}, `bcast algorithm torus has no parameter "seg" (it takes: routes)`, "auto"},
		{"bcast", "torus", Params{{"routes", 0.0}}, "bcast algorithm torus: routes must be a whole number from 1 to 3 (got 0)", "auto"},
		{"bcast", "torus", Params{{"routes", 4.0}}, "routes must be a whole number from 1 to 3 (got 4)", "auto"},
		{"bcast", "torus", Params{{"routes", 1.5}}, "(got 1.5)", "auto"},
		{"bcast", "torus", Params{{"routes", "two"}}, `(got "two")`, "auto"},
		{"bcast", "torus", Params{{"routes", 1.0}, {"routes", 2.0}}, "parameter routes is given twice", "auto"},
		{"bcast", "binomial", Params{{"seg", 1.0}}, "bcast algorithm binomial takes no parameters (got seg)", "auto"},
		{"bcast", "auto", Params{{"seg", 1.0}}, "bcast=auto takes no parameters (got seg)", "auto"},
	} {
		w := &World{}
		err := w.SetAlgorithm(tc.coll, tc.alg, tc.ps...)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("SetAlgorithm(%q, %q, %v): got %v, want %q", tc.coll, tc.alg, tc.ps, err, tc.err)
		}
		if got := w.Algorithm(tc.coll); got != tc.want {
			t.Errorf("SetAlgorithm(%q, %q, %v): Algorithm = %q, want %q", tc.coll, tc.alg, tc.ps, got, tc.want)
		}
	}
	var torus *Algorithm
	for _, a := range Algorithms() {
		if a.Coll == "bcast" && a.Name == "torus" {
			torus = &a
		} else if len(a.Params) > 0 {
			t.Errorf("%s/%s has parameters %v", a.Coll, a.Name, a.Params)
		}
	}
	if torus == nil || len(torus.Params) != 1 || torus.Params[0].String() != "routes=1..3 (default 3): edge-disjoint routes the packets are dealt to, at most one per dimension of the partition longer than one node" {
		t.Errorf("bcast torus: %+v", torus)
	}
}

// An external algorithm gets the parameters of the choice with every call,
// on every rank; without parameters, none.
func TestExternalParams(t *testing.T) {
	for _, ps := range []Params{nil, {{"seg", 32768.0}, {"label", "x"}}} {
		var got []Params
		_, err := tryRanksWith(3, func(w *World) error {
			if err := w.SetAlgorithm("bcast", "linear", ps...); err != nil {
				return err
			}
			return w.RegisterExternal("bcast", "linear", "", func(v *Comm, call *ExternalCall) error {
				got = append(got, call.Params)
				return extBcastLinear(v, call)
			})
		}, func(r *Rank) {
			if _, err := Bcast(r.World, Value{Data: 1.0, Size: 8}, 0); err != nil {
				fail(r, err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d calls, want 3", len(got))
		}
		for _, g := range got {
			if g.String() != ps.String() || len(g) != len(ps) {
				t.Errorf("params %v, want %v", g, ps)
			}
		}
	}
}

// bcast torus:routes deals the packets to fewer routes: fewer streams,
// a slower broadcast; 3 is the default.
func TestBcastTorusRoutes(t *testing.T) {
	const size = 64 << 10
	var d [4]Time
	for routes := 1; routes <= 3; routes++ {
		d[routes], _ = bcastTime(t, hw.BGL(), fig5bMesh, 1, 32, 0, size, "torus", Param{"routes", float64(routes)})
	}
	d[0], _ = bcastTime(t, hw.BGL(), fig5bMesh, 1, 32, 0, size, "torus")
	if !(d[1] > d[2] && d[2] > d[3]) || d[0] != d[3] {
		t.Errorf("64 KiB over 1, 2, 3 routes: %d, %d, %d cycles, default %d; want decreasing, default = 3", d[1], d[2], d[3], d[0])
	}
}
