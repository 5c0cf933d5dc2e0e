package stats

import "math"

// Interval is an estimate with its confidence interval [Lo, Hi].
// Undefined parts are NaN: everything when there is no data, the bounds
// when one value cannot give an interval.
type Interval struct {
	Value, Lo, Hi float64
}

// nan is the interval of no data.
var nan = Interval{math.NaN(), math.NaN(), math.NaN()}

// Contains reports whether x lies in [Lo, Hi].
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// Scale multiplies the estimate and its bounds by k, to change its unit
// or its sign. A negative k swaps the bounds, so that Lo ≤ Hi still holds.
func (iv Interval) Scale(k float64) Interval {
	lo, hi := iv.Lo*k, iv.Hi*k
	if k < 0 {
		lo, hi = hi, lo
	}
	return Interval{Value: iv.Value * k, Lo: lo, Hi: hi}
}

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// Wilson returns the proportion k/n with its 95% Wilson score interval.
// The interval always holds k/n and lies inside [0, 1]: its ends are
// exactly 0 at k = 0 and exactly 1 at k = n, where floating-point rounding
// of the formula would otherwise leave them a hair inside. All fields are
// NaN when n is 0.
func Wilson(k, n int) Interval {
	if n <= 0 || k < 0 || k > n {
		return nan
	}
	return WilsonShare(float64(k)/float64(n), n)
}

// WilsonShare is Wilson for a share p in [0, 1] of n units that need not
// be a whole number of them: the mean over n units of each one's share of
// its own trials (a recorded run's replays). The variance of such a mean
// is at most that of n single trials of rate p, so the interval is
// conservative. All fields are NaN when n is 0 or p is outside [0, 1].
func WilsonShare(p float64, n int) Interval {
	if n <= 0 || !(p >= 0 && p <= 1) {
		return nan
	}
	nf := float64(n)
	z2 := z975 * z975
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z975 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	iv := Interval{p, math.Min(p, center-half), math.Max(p, center+half)}
	if p == 0 {
		iv.Lo = 0
	}
	if p == 1 {
		iv.Hi = 1
	}
	return iv
}
