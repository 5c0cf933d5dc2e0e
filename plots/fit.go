package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// checkFit draws p at size on a canvas that only measures, and returns an
// error naming each text that would be clipped at the edge of the chart or
// that would overlap another text. Shapes are checked against the edge
// too. It is what "no clipped labels or legends" means here.
func checkFit(p *plot.Plot, size Size) error {
	m := &measurer{w: size.Width, h: size.Height, stack: []affine{identity}}
	drawPlot(m, p, size)
	var problems []string
	problems = append(problems, m.outside...)
	for _, t := range m.texts {
		if _, ok := toCP1252(t.s); !ok {
			problems = append(problems, fmt.Sprintf("text %q has a character outside Windows-1252, which PDF fonts here cover", t.s))
		}
	}
	for i, a := range m.texts {
		for _, b := range m.texts[:i] {
			if a.overlaps(b) {
				problems = append(problems, fmt.Sprintf("text %q overlaps %q", a.s, b.s))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	const show = 4
	more := ""
	if len(problems) > show {
		more = fmt.Sprintf(" (and %d more)", len(problems)-show)
		problems = problems[:show]
	}
	return fmt.Errorf("%w %.4gx%.4g in: %s%s; shorten labels or use a larger size",
		ErrNoFit, size.Width/vg.Inch, size.Height/vg.Inch, strings.Join(problems, "; "), more)
}

// ErrNoFit is wrapped by the error for a chart that does not fit its size,
// so that a caller may try a larger one.
var ErrNoFit = errors.New("plots: chart does not fit")

// slack is how far, in points, ink may stray past the edge or into other
// text before it counts: antialiasing and line caps.
const slack = 0.5

// affine maps (x, y) to (a*x + c*y + e, b*x + d*y + f).
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func (m affine) apply(p vg.Point) (x, y float64) {
	px, py := p.X.Points(), p.Y.Points()
	return m.a*px + m.c*py + m.e, m.b*px + m.d*py + m.f
}

// then returns the transform that applies n first, then m.
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

// box is an axis-aligned rectangle in canvas points.
type box struct {
	x0, y0, x1, y1 float64
	s              string
}

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1-slack && b.x0 < a.x1-slack && a.y0 < b.y1-slack && b.y0 < a.y1-slack
}

// measurer is a vg.Canvas that draws nothing: it records where text goes
// and what crosses the canvas edge.
type measurer struct {
	w, h    vg.Length
	stack   []affine
	texts   []box
	outside []string
}

var _ vg.Canvas = (*measurer)(nil)

func (m *measurer) top() *affine { return &m.stack[len(m.stack)-1] }

func (m *measurer) SetLineWidth(vg.Length)             {}
func (m *measurer) SetLineDash([]vg.Length, vg.Length) {}
func (m *measurer) SetColor(color.Color)               {}
func (m *measurer) Push()                              { m.stack = append(m.stack, *m.top()) }
func (m *measurer) Pop()                               { m.stack = m.stack[:len(m.stack)-1] }

func (m *measurer) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	*m.top() = m.top().then(affine{a: c, b: s, c: -s, d: c})
}

func (m *measurer) Translate(p vg.Point) {
	*m.top() = m.top().then(affine{a: 1, d: 1, e: p.X.Points(), f: p.Y.Points()})
}

func (m *measurer) Scale(x, y float64) {
	*m.top() = m.top().then(affine{a: x, d: y})
}

// bounds returns the bounding box of pts (in the current transform),
// grown by r on every side.
func (m *measurer) bounds(r float64, pts ...vg.Point) box {
	b := box{x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1)}
	for _, p := range pts {
		x, y := m.top().apply(p)
		b.x0, b.x1 = min(b.x0, x-r), max(b.x1, x+r)
		b.y0, b.y1 = min(b.y0, y-r), max(b.y1, y+r)
	}
	return b
}

func (m *measurer) inside(b box) bool {
	return b.x0 >= -slack && b.y0 >= -slack && b.x1 <= m.w.Points()+slack && b.y1 <= m.h.Points()+slack
}

func (m *measurer) path(p vg.Path, what string) {
	for _, comp := range p {
		var b box
		switch comp.Type {
		case vg.ArcComp:
			b = m.bounds(comp.Radius.Points(), comp.Pos)
		case vg.CloseComp:
			continue
		default:
			b = m.bounds(0, append([]vg.Point{comp.Pos}, comp.Control...)...)
		}
		if !m.inside(b) {
			m.outside = append(m.outside, fmt.Sprintf("a %s crosses the edge at (%.1f, %.1f) pt", what, b.x0, b.y0))
			return
		}
	}
}

func (m *measurer) Stroke(p vg.Path) { m.path(p, "line") }
func (m *measurer) Fill(p vg.Path)   { m.path(p, "shape") }

func (m *measurer) FillString(f font.Face, p vg.Point, s string) {
	if f.Font.Size == 0 || s == "" {
		return
	}
	e := f.Extents()
	w := f.Width(s)
	b := m.bounds(0,
		vg.Point{X: p.X, Y: p.Y - e.Descent}, vg.Point{X: p.X + w, Y: p.Y - e.Descent},
		vg.Point{X: p.X, Y: p.Y + e.Ascent}, vg.Point{X: p.X + w, Y: p.Y + e.Ascent})
	b.s = s
	if !m.inside(b) {
		m.outside = append(m.outside, fmt.Sprintf("text %q is clipped at the edge", s))
	}
	m.texts = append(m.texts, b)
}

func (m *measurer) DrawImage(r vg.Rectangle, _ image.Image) {
	if b := m.bounds(0, r.Min, r.Max); !m.inside(b) {
		m.outside = append(m.outside, "an image crosses the edge")
	}
}
