package bglua

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bglua/bglua/mpi"
)

// The grammar of --coll: commas separate pairs and parameters; a word
// NAME=... starts a pair when NAME is a collective.
func TestParseColl(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
		err  string // a part of the error, "" for none
	}{
		{"bcast=tree", map[string]string{"bcast": "tree"}, ""},
		{"bcast=tree,allreduce=ring", map[string]string{"bcast": "tree", "allreduce": "ring"}, ""},
		{"bcast=chain:seg=32k,radix=4", map[string]string{"bcast": "chain:seg=32k,radix=4"}, ""},
		{"bcast=chain:seg=32k,radix=4,allreduce=ring", map[string]string{"bcast": "chain:seg=32k,radix=4", "allreduce": "ring"}, ""},
		{"allreduce=ring,bcast=torus:routes=2", map[string]string{"allreduce": "ring", "bcast": "torus:routes=2"}, ""},
		{"bcast=a:x=1,gatherv=b:y=2,z=3", map[string]string{"bcast": "a:x=1", "gatherv": "b:y=2,z=3"}, ""},
		{" bcast = chain : seg = 32k , radix=4 ", map[string]string{"bcast": "chain:seg=32k,radix=4"}, ""},
		{"bcast=x:a=b=c", map[string]string{"bcast": "x:a=b=c"}, ""},
		// A word that is not a collective after a pair with parameters
		// is one more parameter: the algorithm says if it knows it.
		{"bcast=x:seg=1,bcats=y", map[string]string{"bcast": "x:seg=1,bcats=y"}, ""},

		{"", nil, `want NAME=ALG[:KEY=VALUE,...]`},
		{"bcast", nil, `got "bcast"`},
		{"bcast=", nil, `got "bcast="`},
		{"=tree", nil, `got "=tree"`},
		{"bcast=tree=x", nil, `got "bcast=tree=x"`},
		{"bcast=a b", nil, `got "bcast=a b"`},
		{"bcast=tree,", nil, `got ""`},
		{"bcats=tree", nil, `unknown collective "bcats"`},
		{"bcast=torus,routes=2", nil, `unknown collective "routes" (valid: allgather, allreduce, alltoall, barrier, bcast, exscan, gather, reduce, reduce_scatter, scan, scatter); parameters follow the algorithm after ':', as in bcast=torus:routes=2`},
		{"bcast=tree,bcast=binomial", nil, "bcast is given twice (tree and binomial)"},
		{"gather=linear,gatherv=binomial", nil, "gather is given twice (gather=linear and gatherv=binomial)"},
		{"bcast=torus:", nil, `parameter "" of torus: want KEY=VALUE after "torus:"`},
		{"bcast=torus:routes", nil, `parameter "routes" of torus: want KEY=VALUE after "torus:"`},
		{"bcast=torus:routes=", nil, `parameter "routes=" of torus`},
		{"bcast=torus:routes=1,,x=2", nil, `got ""`},
		{"bcast=torus:routes=1,routes=2", nil, "parameter routes of torus is given twice"},
		{"bcast=x:2seg=1", nil, `parameter "2seg" of x: a name is letters, digits and _`},
		{"bcast=x:se-g=1", nil, `parameter "se-g" of x`},
	} {
		got, err := ParseColl(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("ParseColl(%q): %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseColl(%q) = %v, %v; want an error with %q", c.in, got, err, c.err)
		case c.err == "" && !reflect.DeepEqual(got, c.want):
			t.Errorf("ParseColl(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Parameter values: numbers and sizes are numbers, the rest strings.
func TestParseAlgSpec(t *testing.T) {
	alg, ps, err := parseAlgSpec("chain:seg=32k,radix=4,name=fast,neg=-2,f=1.5,big=1e3,h=2MiB,g=1.5G,inf=inf,nan=nan,z=0k,x=4x")
	if err != nil || alg != "chain" {
		t.Fatalf("parseAlgSpec: %q, %v", alg, err)
	}
	want := mpi.Params{{Name: "seg", Value: 32768.0}, {Name: "radix", Value: 4.0}, {Name: "name", Value: "fast"},
		{Name: "neg", Value: -2.0}, {Name: "f", Value: 1.5}, {Name: "big", Value: 1000.0}, {Name: "h", Value: 2097152.0},
		{Name: "g", Value: 1610612736.0}, {Name: "inf", Value: "inf"}, {Name: "nan", Value: "nan"}, {Name: "z", Value: "0k"}, {Name: "x", Value: "4x"}}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("parseAlgSpec params = %v, want %v", ps, want)
	}
	if got := ps.String(); got != "seg=32768,radix=4,name=fast,neg=-2,f=1.5,big=1000,h=2097152,g=1610612736,inf=inf,nan=nan,z=0k,x=4x" {
		t.Errorf("Params.String() = %q", got)
	}
	if alg, ps, err := parseAlgSpec("tree"); alg != "tree" || ps != nil || err != nil {
		t.Errorf("parseAlgSpec(tree) = %q, %v, %v", alg, ps, err)
	}
}

// A built-in algorithm takes its own parameters only, in range; a Lua one
// any; the choice in force shows them.
func TestCollParamsConfig(t *testing.T) {
	p := prog("p.lua", `print((mpi.coll.algorithm("bcast")))`)
	for _, c := range []struct {
		coll map[string]string
		out  string // printed by rank 0, or
		err  string // the error
	}{
		{map[string]string{"bcast": "torus:routes=2"}, "torus:routes=2", ""},
		{map[string]string{"bcast": "mine:seg=32k,name=x"}, "mine:seg=32768,name=x", ""},
		{map[string]string{"bcast": "torus:seg=1"}, "", `Config.Coll bcast=torus:seg=1: bcast algorithm torus has no parameter "seg" (it takes: routes)`},
		{map[string]string{"bcast": "torus:routes=0"}, "", "Config.Coll bcast=torus:routes=0: bcast algorithm torus: routes must be a whole number from 1 to 3 (got 0)"},
		{map[string]string{"bcast": "torus:routes=x"}, "", `routes must be a whole number from 1 to 3 (got "x")`},
		{map[string]string{"bcast": "binomial:seg=1"}, "", "bcast algorithm binomial takes no parameters (got seg)"},
		{map[string]string{"bcast": "auto:seg=1"}, "", "bcast=auto takes no parameters (got seg)"},
		{map[string]string{"bcast": "torus:routes"}, "", `parameter "routes" of torus`},
	} {
		var out strings.Builder
		_, err := Run(context.Background(), Config{Coll: c.coll, Stdout: &out, Quiet: true}, p)
		switch {
		case c.err == "" && (err != nil || out.String() != c.out+"\n"):
			t.Errorf("%v: %q, %v; want %q", c.coll, out.String(), err, c.out)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: %v; want an error with %q", c.coll, err, c.err)
		}
	}
}

// Validate checks Coll as far as it can before the program runs.
func TestValidateColl(t *testing.T) {
	for coll, want := range map[string]string{
		"torus:routes=2": "",
		"mine:seg=1k":    "",
		"torus:seg=1":    `Config.Coll bcast=torus:seg=1: bcast algorithm torus has no parameter "seg" (it takes: routes)`,
		"torus:routes=":  `Config.Coll bcast=torus:routes=: parameter "routes=" of torus: want KEY=VALUE after "torus:"`,
	} {
		err := Config{Coll: map[string]string{"bcast": coll}}.Validate()
		if want == "" && err != nil || want != "" && (err == nil || err.Error() != want) {
			t.Errorf("Validate of bcast=%s: %v, want %q", coll, err, want)
		}
	}
	if err := (Config{Coll: map[string]string{"bcats": "tree"}}).Validate(); err == nil || !strings.Contains(err.Error(), `unknown collective "bcats"`) {
		t.Errorf("Validate of bcats=tree: %v", err)
	}
}

// What only one partition models is found with parameters too.
func TestOnePartitionWithParams(t *testing.T) {
	m, err := machine("bgl", ReadInput, nil)
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{"torus": "bcast=torus", "torus:routes=1": "bcast=torus", "binomial": ""} {
		got := onePartition(Config{Coll: map[string]string{"bcast": spec}}, m)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("bcast=%s: %q, want %q", spec, got, want)
		}
	}
}

// ScriptAlgorithms lists what a program registers before its first
// communication, prints nothing of it, and stops a program that never
// communicates.
func TestScriptAlgorithms(t *testing.T) {
	p := prog("reg.lua", `
mpi.coll.register("bcast", "mine", function(c, d, r) return d end)
mpi.coll.register("allreduce", "ours", function(c, v, op) return v end)
print("not shown")
mpi.barrier()
mpi.coll.register("bcast", "later", function(c, d, r) return d end)
`)
	var out strings.Builder
	algs, err := ScriptAlgorithms(context.Background(), Config{Ranks: 4, Stdout: &out}, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Algorithm{{Coll: "allreduce", Name: "ours", Where: "reg.lua:3"}, {Coll: "bcast", Name: "mine", Where: "reg.lua:2"}}
	if !reflect.DeepEqual(algs, want) || out.Len() != 0 {
		t.Errorf("ScriptAlgorithms = %+v (output %q), want %+v", algs, out.String(), want)
	}
	_, err = ScriptAlgorithms(context.Background(), Config{}, prog("bad.lua", `mpi.coll.register("bcast", "x", print) error("boom")`))
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a failing start: %v", err)
	}
}

// FuzzParseColl: ParseColl never panics; what it accepts every value of
// parses (parseAlgSpec), and written back as NAME=VALUE pairs reads the same.
func FuzzParseColl(f *testing.F) {
	for _, s := range []string{"bcast=tree", "bcast=chain:seg=32k,radix=4,allreduce=ring", "bcast=torus,routes=2",
		" gatherv = b : y = 2 , z=3", "bcast=x:a=b=c", "bcast=x:seg=1,bcats=y", "bcast=,x", ":,=", "bcast=a:b=1,,c=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseColl(s)
		if err != nil {
			return
		}
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if _, _, err := parseAlgSpec(m[k]); err != nil {
				t.Fatalf("ParseColl(%q)[%s] = %q, which parseAlgSpec refuses: %v", s, k, m[k], err)
			}
			pairs = append(pairs, k+"="+m[k])
		}
		again, err := ParseColl(strings.Join(pairs, ","))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("ParseColl(%q) = %v; written back, %v, %v", s, m, again, err)
		}
	})
}

func prog(name, code string) Program { return Program{Name: name, Code: []byte(code)} }

// A rank late to an optimized alltoall, blocked in an earlier exchange
// whose data comes through the same links, does not deadlock the run: its
// CPU reads the alltoall's packets as they come (they would otherwise fill
// its reception FIFOs and the routers before them, and hold the earlier
// exchange's data back), and the values arrive whole.
func TestAlltoallOptimizedLateRank(t *testing.T) {
	prog := Program{Name: "late.lua", Code: []byte(`
local n, me = mpi.size(), mpi.rank()
if me == 36 then mpi.compute(0.002) end
mpi.sendrecv(mpi.bytes(100000), (me + 1) % n, (me - 1) % n)
local t = {}
for i = 1, n do t[i] = {me, i - 1, string.rep("x", 1000)} end
local got = mpi.alltoall(t)
for i = 1, n do
  local v = got[i]
  assert(v[1] == i - 1 and v[2] == me and #v[3] == 1000, "rank " .. me .. ": wrong value from " .. (i - 1))
end
if me == 0 then print("ok") end
`)}
	for _, routing := range []string{"", "deterministic"} {
		var out strings.Builder
		_, err := Run(context.Background(), Config{Ranks: 64, Coll: map[string]string{"alltoall": "optimized"}, Routing: routing, Stdout: &out, Quiet: true}, prog)
		if err != nil || out.String() != "ok\n" {
			t.Errorf("routing %q: %v, output %q", routing, err, out.String())
		}
	}
}
