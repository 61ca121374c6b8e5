package sweep

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/bglua/bglua/internal/chart"
)

// line is one measured line of a plot: a choice on a rank count.
type line struct {
	choice Choice
	ranks  int
	sizes  []float64 // sizes > 0 measured, ascending
	times  []float64 // the mean time over the seeds at each size
}

// lines are the measured lines of collective coll ("auto": the choices of
// none), in sweep order, from the rows of the report.
func (r *Report) lines(coll string) []line {
	var out []line
	idx := map[string]int{}
	sums := map[string]map[int64][2]float64{}
	for _, o := range r.Outcomes {
		if o.Row == nil || !slices.Contains(o.Choice.collectives(), coll) {
			continue
		}
		k := fmt.Sprintf("%s\x00%d", o.Choice.Label, o.Ranks)
		if _, ok := idx[k]; !ok {
			idx[k] = len(out)
			out = append(out, line{choice: o.Choice, ranks: o.Ranks})
			sums[k] = map[int64][2]float64{}
		}
		s := sums[k][o.Size]
		sums[k][o.Size] = [2]float64{s[0] + o.Row.Time, s[1] + 1}
	}
	for k, i := range idx {
		for _, n := range slices.Sorted(maps.Keys(sums[k])) {
			s := sums[k][n]
			if n > 0 && s[0] > 0 {
				out[i].sizes = append(out[i].sizes, float64(n))
				out[i].times = append(out[i].times, s[0]/s[1])
			}
		}
	}
	return out
}

// collectives are the collectives the sweep's choices name, in the order
// they first appear ("auto" for a choice of none).
func (s *Spec) collectives() []string {
	var out []string
	for _, c := range s.Choices {
		for _, name := range c.collectives() {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// PNGPath is the plot of collective coll beside the CSV out.
func PNGPath(out, coll string) string {
	return strings.TrimSuffix(out, ".csv") + "_" + coll + ".png"
}

// nodes is how many nodes p ranks take in the sweep's mode.
func (s *Spec) nodes(p int) int {
	if s.Base.Mode == "vn" {
		return (p + 1) / 2
	}
	return p
}

// formula is the model of line l's algorithm for collective coll.
func (r *Report) formula(coll string, c Choice) Formula {
	if coll == "auto" {
		return FormulaOf(r.Params, "", "")
	}
	return FormulaOf(r.Params, coll, c.Coll[coll])
}

// plots draws a PNG per collective of the sweep.
func (s *Spec) plots(r *Report) (files, notes []string, err error) {
	for _, coll := range s.collectives() {
		png, err := s.plot(r, coll)
		if err != nil {
			return files, notes, fmt.Errorf("plot of %s: %v", coll, err)
		}
		if png == nil {
			notes = append(notes, fmt.Sprintf("no plot of %s: no point with a size and a time above 0", coll))
			continue
		}
		path := PNGPath(s.Out, coll)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			return files, notes, fmt.Errorf("cannot write the plot: %v", pathError(err))
		}
		files = append(files, path)
	}
	return files, notes, nil
}

// plot is the PNG of collective coll: each line measured, and in its
// colour the Hockney (dashed) and LogGP (dotted) curves of its algorithm
// over its sizes; nil if there is no point to draw.
func (s *Spec) plot(r *Report, coll string) ([]byte, error) {
	lines := r.lines(coll)
	title := coll + ": virtual time against size, " + filepath.Base(s.Program.Name)
	if s.Setup != "" {
		title += " " + s.Setup
	}
	p := chart.New(title)
	p.X.Label.Text, p.Y.Label.Text = "size (bytes)", "virtual time (s)"
	chart.LogAxes(p, true, true)
	drawn := 0
	for i, l := range lines {
		if len(l.sizes) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(l.sizes))
		for j := range l.sizes {
			pts[j] = plotter.XY{X: l.sizes[j], Y: l.times[j]}
		}
		f := r.formula(coll, l.choice)
		name := l.choice.Label
		if coll != "auto" && len(l.choice.Coll) == 1 {
			name = l.choice.Coll[coll]
		}
		name += fmt.Sprintf(", %d ranks", l.ranks)
		if f.Name == "point-to-point" {
			name += " (p2p model)"
		}
		if err := chart.AddSeries(p, name, pts, i); err != nil {
			return nil, err
		}
		lo, hi := l.sizes[0], l.sizes[len(l.sizes)-1]
		if hi == lo {
			lo, hi = lo/2, hi*2
		}
		nodes := s.nodes(l.ranks)
		for _, m := range []struct {
			t      func(p, nodes int, n float64) float64
			dashes []vg.Length
		}{{f.Hockney, chart.Dashed}, {f.LogGP, chart.Dotted}} {
			curve := positive(chart.Sample(func(n float64) float64 { return m.t(l.ranks, nodes, n) }, lo, hi, true, 40))
			if len(curve) == 0 {
				continue
			}
			if err := chart.AddCurve(p, "", curve, chart.Color(i), m.dashes); err != nil {
				return nil, err
			}
		}
		drawn++
	}
	if drawn == 0 {
		return nil, nil
	}
	chart.AddKey(p, "Hockney model (dashed)", chart.Gray, chart.Dashed)
	chart.AddKey(p, "LogGP model (dotted)", chart.Gray, chart.Dotted)
	return chart.PNG(p)
}

// positive keeps the points a log scale can show.
func positive(pts plotter.XYs) plotter.XYs {
	out := pts[:0]
	for _, p := range pts {
		if p.Y > 0 && !math.IsInf(p.Y, 0) && !math.IsNaN(p.Y) {
			out = append(out, p)
		}
	}
	return out
}
