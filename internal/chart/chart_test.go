package chart

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// Sample spaces points evenly, or evenly in log with logX, ends included.
func TestSample(t *testing.T) {
	lin := Sample(func(x float64) float64 { return 2 * x }, 0, 10, false, 3)
	if lin[0] != (plotter.XY{X: 0, Y: 0}) || lin[1] != (plotter.XY{X: 5, Y: 10}) || lin[2] != (plotter.XY{X: 10, Y: 20}) {
		t.Errorf("linear: %v", lin)
	}
	lg := Sample(func(x float64) float64 { return x }, 1, 100, true, 3)
	if math.Abs(lg[1].X-10) > 1e-12 || math.Abs(lg[2].X-100) > 1e-12 {
		t.Errorf("log: %v", lg)
	}
}

// The same chart is the same PNG.
func TestPNGDeterministic(t *testing.T) {
	draw := func() []byte {
		p := New("a chart")
		LogAxes(p, true, true)
		if err := AddSeries(p, "measured", plotter.XYs{{X: 1, Y: 2}, {X: 10, Y: 30}, {X: 100, Y: 500}}, 0); err != nil {
			t.Fatal(err)
		}
		if err := AddCurve(p, "", Sample(func(x float64) float64 { return 3 * x }, 1, 100, true, 20), Color(0), Dashed); err != nil {
			t.Fatal(err)
		}
		AddKey(p, "model (dashed)", Gray, Dashed)
		b, err := PNG(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := draw(), draw()
	if !bytes.HasPrefix(a, []byte("\x89PNG\r\n\x1a\n")) || !bytes.Equal(a, b) {
		t.Error("two draws of one chart differ, or are not PNG")
	}
}
