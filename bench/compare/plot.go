package main

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/benchgraph"
)

// plotSeries is one line of the plot: an implementation at one depth.
type plotSeries struct {
	impl   int // index in impls
	label  string
	depth  int
	color  color.Color
	dashed bool
	glyph  draw.GlyphDrawer
}

// drawPlot writes a PNG (or any format gonum/plot infers from the file
// extension) of ns/op against relations, both on log scales, for the
// power-law graphs walked in direction Both at depth 2 and 3: kgmem and
// gonum. Sizes that were not measured are left out; c names the clock the
// times were taken with.
func drawPlot(results []result, c clock, path string) error {
	blue := color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	orange := color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	series := []plotSeries{
		{impl: 0, label: "kgmem GetRelated", depth: 2, color: blue, glyph: draw.CircleGlyph{}},
		{impl: 0, label: "kgmem GetRelated", depth: 3, color: blue, glyph: draw.SquareGlyph{}},
		{impl: 1, label: "gonum BreadthFirst", depth: 2, color: orange, dashed: true, glyph: draw.CircleGlyph{}},
		{impl: 1, label: "gonum BreadthFirst", depth: 3, color: orange, dashed: true, glyph: draw.SquareGlyph{}},
	}

	p := plot.New()
	p.Title.Text = "kgmem GetRelated vs gonum BreadthFirst: power-law graphs, direction Both (log-log)"
	p.X.Label.Text = "relations in the graph"
	p.Y.Label.Text = fmt.Sprintf("ns/op, %s time", c)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{label: func(v float64) string { return benchgraph.ShortCount(int(math.Round(v))) }}
	p.Y.Tick.Marker = logTicks{label: func(v float64) string { return time.Duration(math.Round(v)).String() }}
	p.Add(plotter.NewGrid())
	// Bottom right is empty: times grow with the graph, and the smallest
	// graph is on the left.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.Padding = vg.Points(4)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(24), vg.Points(8)

	drawn := 0
	minY, maxY := math.Inf(1), math.Inf(-1)
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		var pts plotter.XYs
		for _, r := range results {
			if r.w.spec.Shape == "powerlaw" && r.w.dir == kgmem.Both && r.w.depth == s.depth && r.mismatch == "" && r.nsPerOp[s.impl] > 0 {
				pts = append(pts, plotter.XY{X: float64(r.w.spec.Relations), Y: r.nsPerOp[s.impl]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		for _, pt := range pts {
			minX, maxX = min(minX, pt.X), max(maxX, pt.X)
			minY, maxY = min(minY, pt.Y), max(maxY, pt.Y)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color, line.Width = s.color, vg.Points(1.5)
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Color, points.Shape, points.Radius = s.color, s.glyph, vg.Points(3)
		p.Add(line, points)
		p.Legend.Add(fmt.Sprintf("%s, depth %d", s.label, s.depth), line, points)
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("plot: no power-law Both measurements to draw")
	}
	// Whole decades around the data on the time axis, and a margin on the
	// size axis so that the end points are not cut by the axes.
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(minY)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(maxY)))
	p.X.Min, p.X.Max = minX/1.5, maxX*1.5
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// logTicks marks a log-scale axis as plot.LogTicks does, writing each
// labelled value with label.
type logTicks struct{ label func(float64) string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.label(ticks[i].Value)
		}
	}
	return ticks
}
