package hw

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxNodes bounds the machine size ParseDims accepts. Node indices are stored as
// int32 and a mapping keeps a dense per-slot index, so an absurd --torus would
// otherwise cost gigabytes before the first rank runs. 1<<24 nodes is far beyond
// the 65,536 of the largest BG/L and the 41,616 of the emulator paper's design.
const MaxNodes = 1 << 24

// Dims are the torus dimensions in nodes.
type Dims struct{ X, Y, Z int }

// Nodes is the number of nodes in the machine.
func (d Dims) Nodes() int { return d.X * d.Y * d.Z }

// String formats d the way --torus takes it, e.g. "8x8x8".
func (d Dims) String() string { return fmt.Sprintf("%dx%dx%d", d.X, d.Y, d.Z) }

// check reports whether d describes a machine this package can model, so that
// constructors taking a Torus built by hand fail as clearly as ParseDims does.
func (d Dims) check() error {
	if d.X < 1 || d.Y < 1 || d.Z < 1 {
		return fmt.Errorf("torus %s: every dimension must be at least 1", d)
	}
	if _, ok := nodesUpTo(MaxNodes, d.X, d.Y, d.Z); !ok {
		return fmt.Errorf("torus %s: too many nodes (at most %d)", d, MaxNodes)
	}
	return nil
}

// nodesUpTo multiplies positive dimensions, stopping before the product can
// overflow: ok is false as soon as it passes limit.
func nodesUpTo(limit int, dims ...int) (n int, ok bool) {
	n = 1
	for _, v := range dims {
		if v > limit {
			return 0, false
		}
		n *= v // both factors are at most limit, so this cannot overflow
		if n > limit {
			return 0, false
		}
	}
	return n, true
}

// ParseDims parses "XxYxZ" (the separator may also be 'X'), each dimension a
// positive decimal integer. Signs, spaces and other separators are refused so
// that a typo is reported rather than guessed at.
func ParseDims(s string) (Dims, error) {
	bad := fmt.Errorf("torus %q: want XxYxZ with three positive integers", s)
	parts := strings.Split(strings.ReplaceAll(s, "X", "x"), "x")
	if len(parts) != 3 {
		return Dims{}, bad
	}
	var v [3]int
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return Dims{}, bad
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			n = MaxNodes + 1 // only digits, so the value is merely too large
		}
		if n < 1 {
			return Dims{}, bad
		}
		v[i] = n
	}
	if _, ok := nodesUpTo(MaxNodes, v[:]...); !ok {
		return Dims{}, fmt.Errorf("torus %q: too many nodes (at most %d)", s, MaxNodes)
	}
	return Dims{v[0], v[1], v[2]}, nil
}
