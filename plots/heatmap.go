package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/swarmsim/swarmsim/internal/numtext"
)

// Grid is a table of values Z over two axes: Z[i][j] is the value at
// Y[i] and X[j], so rows of Z go with Y. X and Y name the cells, as the
// values of two swept parameters are written ("30000", "2m", "team");
// each is drawn as one equal cell, in the order given, labelled with its
// name.
type Grid struct {
	X, Y []string
	Z    [][]float64
	// Lo and Hi, when set, hold each value's interval, shaped as Z: a
	// difference map marks the cells whose interval excludes zero. A cell
	// whose Lo and Hi are both NaN has no interval (a difference with one
	// value on a side) and is never marked.
	Lo, Hi [][]float64
	// Annotate writes each cell's value in the cell.
	Annotate bool
}

// hasIntervals says whether g carries intervals.
func (g Grid) hasIntervals() bool { return g.Lo != nil || g.Hi != nil }

// check returns an error when g is empty, ragged, holds NaN or ±Inf,
// repeats an axis name, or has a value outside its interval.
func (g Grid) check() error {
	if len(g.X) == 0 || len(g.Y) == 0 {
		return errNoData
	}
	for _, m := range []struct {
		name string
		z    [][]float64
	}{{"Z", g.Z}, {"Lo", g.Lo}, {"Hi", g.Hi}} {
		if m.z == nil && m.name != "Z" && !g.hasIntervals() {
			continue
		}
		if len(m.z) != len(g.Y) {
			return fmt.Errorf("plots: grid has %d rows of %s for %d Y values", len(m.z), m.name, len(g.Y))
		}
		for i, row := range m.z {
			if len(row) != len(g.X) {
				return fmt.Errorf("plots: grid row %s[%d] has %d values for %d X values", m.name, i, len(row), len(g.X))
			}
		}
	}
	for i, row := range g.Z {
		if err := checkFinite(fmt.Sprintf("grid Z[%d]", i), row...); err != nil {
			return err
		}
	}
	if g.hasIntervals() {
		for i, row := range g.Z {
			for j, z := range row {
				lo, hi := g.Lo[i][j], g.Hi[i][j]
				if math.IsNaN(lo) && math.IsNaN(hi) {
					continue // no interval
				}
				if err := checkFinite(fmt.Sprintf("grid cell (%s, %s)'s interval", g.X[j], g.Y[i]), lo, hi); err != nil {
					return err
				}
				if !(lo <= z && z <= hi) {
					return fmt.Errorf("plots: grid cell (%s, %s): need Lo %v <= Z %v <= Hi %v", g.X[j], g.Y[i], lo, z, hi)
				}
			}
		}
	}
	for _, ax := range []struct {
		name string
		v    []string
	}{{"X", g.X}, {"Y", g.Y}} {
		for i, v := range ax.v {
			if slices.Index(ax.v, v) != i {
				return fmt.Errorf("plots: grid %s value %q appears twice", ax.name, v)
			}
		}
	}
	return nil
}

// zRange returns the smallest and largest value of Z.
func (g Grid) zRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range g.Z {
		lo, hi = min(lo, slices.Min(row)), max(hi, slices.Max(row))
	}
	return lo, hi
}

// excludesZero says whether the interval of cell (c, r) lies wholly on
// one side of zero.
func (g Grid) excludesZero(c, r int) bool {
	return g.hasIntervals() && (g.Lo[r][c] > 0 || g.Hi[r][c] < 0)
}

// gridXYZ adapts a Grid to plotter.GridXYZ: column c is at x = c and row
// r at y = r, so that cells are equal whatever the axis values. Labels
// are written with one number of decimals for the whole grid.
type gridXYZ struct {
	z        [][]float64
	decimals int
}

var _ plotter.GridXYZ = gridXYZ{}

func (g gridXYZ) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g gridXYZ) Z(c, r int) float64 { return g.z[r][c] }
func (g gridXYZ) X(c int) float64    { return float64(c) }
func (g gridXYZ) Y(r int) float64    { return float64(r) }
func (g gridXYZ) value(c, r int) string {
	return numtext.Fixed(g.z[r][c], g.decimals)
}

// labelDecimals returns the decimals that write the largest magnitude of
// z with two significant digits (and at least its integer part): a grid's
// labels share them, so that they line up, stay short enough for their
// cells, and show differences at the precision that matters beside the
// largest value.
func labelDecimals(z [][]float64) int {
	big := 0.0
	for _, row := range z {
		for _, v := range row {
			big = max(big, math.Abs(v))
		}
	}
	if big == 0 {
		return 0
	}
	return max(0, 1-int(math.Floor(math.Log10(big))))
}

// NewHeatMap returns a gonum heat map of g, which it copies, coloured with
// cm over cm's range (values outside it take the end colours). It returns
// an error when g is invalid (see Grid). Plot it with AxisTicks for the
// axes.
func NewHeatMap(g Grid, cm palette.ColorMap) (*plotter.HeatMap, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	if cm == nil {
		return nil, fmt.Errorf("plots: nil colour map")
	}
	z := make([][]float64, len(g.Z))
	for i, row := range g.Z {
		z[i] = slices.Clone(row)
	}
	pal := cm.Palette(256)
	colors := pal.Colors()
	h := plotter.NewHeatMap(gridXYZ{z: z, decimals: labelDecimals(z)}, pal)
	h.Min, h.Max = cm.Min(), cm.Max()
	h.Underflow, h.Overflow = colors[0], colors[len(colors)-1]
	return h, nil
}

// AxisTicks returns tickers that label the cells of a heat map of g made
// by NewHeatMap with their X and Y names; when there are many cells,
// every k-th is labelled so that at most 12 labels remain.
func AxisTicks(g Grid) (x, y plot.Ticker) {
	return cellTicks(g.X), cellTicks(g.Y)
}

func cellTicks(vs []string) plot.Ticker {
	const most = 12
	k := (len(vs) + most - 1) / most
	var ticks []plot.Tick
	for i, v := range vs {
		if i%k == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: v})
		}
	}
	return plot.ConstantTicks(ticks)
}

// cellColor returns the colour h gives value v, as h.Plot does.
func cellColor(h *plotter.HeatMap, v float64) color.Color {
	pal := h.Palette.Colors()
	f := (v - h.Min) / (h.Max - h.Min)
	return pal[int(math.Min(1, math.Max(0, f))*float64(len(pal)-1)+0.5)]
}

// cellRect returns the rectangle of cell (col, r) of a heat map, grown by
// grow on each side and kept within the map.
func cellRect(c draw.Canvas, p *plot.Plot, h *plotter.HeatMap, col, r int, grow vg.Length) vg.Rectangle {
	trX, trY := p.Transforms(&c)
	cols, rows := h.GridXYZ.Dims()
	xmin, xmax := trX(-0.5), trX(float64(cols)-0.5)
	ymin, ymax := trY(-0.5), trY(float64(rows)-0.5)
	x, y := float64(col), float64(r)
	return vg.Rectangle{
		Min: vg.Point{X: max(xmin, trX(x-0.5)-grow), Y: max(ymin, trY(y-0.5)-grow)},
		Max: vg.Point{X: min(xmax, trX(x+0.5)+grow), Y: min(ymax, trY(y+0.5)+grow)},
	}
}

// seamFill draws each cell of a heat map grown by a hair, under the heat
// map, so that antialiased edges between cells blend neighbouring colours
// rather than let the white page show through as hairlines.
type seamFill struct{ h *plotter.HeatMap }

func (s seamFill) Plot(c draw.Canvas, p *plot.Plot) {
	const grow = 0.5 // points
	cols, rows := s.h.GridXYZ.Dims()
	for r := range rows {
		for col := range cols {
			c.FillPolygon(cellColor(s.h, s.h.GridXYZ.Z(col, r)), rectPoints(cellRect(c, p, s.h, col, r, grow)))
		}
	}
}

// cellLabels writes each cell's value in it, in black or white, whichever
// reads better on the cell's colour.
type cellLabels struct {
	h     *plotter.HeatMap
	style text.Style
}

func (l cellLabels) Plot(c draw.Canvas, p *plot.Plot) {
	g := l.h.GridXYZ.(gridXYZ)
	trX, trY := p.Transforms(&c)
	cols, rows := g.Dims()
	for r := range rows {
		for col := range cols {
			sty := l.style
			sty.Color = textOn(cellColor(l.h, g.Z(col, r)))
			drawLabel(c, sty, vg.Point{X: trX(g.X(col)), Y: trY(g.Y(r))}, g.value(col, r))
		}
	}
}

// heatPlot returns the plot of a heat map of g coloured by cm, with its
// colour scale, cell labels when g.Annotate is set, and axis ticks naming
// the cells. Heatmap and DiffMap finish it with their legends.
func heatPlot(c Chart, g Grid, cm palette.ColorMap, scale *ColorScale) (*plot.Plot, *plotter.HeatMap, error) {
	if c.XLabel == "" || c.YLabel == "" || c.ZLabel == "" {
		return nil, nil, fmt.Errorf("plots: a heat map needs XLabel, YLabel and ZLabel (with units)")
	}
	h, err := NewHeatMap(g, cm)
	if err != nil {
		return nil, nil, err
	}
	p, err := newPlot(c)
	if err != nil {
		return nil, nil, err
	}
	p.Add(seamFill{h}, h, scale)
	if g.Annotate {
		sty := textStyle(noteSize)
		sty.XAlign = draw.XCenter
		p.Add(cellLabels{h: h, style: sty})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = AxisTicks(g)
	p.X.Padding, p.Y.Padding = 0, 0
	return p, h, nil
}
