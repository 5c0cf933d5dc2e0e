package plots

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// Scaling draws a line chart over a logarithmic x axis with a tick at
// every x the series hold and no others: a measure against sizes that
// double (team sizes 2, 4, ..., 32), whose small sizes a linear axis
// would crowd into one corner. Lines on this axis read as growth in
// log x: a straight rising line is logarithmic growth, and linear growth
// curves upwards. Every x must be positive; otherwise it is Lines.
func Scaling(c Chart, series []Series) (*plot.Plot, error) {
	var xs []float64
	for i, s := range series {
		for _, x := range s.X {
			if !(x > 0) {
				return nil, fmt.Errorf("plots: series %d (%q): x = %g: a logarithmic axis needs x > 0", i, s.Name, x)
			}
			xs = append(xs, x)
		}
	}
	p, err := Lines(c, series)
	if err != nil {
		return nil, err
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = xs[0], xs[len(xs)-1]
	ticks := make([]plot.Tick, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return p, nil
}
