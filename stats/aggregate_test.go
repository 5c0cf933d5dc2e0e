package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/stats"
)

// TestProbImprovementTiesAndLosses separates the three outcomes of a
// comparison, which the mixed cases elsewhere can blur (a tie and a loss
// sum to the same half as a loss counted a half and a tie counted
// nothing). By the definition P(Y > X) + P(Y = X)/2: only losses give 0,
// only ties give 1/2, only wins give 1, for the paired and the unpaired
// form alike. Swapping the arguments turns wins into losses and keeps
// ties, so the two directions sum to 1.
// TestMeanDefined: the mean of the values that are not NaN, NaN for none;
// an infinity is a value, and carries.
func TestMeanDefined(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 2, 6}, 3},
		{[]float64{nan, 2, nan, 4}, 3},
		{[]float64{nan, -5}, -5},
		{[]float64{nan, nan}, nan},
		{nil, nan},
		{[]float64{nan, 1, inf}, inf},
	} {
		got := stats.MeanDefined(tc.xs)
		if math.IsNaN(tc.want) {
			assert.True(t, math.IsNaN(got), "%v: %v", tc.xs, got)
			continue
		}
		assert.Equal(t, tc.want, got, "%v", tc.xs)
	}
}

func TestProbImprovementTiesAndLosses(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"only losses", []float64{1, 2}, []float64{0, 1}, 0},
		{"only ties", []float64{1, 2}, []float64{1, 2}, 0.5},
		{"only wins", []float64{1, 2}, []float64{2, 3}, 1},
		// Paired: one win (3 > 1), one tie (2 = 2), two losses: 1.5/4.
		{"a win, a tie, two losses", []float64{1, 2, 3, 4}, []float64{3, 2, 1, 0}, 0.375},
	} {
		p := stats.PairedProbImprovement(tc.a, tc.b)
		assert.Equal(t, tc.want, p, "paired, %s", tc.name)
		assert.Equal(t, 1.0, p+stats.PairedProbImprovement(tc.b, tc.a), "paired, swapped, %s", tc.name)
	}
	// Unpaired, one value each: a single pair, so each outcome alone.
	for _, tc := range []struct {
		name string
		x, y float64
		want float64
	}{
		{"loss", 2, 1, 0},
		{"tie", 2, 2, 0.5},
		{"win", 1, 2, 1},
	} {
		assert.Equal(t, tc.want, stats.ProbImprovement([]float64{tc.x}, []float64{tc.y}), "unpaired %s", tc.name)
	}
}
