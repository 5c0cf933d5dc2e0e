package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Span is an interval [Start, End) spent by a row (an agent, say) on one
// kind of activity ("work", "check", "message", "wait", "spawn").
// Label, optional, is written inside the bar where it fits.
type Span struct {
	Row        string
	Start, End float64
	Kind       string
	Label      string
}

// Flow is something sent from one row at time From and received by
// another (or the same) row at time To, such as a message.
type Flow struct {
	FromRow string
	From    float64
	ToRow   string
	To      float64
}

// Gantt is a plot.Plotter that draws spans as horizontal bars, one row
// per name, and flows as thin arrows between rows. Each kind of span has
// its own colour and hatch pattern, so kinds differ in greyscale too.
//
// Row i (in the order of Rows) is drawn at y = len(Rows)-1-i, so the
// first row is at the top; Ticker labels the Y axis with the row names.
type Gantt struct {
	// Rows are the row names in the order they first appear in the
	// spans, then in the flows. Kinds are the span kinds in the order
	// they first appear. Both are read-only.
	Rows, Kinds []string

	// LabelStyle is the style of the span labels.
	LabelStyle text.Style

	// FlowStyle is the style of the flow arrows.
	FlowStyle draw.LineStyle

	spans []ganttSpan
	flows []ganttFlow
}

type ganttSpan struct {
	row, kind  int
	start, end float64
	label      string
}

type ganttFlow struct {
	from, to   int
	start, end float64
}

var (
	_ plot.Plotter    = (*Gantt)(nil)
	_ plot.DataRanger = (*Gantt)(nil)
)

const (
	barHeight  = 0.7  // bar height in row units
	minBarW    = 0.75 // narrowest bar drawn, in points: zero-length spans show
	arrowLen   = 3.5  // arrow head length in points
	arrowWidth = 1.4  // arrow head half width in points
)

// NewGantt returns a Gantt of spans and flows, which it copies. It returns
// an error when there are no spans, more than MaxSeries kinds, an empty row
// or kind name, a time that is NaN or ±Inf, a span that ends before it
// starts, or a flow received before it is sent.
func NewGantt(spans []Span, flows []Flow) (*Gantt, error) {
	if len(spans) == 0 {
		return nil, errNoData
	}
	g := &Gantt{
		LabelStyle: textStyle(noteSize),
		FlowStyle:  draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)},
	}
	g.LabelStyle.XAlign = draw.XCenter
	rowIdx := map[string]int{}
	row := func(name string) int {
		i, ok := rowIdx[name]
		if !ok {
			i = len(g.Rows)
			rowIdx[name] = i
			g.Rows = append(g.Rows, name)
		}
		return i
	}
	for i, s := range spans {
		switch {
		case s.Row == "" || s.Kind == "":
			return nil, fmt.Errorf("plots: span %d: empty row or kind", i)
		case checkFinite("span start", s.Start) != nil || checkFinite("span end", s.End) != nil:
			return nil, fmt.Errorf("plots: span %d: start %v and end %v must be finite", i, s.Start, s.End)
		case s.End < s.Start:
			return nil, fmt.Errorf("plots: span %d: ends at %v before it starts at %v", i, s.End, s.Start)
		}
		k := slices.Index(g.Kinds, s.Kind)
		if k < 0 {
			if len(g.Kinds) == MaxSeries {
				return nil, fmt.Errorf("plots: more than %d kinds of span; %q is one too many", MaxSeries, s.Kind)
			}
			k = len(g.Kinds)
			g.Kinds = append(g.Kinds, s.Kind)
		}
		g.spans = append(g.spans, ganttSpan{row: row(s.Row), kind: k, start: s.Start, end: s.End, label: s.Label})
	}
	for i, f := range flows {
		switch {
		case f.FromRow == "" || f.ToRow == "":
			return nil, fmt.Errorf("plots: flow %d: empty row", i)
		case checkFinite("flow from", f.From) != nil || checkFinite("flow to", f.To) != nil:
			return nil, fmt.Errorf("plots: flow %d: times %v and %v must be finite", i, f.From, f.To)
		case f.To < f.From:
			return nil, fmt.Errorf("plots: flow %d: received at %v before it is sent at %v", i, f.To, f.From)
		}
		g.flows = append(g.flows, ganttFlow{from: row(f.FromRow), to: row(f.ToRow), start: f.From, end: f.To})
	}
	return g, nil
}

// y returns the data y coordinate of row i.
func (g *Gantt) y(i int) float64 { return float64(len(g.Rows) - 1 - i) }

// Ticker returns a plot.Ticker that labels the Y axis with the row names.
func (g *Gantt) Ticker() plot.Ticker {
	ticks := make([]plot.Tick, len(g.Rows))
	for i, name := range g.Rows {
		ticks[i] = plot.Tick{Value: g.y(i), Label: name}
	}
	return plot.ConstantTicks(ticks)
}

// DataRange returns the time range on X and half a row beyond the first
// and last rows on Y; it implements plot.DataRanger.
func (g *Gantt) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, s := range g.spans {
		xmin, xmax = min(xmin, s.start), max(xmax, s.end)
	}
	for _, f := range g.flows {
		xmin, xmax = min(xmin, f.start), max(xmax, f.end)
	}
	return xmin, xmax, -0.5, float64(len(g.Rows)) - 0.5
}

// kindStyle returns the fill colour and hatch of kind k.
func kindStyle(k int) (color.Color, hatch) {
	return seriesColors[k%MaxSeries], hatch(k % MaxSeries)
}

// Plot draws the bars, their labels and the flows; it implements
// plot.Plotter.
func (g *Gantt) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	half := (trY(barHeight/2) - trY(0)) // half bar height in points
	if half < 0 {
		half = -half
	}
	rect := func(s ganttSpan) vg.Rectangle {
		x0, x1 := trX(s.start), trX(s.end)
		if x1-x0 < minBarW {
			mid := (x0 + x1) / 2
			x0, x1 = mid-minBarW/2, mid+minBarW/2
		}
		y := trY(g.y(s.row))
		return vg.Rectangle{Min: vg.Point{X: x0, Y: y - half}, Max: vg.Point{X: x1, Y: y + half}}
	}
	for _, s := range g.spans {
		fill, h := kindStyle(s.kind)
		drawBar(&c, rect(s), fill, h)
	}

	// Labels where they fit, left to right per row, never overlapping.
	lastRight := make([]vg.Length, len(g.Rows))
	for i := range lastRight {
		lastRight[i] = vg.Length(math.Inf(-1))
	}
	order := make([]int, len(g.spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(g.spans[a].start, g.spans[b].start)
	})
	const pad = 1.0
	for _, i := range order {
		s := g.spans[i]
		if s.label == "" {
			continue
		}
		r := rect(s)
		w, h := labelBox(g.LabelStyle, s.label)
		if w+2*pad > r.Size().X || h > r.Size().Y || r.Min.X < lastRight[s.row] {
			continue
		}
		lastRight[s.row] = r.Max.X
		fill, _ := kindStyle(s.kind)
		mid := vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
		// Clear the hatch behind the text.
		c.FillPolygon(fill, rectPoints(vg.Rectangle{
			Min: vg.Point{X: mid.X - w/2 - pad/2, Y: r.Min.Y + vg.Points(0.3)},
			Max: vg.Point{X: mid.X + w/2 + pad/2, Y: r.Max.Y - vg.Points(0.3)},
		}))
		sty := g.LabelStyle
		sty.Color = textOn(fill)
		drawLabel(c, sty, mid, s.label)
	}

	for _, f := range g.flows {
		from := vg.Point{X: trX(f.start), Y: trY(g.y(f.from))}
		to := vg.Point{X: trX(f.end), Y: trY(g.y(f.to))}
		switch { // Leave the bar's edge rather than its middle.
		case from.Y > to.Y:
			from.Y -= half
			to.Y += half
		case from.Y < to.Y:
			from.Y += half
			to.Y -= half
		}
		drawArrow(&c, g.FlowStyle, from, to)
	}
}

// KindThumbnail returns the legend thumbnail of the named kind of span,
// or nil when no span has that kind.
func (g *Gantt) KindThumbnail(kind string) plot.Thumbnailer {
	k := slices.Index(g.Kinds, kind)
	if k < 0 {
		return nil
	}
	return kindThumb(k)
}

// FlowThumbnail returns the legend thumbnail of the flows: an arrow.
func (g *Gantt) FlowThumbnail() plot.Thumbnailer { return flowThumb{g.FlowStyle} }

type kindThumb int

func (k kindThumb) Thumbnail(c *draw.Canvas) {
	fill, h := kindStyle(int(k))
	mid := (c.Min.Y + c.Max.Y) / 2
	half := (c.Max.Y - c.Min.Y) * barHeight / 2
	drawBar(c, vg.Rectangle{
		Min: vg.Point{X: c.Min.X, Y: mid - half},
		Max: vg.Point{X: c.Max.X, Y: mid + half},
	}, fill, h)
}

type flowThumb struct{ sty draw.LineStyle }

func (f flowThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	drawArrow(c, f.sty, vg.Point{X: c.Min.X, Y: y}, vg.Point{X: c.Max.X, Y: y})
}

func rectPoints(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// drawBar fills r, hatches it and outlines it.
func drawBar(c *draw.Canvas, r vg.Rectangle, fill color.Color, h hatch) {
	c.FillPolygon(fill, rectPoints(r))
	h.draw(c, r, draw.LineStyle{Color: shade(fill, 0.5), Width: vg.Points(0.35)})
	outline := draw.LineStyle{Color: color.Gray{Y: 0x33}, Width: vg.Points(0.3)}
	pts := rectPoints(r)
	c.StrokeLines(outline, append(pts, pts[0]))
}

// drawArrow draws a line from a to b with a filled arrow head at b.
func drawArrow(c *draw.Canvas, sty draw.LineStyle, a, b vg.Point) {
	d := b.Sub(a)
	n := math.Hypot(d.X.Points(), d.Y.Points())
	if n == 0 {
		return
	}
	ux, uy := d.X.Points()/n, d.Y.Points()/n
	head := min(arrowLen, n)
	base := vg.Point{X: b.X - vg.Length(ux*head), Y: b.Y - vg.Length(uy*head)}
	c.StrokeLines(sty, []vg.Point{a, base})
	side := vg.Point{X: vg.Length(-uy * arrowWidth), Y: vg.Length(ux * arrowWidth)}
	c.FillPolygon(sty.Color, []vg.Point{b, base.Add(side), base.Sub(side)})
}

// hatch is a pattern of thin lines over a fill, so that fills differ in
// greyscale. Lines are anchored to the canvas, so neighbouring bars of
// one kind continue each other's pattern.
type hatch int

const (
	hatchNone hatch = iota
	hatchForward
	hatchHorizontal
	hatchBack
	hatchCross
	hatchVertical
	hatchGrid
	hatchDenseForward
)

const hatchSpacing = 2.8 // points between hatch lines

func (h hatch) draw(c *draw.Canvas, r vg.Rectangle, sty draw.LineStyle) {
	var angles []float64 // line directions in degrees
	spacing := hatchSpacing
	switch h {
	case hatchForward:
		angles = []float64{45}
	case hatchHorizontal:
		angles = []float64{0}
	case hatchBack:
		angles = []float64{135}
	case hatchCross:
		angles = []float64{45, 135}
	case hatchVertical:
		angles = []float64{90}
	case hatchGrid:
		angles = []float64{0, 90}
	case hatchDenseForward:
		angles, spacing = []float64{45}, hatchSpacing/2
	}
	var lines [][]vg.Point
	for _, deg := range angles {
		lines = append(lines, hatchLines(r, deg*math.Pi/180, spacing)...)
	}
	if len(lines) > 0 {
		c.StrokeLines(sty, lines...)
	}
}

// hatchLines returns the parts inside r of the lines at angle theta
// spaced s points apart that pass through the canvas origin.
func hatchLines(r vg.Rectangle, theta, s float64) [][]vg.Point {
	dx, dy := math.Cos(theta), math.Sin(theta)
	nx, ny := -dy, dx
	x0, y0, x1, y1 := r.Min.X.Points(), r.Min.Y.Points(), r.Max.X.Points(), r.Max.Y.Points()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		d := p[0]*nx + p[1]*ny
		lo, hi = min(lo, d), max(hi, d)
	}
	var out [][]vg.Point
	for k := math.Ceil(lo / s); k*s <= hi; k++ {
		px, py := nx*k*s, ny*k*s
		c := clip{math.Inf(-1), math.Inf(1)}
		ok := c.axis(px, dx, x0, x1) && c.axis(py, dy, y0, y1)
		tmin, tmax := c.tmin, c.tmax
		if !ok || tmax-tmin < 1e-9 {
			continue
		}
		out = append(out, []vg.Point{
			{X: vg.Length(px + tmin*dx), Y: vg.Length(py + tmin*dy)},
			{X: vg.Length(px + tmax*dx), Y: vg.Length(py + tmax*dy)},
		})
	}
	return out
}

// A clip is the range [tmin, tmax] of the t for which a point p + t*d of
// a line lies in a rectangle, narrowed one axis at a time.
type clip struct{ tmin, tmax float64 }

// axis narrows the clip to the t for which p + t*d lies in [lo, hi] on
// one axis; false when none does.
func (c *clip) axis(p, d, lo, hi float64) bool {
	if math.Abs(d) < 1e-12 {
		return p >= lo && p <= hi
	}
	t0, t1 := (lo-p)/d, (hi-p)/d
	if t0 > t1 {
		t0, t1 = t1, t0
	}
	c.tmin, c.tmax = max(c.tmin, t0), min(c.tmax, t1)
	return c.tmin <= c.tmax
}
