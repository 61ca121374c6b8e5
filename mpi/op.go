package mpi

import (
	"fmt"
	"math"
)

// Op is a reduction operator. Combine(a, b) computes a op b where a comes from
// lower ranks than b, so that non-commutative user operators see MPI's order.
type Op interface {
	Name() string
	Combine(a, b Value) (Value, error)
	Commutative() bool
}

// Builtin is one of MPI's predefined operators on numbers and arrays of
// numbers (elementwise). MAXLOC and MINLOC take {value, index} pairs.
type Builtin struct {
	name string
	f    func(a, b float64) float64
	loc  int // +1 maxloc, -1 minloc, 0 neither
}

// The predefined operators.
var (
	SUM    = &Builtin{name: "SUM", f: func(a, b float64) float64 { return a + b }}
	PROD   = &Builtin{name: "PROD", f: func(a, b float64) float64 { return a * b }}
	MAX    = &Builtin{name: "MAX", f: math.Max}
	MIN    = &Builtin{name: "MIN", f: math.Min}
	LAND   = &Builtin{name: "LAND", f: func(a, b float64) float64 { return b2f(a != 0 && b != 0) }}
	LOR    = &Builtin{name: "LOR", f: func(a, b float64) float64 { return b2f(a != 0 || b != 0) }}
	BAND   = &Builtin{name: "BAND", f: func(a, b float64) float64 { return float64(int64(a) & int64(b)) }}
	BOR    = &Builtin{name: "BOR", f: func(a, b float64) float64 { return float64(int64(a) | int64(b)) }}
	MAXLOC = &Builtin{name: "MAXLOC", loc: 1}
	MINLOC = &Builtin{name: "MINLOC", loc: -1}
)

// Builtins lists the predefined operators in a fixed order.
var Builtins = []*Builtin{SUM, PROD, MAX, MIN, LAND, LOR, BAND, BOR, MAXLOC, MINLOC}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Name is the operator's MPI name.
func (o *Builtin) Name() string { return o.name }

// Commutative is true for every predefined operator.
func (o *Builtin) Commutative() bool { return true }

// Phantom is a payload that costs the network N bytes and carries no data
// (mpi.bytes(n) in Lua), for large-message studies at full scale.
type Phantom struct{ N int }

// Combine applies the operator to two numbers or two arrays of equal length.
// Two phantoms combine into a phantom of the larger size: the cost of the
// reduction is modeled, its result is not computed.
func (o *Builtin) Combine(a, b Value) (Value, error) {
	if pa, ok := a.Data.(Phantom); ok {
		if pb, ok := b.Data.(Phantom); ok {
			if pb.N > pa.N {
				pa = pb
			}
			return Value{Data: pa, Size: pa.N}, nil
		}
	}
	if o.loc != 0 {
		return o.combineLoc(a, b)
	}
	switch x := a.Data.(type) {
	case float64:
		if y, ok := b.Data.(float64); ok {
			return Value{Data: o.f(x, y), Size: 8}, nil
		}
	case []float64:
		if y, ok := b.Data.([]float64); ok {
			if len(x) != len(y) {
				return Value{}, fmt.Errorf("mpi.%s: arrays of different lengths (%d and %d)", o.name, len(x), len(y))
			}
			z := make([]float64, len(x))
			for i := range x {
				z[i] = o.f(x[i], y[i])
			}
			return Value{Data: z, Size: 8 * len(z)}, nil
		}
	}
	return Value{}, fmt.Errorf("mpi.%s needs numbers or arrays of numbers on every rank (got %s and %s)", o.name, kind(a.Data), kind(b.Data))
}

func (o *Builtin) combineLoc(a, b Value) (Value, error) {
	x, ok1 := a.Data.([]float64)
	y, ok2 := b.Data.([]float64)
	if !ok1 || !ok2 || len(x) != 2 || len(y) != 2 {
		return Value{}, fmt.Errorf("mpi.%s needs {value, index} pairs on every rank", o.name)
	}
	better := x[0]*float64(o.loc) > y[0]*float64(o.loc) || x[0] == y[0] && x[1] <= y[1]
	if better {
		return Value{Data: []float64{x[0], x[1]}, Size: 16}, nil
	}
	return Value{Data: []float64{y[0], y[1]}, Size: 16}, nil
}

// Elements is how many numbers a reduction combines for v (for CPU costs).
func Elements(v Value) int {
	switch d := v.Data.(type) {
	case []float64:
		return len(d)
	case Phantom:
		return (d.N + 7) / 8
	}
	return 1
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case float64:
		return "a number"
	case []float64:
		return "an array of numbers"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case Phantom:
		return "mpi.bytes"
	}
	return "a table"
}
