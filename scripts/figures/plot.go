package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/bglua/bglua/internal/chart"
)

// PlotKind is how a figure is drawn.
type PlotKind int

const (
	Lines PlotKind = iota // y columns against an x column, a line per series
	Bars                  // y columns side by side for each row, labelled by Labels
)

// Plot says what to draw from a figure's CSV.
type Plot struct {
	Kind   PlotKind
	X      string   // Lines: the x column
	Y      []string // the y columns
	Series string   // Lines: rows are grouped into one line per value of this column
	Labels []string // Bars: the columns whose values name a row
	Legend []string // names of the Y columns in the legend (default: the column names)
	// RefSeries are values of the Series column whose lines are references
	// computed by the script (an ideal, a bound) rather than measurements:
	// drawn after the others, in gray, dashed then dotted, without marks.
	RefSeries []string

	LogX, LogY     bool
	XLabel, YLabel string
}

// Ref is a published value drawn over the model's: a horizontal line at Y
// (the default), a line y = Line(x), or a single point (Point).
type Ref struct {
	Label string
	X, Y  float64
	Point bool
	Line  func(x float64) float64
}

// render draws figure f from table t as PNG, with subtitle under the
// title. The bytes depend only on its arguments. It returns notes about
// what it could not draw as asked.
func render(f Figure, t *Table, subtitle string) ([]byte, []string, error) {
	title := f.Title
	if subtitle != "" {
		title += "\n" + subtitle
	}
	p := chart.New(title)
	var notes []string
	var err error
	switch f.Plot.Kind {
	case Bars:
		notes, err = drawBars(p, f.Plot, t)
	default:
		notes, err = drawLines(p, f, t)
	}
	if err != nil {
		return nil, notes, err
	}
	// Linear axes start at zero and leave room above the highest line.
	if !f.Plot.LogY {
		p.Y.Min = math.Min(p.Y.Min, 0)
		p.Y.Max += 0.04 * (p.Y.Max - p.Y.Min)
	}
	png, err := chart.PNG(p)
	return png, notes, err
}

// numericCols are the columns of t whose cells are all numbers, and the
// first column that is not.
func numericCols(t *Table) (nums []string, text string) {
	for i, h := range t.Header {
		if t.numeric(i) {
			nums = append(nums, h)
		} else if text == "" {
			text = h
		}
	}
	return nums, text
}

// columnsOr checks that the plot's columns exist; if not, it falls back to
// the first numeric column against the other numeric ones, grouped by the
// first text column, and says so.
func columnsOr(pl Plot, t *Table) (Plot, []string) {
	missing := []string{}
	for _, c := range append([]string{pl.X, pl.Series}, pl.Y...) {
		if c != "" && t.col(c) < 0 {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return pl, nil
	}
	nums, text := numericCols(t)
	note := fmt.Sprintf("columns %s not in the CSV (%s): plotted the first numeric column against the others",
		strings.Join(missing, ", "), strings.Join(t.Header, ","))
	fb := Plot{Kind: Lines, Series: text, LogX: pl.LogX, LogY: pl.LogY}
	if len(nums) > 0 {
		fb.X, fb.XLabel = nums[0], nums[0]
		fb.Y = nums[1:]
	}
	return fb, []string{note}
}

func drawLines(p *plot.Plot, f Figure, t *Table) ([]string, error) {
	pl, notes := columnsOr(f.Plot, t)
	if pl.X == "" || len(pl.Y) == 0 {
		return notes, fmt.Errorf("nothing to plot: want two numeric columns, have %s", strings.Join(t.Header, ","))
	}
	p.X.Label.Text, p.Y.Label.Text = pl.XLabel, pl.YLabel
	if p.X.Label.Text == "" {
		p.X.Label.Text = pl.X
	}
	if p.Y.Label.Text == "" && len(pl.Y) == 1 {
		p.Y.Label.Text = pl.Y[0]
	}
	chart.LogAxes(p, pl.LogX, pl.LogY)
	groups := []*Table{t}
	var names []string
	if pl.Series != "" {
		groups, names = seriesOf(t, pl.Series)
	}
	dropped := 0
	n := 0
	xmin, xmax := math.Inf(1), math.Inf(-1)
	var refs []int // groups drawn as references, after the others
	for g, gt := range groups {
		if names != nil && slices.Contains(pl.RefSeries, names[g]) {
			refs = append(refs, g)
			continue
		}
		for j, y := range pl.Y {
			pts, err := points(pl, gt, y, &dropped)
			if err != nil {
				return notes, err
			}
			if len(pts) == 0 {
				continue
			}
			xmin, xmax = math.Min(xmin, pts[0].X), math.Max(xmax, pts[len(pts)-1].X)
			if err := chart.AddSeries(p, legendName(pl, j, names, g), pts, n); err != nil {
				return notes, err
			}
			n++
		}
	}
	for k, g := range refs {
		pts, err := points(pl, groups[g], pl.Y[0], &dropped)
		if err != nil {
			return notes, err
		}
		if len(pts) == 0 {
			continue
		}
		dashes := chart.Dashed
		if k%2 == 1 {
			dashes = chart.Dotted
		}
		if err := chart.AddCurve(p, names[g], pts, chart.Gray, dashes); err != nil {
			return notes, err
		}
	}
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d points at or below 0 left out of the log scale", dropped))
	}
	if n == 0 {
		return notes, fmt.Errorf("no point to plot")
	}
	for _, r := range f.Refs {
		if err := addRef(p, r, xmin, xmax, pl.LogX); err != nil {
			return notes, err
		}
	}
	return notes, nil
}

// points are column y of t against the plot's x column, sorted by x,
// without those a log scale cannot show (counted in dropped).
func points(pl Plot, t *Table, y string, dropped *int) (plotter.XYs, error) {
	xs, ys, err := pairs(t, pl.X, y)
	if err != nil {
		return nil, err
	}
	pts := make(plotter.XYs, 0, len(xs))
	for i := range xs {
		if (pl.LogX && xs[i] <= 0) || (pl.LogY && ys[i] <= 0) {
			*dropped++
			continue
		}
		pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
	}
	return pts, nil
}

func legendName(pl Plot, j int, names []string, g int) string {
	name := pl.Y[j]
	if j < len(pl.Legend) {
		name = pl.Legend[j]
	}
	if names == nil {
		return name
	}
	if len(pl.Y) == 1 {
		return names[g]
	}
	return names[g] + " " + name
}

// seriesOf splits t by the values of column col, in order of appearance.
func seriesOf(t *Table, col string) ([]*Table, []string) {
	i := t.col(col)
	var names []string
	byName := map[string]*Table{}
	for _, row := range t.Rows {
		g, ok := byName[row[i]]
		if !ok {
			g = &Table{Header: t.Header}
			byName[row[i]] = g
			names = append(names, row[i])
		}
		g.Rows = append(g.Rows, row)
	}
	groups := make([]*Table, len(names))
	for k, name := range names {
		groups[k] = byName[name]
	}
	return groups, names
}

// addRef draws a published reference over the x range [xmin, xmax].
func addRef(p *plot.Plot, r Ref, xmin, xmax float64, logX bool) error {
	if r.Point {
		return chart.AddPoint(p, r.Label, r.X, r.Y)
	}
	line := r.Line
	if line == nil {
		line = func(float64) float64 { return r.Y }
	}
	return chart.AddCurve(p, r.Label, chart.Sample(line, xmin, xmax, logX, 50), chart.Gray, chart.Dashed)
}

func drawBars(p *plot.Plot, pl Plot, t *Table) ([]string, error) {
	labels := make([]string, len(t.Rows))
	for _, c := range pl.Labels {
		i := t.col(c)
		if i < 0 {
			return nil, fmt.Errorf("no label column %q (columns: %s)", c, strings.Join(t.Header, ", "))
		}
		for r, row := range t.Rows {
			if labels[r] != "" {
				labels[r] += "\n"
			}
			labels[r] += row[i]
		}
	}
	p.Y.Label.Text = pl.YLabel
	width := vg.Points(14)
	var notes []string
	for j, y := range pl.Y {
		i := t.col(y)
		if i < 0 {
			return notes, fmt.Errorf("no column %q (columns: %s)", y, strings.Join(t.Header, ", "))
		}
		vals := make(plotter.Values, len(t.Rows))
		for r, row := range t.Rows {
			if row[i] == "" { // no published value for this row
				continue
			}
			v, err := strconv.ParseFloat(row[i], 64)
			if err != nil {
				return notes, fmt.Errorf("column %q, row %d: %q is not a number", y, r+1, row[i])
			}
			vals[r] = v
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return notes, err
		}
		b.Color = chart.Color(j)
		b.LineStyle.Width = 0
		b.Offset = width * vg.Length(float64(j)-float64(len(pl.Y)-1)/2)
		p.Add(b)
		name := y
		if j < len(pl.Legend) {
			name = pl.Legend[j]
		}
		p.Legend.Add(name, b)
	}
	p.NominalX(labels...)
	return notes, nil
}
