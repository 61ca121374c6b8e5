// Package chart draws the line charts of bglua's figures and sweeps as PNG
// over gonum.org/v1/plot: a series per line in a fixed palette, log axes,
// model and reference curves, and the legend in a strip right of the plot.
// The bytes of a chart depend only on what is drawn, never on the host.
package chart

import (
	"bytes"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	// Gray is the colour of published references.
	Gray = color.Gray{Y: 96}
	// Dashed and Dotted are line styles of curves.
	Dashed = []vg.Length{vg.Points(5), vg.Points(3)}
	Dotted = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
)

// New is an empty chart with a title and a grid.
func New(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Add(plotter.NewGrid())
	return p
}

// LogAxes puts the axes asked for on a logarithmic scale.
func LogAxes(p *plot.Plot, logX, logY bool) {
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
}

// Color is the i-th colour of the palette.
func Color(i int) color.Color { return plotutil.Color(i) }

// AddSeries draws pts as the i-th series: a line with a mark at each point,
// in the i-th colour and shape, named in the legend.
func AddSeries(p *plot.Plot, name string, pts plotter.XYs, i int) error {
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	c := Color(i)
	line.Color, scatter.Color = c, c
	scatter.Shape = plotutil.Shape(i)
	scatter.Radius = vg.Points(2.5)
	if len(pts) > 40 {
		scatter.Radius = vg.Points(1)
	}
	p.Add(line, scatter)
	p.Legend.Add(name, line, scatter)
	return nil
}

// AddCurve draws pts as a line without marks in colour c and dashes; a
// name other than "" puts it in the legend.
func AddCurve(p *plot.Plot, name string, pts plotter.XYs, c color.Color, dashes []vg.Length) error {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.2)
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// AddPoint draws a single marked point (a published value) in the legend.
func AddPoint(p *plot.Plot, name string, x, y float64) error {
	s, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
	if err != nil {
		return err
	}
	s.Color, s.Shape, s.Radius = Gray, draw.CrossGlyph{}, vg.Points(5)
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// Sample is f at n points over [xmin, xmax], evenly spaced, or evenly on a
// log scale with logX.
func Sample(f func(x float64) float64, xmin, xmax float64, logX bool, n int) plotter.XYs {
	pts := make(plotter.XYs, n)
	for i := range pts {
		t := float64(i) / float64(n-1)
		x := xmin + t*(xmax-xmin)
		if logX {
			x = math.Exp(math.Log(xmin) + t*(math.Log(xmax)-math.Log(xmin)))
		}
		pts[i] = plotter.XY{X: x, Y: f(x)}
	}
	return pts
}

// PNG draws p, 22 x 11 cm, with its legend in a strip right of the plot
// where it hides nothing.
func PNG(p *plot.Plot) ([]byte, error) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	c, err := draw.NewFormattedCanvas(22*vg.Centimeter, 11*vg.Centimeter, "png")
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	leg.Top, leg.Left = true, true
	r := leg.Rectangle(dc)
	strip := r.Max.X - r.Min.X + vg.Centimeter
	p.Draw(draw.Crop(dc, 0, -strip, 0, 0))
	leg.Draw(draw.Crop(dc, dc.Max.X-strip+vg.Centimeter/2, 0, 0, -1.4*vg.Centimeter))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// AddKey puts a line style in the legend without drawing anything: what
// dashed or dotted curves of every colour mean.
func AddKey(p *plot.Plot, name string, c color.Color, dashes []vg.Length) {
	l := &plotter.Line{}
	l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.2)
	p.Legend.Add(name, l)
}
