package mpi

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Cartesian topologies (MPI_Cart_create and friends): a communicator whose
// ranks are laid out on a grid in row-major order, the last dimension
// fastest, as MPI lays them out. Only the geometry lives here; the
// communicator is a dup of the parent (no reordering, as with reorder=false).

// Cart is the geometry of a cartesian communicator.
type Cart struct {
	dims    []int
	periods []bool
	strides []int // strides[d]: rank distance of one step along d
	size    int
}

// NewCart makes the geometry of dims (extents, 0 to be filled as
// MPI_Dims_create does) and periods (wrap-around per dimension; missing
// entries are false) for a communicator of size ranks. The product of the
// extents must equal size.
func NewCart(size int, dims []int, periods []bool) (*Cart, error) {
	return newCart(size, "", dims, periods)
}

// newCart is NewCart for the communicator named comm ("" for none), which
// errors name.
func newCart(size int, comm string, dims []int, periods []bool) (*Cart, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("need at least one dimension")
	}
	if len(periods) > len(dims) {
		return nil, fmt.Errorf("%d periods for %d dimensions", len(periods), len(dims))
	}
	full, err := dimsCreate(size, comm, dims)
	if err != nil {
		return nil, err
	}
	g := &Cart{dims: full, periods: make([]bool, len(full)), strides: make([]int, len(full)), size: size}
	copy(g.periods, periods)
	s := 1
	for d := len(full) - 1; d >= 0; d-- {
		g.strides[d] = s
		s *= full[d]
	}
	return g, nil
}

// DimsCreate completes dims for n ranks as MPI_Dims_create: entries > 0 are
// kept, entries 0 get extents whose product with the others is n, as close
// to each other as the factors of n allow, in non-increasing order. With no
// 0 entry the product must already be n.
func DimsCreate(n int, dims []int) ([]int, error) { return dimsCreate(n, "", dims) }

func dimsCreate(n int, comm string, dims []int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("cannot lay out %d ranks", n)
	}
	has, ranks := fmt.Sprintf("not %d", n), fmt.Sprintf("%d ranks", n)
	if comm != "" {
		has, ranks = fmt.Sprintf("but %s has %d", comm, n), fmt.Sprintf("the %d ranks of %s", n, comm)
	}
	out := append([]int(nil), dims...)
	fixed, free := 1, 0
	over := false // fixed overflowed
	for i, d := range dims {
		switch {
		case d < 0:
			return nil, fmt.Errorf("dims %s: extent %d of dimension %d is negative", fmtDims(dims), d, i)
		case d == 0:
			free++
		case fixed > math.MaxInt/d:
			over = true
		default:
			fixed *= d
		}
	}
	if free == 0 {
		if over || fixed != n {
			p := strconv.Itoa(fixed)
			if over {
				p = "too many"
			}
			return nil, fmt.Errorf("dims %s make %s ranks, %s", fmtDims(dims), p, has)
		}
		return out, nil
	}
	if over || n%fixed != 0 {
		return nil, fmt.Errorf("dims %s: %s do not divide by %s, the product of the extents given", fmtDims(dims), ranks, productText(fixed, over))
	}
	// Spread the prime factors of what is left, largest first, each onto the
	// free extent that is smallest so far: balanced, as MPI asks.
	ext := make([]int, free)
	for i := range ext {
		ext[i] = 1
	}
	fs := primeFactors(n / fixed)
	for i := len(fs) - 1; i >= 0; i-- {
		j := 0
		for k := range ext {
			if ext[k] < ext[j] {
				j = k
			}
		}
		ext[j] *= fs[i]
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ext)))
	j := 0
	for i, d := range out {
		if d == 0 {
			out[i] = ext[j]
			j++
		}
	}
	return out, nil
}

func productText(p int, over bool) string {
	if over {
		return "more than " + strconv.Itoa(math.MaxInt)
	}
	return strconv.Itoa(p)
}

// primeFactors returns the prime factors of n, smallest first, with repeats.
func primeFactors(n int) []int {
	var fs []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			fs = append(fs, p)
			n /= p
		}
	}
	if n > 1 {
		fs = append(fs, n)
	}
	return fs
}

func fmtDims(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.Itoa(d)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// Dims returns the extents of each dimension.
func (g *Cart) Dims() []int { return append([]int(nil), g.dims...) }

// Periods returns whether each dimension wraps around.
func (g *Cart) Periods() []bool { return append([]bool(nil), g.periods...) }

// NDims is the number of dimensions.
func (g *Cart) NDims() int { return len(g.dims) }

// Coords returns the grid coordinates of rank (MPI_Cart_coords).
func (g *Cart) Coords(rank int) ([]int, error) {
	if rank < 0 || rank >= g.size {
		return nil, fmt.Errorf("rank %d out of range 0..%d", rank, g.size-1)
	}
	c := make([]int, len(g.dims))
	for d, s := range g.strides {
		c[d] = rank / s % g.dims[d]
	}
	return c, nil
}

// Rank returns the rank at coords (MPI_Cart_rank). Coordinates out of range
// wrap along periodic dimensions and are an error along the others.
func (g *Cart) Rank(coords []int) (int, error) {
	if len(coords) != len(g.dims) {
		return 0, fmt.Errorf("%d coordinates for %d dimensions", len(coords), len(g.dims))
	}
	r := 0
	for d, x := range coords {
		n := g.dims[d]
		if x < 0 || x >= n {
			if !g.periods[d] {
				return 0, fmt.Errorf("coordinate %d of dimension %d out of range 0..%d (not periodic)", x, d, n-1)
			}
			x = (x%n + n) % n
		}
		r += x * g.strides[d]
	}
	return r, nil
}

// Shift returns the ranks rank receives from and sends to in a shift by disp
// along dimension dim (MPI_Cart_shift): src is disp steps back, dst disp
// steps ahead; ProcNull past the edge of a dimension that does not wrap.
func (g *Cart) Shift(rank, dim, disp int) (src, dst int, err error) {
	if dim < 0 || dim >= len(g.dims) {
		return 0, 0, fmt.Errorf("dimension %d out of range 0..%d", dim, len(g.dims)-1)
	}
	c, err := g.Coords(rank)
	if err != nil {
		return 0, 0, err
	}
	at := func(x int) int {
		n := g.dims[dim]
		if x < 0 || x >= n {
			if !g.periods[dim] {
				return ProcNull
			}
			x = (x%n + n) % n
		}
		return rank + (x-c[dim])*g.strides[dim]
	}
	return at(c[dim] - disp), at(c[dim] + disp), nil
}

// Shape formats the extents as "4x3".
func (g *Cart) Shape() string {
	s := make([]string, len(g.dims))
	for i, d := range g.dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "x")
}

// String formats the geometry as "4x3 (periodic, open)".
func (g *Cart) String() string {
	p := make([]string, len(g.dims))
	for i := range g.dims {
		p[i] = "open"
		if g.periods[i] {
			p[i] = "periodic"
		}
	}
	return g.Shape() + " (" + strings.Join(p, ", ") + ")"
}

// CartCreate makes a cartesian communicator over c's ranks (MPI_Cart_create
// without reordering): a dup of c, with its geometry. Every rank of c must
// call it with the same arguments. The product of dims (0 entries filled as
// DimsCreate does) must equal c's size; the check comes before any
// communication, so a bad call fails alike on every rank.
func CartCreate(c *Comm, dims []int, periods []bool) (*Comm, *Cart, error) {
	g, err := newCart(c.Size(), c.Name, dims, periods)
	if err != nil {
		return nil, nil, err
	}
	d, err := c.Dup()
	if err != nil {
		return nil, nil, err
	}
	d.Name = fmt.Sprintf("%s.cart(%s)", d.Name, g.Shape())
	return d, g, nil
}
