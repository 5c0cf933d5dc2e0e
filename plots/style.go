package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size is the printed size of a chart. Fonts are sized in points for the
// chart placed at this size, without scaling.
type Size struct{ Width, Height vg.Length }

var (
	// Column fits one column of a two-column paper.
	Column = Size{Width: 3.5 * vg.Inch, Height: 2.6 * vg.Inch}
	// Page spans the text width of a page.
	Page = Size{Width: 7 * vg.Inch, Height: 3.5 * vg.Inch}
	// Tall fills a page of text: a timeline with too many rows for Page.
	Tall = Size{Width: 7 * vg.Inch, Height: 9 * vg.Inch}
)

func (s Size) check() error {
	if !(s.Width > 0 && s.Height > 0) || math.IsInf(float64(s.Width+s.Height), 0) {
		return fmt.Errorf("plots: size %vx%v pt must be positive and finite", s.Width.Points(), s.Height.Points())
	}
	return nil
}

// Okabe–Ito colours (Okabe and Ito, "Color Universal Design", 2002),
// distinguishable with the common forms of colour blindness.
var (
	Black         = color.NRGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xff}
	Orange        = color.NRGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}
	SkyBlue       = color.NRGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}
	BluishGreen   = color.NRGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}
	Yellow        = color.NRGBA{R: 0xf0, G: 0xe4, B: 0x42, A: 0xff}
	Blue          = color.NRGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}
	Vermillion    = color.NRGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}
	ReddishPurple = color.NRGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}
)

// MaxSeries is the number of series (lines, span kinds) one chart can tell
// apart: each gets its own colour, dash pattern and marker or hatch.
const MaxSeries = 8

// seriesColors orders the Okabe–Ito colours for series: dark and light
// alternate at the start, and yellow, faint on white, comes last.
var seriesColors = [MaxSeries]color.NRGBA{
	Blue, Orange, BluishGreen, Vermillion, ReddishPurple, SkyBlue, Black, Yellow,
}

// seriesDashes gives each series a dash pattern, so lines differ in greyscale.
var seriesDashes = [MaxSeries][]vg.Length{
	nil,
	{vg.Points(3.5), vg.Points(1.5)},
	{vg.Points(1), vg.Points(1.2)},
	{vg.Points(3.5), vg.Points(1.2), vg.Points(1), vg.Points(1.2)},
	{vg.Points(6), vg.Points(1.8)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(1.2), vg.Points(1), vg.Points(1.2), vg.Points(1), vg.Points(1.2)},
	{vg.Points(0.6), vg.Points(2.2)},
}

// seriesGlyphs gives each series a marker shape.
var seriesGlyphs = [MaxSeries]draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
}

// Text sizes in points, for charts printed at their Size.
const (
	titleSize  = 9
	labelSize  = 8
	tickSize   = 7
	legendSize = 7
	noteSize   = 6
)

// paperFont is the typeface of every text: Liberation Sans, metric-compatible
// with Arial and shipped with gonum/plot.
var paperFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(paperFont, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

var (
	thinLine = draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	gridLine = draw.LineStyle{Color: color.Gray{Y: 0xdd}, Width: vg.Points(0.4)}
)

// translucent returns c with opacity a in [0, 1].
func translucent(c color.Color, a float64) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = uint8(math.Round(a * 255))
	return n
}

// shade mixes c with black; f=1 keeps c, f=0 gives black.
func shade(c color.Color, f float64) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	mix := func(v uint8) uint8 { return uint8(math.Round(float64(v) * f)) }
	return color.NRGBA{R: mix(n.R), G: mix(n.G), B: mix(n.B), A: n.A}
}

// luminance returns the relative luminance of c in [0, 1] (sRGB, WCAG).
func luminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(n.R) + 0.7152*lin(n.G) + 0.0722*lin(n.B)
}

// textOn returns black or white, whichever contrasts more with bg (WCAG
// contrast ratios are equal at luminance 0.179).
func textOn(bg color.Color) color.Color {
	if luminance(bg) > 0.179 {
		return color.Black
	}
	return color.White
}

// Chart holds what every chart has besides its data.
type Chart struct {
	// Title is drawn above the chart when set; papers usually leave it
	// empty and use the figure caption.
	Title string
	// XLabel and YLabel name the axes with their units,
	// e.g. "finish time (min)".
	XLabel, YLabel string
	// ZLabel names the colour scale of a heat map with its units.
	ZLabel string
	// Interval says what Lo and Hi are; it is written into legends
	// ("team (mean, 95% CI)"). Empty means "95% CI".
	Interval string
	// Stat says what a line with a band is, such as "IQM of 3 seeds";
	// it is written into legends. Empty means "mean".
	Stat string
	// Note is drawn beside the title, such as the series left out of the
	// chart and why.
	Note string
	// Difference says that a bar chart's bars are differences, which lie
	// on either side of 0: 0 is a labelled tick with a reference line
	// across the chart, and the value axis reaches a margin past the
	// outermost whiskers, which would otherwise end on an axis.
	Difference bool
	// Size is the printed size; zero means Column.
	Size Size
}

func (c Chart) size() Size {
	if c.Size == (Size{}) {
		return Column
	}
	return c.Size
}

func (c Chart) stat() string {
	if c.Stat == "" {
		return "mean"
	}
	return c.Stat
}

func (c Chart) interval() string {
	if c.Interval == "" {
		return "95% CI"
	}
	return c.Interval
}

// errNoData is returned for empty inputs.
var errNoData = errors.New("plots: no data")

// newPlot returns a plot styled for print at c's size.
func newPlot(c Chart) (*plot.Plot, error) {
	if err := c.size().check(); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = c.Title
	// One line: gonum spaces the lines of a text closer than the fit
	// check allows.
	switch {
	case c.Note != "" && c.Title != "":
		p.Title.Text = c.Title + " (" + c.Note + ")"
	case c.Note != "":
		p.Title.Text = c.Note
	}
	p.Title.TextStyle = textStyle(titleSize)
	p.Title.TextStyle.XAlign = draw.XCenter
	p.Title.TextStyle.YAlign = draw.YTop
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = textStyle(labelSize)
		a.Label.TextStyle.XAlign = draw.XCenter
		a.Label.Padding = vg.Points(2)
		a.Tick.Label = textStyle(tickSize)
		a.Tick.Length = vg.Points(3)
		a.Tick.LineStyle = thinLine
		a.LineStyle = thinLine
		a.Padding = vg.Points(4) // room for a marker on the frame's edge
		a.Tick.Marker = tidyTicks{}
	}
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	return p, nil
}

// checkFinite returns an error naming what when a value is NaN or ±Inf.
func checkFinite(what string, vs ...float64) error {
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("plots: %s[%d] = %v is not finite", what, i, v)
		}
	}
	return nil
}

// margin is left blank around every chart, so that no ink touches the
// edge of the page: antialiasing and gonum's axis label placement can
// reach a fraction of a point past the area a plot is given.
const margin = vg.Length(2)

// canvasFor returns the area of c, of the given size, that charts draw
// in: all of it but the margin.
func canvasFor(c vg.Canvas, size Size) draw.Canvas {
	return draw.Crop(draw.NewCanvas(c, size.Width, size.Height), margin, -margin, margin, -margin)
}

// drawPlot fills c, of the given size, with p's background and draws p
// inside the margin.
func drawPlot(c vg.Canvas, p *plot.Plot, size Size) {
	if p.BackgroundColor != nil {
		full := draw.NewCanvas(c, size.Width, size.Height)
		full.SetColor(p.BackgroundColor)
		full.Fill(full.Rectangle.Path())
	}
	p.Draw(canvasFor(c, size))
}

// drawLabel draws one line of text s, aligned horizontally by sty.XAlign
// at at.X and centred vertically on at.Y (before sty.Rotation about at).
// Unlike draw.Canvas.FillText, it centres on the font's ascent and descent,
// which is what the clipping check in fit.go measures.
func drawLabel(c vg.Canvas, sty text.Style, at vg.Point, s string) {
	if s == "" {
		return
	}
	face := sty.Handler.Cache().Lookup(sty.Font, sty.Font.Size)
	e := face.Extents()
	off := vg.Point{X: vg.Length(sty.XAlign) * face.Width(s), Y: -(e.Ascent - e.Descent) / 2}
	c.SetColor(sty.Color)
	if sty.Rotation == 0 {
		c.FillString(face, at.Add(off), s)
		return
	}
	c.Push()
	c.Translate(at)
	c.Rotate(sty.Rotation)
	c.FillString(face, off, s)
	c.Pop()
}

// labelBox returns the width and height (ascent plus descent) of s
// drawn unrotated in sty.
func labelBox(sty text.Style, s string) (w, h vg.Length) {
	e := sty.FontExtents()
	return sty.Width(s), e.Ascent + e.Descent
}

// tidyTicks are gonum's default ticks with labels written with as few
// decimals as they need, the same number for all: "0, 2.5, 5" becomes
// "0.0, 2.5, 5.0" where gonum writes "0.00, 2.50, 5.00". Labels in
// exponent form are left as they are.
type tidyTicks struct{}

func (tidyTicks) Ticks(min, max float64) []plot.Tick {
	return tidy(plot.DefaultTicks{}.Ticks(min, max))
}

// tidy writes the labels of the major ticks (those with a label) with as
// few decimals as they need, the same number for all, unless a label is
// in exponent form.
func tidy(ticks []plot.Tick) []plot.Tick {
	var scale float64
	for _, t := range ticks {
		if strings.ContainsAny(t.Label, "eE") {
			return ticks
		}
		if !t.IsMinor() {
			scale = math.Max(scale, math.Abs(t.Value))
		}
	}
	if scale == 0 {
		scale = 1
	}
	prec := 0
	for ; prec < 6; prec++ {
		exact := true
		for _, t := range ticks {
			p := math.Pow10(prec)
			if !t.IsMinor() && math.Abs(math.Round(t.Value*p)/p-t.Value) > 1e-9*scale {
				exact = false
				break
			}
		}
		if exact {
			break
		}
	}
	for i, t := range ticks {
		if !t.IsMinor() {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', prec, 64)
		}
	}
	return ticks
}
