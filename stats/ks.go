package stats

import (
	"math"
	"slices"
)

// KSDistance returns the Kolmogorov–Smirnov distance sup |F_n(x) − F(x)|
// between the empirical distribution of the sample x and the distribution
// function cdf. At each distinct value it compares the empirical CDF just
// below the value with cdf just below it, and the empirical CDF at the
// value with cdf at it, so that ties and distributions with atoms (counts)
// are measured exactly. x need not be sorted: an unsorted x is sorted in a
// copy, and x is left as it is.
func KSDistance(x []float64, cdf func(float64) float64) float64 {
	if !slices.IsSorted(x) {
		// The scan below reads the empirical CDF off positions in x, which
		// only a sorted sample gives: unsorted, it measured nothing.
		x = slices.Sorted(slices.Values(x))
	}
	n := float64(len(x))
	d := 0.0
	for i := 0; i < len(x); {
		j := i
		for j < len(x) && x[j] == x[i] {
			j++
		}
		f := cdf(x[i])
		below := cdf(math.Nextafter(x[i], math.Inf(-1)))
		d = max(d, math.Abs(float64(i)/n-below), math.Abs(float64(j)/n-f))
		i = j
	}
	return d
}
