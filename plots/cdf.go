package plots

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
)

// ECDF returns the empirical distribution function of sample as a step
// series named name: at each sorted value x_i it rises from i/n to
// (i+1)/n. It returns an error for an empty sample or one holding NaN or
// ±Inf.
func ECDF(name string, sample []float64) (Series, error) {
	if len(sample) == 0 {
		return Series{}, errNoData
	}
	if err := checkFinite("sample", sample...); err != nil {
		return Series{}, err
	}
	x := slices.Clone(sample)
	slices.Sort(x)
	n := float64(len(x))
	s := Series{Name: name, X: make([]float64, 0, 2*len(x)), Y: make([]float64, 0, 2*len(x))}
	for i, v := range x {
		s.X = append(s.X, v, v)
		s.Y = append(s.Y, float64(i)/n, float64(i+1)/n)
	}
	return s, nil
}

// CDF returns a chart of observed data, an empirical CDF (see ECDF),
// against fitted CDFs (series of x and P(X <= x)): how well a fitted
// distribution follows the data, the tail included. With logX the x axis
// is logarithmic, which spreads a heavy tail out; every x must then be
// positive. Y runs from 0 to 1. Errors are those of Lines, and a
// non-positive x on a log axis, or a Y outside [0, 1].
func CDF(c Chart, observed Series, fitted []Series, logX bool) (*plot.Plot, error) {
	all := append([]Series{observed}, fitted...)
	for i, s := range all {
		for j := range s.Y {
			if !(s.Y[j] >= 0 && s.Y[j] <= 1) {
				return nil, fmt.Errorf("plots: series %d (%q): P(X <= x) = %v at %d is outside [0, 1]", i, s.Name, s.Y[j], j)
			}
			if logX && !(s.X[j] > 0) {
				return nil, fmt.Errorf("plots: series %d (%q): x = %v at %d on a log axis must be positive", i, s.Name, s.X[j], j)
			}
		}
	}
	if c.YLabel == "" {
		return nil, errors.New("plots: a CDF chart needs a YLabel such as \"P(X <= x)\"")
	}
	p, err := Lines(c, all)
	if err != nil {
		return nil, err
	}
	p.Y.Min, p.Y.Max = 0, 1
	if logX {
		p.X.Scale = plot.LogScale{}
		if err := thinLogTicks(p, c.size()); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// thinLogTicks sets p's log x axis to label every decade, or where their
// labels do not fit size, every second, third, ... decade, the fewest
// left out that fit: latencies spanning six decades label 1e-06, 1e-05,
// ... on a page but would overlap in a column. It returns checkFit's
// error where even two labels do not fit, or something else does not.
func thinLogTicks(p *plot.Plot, size Size) error {
	decades := math.Ceil(math.Log10(p.X.Max)) - math.Floor(math.Log10(p.X.Min))
	var err error
	for every := 1; every <= max(1, int(decades)); every++ {
		p.X.Tick.Marker = logTicks{every: every}
		if err = checkFit(p, size); err == nil {
			return nil
		}
	}
	return err
}
