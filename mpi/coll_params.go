package mpi

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parameters of collective algorithms (--coll bcast=torus:routes=2).
//
// A built-in algorithm declares the knobs it really has (registerParams),
// each a whole number in a range; SetAlgorithm refuses any other parameter,
// or a value out of range, before the run starts. An external (Lua)
// algorithm gets whatever parameters were given (ExternalCall.Params): it
// checks them itself.

// Param is one parameter given to the algorithm chosen for a collective.
// Value is a float64 (a number, or a size in bytes) or a string.
type Param struct {
	Name  string
	Value any
}

// String is name=value, sizes in bytes (32768, not 32k).
func (p Param) String() string {
	switch v := p.Value.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return p.Name + "=" + strconv.FormatInt(int64(v), 10)
		}
		return p.Name + "=" + strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return fmt.Sprintf("%s=%v", p.Name, v)
	}
}

// Params are the parameters of one choice, in the order given.
type Params []Param

// String is "name=value,name=value".
func (ps Params) String() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// ParamSpec is a parameter a built-in algorithm takes: a whole number from
// Min to Max, Default when not given.
type ParamSpec struct {
	Name     string
	Min, Max int
	Default  int
	Doc      string // what it sets, in a few words
}

// String is "name=MIN..MAX (default D): doc".
func (s ParamSpec) String() string {
	return fmt.Sprintf("%s=%d..%d (default %d): %s", s.Name, s.Min, s.Max, s.Default, s.Doc)
}

// registerParams declares the parameters of the built-in algorithm coll/name,
// registered before. Called from init functions only.
func registerParams(coll, name string, specs ...ParamSpec) {
	e := lookupEntry(coll, name)
	if e == nil {
		panic(fmt.Sprintf("mpi: registerParams: no algorithm %s/%s", coll, name))
	}
	e.Params = append(e.Params, specs...)
}

// checkParams checks ps against the parameters of the built-in algorithm
// alg of coll, whose specs are specs: every one must be known, given once,
// and a whole number in its range.
func checkParams(coll, alg string, specs []ParamSpec, ps Params) error {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.Name] {
			return fmt.Errorf("parameter %s is given twice", p.Name)
		}
		seen[p.Name] = true
		k := -1
		for i, s := range specs {
			if s.Name == p.Name {
				k = i
			}
		}
		switch {
		case k < 0 && len(specs) == 0:
			return fmt.Errorf("%s algorithm %s takes no parameters (got %s)", coll, alg, p.Name)
		case k < 0:
			return fmt.Errorf("%s algorithm %s has no parameter %q (it takes: %s)", coll, alg, p.Name, strings.Join(names, ", "))
		}
		s := specs[k]
		v, ok := p.Value.(float64)
		if !ok || v != math.Trunc(v) || v < float64(s.Min) || v > float64(s.Max) {
			got := fmt.Sprint(p.Value)
			if !ok {
				got = strconv.Quote(got)
			}
			return fmt.Errorf("%s algorithm %s: %s must be a whole number from %d to %d (got %s)", coll, alg, s.Name, s.Min, s.Max, got)
		}
	}
	return nil
}

// param is the value of parameter name of the built-in algorithm alg,
// chosen for coll on c's world: the one given, or its default.
func (c *Comm) param(coll, alg, name string) int {
	for _, p := range c.r.w.params[coll] {
		if v, ok := p.Value.(float64); ok && p.Name == name {
			return int(v)
		}
	}
	if e := lookupEntry(coll, alg); e != nil {
		for _, s := range e.Params {
			if s.Name == name {
				return s.Default
			}
		}
	}
	panic(fmt.Sprintf("mpi: %s algorithm %s has no parameter %s", coll, alg, name))
}
