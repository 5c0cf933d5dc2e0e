package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendStrip is a legend laid out in columns in a strip above the data
// area, so that it never hides data. It reserves its height through
// GlyphBoxes: the plot shrinks its data area to make room.
//
// gonum's plot.Legend draws inside the data area, over the data; charts
// here leave it empty and add a legendStrip as their last plotter.
type legendStrip struct {
	entries []legendEntry
	style   text.Style
	thumbW  vg.Length   // thumbnail width
	gap     vg.Length   // between thumbnail and text, and below the strip
	colGap  vg.Length   // between columns
	cols    int         // set by layout
	colW    []vg.Length // set by layout: the width of each column
}

type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

func newLegendStrip() *legendStrip {
	return &legendStrip{
		style:  textStyle(legendSize),
		thumbW: vg.Points(16),
		gap:    vg.Points(3),
		colGap: vg.Points(9),
	}
}

func (l *legendStrip) add(text string, thumbs ...plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{text: text, thumbs: thumbs})
}

// layout chooses the most columns that fit in width, each as wide as its
// widest entry, with entries filled in row by row.
func (l *legendStrip) layout(width vg.Length) {
	l.cols, l.colW = 1, l.widths(1)
	for n := len(l.entries); n > 1; n-- {
		// Balance the rows: 5 entries in 4 columns become 3 + 2.
		rows := (len(l.entries) + n - 1) / n
		n = (len(l.entries) + rows - 1) / rows
		ws := l.widths(n)
		total := vg.Length(n-1) * l.colGap
		for _, w := range ws {
			total += w
		}
		if total <= width {
			l.cols, l.colW = n, ws
			return
		}
	}
}

// widths returns the widths of the columns when there are n.
func (l *legendStrip) widths(n int) []vg.Length {
	ws := make([]vg.Length, n)
	for i, e := range l.entries {
		ws[i%n] = max(ws[i%n], l.thumbW+l.gap+l.style.Width(e.text))
	}
	return ws
}

func (l *legendStrip) rows() int {
	cols := max(l.cols, 1)
	return (len(l.entries) + cols - 1) / cols
}

func (l *legendStrip) rowHeight() vg.Length {
	_, h := labelBox(l.style, "")
	return h + vg.Points(1.5)
}

// height is the height the strip reserves above the data area.
func (l *legendStrip) height() vg.Length {
	if len(l.entries) == 0 {
		return 0
	}
	return vg.Length(l.rows())*l.rowHeight() + 2*l.gap
}

// Plot draws the strip above c, the data area, centred on it.
func (l *legendStrip) Plot(c draw.Canvas, _ *plot.Plot) {
	if len(l.entries) == 0 {
		return
	}
	w := vg.Length(l.cols-1) * l.colGap
	for _, cw := range l.colW {
		w += cw
	}
	x0 := max(c.Min.X, c.Center().X-w/2)
	rh := l.rowHeight()
	top := c.Max.Y + l.height() - l.gap
	for i, e := range l.entries {
		row, col := i/l.cols, i%l.cols
		x := x0
		for _, cw := range l.colW[:col] {
			x += cw + l.colGap
		}
		y := top - vg.Length(row+1)*rh
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y},
			Max: vg.Point{X: x + l.thumbW, Y: y + rh},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&thumb)
		}
		drawLabel(c, l.style, vg.Point{X: x + l.thumbW + l.gap, Y: y + rh/2}, e.text)
	}
}

// GlyphBoxes reserves the strip's height above the data area.
func (l *legendStrip) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	return []plot.GlyphBox{{
		X: 0.5, Y: 1,
		Rectangle: vg.Rectangle{Max: vg.Point{Y: l.height()}},
	}}
}
