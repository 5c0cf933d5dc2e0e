package plots

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line of a line chart: Y over X, and optionally the band
// [Lo, Hi] around it (both nil for none), such as a 95% confidence
// interval of a mean.
type Series struct {
	Name         string
	X, Y, Lo, Hi []float64
}

func (s Series) hasBand() bool { return s.Lo != nil || s.Hi != nil }

// checkSeriesChart checks what a chart of n series needs before its
// series are read: at least one, no more than MaxSeries, and both axis
// labels; kind names the chart in the error.
func checkSeriesChart(c Chart, n int, kind string) error {
	if n == 0 {
		return errNoData
	}
	if n > MaxSeries {
		return fmt.Errorf("plots: %d series; at most %d can be told apart", n, MaxSeries)
	}
	if c.XLabel == "" || c.YLabel == "" {
		return fmt.Errorf("plots: a %s chart needs XLabel and YLabel (with units)", kind)
	}
	return nil
}

// checkName checks that series i has a name unless it is the only one,
// and that no series before it has the same name; names holds those
// seen and gains series i's.
func checkName(names map[string]bool, series []Series, i int) error {
	s := series[i]
	if len(series) > 1 && s.Name == "" {
		return fmt.Errorf("plots: series %d has no name", i)
	}
	if names[s.Name] {
		return fmt.Errorf("plots: series name %q is repeated", s.Name)
	}
	names[s.Name] = true
	return nil
}

// check returns an error naming series i when s is empty, ragged, holds NaN
// or ±Inf, has X decreasing, or has Y outside [Lo, Hi].
func (s Series) check(i int) error {
	name := fmt.Sprintf("series %d (%q)", i, s.Name)
	n := len(s.X)
	if n == 0 {
		return fmt.Errorf("plots: %s: %w", name, errNoData)
	}
	if len(s.Y) != n || (s.hasBand() && (len(s.Lo) != n || len(s.Hi) != n)) {
		return fmt.Errorf("plots: %s: lengths differ: %d X, %d Y, %d Lo, %d Hi", name, n, len(s.Y), len(s.Lo), len(s.Hi))
	}
	for _, c := range []struct {
		what string
		v    []float64
	}{{"X", s.X}, {"Y", s.Y}, {"Lo", s.Lo}, {"Hi", s.Hi}} {
		if err := checkFinite(name+" "+c.what, c.v...); err != nil {
			return err
		}
	}
	for j := 1; j < n; j++ {
		if s.X[j] < s.X[j-1] {
			return fmt.Errorf("plots: %s: X decreases at %d: %v after %v", name, j, s.X[j], s.X[j-1])
		}
	}
	if s.hasBand() {
		for j := range n {
			if !(s.Lo[j] <= s.Y[j] && s.Y[j] <= s.Hi[j]) {
				return fmt.Errorf("plots: %s: at %d need Lo %v <= Y %v <= Hi %v", name, j, s.Lo[j], s.Y[j], s.Hi[j])
			}
		}
	}
	return nil
}

// Markers per line: enough to tell lines apart in greyscale, few enough
// not to hide the data.
const maxMarkers = 8

// Lines returns a line chart of series: learning curves, or a metric
// against a swept parameter. A series with Lo and Hi gets a light
// translucent band outlined in its colour, so that overlapping bands stay
// told apart instead of blending into one hue; a note above the chart says what the lines and bands are
// ("mean; band 95% CI", from Chart.Stat and Chart.Interval), or for a
// lone unnamed series its legend entry does. Each series has its own colour, dash pattern and marker;
// the legend sits above the data.
//
// It returns an error when there are no series or more than MaxSeries,
// when a series is invalid (see Series), when names are missing or
// repeated (a lone series may be unnamed), when an axis label is missing,
// or when the chart does not fit c.Size without clipping a label.
func Lines(c Chart, series []Series) (*plot.Plot, error) {
	if err := checkSeriesChart(c, len(series), "line"); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for i, s := range series {
		if err := s.check(i); err != nil {
			return nil, err
		}
		if err := checkName(names, series, i); err != nil {
			return nil, err
		}
	}
	named, banded := false, false
	for _, s := range series {
		named = named || s.Name != ""
		banded = banded || s.hasBand()
	}
	if named && (banded || c.Stat != "") {
		// Said once above the chart, not in every legend entry, where it
		// would crowd out the names.
		what := c.stat()
		if banded {
			what += "; band " + c.interval()
		}
		c.Note = strings.TrimSuffix(what+"; "+c.Note, "; ")
	}
	p, err := newPlot(c)
	if err != nil {
		return nil, err
	}
	p.Add(&plotter.Grid{Horizontal: gridLine})
	if wholeX(series) {
		p.X.Tick.Marker = endTicks{}
	}

	legend := newLegendStrip()
	bands := make([]*Band, len(series))
	for i, s := range series {
		if !s.hasBand() {
			continue
		}
		if bands[i], err = NewBand(s.X, s.Lo, s.Hi); err != nil {
			return nil, err
		}
		bands[i].Color = translucent(seriesColors[i], bandFill)
		bands[i].Edge = draw.LineStyle{Color: translucent(seriesColors[i], bandEdge), Width: vg.Points(0.5)}
		p.Add(bands[i])
	}
	for i, s := range series {
		line, err := plotter.NewLine(xys(s.X, s.Y))
		if err != nil {
			return nil, err
		}
		line.LineStyle = draw.LineStyle{Color: seriesColors[i], Width: vg.Points(1.1), Dashes: seriesDashes[i]}
		marks, err := plotter.NewScatter(markerPoints(s, i, len(series)))
		if err != nil {
			return nil, err
		}
		marks.GlyphStyle = draw.GlyphStyle{Color: seriesColors[i], Radius: vg.Points(2), Shape: seriesGlyphs[i]}
		p.Add(line, marks)
		switch {
		case s.Name != "" && bands[i] != nil:
			legend.add(s.Name, bands[i], line, marks)
		case s.Name != "":
			legend.add(s.Name, line, marks)
		case bands[i] != nil: // A lone unnamed series: still say what the band is.
			legend.add(c.stat()+", "+c.interval(), bands[i], line, marks)
		}
	}
	return finish(p, c, legend)
}

// bandFill and bandEdge are the opacities of a band's fill and outline:
// four fills of 0.22 over one another blended the Okabe–Ito hues into an
// olive that none of them is; at 0.1 they stay light, and the outlines
// say whose band ends where.
const (
	bandFill = 0.1
	bandEdge = 0.6
)

func xys(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts
}

// markerPoints returns the points of series i (of n) that carry markers:
// at most maxMarkers, evenly spread, offset per series so that markers of
// different series do not sit on top of each other.
func markerPoints(s Series, i, n int) plotter.XYs {
	k := max(1, int(math.Ceil(float64(len(s.X))/maxMarkers)))
	var pts plotter.XYs
	for j := (i * k / n) % k; j < len(s.X); j += k {
		pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
	}
	return pts
}

// Bars returns a bar chart comparing means, with whiskers over their
// intervals and the legend entry "mean, 95% CI" (Chart.Interval names the
// interval). YLabel names the values and XLabel, optional, the
// categories. When a label is wider than the space under its bar, the
// bars run horizontally, one labelled row each (the values then on X).
// A chart of differences (Chart.Difference) has a labelled tick and a
// reference line at 0 and room past its outermost whiskers.
//
// It returns an error when there are no bars, a bar is invalid (see
// NewCIBars), YLabel is missing, or the chart does not fit c.Size.
func Bars(c Chart, bars []Bar) (*plot.Plot, error) {
	if c.YLabel == "" {
		return nil, errors.New("plots: a bar chart needs YLabel (with units)")
	}
	b, err := NewCIBars(bars)
	if err != nil {
		return nil, err
	}
	p, err := newPlot(c)
	if err != nil {
		return nil, err
	}
	// Measure the room under each standing bar on a trial plot.
	p.Add(b)
	b.Horizontal = labelsOverflow(p, c, bars)

	if p, err = newPlot(c); err != nil {
		return nil, err
	}
	cat := &p.X // the axis along which the bars stand
	grid := &plotter.Grid{Horizontal: gridLine}
	if b.Horizontal {
		cat = &p.Y
		grid = &plotter.Grid{Vertical: gridLine}
		p.X.Label.Text, p.Y.Label.Text = c.YLabel, c.XLabel
	}
	if c.Difference {
		b.Margin = differenceMargin // before Add, which takes the range
		value := &p.Y
		if b.Horizontal {
			value = &p.X
		}
		value.Tick.Marker = zeroTicks{}
	}
	p.Add(grid, b)
	if c.Difference {
		p.Add(zeroLine{horizontal: b.Horizontal, style: zeroStyle})
	}
	cat.Tick.Marker = b.Ticker()
	cat.Tick.Length = 0
	cat.Padding = 0 // bars start at the axis line
	legend := newLegendStrip()
	if b.hasIntervals() {
		legend.add(c.stat()+", "+c.interval(), b)
	}
	return finish(p, c, legend)
}

// Timeline returns a Gantt chart of spans (one row per Span.Row, first
// seen at the top, one colour and hatch per Span.Kind) with flows drawn as
// arrows between rows; the legend above names the kinds.
//
// It returns an error when the Gantt is invalid (see NewGantt), XLabel is
// missing, or the chart does not fit c.Size.
func Timeline(c Chart, spans []Span, flows []Flow) (*plot.Plot, error) {
	if c.XLabel == "" {
		return nil, errors.New("plots: a timeline needs XLabel (with units)")
	}
	g, err := NewGantt(spans, flows)
	if err != nil {
		return nil, err
	}
	p, err := newPlot(c)
	if err != nil {
		return nil, err
	}
	p.Add(&plotter.Grid{Vertical: gridLine}, g)
	p.Y.Tick.Marker = g.Ticker()
	p.Y.Tick.Length = 0
	p.Y.Padding = 0
	legend := newLegendStrip()
	for _, k := range g.Kinds {
		legend.add(k, g.KindThumbnail(k))
	}
	if len(flows) > 0 {
		legend.add("message in transit", g.FlowThumbnail())
	}
	return finish(p, c, legend)
}

// Heatmap returns a heat map of g in viridis, with a colour scale labelled
// c.ZLabel at its right, and cell values written in the cells when
// g.Annotate is set. Cells are equal and labelled with the X and Y names.
// When c.Stat is set, the legend says what a cell's value is ("cell: IQM,
// 10 seeds").
//
// It returns an error when g is invalid (see NewHeatMap), an axis label
// or ZLabel is missing, or the chart does not fit c.Size (for instance
// when annotations are wider than the cells).
func Heatmap(c Chart, g Grid) (*plot.Plot, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	lo, hi := g.zRange()
	if lo == hi { // One value: centre it on the scale.
		d := math.Max(math.Abs(lo)/2, 0.5)
		lo, hi = lo-d, hi+d
	}
	cm, err := Viridis(lo, hi)
	if err != nil {
		return nil, err
	}
	scale, err := NewColorScale(cm, c.ZLabel)
	if err != nil {
		return nil, err
	}
	p, _, err := heatPlot(c, g, cm, scale)
	if err != nil {
		return nil, err
	}
	legend := newLegendStrip()
	if c.Stat != "" {
		legend.add("cell: " + c.Stat)
	}
	return finish(p, c, legend)
}

// dataArea returns the data area of p drawn at size, before a legend is
// added.
func dataArea(p *plot.Plot, size Size) draw.Canvas {
	return p.DataCanvas(canvasFor(nil, size))
}

// labelsOverflow reports whether a category label of bars, one per
// category along p's X axis, is wider than the room its category has.
func labelsOverflow(p *plot.Plot, c Chart, bars []Bar) bool {
	dc := dataArea(p, c.size())
	slot := (dc.Max.X - dc.Min.X) / vg.Length(len(bars))
	for _, bar := range bars {
		if p.X.Tick.Label.Width(bar.Label)+vg.Points(3) > slot {
			return true
		}
	}
	return false
}

// finish lays the legend out over the data area's width, adds it last (on
// top), and checks that nothing is clipped at c's size.
func finish(p *plot.Plot, c Chart, legend *legendStrip) (*plot.Plot, error) {
	if len(legend.entries) > 0 {
		dc := dataArea(p, c.size())
		legend.layout(dc.Max.X - dc.Min.X)
		p.Add(legend)
	}
	if err := checkFit(p, c.size()); err != nil {
		return nil, err
	}
	return p, nil
}
