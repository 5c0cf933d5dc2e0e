package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid is a table of values Z over two axes: Z[i][j] is the value at
// Y[i] and X[j], so rows of Z go with Y. X and Y are the values of two
// swept parameters, say; each is drawn as one equal cell, in the order
// given, labelled with its value.
type Grid struct {
	X, Y []float64
	Z    [][]float64
	// Annotate writes each cell's value in the cell.
	Annotate bool
}

// check returns an error when g is empty, ragged, or holds NaN, ±Inf or
// repeated axis values.
func (g Grid) check() error {
	if len(g.X) == 0 || len(g.Y) == 0 {
		return errNoData
	}
	if len(g.Z) != len(g.Y) {
		return fmt.Errorf("plots: grid has %d rows of Z for %d Y values", len(g.Z), len(g.Y))
	}
	for i, row := range g.Z {
		if len(row) != len(g.X) {
			return fmt.Errorf("plots: grid row Z[%d] has %d values for %d X values", i, len(row), len(g.X))
		}
		if err := checkFinite(fmt.Sprintf("grid Z[%d]", i), row...); err != nil {
			return err
		}
	}
	for _, ax := range []struct {
		name string
		v    []float64
	}{{"X", g.X}, {"Y", g.Y}} {
		if err := checkFinite("grid "+ax.name, ax.v...); err != nil {
			return err
		}
		s := slices.Clone(ax.v)
		slices.Sort(s)
		for i := 1; i < len(s); i++ {
			if s[i] == s[i-1] {
				return fmt.Errorf("plots: grid %s value %v appears twice", ax.name, s[i])
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

// gridXYZ adapts a Grid to plotter.GridXYZ: column c is at x = c and row
// r at y = r, so that cells are equal whatever the axis values.
type gridXYZ struct{ z [][]float64 }

var _ plotter.GridXYZ = gridXYZ{}

func (g gridXYZ) Dims() (c, r int)      { return len(g.z[0]), len(g.z) }
func (g gridXYZ) Z(c, r int) float64    { return g.z[r][c] }
func (g gridXYZ) X(c int) float64       { return float64(c) }
func (g gridXYZ) Y(r int) float64       { return float64(r) }
func (g gridXYZ) value(c, r int) string { return formatValue(g.z[r][c]) }

// formatValue formats v with four significant digits for labels.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// NewHeatMap returns a gonum heat map of g, which it copies, coloured with
// cm over cm's range (values outside it take the end colours). It returns
// an error when g is empty, ragged, holds NaN or ±Inf, or repeats an axis
// value. Plot it with AxisTicks for the axes.
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
	h := plotter.NewHeatMap(gridXYZ{z}, pal)
	h.Min, h.Max = cm.Min(), cm.Max()
	h.Underflow, h.Overflow = colors[0], colors[len(colors)-1]
	return h, nil
}

// AxisTicks returns tickers that label the cells of a heat map of g made
// by NewHeatMap with their X and Y values; when there are many cells,
// every k-th is labelled so that at most 12 labels remain.
func AxisTicks(g Grid) (x, y plot.Ticker) {
	return cellTicks(g.X), cellTicks(g.Y)
}

func cellTicks(vs []float64) plot.Ticker {
	const most = 12
	k := (len(vs) + most - 1) / most
	var ticks []plot.Tick
	for i, v := range vs {
		if i%k == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: formatValue(v)})
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

// seamFill draws each cell of a heat map grown by a hair, under the heat
// map, so that antialiased edges between cells blend neighbouring colours
// rather than let the white page show through as hairlines.
type seamFill struct{ h *plotter.HeatMap }

func (s seamFill) Plot(c draw.Canvas, p *plot.Plot) {
	const grow = 0.5 // points
	g := s.h.GridXYZ.(gridXYZ)
	trX, trY := p.Transforms(&c)
	cols, rows := g.Dims()
	xmin, xmax := trX(-0.5), trX(float64(cols)-0.5)
	ymin, ymax := trY(-0.5), trY(float64(rows)-0.5)
	for r := range rows {
		for col := range cols {
			x, y := float64(col), float64(r)
			c.FillPolygon(cellColor(s.h, g.Z(col, r)), rectPoints(vg.Rectangle{
				Min: vg.Point{X: max(xmin, trX(x-0.5)-grow), Y: max(ymin, trY(y-0.5)-grow)},
				Max: vg.Point{X: min(xmax, trX(x+0.5)+grow), Y: min(ymax, trY(y+0.5)+grow)},
			}))
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
