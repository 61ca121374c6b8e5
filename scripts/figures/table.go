package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/bglua/bglua"
)

// Table is the CSV a figure script printed: a header and rows of cells.
type Table struct {
	Header []string
	Rows   [][]string
}

// parseCSV reads a script's output. It must be CSV only: a header, then
// rows of as many cells.
func parseCSV(b []byte) (*Table, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.TrimLeadingSpace = true
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("output is not CSV: %v", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no output (want a CSV header line, then rows)")
	}
	t := &Table{Header: recs[0], Rows: recs[1:]}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("CSV has a header (%s) but no rows", strings.Join(t.Header, ","))
	}
	return t, nil
}

// col is the index of the column called name, or -1.
func (t *Table) col(name string) int {
	for i, h := range t.Header {
		if h == name {
			return i
		}
	}
	return -1
}

// numeric reports whether every cell of column i is a number.
func (t *Table) numeric(i int) bool {
	for _, row := range t.Rows {
		if _, err := strconv.ParseFloat(row[i], 64); err != nil {
			return false
		}
	}
	return true
}

// Floats is the column called name as numbers.
func (t *Table) Floats(name string) ([]float64, error) {
	i := t.col(name)
	if i < 0 {
		return nil, fmt.Errorf("no column %q (columns: %s)", name, strings.Join(t.Header, ", "))
	}
	v := make([]float64, len(t.Rows))
	for r, row := range t.Rows {
		x, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			return nil, fmt.Errorf("column %q, row %d: %q is not a number", name, r+1, row[i])
		}
		v[r] = x
	}
	return v, nil
}

// where is the table of the rows whose column col is val.
func (t *Table) where(col, val string) (*Table, error) {
	i := t.col(col)
	if i < 0 {
		return nil, fmt.Errorf("no column %q (columns: %s)", col, strings.Join(t.Header, ", "))
	}
	out := &Table{Header: t.Header}
	for _, row := range t.Rows {
		if row[i] == val {
			out.Rows = append(out.Rows, row)
		}
	}
	if len(out.Rows) == 0 {
		return nil, fmt.Errorf("no row with %s = %s", col, val)
	}
	return out, nil
}

// Outcome is what one figure's runs gave.
type Outcome struct {
	Table   *Table
	Results []*bglua.Result
	Host    float64 // host seconds of all runs
}

// Extract takes one number out of an outcome (a measured value of the
// summary table).
type Extract func(o *Outcome) (float64, error)

// cell is column col of the first row whose columns match the name, value
// pairs kv.
func cell(col string, kv ...string) Extract {
	return func(o *Outcome) (float64, error) {
		t := o.Table
		for i := 0; i+1 < len(kv); i += 2 {
			var err error
			if t, err = t.where(kv[i], kv[i+1]); err != nil {
				return 0, err
			}
		}
		v, err := t.Floats(col)
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
}

// where applies e to the rows whose column col is val.
func where(col, val string, e Extract) Extract {
	return func(o *Outcome) (float64, error) {
		t, err := o.Table.where(col, val)
		if err != nil {
			return 0, err
		}
		return e(&Outcome{Table: t, Results: o.Results, Host: o.Host})
	}
}

// maxOf is the largest value of a column.
func maxOf(col string) Extract {
	return func(o *Outcome) (float64, error) {
		v, err := o.Table.Floats(col)
		if err != nil {
			return 0, err
		}
		m := v[0]
		for _, x := range v {
			m = math.Max(m, x)
		}
		return m, nil
	}
}

// at is column y in the row where column x is v.
func at(x string, v float64, y string) Extract {
	return func(o *Outcome) (float64, error) {
		xs, ys, err := pairs(o.Table, x, y)
		if err != nil {
			return 0, err
		}
		for i := range xs {
			if xs[i] == v {
				return ys[i], nil
			}
		}
		return 0, fmt.Errorf("no row with %s = %g", x, v)
	}
}

// pairs returns columns x and y sorted by x.
func pairs(t *Table, x, y string) ([]float64, []float64, error) {
	xs, err := t.Floats(x)
	if err != nil {
		return nil, nil, err
	}
	ys, err := t.Floats(y)
	if err != nil {
		return nil, nil, err
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	sx, sy := make([]float64, len(xs)), make([]float64, len(xs))
	for i, j := range idx {
		sx[i], sy[i] = xs[j], ys[j]
	}
	return sx, sy, nil
}

// fit is the least-squares line y = a + b x through the points.
func fit(t *Table, x, y string) (a, b float64, err error) {
	xs, ys, err := pairs(t, x, y)
	if err != nil {
		return 0, 0, err
	}
	if len(xs) < 2 {
		return 0, 0, fmt.Errorf("a line needs two points, have %d", len(xs))
	}
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, 0, fmt.Errorf("column %q has a single value", x)
	}
	b = (n*sxy - sx*sy) / d
	return (sy - b*sx) / n, b, nil
}

// fitAt is the least-squares line through (x, y) evaluated at at.
func fitAt(x, y string, at float64) Extract {
	return func(o *Outcome) (float64, error) {
		a, b, err := fit(o.Table, x, y)
		return a + b*at, err
	}
}

// fitSlope is the slope of the least-squares line through (x, y).
func fitSlope(x, y string) Extract {
	return func(o *Outcome) (float64, error) {
		_, b, err := fit(o.Table, x, y)
		return b, err
	}
}

// scaled multiplies what e gives by k (unit changes).
func scaled(k float64, e Extract) Extract {
	return func(o *Outcome) (float64, error) {
		v, err := e(o)
		return k * v, err
	}
}

// ratio is what a gives divided by what b gives.
func ratio(a, b Extract) Extract {
	return func(o *Outcome) (float64, error) {
		x, err := a(o)
		if err != nil {
			return 0, err
		}
		y, err := b(o)
		if err != nil {
			return 0, err
		}
		if y == 0 {
			return 0, fmt.Errorf("ratio to zero")
		}
		return x / y, nil
	}
}

// halfPoint is the x at which y first reaches half its largest value,
// interpolated on a log scale of x between the two points around it.
func halfPoint(x, y string) Extract {
	return func(o *Outcome) (float64, error) {
		xs, ys, err := pairs(o.Table, x, y)
		if err != nil {
			return 0, err
		}
		peak := largest(ys)
		half := peak / 2
		for i, v := range ys {
			if v < half {
				continue
			}
			if i == 0 || xs[i-1] <= 0 {
				return xs[i], nil
			}
			f := (half - ys[i-1]) / (v - ys[i-1])
			return math.Exp(math.Log(xs[i-1]) + f*(math.Log(xs[i])-math.Log(xs[i-1]))), nil
		}
		return 0, fmt.Errorf("no point reaches half the peak")
	}
}

// saturation is the smallest x at which y reaches frac of its largest value.
func saturation(x, y string, frac float64) Extract {
	return func(o *Outcome) (float64, error) {
		xs, ys, err := pairs(o.Table, x, y)
		if err != nil {
			return 0, err
		}
		peak := largest(ys)
		for i, v := range ys {
			if v >= frac*peak {
				return xs[i], nil
			}
		}
		return 0, fmt.Errorf("no point reaches %.0f%% of the peak", 100*frac)
	}
}

// hostSeconds is the host wall time of the runs.
func hostSeconds(o *Outcome) (float64, error) {
	if len(o.Results) == 0 {
		return 0, fmt.Errorf("not run")
	}
	return o.Host, nil
}

// maxWhere is the largest of column col over the rows whose column key has
// one of the values vals.
func maxWhere(key string, vals []string, col string) Extract {
	return func(o *Outcome) (float64, error) {
		best, found := math.Inf(-1), false
		var errs []string
		for _, v := range vals {
			m, err := where(key, v, maxOf(col))(o)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			best, found = math.Max(best, m), true
		}
		if !found {
			return 0, fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		return best, nil
	}
}

// largest is the largest of ys (which is not empty).
func largest(ys []float64) float64 {
	m := ys[0]
	for _, v := range ys {
		m = math.Max(m, v)
	}
	return m
}
