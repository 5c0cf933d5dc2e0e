package plots

import (
	"errors"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ColorScale is a plot.Plotter that draws a colour bar with its ticks and
// label to the right of the data area of the plot it is added to. It
// reserves its width through GlyphBoxes, so it is never clipped.
//
// gonum's plotter.ColorBar needs a plot of its own; ColorScale shares the
// plot of the heat map it explains, so one plot is one figure.
type ColorScale struct {
	// ColorMap gives the colours and the range.
	ColorMap palette.ColorMap
	// Label names the values with their units; drawn rotated.
	Label string
	// LowEnd and HighEnd, when set, are written below and above the bar:
	// what its ends mean, such as "split better" and "team better".
	LowEnd, HighEnd string
	// TickStyle and LabelStyle style the tick labels and the label.
	TickStyle, LabelStyle text.Style
	// Gap separates the bar from the data area; Width is the bar's.
	Gap, Width vg.Length
}

var _ plot.Plotter = (*ColorScale)(nil)

const (
	scaleSteps = 64 // rectangles that make the colour gradient
	scaleTick  = 2  // tick length in points
	scalePad   = 2  // points between ticks, labels and the label
)

// NewColorScale returns a ColorScale for cm. It returns an error when cm is
// nil or its range is empty or not finite.
func NewColorScale(cm palette.ColorMap, label string) (*ColorScale, error) {
	if cm == nil {
		return nil, errors.New("plots: nil colour map")
	}
	if err := checkFinite("colour range", cm.Min(), cm.Max()); err != nil {
		return nil, err
	}
	if !(cm.Min() < cm.Max()) {
		return nil, errors.New("plots: colour range is empty")
	}
	s := &ColorScale{
		ColorMap:   cm,
		Label:      label,
		TickStyle:  textStyle(tickSize),
		LabelStyle: textStyle(labelSize),
		Gap:        vg.Points(6),
		Width:      vg.Points(7),
	}
	s.LabelStyle.XAlign = draw.XCenter
	s.LabelStyle.Rotation = math.Pi / 2
	return s, nil
}

func (s *ColorScale) ticks() []plot.Tick {
	var out []plot.Tick
	for _, t := range (tidyTicks{}).Ticks(s.ColorMap.Min(), s.ColorMap.Max()) {
		if !t.IsMinor() && t.Value >= s.ColorMap.Min() && t.Value <= s.ColorMap.Max() {
			out = append(out, t)
		}
	}
	return out
}

// width is the total width the scale takes right of the data area.
func (s *ColorScale) width() vg.Length {
	var lw vg.Length
	for _, t := range s.ticks() {
		lw = max(lw, s.TickStyle.Width(t.Label))
	}
	w := s.Gap + s.Width + scaleTick + scalePad + lw
	if s.Label != "" {
		_, h := labelBox(s.LabelStyle, s.Label)
		w += scalePad + h
	}
	return max(w, s.Gap+s.endsWidth())
}

// endsWidth is the width of the wider end label.
func (s *ColorScale) endsWidth() vg.Length {
	return max(s.TickStyle.Width(s.LowEnd), s.TickStyle.Width(s.HighEnd))
}

// Plot draws the scale right of c, the data area; it implements
// plot.Plotter.
func (s *ColorScale) Plot(c draw.Canvas, _ *plot.Plot) {
	lo, hi := s.ColorMap.Min(), s.ColorMap.Max()
	x0 := c.Max.X + s.Gap
	x1 := x0 + s.Width
	h := c.Max.Y - c.Min.Y
	step := h / scaleSteps
	for i := range scaleSteps {
		v := lo + (float64(i)+0.5)/scaleSteps*(hi-lo)
		col, err := s.ColorMap.At(v)
		if err != nil {
			continue
		}
		y0 := c.Min.Y + vg.Length(i)*step
		y1 := y0 + step
		if i < scaleSteps-1 {
			y1 += step / 2 // overlap the next step so no seam shows
		}
		c.FillPolygon(col, rectPoints(vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}))
	}
	c.StrokeLines(thinLine, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}, {X: x0, Y: c.Min.Y}})

	sty := s.TickStyle
	sty.XAlign = draw.XLeft
	var lw vg.Length
	for _, t := range s.ticks() {
		y := c.Min.Y + vg.Length((t.Value-lo)/(hi-lo))*h
		c.StrokeLine2(thinLine, x1, y, x1+scaleTick, y)
		drawLabel(c, sty, vg.Point{X: x1 + scaleTick + scalePad, Y: y}, t.Label)
		lw = max(lw, sty.Width(t.Label))
	}
	if s.Label != "" {
		_, lh := labelBox(s.LabelStyle, s.Label)
		x := x1 + scaleTick + scalePad + lw + scalePad + lh/2
		drawLabel(c, s.LabelStyle, vg.Point{X: x, Y: (c.Min.Y + c.Max.Y) / 2}, s.Label)
	}
	// The end labels clear the half tick label that can stand out of
	// each end of the bar.
	_, th := labelBox(s.TickStyle, "0")
	end := s.TickStyle
	end.XAlign, end.YAlign = draw.XLeft, draw.YCenter
	if s.HighEnd != "" {
		drawLabel(c, end, vg.Point{X: x0, Y: c.Max.Y + scalePad + th}, s.HighEnd)
	}
	if s.LowEnd != "" {
		drawLabel(c, end, vg.Point{X: x0, Y: c.Min.Y - scalePad - th}, s.LowEnd)
	}
}

// GlyphBoxes reserves the scale's width right of the data area, and half
// a tick label's height above it, or the high end's label (below it, the
// X axis leaves room for the low end's).
func (s *ColorScale) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	_, th := labelBox(s.TickStyle, "0")
	top := th / 2
	if s.HighEnd != "" {
		top = scalePad + 1.5*th
	}
	return []plot.GlyphBox{
		{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Max: vg.Point{X: s.width()}}},
		{X: 1, Y: 1, Rectangle: vg.Rectangle{Min: vg.Point{Y: -th / 2}, Max: vg.Point{Y: top}}},
	}
}
