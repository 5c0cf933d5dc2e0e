package plots

import (
	"errors"
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Band is a plot.Plotter that fills the area between a lower and an upper
// curve over X, such as a 95% confidence band around a mean.
type Band struct {
	// X, Lo and Hi are copies of the data: Lo[i] <= Hi[i] at X[i].
	X, Lo, Hi []float64

	// Color fills the band; translucent so that lines and other bands
	// show through.
	Color color.Color
	// Edge, when its width is not zero, outlines the band's lower and
	// upper curves, so that a band stays told apart from others where
	// their translucent fills overlap and blend.
	Edge draw.LineStyle
}

var (
	_ plot.Plotter     = (*Band)(nil)
	_ plot.DataRanger  = (*Band)(nil)
	_ plot.Thumbnailer = (*Band)(nil)
)

// NewBand returns a Band over x between lo and hi, filled with translucent
// black. It copies its inputs and returns an error when they are empty,
// differ in length, hold NaN or ±Inf, when x decreases or when lo > hi.
func NewBand(x, lo, hi []float64) (*Band, error) {
	if len(x) == 0 {
		return nil, errNoData
	}
	if len(lo) != len(x) || len(hi) != len(x) {
		return nil, fmt.Errorf("plots: band lengths differ: %d x, %d lo, %d hi", len(x), len(lo), len(hi))
	}
	for _, s := range []struct {
		name string
		v    []float64
	}{{"x", x}, {"lo", lo}, {"hi", hi}} {
		if err := checkFinite("band "+s.name, s.v...); err != nil {
			return nil, err
		}
	}
	for i := range x {
		if i > 0 && x[i] < x[i-1] {
			return nil, fmt.Errorf("plots: band x decreases at %d: %v after %v", i, x[i], x[i-1])
		}
		if lo[i] > hi[i] {
			return nil, fmt.Errorf("plots: band lo[%d] = %v > hi[%d] = %v", i, lo[i], i, hi[i])
		}
	}
	return &Band{
		X:     slices.Clone(x),
		Lo:    slices.Clone(lo),
		Hi:    slices.Clone(hi),
		Color: translucent(color.Black, 0.2),
	}, nil
}

// Plot draws the band, clipped to the data area; it implements plot.Plotter.
// It panics if X, Lo and Hi were changed to differ in length.
func (b *Band) Plot(c draw.Canvas, p *plot.Plot) {
	if err := b.valid(); err != nil {
		panic(err) // Only reachable when the exported fields were changed.
	}
	trX, trY := p.Transforms(&c)
	n := len(b.X)
	poly := make([]vg.Point, 0, 2*n)
	for i := range n {
		poly = append(poly, vg.Point{X: trX(b.X[i]), Y: trY(b.Hi[i])})
	}
	for i := n - 1; i >= 0; i-- {
		poly = append(poly, vg.Point{X: trX(b.X[i]), Y: trY(b.Lo[i])})
	}
	if n == 1 { // A single point: a vertical stroke of zero width; widen it.
		const hw = 0.75
		poly = []vg.Point{
			{X: poly[0].X - hw, Y: poly[0].Y}, {X: poly[0].X + hw, Y: poly[0].Y},
			{X: poly[1].X + hw, Y: poly[1].Y}, {X: poly[1].X - hw, Y: poly[1].Y},
		}
	}
	c.FillPolygon(b.Color, c.ClipPolygonXY(poly))
	if b.Edge.Width > 0 && n > 1 {
		c.StrokeLines(b.Edge, c.ClipLinesXY(poly[:n])...)
		c.StrokeLines(b.Edge, c.ClipLinesXY(poly[n:])...)
	}
}

func (b *Band) valid() error {
	if len(b.X) == 0 || len(b.Lo) != len(b.X) || len(b.Hi) != len(b.X) {
		return errors.New("plots: Band fields X, Lo, Hi must be non-empty and of one length")
	}
	return nil
}

// DataRange returns the extent of the band; it implements plot.DataRanger.
func (b *Band) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = slices.Min(b.X), slices.Max(b.X)
	return xmin, xmax, slices.Min(b.Lo), slices.Max(b.Hi)
}

// Thumbnail draws a filled rectangle in the band's colour, the middle half
// of the legend entry's height; it implements plot.Thumbnailer.
func (b *Band) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	c.FillPolygon(b.Color, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y + h/4}, {X: c.Max.X, Y: c.Min.Y + h/4},
		{X: c.Max.X, Y: c.Max.Y - h/4}, {X: c.Min.X, Y: c.Max.Y - h/4},
	})
}
