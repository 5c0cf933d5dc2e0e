package stats

import "math"

// A Line is y = Intercept + Slope·x, fitted by least squares.
type Line struct {
	Intercept, Slope float64
}

// LeastSquares returns the ordinary least-squares line of y on x. Both
// parts are NaN when the slices differ in length or x takes fewer than
// two distinct values (no slope is defined). The sums are centred on the
// means, which keeps them accurate when x is far from zero.
func LeastSquares(x, y []float64) Line {
	if len(x) != len(y) || len(x) < 2 {
		return Line{math.NaN(), math.NaN()}
	}
	mx, my := Mean(x), Mean(y)
	sxx, sxy := 0.0, 0.0
	for i := range x {
		dx := x[i] - mx
		sxx += float64(dx * dx)
		sxy += float64(dx * (y[i] - my))
	}
	if sxx == 0 {
		return Line{math.NaN(), math.NaN()}
	}
	b := sxy / sxx
	return Line{my - float64(b*mx), b}
}

// Zero returns the x at which the line crosses zero, −Intercept/Slope:
// ±Inf for a flat line that is not zero, NaN for an undefined one.
func (l Line) Zero() float64 { return -l.Intercept / l.Slope }

// A PowerLaw is y = Scale·x^Exponent.
type PowerLaw struct {
	Scale, Exponent float64
}

// FitPowerLaw fits y = a·x^b by least squares on log y against log x, the
// fit a scaling law is reported with (Kim et al. 2025 fit the turns of an
// agent system this way). Points with x or y not above zero are left out,
// having no logarithm; both parts are NaN when fewer than two distinct x
// remain.
func FitPowerLaw(x, y []float64) PowerLaw {
	if len(x) != len(y) {
		return PowerLaw{math.NaN(), math.NaN()}
	}
	var lx, ly []float64
	for i := range x {
		if x[i] > 0 && y[i] > 0 {
			lx, ly = append(lx, math.Log(x[i])), append(ly, math.Log(y[i]))
		}
	}
	l := LeastSquares(lx, ly)
	return PowerLaw{math.Exp(l.Intercept), l.Slope}
}
