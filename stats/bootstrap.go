package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultResamples is the number of bootstrap resamples swarmsim uses. At
// 2,000 the Monte-Carlo error of a 95% percentile bound is a few hundredths
// of the data's standard error (rliable uses 2,000 as well).
const DefaultResamples = 2000

// DefaultSeed seeds every bootstrap of swarmsim's outputs, so that the
// same results give the same intervals.
const DefaultSeed = 20211206 // rliable's paper, NeurIPS 2021

// A Bootstrap computes percentile bootstrap intervals: it draws Resamples
// resamples (with replacement, of the data's size) from a generator
// seeded with Seed, computes the statistic on each, and reports the
// (1-Level)/2 and (1+Level)/2 quantiles of those values.
type Bootstrap struct {
	Resamples int
	Seed      uint64
	Level     float64
}

// Default is the bootstrap of swarmsim's tables and charts: 2,000
// resamples, 95% intervals.
var Default = Bootstrap{Resamples: DefaultResamples, Seed: DefaultSeed, Level: 0.95}

// A Statistic reduces values to one number. It may reorder xs.
type Statistic func(xs []float64) float64

// Mean is the arithmetic mean; NaN for no values. It lies between the
// smallest and the largest value even where rounding the sum would put it
// an ulp outside (three copies of x do not always average to x).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s, lo, hi := 0.0, xs[0], xs[0]
	for _, x := range xs {
		s += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return min(max(s/float64(len(xs)), lo), hi)
}

// Median is the middle value (the mean of the two middle ones for an
// even count); NaN for no values. It sorts xs.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// IQM is the interquartile mean: the mean of the middle half of the
// values. It is robust to a few outlying seeds yet uses half of the data,
// not one value as the median does. For counts that are multiples of four
// it is scipy.stats.trim_mean(xs, 0.25), which rliable uses; for other
// counts the values at the quartiles are counted fractionally, so that
// with three seeds the IQM weighs the middle one most (trim_mean would
// trim nothing and give the plain mean). NaN for no values. It sorts xs.
func IQM(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	// Weight each value by how much of it lies in [n/4, 3n/4] when value
	// i covers [i, i+1).
	lo, hi := float64(float64(n)/4), float64(3*float64(n)/4)
	sum := 0.0
	for i, x := range xs {
		w := min(float64(i+1), hi) - max(float64(i), lo) // finite: the builtins are math.Min and math.Max here, inlined
		if w > 0 {
			sum += float64(w * x)
		}
	}
	// Rounding must not take a mean of values outside their range.
	return min(max(sum/(hi-lo), xs[0]), xs[n-1])
}

// rng returns the generator of one interval: a function of the
// bootstrap's seed only, so that an interval does not depend on which
// intervals were computed before it.
func (b Bootstrap) rng() *rand.Rand { return rand.New(rand.NewPCG(b.Seed, 0x9e3779b97f4a7c15)) }

// quantiles returns the percentile interval of the resampled statistics
// in vals (which it sorts) around the estimate v.
func (b Bootstrap) quantiles(v float64, vals []float64) Interval {
	slices.Sort(vals)
	a := float64((1 - b.Level) / 2)
	return Interval{v, quantile(vals, a), quantile(vals, 1-a)}
}

// quantile returns the q quantile of sorted xs, interpolating linearly
// between order statistics (type 7, the default of R and NumPy).
func quantile(xs []float64, q float64) float64 {
	h := float64(q * float64(len(xs)-1))
	i := int(math.Floor(h))
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	v := xs[i] + float64((h-float64(i))*(xs[i+1]-xs[i]))
	return min(max(v, xs[i]), xs[i+1]) // rounding stays between the two
}

// CI returns stat of xs with its percentile bootstrap interval. The value
// is NaN for no values; the bounds are NaN for a single value, which
// gives no interval. Non-finite values are the caller's to remove.
func (b Bootstrap) CI(xs []float64, stat Statistic) Interval {
	n := len(xs)
	res := make([]float64, n)
	// Of two to four values there are at most 4⁴ = 256 ordered resamples
	// (27 of three seeds, a common count) against 2,000 draws: each one's
	// statistic is computed once, from the values in the same order, so
	// the interval is the one computed every time.
	var memo []float64
	var known []bool
	if n >= 2 && n <= 4 {
		tuples := 1
		for range n {
			tuples *= n
		}
		memo, known = make([]float64, tuples), make([]bool, tuples)
	}
	return b.Units(n, func(idx []int) float64 {
		code := 0
		if memo != nil {
			for _, j := range idx {
				code = code*n + j
			}
			if known[code] {
				return memo[code]
			}
		}
		for i, j := range idx {
			res[i] = xs[j]
		}
		v := stat(res)
		if memo != nil {
			memo[code], known[code] = v, true
		}
		return v
	})
}

// Units returns stat over n units (seeds, say) with its percentile
// bootstrap interval, resampling the units: stat is called with the
// indices of the units in a sample, first 0, 1, ..., n−1 for the
// estimate, then Resamples times with n indices drawn with replacement.
// It is the bootstrap of a statistic that is not a function of one value
// per unit, such as a curve fitted to each seed's points: every point of
// a unit goes into or out of the sample with it. stat may keep the slice
// only until it returns, and must be defined on every resample. NaN parts
// as for CI: all for no units, the bounds for one.
func (b Bootstrap) Units(n int, stat func(idx []int) float64) Interval {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	switch n {
	case 0:
		return nan
	case 1:
		return Interval{stat(idx), math.NaN(), math.NaN()}
	}
	v := stat(idx)
	r := b.rng()
	vals := make([]float64, b.Resamples)
	for k := range vals {
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		vals[k] = stat(idx)
	}
	return b.quantiles(v, vals)
}

// Diff returns stat(b) − stat(a) for two independent samples, with the
// stratified bootstrap interval: each sample is resampled on its own
// (the strata), as when two directories' seeds are compared. NaN parts
// as for CI, when either sample is too small.
func (bs Bootstrap) Diff(a, b []float64, stat Statistic) Interval {
	if len(a) == 0 || len(b) == 0 {
		return nan
	}
	v := stat(slices.Clone(b)) - stat(slices.Clone(a))
	if len(a) < 2 && len(b) < 2 {
		return Interval{v, math.NaN(), math.NaN()}
	}
	r := bs.rng()
	ra, rb := make([]float64, len(a)), make([]float64, len(b))
	vals := make([]float64, bs.Resamples)
	for k := range vals {
		for i := range ra {
			ra[i] = a[r.IntN(len(a))]
		}
		for i := range rb {
			rb[i] = b[r.IntN(len(b))]
		}
		vals[k] = stat(rb) - stat(ra)
	}
	return bs.quantiles(v, vals)
}

// PairedDiff returns the mean of b[i] − a[i] with its bootstrap interval,
// resampling pairs: for values that share their random draws (episode i of
// two runs of the same scenario and seed works on the same task draw),
// so that the draws' noise cancels in each difference.
func (bs Bootstrap) PairedDiff(a, b []float64) Interval {
	if len(a) != len(b) {
		return nan
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return bs.CI(d, Mean)
}
