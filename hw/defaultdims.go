package hw

import "math"

// DefaultDims is the shape used when the user gives no --torus. A near-cube keeps
// the average hop count and the bisection close to those of a real partition, so
// it prefers the smallest machine that holds n nodes exactly (product n, ordered
// X >= Y >= Z, smallest X then smallest Y). When n factors only into a long line
// (X above 2*ceil(cbrt(n)), e.g. a prime n) the exact shape would distort every
// communication figure, so it instead takes the shape with the smallest X, then
// the fewest nodes, then the smallest Y, leaving some nodes idle.
// n < 1 is treated as 1. The cost is O(cbrt(n)^2).
func DefaultDims(n int) Dims {
	if n < 1 {
		n = 1
	}
	c := ceilCbrt(n)
	for x := c; x <= 2*c; x++ {
		if n%x != 0 {
			continue
		}
		m := n / x
		// The smallest Y with Y >= Z = m/Y is the first divisor from ceil(sqrt(m)).
		for y := ceilSqrt(m); y <= x && y <= m; y++ {
			if m%y == 0 {
				return Dims{x, y, m / y}
			}
		}
	}
	return cubeCover(n, c)
}

// cubeCover is the fallback of DefaultDims: with X fixed at ceil(cbrt(n)), the
// smallest X possible, it picks Y >= Z minimizing the node count, then Y.
func cubeCover(n, x int) Dims {
	m := (n + x - 1) / x // Y*Z must reach m
	best := Dims{x, x, x}
	for y := 1; y <= x; y++ {
		z := (m + y - 1) / y
		if z > y {
			continue
		}
		if y*z < best.Y*best.Z {
			best = Dims{x, y, z}
		}
	}
	return best
}

// ceilCbrt is the smallest c with c*c*c >= n, exact for all int sizes used here.
func ceilCbrt(n int) int {
	c := int(math.Cbrt(float64(n)))
	for c > 1 && (c-1)*(c-1)*(c-1) >= n {
		c--
	}
	for c*c*c < n {
		c++
	}
	return c
}

// ceilSqrt is the smallest s with s*s >= n.
func ceilSqrt(n int) int {
	s := int(math.Sqrt(float64(n)))
	for s > 1 && (s-1)*(s-1) >= n {
		s--
	}
	for s*s < n {
		s++
	}
	return s
}
