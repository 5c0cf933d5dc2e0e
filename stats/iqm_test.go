package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/stats"
)

// TestIQMTrimsInfiniteOutliers: the IQM is meant to be robust to a few
// outlying seeds, and at counts that are multiples of four it is
// scipy.stats.trim_mean(xs, 0.25), which drops the lowest and highest
// quarter outright, whatever their values. An infinite outlier in a
// trimmed quarter must therefore not reach the result: it has weight
// exactly 0 (value i covers [i, i+1), which touches [n/4, 3n/4] only at an
// end), and 0·±Inf would be NaN. Expected values are the plain mean of the
// middle half, computed by hand.
func TestIQMTrimsInfiniteOutliers(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
	}{
		// n = 4: of sorted 1, 2, 3, +Inf keep indices 1 and 2: (2+3)/2.
		{"+Inf at the top", []float64{3, inf, 1, 2}, 2.5},
		// Sorted -Inf, 1, 2, +Inf: keep 1 and 2.
		{"±Inf at both ends", []float64{inf, 1, -inf, 2}, 1.5},
		// n = 8: keep indices 2..5 (3, 4, 5, 6); indices 1 and 6 have
		// weight 0, index 0 and 7 lie outside altogether.
		{"n = 8", []float64{-inf, -inf, 3, 4, 5, 6, inf, inf}, 4.5},
	} {
		got := stats.IQM(append([]float64(nil), tc.xs...))
		assert.Equal(t, tc.want, got, tc.name)
	}
}
