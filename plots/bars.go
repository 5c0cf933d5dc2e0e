package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one bar of a comparison: a mean with the interval [Lo, Hi]
// around it, such as a 95% confidence interval. Lo = Hi = Mean draws no
// whisker.
type Bar struct {
	Label        string
	Mean, Lo, Hi float64
}

// CIBars is a plot.Plotter that draws bars from zero to their means with
// whiskers over their intervals. Bar i is centred at x = i, or, when
// Horizontal, at y = len(Bars)-1-i (the first bar on top); Ticker labels
// that axis with the bars' labels.
type CIBars struct {
	// Bars is a copy of the data.
	Bars []Bar
	// Horizontal lays the bars along X, one per row.
	Horizontal bool
	// Width is the width of a bar in X units (1 is the distance between
	// bars).
	Width float64
	// Color fills the bars.
	Color color.Color
	// Outline outlines the bars; Whisker draws the intervals.
	Outline, Whisker draw.LineStyle
	// Cap is the width of a whisker's caps.
	Cap vg.Length
	// Margin widens the value axis past the bars and whiskers at both
	// ends by this fraction of their range, so that no whisker ends on an
	// axis line; 0 leaves none.
	Margin float64
}

var (
	_ plot.Plotter     = (*CIBars)(nil)
	_ plot.DataRanger  = (*CIBars)(nil)
	_ plot.Thumbnailer = (*CIBars)(nil)
)

// NewCIBars returns CIBars of bars, which it copies. It returns an error
// when there are no bars, a label is empty, a value is NaN or ±Inf, or
// Lo <= Mean <= Hi does not hold.
func NewCIBars(bars []Bar) (*CIBars, error) {
	if len(bars) == 0 {
		return nil, errNoData
	}
	for i, b := range bars {
		if b.Label == "" {
			return nil, fmt.Errorf("plots: bar %d has no label", i)
		}
		for _, v := range []float64{b.Mean, b.Lo, b.Hi} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("plots: bar %q: mean %v, lo %v, hi %v must be finite", b.Label, b.Mean, b.Lo, b.Hi)
			}
		}
		if !(b.Lo <= b.Mean && b.Mean <= b.Hi) {
			return nil, fmt.Errorf("plots: bar %q: need lo %v <= mean %v <= hi %v", b.Label, b.Lo, b.Mean, b.Hi)
		}
	}
	return &CIBars{
		Bars:    append([]Bar(nil), bars...),
		Width:   0.6,
		Color:   SkyBlue,
		Outline: draw.LineStyle{Color: color.Gray{Y: 0x33}, Width: vg.Points(0.4)},
		Whisker: draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)},
		Cap:     vg.Points(5),
	}, nil
}

// pos returns the position of bar i on the category axis.
func (b *CIBars) pos(i int) float64 {
	if b.Horizontal {
		return float64(len(b.Bars) - 1 - i)
	}
	return float64(i)
}

// Ticker returns a plot.Ticker that labels the category axis (X, or Y when
// Horizontal) with the bars' labels.
func (b *CIBars) Ticker() plot.Ticker {
	ticks := make([]plot.Tick, len(b.Bars))
	for i, bar := range b.Bars {
		ticks[i] = plot.Tick{Value: b.pos(i), Label: bar.Label}
	}
	return plot.ConstantTicks(ticks)
}

// hasIntervals reports whether any bar has a whisker.
func (b *CIBars) hasIntervals() bool {
	for _, bar := range b.Bars {
		if bar.Lo < bar.Hi {
			return true
		}
	}
	return false
}

// Plot draws the bars and whiskers; it implements plot.Plotter.
func (b *CIBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	// pt maps a category position and a value to the canvas.
	pt := func(cat, v float64) vg.Point {
		if b.Horizontal {
			return vg.Point{X: trX(v), Y: trY(cat)}
		}
		return vg.Point{X: trX(cat), Y: trY(v)}
	}
	for i, bar := range b.Bars {
		x := b.pos(i)
		pts := c.ClipPolygonXY([]vg.Point{
			pt(x-b.Width/2, 0), pt(x+b.Width/2, 0), pt(x+b.Width/2, bar.Mean), pt(x-b.Width/2, bar.Mean),
		})
		c.FillPolygon(b.Color, pts)
		if len(pts) > 0 {
			c.StrokeLines(b.Outline, append(pts, pts[0]))
		}
	}
	for i, bar := range b.Bars {
		if bar.Lo == bar.Hi {
			continue
		}
		lo, hi := pt(b.pos(i), bar.Lo), pt(b.pos(i), bar.Hi)
		c.StrokeLines(b.Whisker, []vg.Point{lo, hi}, b.cap(lo), b.cap(hi))
	}
}

// cap returns the cap of a whisker ending at e.
func (b *CIBars) cap(e vg.Point) []vg.Point {
	if b.Horizontal {
		return []vg.Point{{X: e.X, Y: e.Y - b.Cap/2}, {X: e.X, Y: e.Y + b.Cap/2}}
	}
	return []vg.Point{{X: e.X - b.Cap/2, Y: e.Y}, {X: e.X + b.Cap/2, Y: e.Y}}
}

// DataRange returns half a bar spacing beyond the first and last bars on
// the category axis, and zero and every interval, widened by Margin, on
// the value axis; it implements plot.DataRanger.
func (b *CIBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	vmin, vmax := 0.0, 0.0
	for _, bar := range b.Bars {
		vmin, vmax = min(vmin, bar.Lo), max(vmax, bar.Hi)
	}
	pad := b.Margin * (vmax - vmin)
	vmin, vmax = vmin-pad, vmax+pad
	if b.Horizontal {
		return vmin, vmax, -0.5, float64(len(b.Bars)) - 0.5
	}
	return -0.5, float64(len(b.Bars)) - 0.5, vmin, vmax
}

// Thumbnail draws a small bar with a whisker; it implements
// plot.Thumbnailer.
func (b *CIBars) Thumbnail(c *draw.Canvas) {
	w := c.Max.X - c.Min.X
	h := c.Max.Y - c.Min.Y
	var r vg.Rectangle
	var lo, hi vg.Point
	if b.Horizontal {
		r = vg.Rectangle{
			Min: vg.Point{X: c.Min.X, Y: c.Min.Y + h*0.25},
			Max: vg.Point{X: c.Min.X + w*0.6, Y: c.Max.Y - h*0.25},
		}
		lo, hi = vg.Point{X: c.Min.X + w*0.35, Y: c.Min.Y + h/2}, vg.Point{X: c.Min.X + w*0.85, Y: c.Min.Y + h/2}
	} else {
		r = vg.Rectangle{
			Min: vg.Point{X: c.Min.X + w/4, Y: c.Min.Y + h*0.1},
			Max: vg.Point{X: c.Max.X - w/4, Y: c.Min.Y + h*0.6},
		}
		lo, hi = vg.Point{X: c.Min.X + w/2, Y: c.Min.Y + h*0.35}, vg.Point{X: c.Min.X + w/2, Y: c.Min.Y + h*0.9}
	}
	pts := rectPoints(r)
	c.FillPolygon(b.Color, pts)
	c.StrokeLines(b.Outline, append(pts, pts[0]))
	if b.hasIntervals() {
		small := *b
		small.Cap = min(b.Cap, h/2)
		c.StrokeLines(b.Whisker, []vg.Point{lo, hi}, small.cap(lo), small.cap(hi))
	}
}

// The look of a chart of differences: the value axis reaches 5% of the
// range past the outermost whiskers, and the reference line at 0 is dark
// beside the grid, thinner than the axes.
const differenceMargin = 0.05

var zeroStyle = draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(0.5)}

// zeroLine is a plot.Plotter that draws a reference line across the data
// area at value 0: a horizontal line, or a vertical one where the values
// lie along X.
type zeroLine struct {
	horizontal bool // the values lie along X
	style      draw.LineStyle
}

// Plot draws the line; it implements plot.Plotter.
func (z zeroLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if z.horizontal {
		c.StrokeLine2(z.style, trX(0), c.Min.Y, trX(0), c.Max.Y)
		return
	}
	c.StrokeLine2(z.style, c.Min.X, trY(0), c.Max.X, trY(0))
}

// zeroTicks are tidyTicks with a labelled major tick at 0, for a value
// axis that spans it. gonum's ticks step from a multiple of their step
// near the range's end, which may miss 0 (-0.25, -0.10, 0.05) or come
// within a rounding error of it ("-0.00"): zeroTicks keeps gonum's steps
// and counts them from 0 instead.
type zeroTicks struct{}

func (zeroTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	if !(min <= 0 && 0 <= max) {
		return tidy(ticks)
	}
	var majors, all []float64
	exponent := false
	for _, t := range ticks {
		exponent = exponent || strings.ContainsAny(t.Label, "eE")
		if !t.IsMinor() {
			majors = append(majors, t.Value)
		}
		all = append(all, t.Value)
	}
	if exponent || len(majors) < 2 {
		// Too large or small a range to relabel, or no step to count: a
		// labelled 0 takes the place of any tick near it.
		near := func(t plot.Tick) bool { return math.Abs(t.Value) <= 1e-9*(max-min) }
		return tidy(append(slices.DeleteFunc(ticks, near), plot.Tick{Value: 0, Label: "0"}))
	}
	slices.Sort(majors)
	slices.Sort(all)
	step, minor := majors[1]-majors[0], 0.0
	for i := 1; i < len(all); i++ {
		if gap := all[i] - all[i-1]; gap < step*0.999 && (minor == 0 || gap < minor) {
			minor = gap
		}
	}
	if math.Floor(max/step)-math.Ceil(min/step) < 2 && minor > 0 {
		// Fewer than three labels: label the minor ticks instead.
		step, minor = minor, 0
	}
	// Multiples of the steps, each a product: 0 is exact. Ceil of a
	// small negative is -0, whose label would read "-0".
	var out []plot.Tick
	for k := math.Ceil(min / step); k*step <= max; k++ {
		out = append(out, plot.Tick{Value: positiveZero(k * step), Label: "major"})
	}
	if minor > 0 {
		per := math.Round(step / minor)
		for j := math.Ceil(min / minor); j*minor <= max; j++ {
			if math.Mod(j, per) != 0 {
				out = append(out, plot.Tick{Value: positiveZero(j * minor)})
			}
		}
	}
	return tidy(out)
}

// positiveZero returns v, with 0 for -0.
func positiveZero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}
