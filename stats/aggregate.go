package stats

import (
	"math"
	"slices"
)

// An Aggregate summarises values across runs (seeds, episodes) as rliable
// does: the mean, the median and the interquartile mean, each with its
// percentile bootstrap interval.
type Aggregate struct {
	N                 int
	Mean, Median, IQM Interval
}

// Aggregate returns the aggregate of xs. Non-finite values are left out
// (and not counted in N): an undefined metric of one run says nothing
// about the others.
func (b Bootstrap) Aggregate(xs []float64) Aggregate {
	xs = Finite(xs)
	var iv [3]Interval
	b.cis(xs, []Statistic{Mean, Median, IQM}, iv[:])
	return Aggregate{N: len(xs), Mean: iv[0], Median: iv[1], IQM: iv[2]}
}

// LastTenth returns the last tenth of xs, at least one element (none of
// an empty xs): the stretch of a training whose mean is its final value,
// the figure a training, a train trial and a seed are judged by.
func LastTenth[T any](xs []T) []T { return xs[len(xs)-min(len(xs), max(1, len(xs)/10)):] }

// MeanDefined returns the mean of the values of xs that are not NaN, NaN
// when none is: the final value of a per-iteration metric that some
// iterations leave undefined (decisions per failed rollout, in one with
// none failed), which NaN would otherwise carry to the whole stretch.
func MeanDefined(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Finite returns the finite values of xs, in order.
func Finite(xs []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(xs), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
}

// ProbImprovement returns P(Y > X) + P(Y = X)/2 for Y drawn from b and X
// from a, independently: the probability that a run of b beats a run of
// a, the Mann–Whitney U statistic over |a|·|b|, rliable's probability of
// improvement. "Beats" means larger; pass negated values for metrics where
// smaller is better. NaN when either is empty.
func ProbImprovement(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	wins := 0.0
	for _, y := range b {
		for _, x := range a {
			switch {
			case y > x:
				wins++
			case y == x:
				wins += 0.5
			}
		}
	}
	return wins / float64(len(a)*len(b))
}

// PairedProbImprovement returns the fraction of pairs with b[i] > a[i],
// ties counting a half: the probability of improvement for values that
// share their random draws. NaN when the lengths differ or are zero.
func PairedProbImprovement(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return math.NaN()
	}
	wins := 0.0
	for i := range a {
		switch {
		case b[i] > a[i]:
			wins++
		case b[i] == a[i]:
			wins += 0.5
		}
	}
	return wins / float64(len(a))
}

// Profile returns the performance profile of xs at each threshold: the
// fraction of runs whose value exceeds it, with the percentile bootstrap
// interval over runs (a fraction, so inside [0, 1]). Non-finite values
// are left out.
func (b Bootstrap) Profile(xs, thresholds []float64) []Interval {
	xs = Finite(xs)
	out := make([]Interval, len(thresholds))
	for i, tau := range thresholds {
		out[i] = b.CI(xs, func(v []float64) float64 {
			n := 0
			for _, x := range v {
				if x > tau {
					n++
				}
			}
			return float64(n) / float64(len(v))
		})
	}
	return out
}
