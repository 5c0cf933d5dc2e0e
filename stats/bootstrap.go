package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
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
		lo, hi = min(lo, x), max(hi, x) // the builtins are math.Min and math.Max for floats, inlined
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
func (b Bootstrap) rng() *rand.Rand {
	b.check()
	return rand.New(rand.NewPCG(b.Seed, 0x9e3779b97f4a7c15))
}

// check panics on a Bootstrap that cannot give an interval: no resamples,
// or a level outside [0, 1] (a zero Bootstrap is one; use Default).
func (b Bootstrap) check() {
	if b.Resamples < 1 || !(b.Level >= 0 && b.Level <= 1) {
		panic(fmt.Sprintf("stats: a Bootstrap of %d resamples at level %v (want at least 1 resample and a level in [0, 1])", b.Resamples, b.Level))
	}
}

// quantiles returns the percentile interval of the resampled statistics
// in vals (which it reorders) around the estimate v.
func (b Bootstrap) quantiles(v float64, vals []float64) Interval {
	a := float64((1 - b.Level) / 2)
	nans := 0 // slices.Sort puts NaNs first, and quantile compares with <
	for i, x := range vals {
		if math.IsNaN(x) {
			vals[nans], vals[i] = x, vals[nans]
			nans++
		}
	}
	return Interval{v, quantile(vals, nans, a), quantile(vals, nans, 1-a)}
}

// quantile returns the q quantile of xs, interpolating linearly between
// order statistics (type 7, the default of R and NumPy), as if xs were
// sorted; its first nans values are its NaNs. Between two equal
// infinities it is that infinity (interpolating would give Inf − Inf, a
// NaN). It reorders the rest: selecting two order statistics takes linear
// time, where sorting 2,000 resamples took most of a bootstrap's; where
// the values mix 0 and −0, the zero selected may carry the other sign
// than a sort would have put there.
func quantile(xs []float64, nans int, q float64) float64 {
	h := float64(q * float64(len(xs)-1))
	i := int(math.Floor(h))
	switch {
	case i+1 <= nans:
		return math.NaN() // xs[i] and so the interpolation are NaN
	case i+1 >= len(xs):
		return slices.Max(xs[nans:])
	}
	selectNth(xs[nans:], i-nans)
	next := slices.Min(xs[i+1:]) // nothing after xs[i] is smaller
	if math.IsInf(next, 0) && next == xs[i] {
		return next
	}
	v := xs[i] + float64((h-float64(i))*(next-xs[i]))
	return min(max(v, xs[i]), next) // rounding stays between the two
}

// selectNth reorders xs, which holds no NaN, so that xs[k] is its k-th
// smallest value, with none after it smaller. It partitions three ways
// around a median of three, so that runs of equal values (a statistic
// that most resamples agree on) take one pass.
func selectNth(xs []float64, k int) {
	lo, hi := 0, len(xs)
	for hi-lo > 1 {
		p := median3(xs[lo], xs[lo+(hi-lo)/2], xs[hi-1])
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch x := xs[i]; {
			case x < p:
				xs[lt], xs[i] = x, xs[lt]
				lt++
				i++
			case x > p:
				gt--
				xs[i], xs[gt] = xs[gt], x
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return // xs[lt:gt] all equal the pivot
		}
	}
}

func median3(a, b, c float64) float64 {
	return max(min(a, b), min(max(a, b), c))
}

// CI returns stat of xs with its percentile bootstrap interval. The value
// is NaN for no values; the bounds are NaN for a single value, which
// gives no interval. Non-finite values are the caller's to remove.
func (b Bootstrap) CI(xs []float64, stat Statistic) Interval {
	var iv [1]Interval
	b.cis(xs, []Statistic{stat}, iv[:])
	return iv[0]
}

// cis sets out[k] to CI(xs, stats[k]) for each statistic, from one set of
// resamples: each interval's generator depends on the seed only, so every
// CI draws the same indices, and drawing them once changes no bound.
func (b Bootstrap) cis(xs []float64, stats []Statistic, out []Interval) {
	n, m := len(xs), len(stats)
	res := make([]float64, n)     // a resample, in the order drawn
	scratch := make([]float64, n) // res for one statistic, which may reorder it
	eval := func(v []float64) {
		for k, stat := range stats {
			copy(scratch, res)
			v[k] = stat(scratch)
		}
	}
	if n >= 2 && allSame(xs) {
		// Every resample is xs itself, value for value: each statistic's
		// resamples all equal its estimate, and so do the quantiles.
		b.check()
		copy(res, xs)
		v := make([]float64, m)
		eval(v)
		for k := range out {
			out[k] = Interval{v[k], v[k], v[k]}
		}
		return
	}
	// Of two to four values there are at most 4⁴ = 256 ordered resamples
	// (27 of three seeds, a common count) against 2,000 draws: each one's
	// statistics are computed once, from the values in the same order, so
	// the interval is the one computed every time.
	var memo []float64
	var known []bool
	if n >= 2 && n <= 4 {
		tuples := 1
		for range n {
			tuples *= n
		}
		memo, known = make([]float64, tuples*m), make([]bool, tuples)
	}
	b.units(n, out, func(idx []int, v []float64) {
		code := 0
		if memo != nil {
			for _, j := range idx {
				code = code*n + j
			}
			if known[code] {
				copy(v, memo[code*m:])
				return
			}
		}
		for i, j := range idx {
			res[i] = xs[j]
		}
		eval(v)
		if memo != nil {
			copy(memo[code*m:], v)
			known[code] = true
		}
	})
}

// allSame reports whether every value of xs has the same bits: 0 and −0
// are not the same, as their sums differ in sign.
func allSame(xs []float64) bool {
	for _, x := range xs {
		if math.Float64bits(x) != math.Float64bits(xs[0]) {
			return false
		}
	}
	return true
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
	var iv [1]Interval
	b.units(n, iv[:], func(idx []int, v []float64) { v[0] = stat(idx) })
	return iv[0]
}

// resamples holds the resampled statistics' buffers between intervals: a
// training's summary asks for hundreds, each 16 KB a statistic, and in a
// process too short to collect every byte allocated is a fresh page.
var resamples = sync.Pool{New: func() any { return new([]float64) }}

// units is Units for len(out) statistics of the same resamples: stat
// sets v[k] to the k-th statistic of the sample idx.
func (b Bootstrap) units(n int, out []Interval, stat func(idx []int, v []float64)) {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	m := len(out)
	v := make([]float64, m)
	switch n {
	case 0:
		for k := range out {
			out[k] = nan
		}
		return
	case 1:
		stat(idx, v)
		for k := range out {
			out[k] = Interval{v[k], math.NaN(), math.NaN()}
		}
		return
	}
	stat(idx, v)
	est := slices.Clone(v)
	r := b.rng()
	buf := resamples.Get().(*[]float64)
	defer resamples.Put(buf)
	*buf = slices.Grow((*buf)[:0], m*b.Resamples)
	vals := (*buf)[:m*b.Resamples] // statistic k's at [k·Resamples, (k+1)·Resamples)
	for s := range b.Resamples {
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		stat(idx, v)
		for k, x := range v {
			vals[k*b.Resamples+s] = x
		}
	}
	for k := range out {
		out[k] = b.quantiles(est[k], vals[k*b.Resamples:(k+1)*b.Resamples])
	}
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
	if len(a) < 2 || len(b) < 2 {
		// One value says nothing of its sample's spread: resampled, it
		// would stay put, and the interval hold only the other's noise
		// (it held a true difference of 0 in about half the cases).
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
