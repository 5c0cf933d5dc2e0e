package plots

import (
	"errors"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CIPoints is a plot.Plotter that draws a point at each value with a
// whisker over its interval, one per category along X (point i at x = i):
// for values whose zero is no baseline, such as a reward or a finish time
// over the organizations of a sweep, where a bar from zero would
// mislead. It reads the same Bar data as CIBars.
type CIPoints struct {
	bars *CIBars
	// Glyph draws the points.
	Glyph draw.GlyphStyle
}

var (
	_ plot.Plotter     = (*CIPoints)(nil)
	_ plot.DataRanger  = (*CIPoints)(nil)
	_ plot.Thumbnailer = (*CIPoints)(nil)
)

// NewCIPoints returns CIPoints of pts, which it copies. It returns an
// error as NewCIBars does.
func NewCIPoints(pts []Bar) (*CIPoints, error) {
	b, err := NewCIBars(pts)
	if err != nil {
		return nil, err
	}
	return &CIPoints{bars: b, Glyph: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}}, nil
}

// Ticker returns a plot.Ticker that labels X with the categories.
func (p *CIPoints) Ticker() plot.Ticker { return p.bars.Ticker() }

// Plot draws the whiskers and points; it implements plot.Plotter.
func (p *CIPoints) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, b := range p.bars.Bars {
		x := trX(float64(i))
		if b.Lo < b.Hi {
			lo, hi := vg.Point{X: x, Y: trY(b.Lo)}, vg.Point{X: x, Y: trY(b.Hi)}
			c.StrokeLines(p.bars.Whisker, []vg.Point{lo, hi}, p.bars.cap(lo), p.bars.cap(hi))
		}
		c.DrawGlyph(p.Glyph, vg.Point{X: x, Y: trY(b.Mean)})
	}
}

// DataRange returns half a spacing beyond the first and last categories
// on X, and every interval on Y; it implements plot.DataRanger.
func (p *CIPoints) DataRange() (xmin, xmax, ymin, ymax float64) {
	_, _, ymin, ymax = plotter.XYRange(p)
	return -0.5, float64(len(p.bars.Bars)) - 0.5, ymin, ymax
}

// Len and XY make the points' interval ends a plotter.XYer, for their
// range.
func (p *CIPoints) Len() int { return 2 * len(p.bars.Bars) }
func (p *CIPoints) XY(i int) (x, y float64) {
	b := p.bars.Bars[i/2]
	if i%2 == 0 {
		return float64(i / 2), b.Lo
	}
	return float64(i / 2), b.Hi
}

// Thumbnail draws a point with a whisker; it implements plot.Thumbnailer.
func (p *CIPoints) Thumbnail(c *draw.Canvas) {
	mid := c.Center()
	h := c.Max.Y - c.Min.Y
	if p.bars.hasIntervals() {
		lo, hi := vg.Point{X: mid.X, Y: c.Min.Y + h*0.1}, vg.Point{X: mid.X, Y: c.Max.Y - h*0.1}
		small := *p.bars
		small.Cap = min(p.bars.Cap, h/2)
		c.StrokeLines(p.bars.Whisker, []vg.Point{lo, hi}, small.cap(lo), small.cap(hi))
	}
	c.DrawGlyph(p.Glyph, mid)
}

// Points returns a chart of values over categories: a point per category
// with a whisker over its interval, the categories named on X, and the
// legend entry "mean, 95% CI" (Chart.Stat and Chart.Interval name them).
// YLabel names the values and XLabel the categories. When a category's
// label is wider than the room under it, every label stands upright.
//
// It returns an error when there are no points, a point is invalid (see
// NewCIBars), an axis label is missing, or the chart does not fit c.Size.
func Points(c Chart, pts []Bar) (*plot.Plot, error) {
	if c.XLabel == "" || c.YLabel == "" {
		return nil, errors.New("plots: a points chart needs XLabel and YLabel (with units)")
	}
	cp, err := NewCIPoints(pts)
	if err != nil {
		return nil, err
	}
	p, err := newPlot(c)
	if err != nil {
		return nil, err
	}
	p.Add(&plotter.Grid{Horizontal: gridLine}, cp)
	p.X.Tick.Marker = cp.Ticker()
	p.X.Tick.Length = 0
	// A label wider than the room for its category would overlap its
	// neighbours: all labels then stand upright, reading upwards and
	// ending at the axis.
	if labelsOverflow(p, c, pts) {
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	legend := newLegendStrip()
	legend.add(c.stat()+", "+c.interval(), cp)
	return finish(p, c, legend)
}
