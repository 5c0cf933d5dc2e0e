package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Scatter returns a scatter chart of the points (X[i], Y[i]) of each
// series, one marker and colour per series, and with identity the line
// y = x across the data, labelled "y = x": predicted against observed
// values, where a point off the line is off by what it is off. With
// identity both axes get the same range, so that the line is the
// diagonal. Unlike a line chart's, a series' X need not increase.
//
// It returns an error when there are no series or more than MaxSeries, a
// series is empty, ragged or holds NaN or ±Inf, names are missing or
// repeated (a lone series may be unnamed), an axis label is missing, or
// the chart does not fit c.Size.
func Scatter(c Chart, series []Series, identity bool) (*plot.Plot, error) {
	if err := checkSeriesChart(c, len(series), "scatter"); err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	names := map[string]bool{}
	for i, s := range series {
		name := fmt.Sprintf("series %d (%q)", i, s.Name)
		if len(s.X) == 0 {
			return nil, fmt.Errorf("plots: %s: %w", name, errNoData)
		}
		if len(s.Y) != len(s.X) {
			return nil, fmt.Errorf("plots: %s: lengths differ: %d X, %d Y", name, len(s.X), len(s.Y))
		}
		if err := checkFinite(name+" X", s.X...); err != nil {
			return nil, err
		}
		if err := checkFinite(name+" Y", s.Y...); err != nil {
			return nil, err
		}
		if err := checkName(names, series, i); err != nil {
			return nil, err
		}
		for j := range s.X {
			lo, hi = min(lo, s.X[j], s.Y[j]), max(hi, s.X[j], s.Y[j])
		}
	}
	p, err := newPlot(c)
	if err != nil {
		return nil, err
	}
	p.Add(&plotter.Grid{Vertical: gridLine, Horizontal: gridLine})
	legend := newLegendStrip()
	if identity {
		if hi <= lo {
			hi = lo + 1
		}
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
		if err != nil {
			return nil, err
		}
		line.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		p.Add(line)
		legend.add("y = x", line)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	}
	for i, s := range series {
		marks, err := plotter.NewScatter(xys(s.X, s.Y))
		if err != nil {
			return nil, err
		}
		marks.GlyphStyle = draw.GlyphStyle{Color: seriesColors[i], Radius: vg.Points(2), Shape: seriesGlyphs[i]}
		p.Add(marks)
		if s.Name != "" {
			legend.add(s.Name, marks)
		}
	}
	return finish(p, c, legend)
}
