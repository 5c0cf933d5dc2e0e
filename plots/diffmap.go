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

// Sides says what each sign of a difference means, for the ends of a
// difference map's colour scale: Low for negative values, High for
// positive ones, such as "split better" and "team better".
type Sides struct{ Low, High string }

// DiffMap returns a heat map of signed differences g (B − A, say): a
// diverging colour map centred at zero with symmetric limits, so that
// zero is near white and the two signs differ in hue; a colour scale
// labelled c.ZLabel whose ends say which side is which (s); the cells
// whose interval (g.Lo, g.Hi) excludes zero outlined, which the legend
// explains ("outlined: 95% CI excludes 0", c.Interval naming the
// interval); and cell values written in the cells when g.Annotate is set.
// When c.Stat is set, the legend also says what a cell's value is.
//
// It returns an error as Heatmap does, or when a side is not named.
func DiffMap(c Chart, g Grid, s Sides) (*plot.Plot, error) {
	if s.Low == "" || s.High == "" {
		return nil, errors.New("plots: a difference map needs both sides named (Sides.Low and Sides.High)")
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	lo, hi := g.zRange()
	limit := math.Max(math.Abs(lo), math.Abs(hi))
	if limit == 0 {
		limit = 1 // all zero: any symmetric range shows it as the centre
	}
	cm, err := Diverging(limit)
	if err != nil {
		return nil, err
	}
	scale, err := NewColorScale(cm, c.ZLabel)
	if err != nil {
		return nil, err
	}
	scale.LowEnd, scale.HighEnd = s.Low, s.High
	p, h, err := heatPlot(c, g, cm, scale)
	if err != nil {
		return nil, err
	}
	legend := newLegendStrip()
	if c.Stat != "" {
		legend.add("cell: " + c.Stat)
	}
	if g.hasIntervals() {
		marks := &significance{h: h, g: g}
		p.Add(marks)
		legend.add("outlined: "+c.interval()+" excludes 0", marks)
	}
	return finish(p, c, legend)
}

// significance outlines the cells of a heat map whose interval excludes
// zero, inside the cell, in black or white as the cell's label.
type significance struct {
	h *plotter.HeatMap
	g Grid
}

var (
	_ plot.Plotter     = (*significance)(nil)
	_ plot.Thumbnailer = (*significance)(nil)
)

// markLine is the outline's width; markInset keeps it inside its cell,
// clear of the neighbours' outlines.
const (
	markLine  = 1.0 // points
	markInset = 1.6 // points
)

func (m *significance) Plot(c draw.Canvas, p *plot.Plot) {
	cols, rows := m.h.GridXYZ.Dims()
	for r := range rows {
		for col := range cols {
			if !m.g.excludesZero(col, r) {
				continue
			}
			sty := draw.LineStyle{Color: textOn(cellColor(m.h, m.h.GridXYZ.Z(col, r))), Width: vg.Points(markLine)}
			pts := rectPoints(cellRect(c, p, m.h, col, r, -vg.Points(markInset)))
			c.StrokeLines(sty, append(pts, pts[0]))
		}
	}
}

// Thumbnail draws a pale cell with its outline; it implements
// plot.Thumbnailer.
func (m *significance) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: c.Min, Max: c.Max}
	pale := color.NRGBA{R: 0xf7, G: 0xf7, B: 0xf7, A: 0xff}
	c.FillPolygon(pale, rectPoints(r))
	in := vg.Points(markInset)
	r = vg.Rectangle{Min: vg.Point{X: r.Min.X + in, Y: r.Min.Y + in}, Max: vg.Point{X: r.Max.X - in, Y: r.Max.Y - in}}
	pts := rectPoints(r)
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(markLine)}, append(pts, pts[0]))
}
