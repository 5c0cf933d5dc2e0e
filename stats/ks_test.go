package stats

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKSDistance(t *testing.T) {
	uniform := func(x float64) float64 { return math.Min(math.Max(x, 0), 1) } // U(0, 1)
	// atOne is the distribution function of a point mass at 1.
	atOne := func(x float64) float64 {
		if x < 1 {
			return 0
		}
		return 1
	}
	for _, c := range []struct {
		name string
		x    []float64
		cdf  func(float64) float64
		want float64
	}{
		{"the largest gap is at 0.9⁻: 0.9 − 0.5", []float64{0.2, 0.9}, uniform, 0.4},
		{"a tie moves the empirical CDF by both", []float64{0.5, 0.5}, uniform, 0.5},
		{"an atom matched by the sample's tie", []float64{1, 1}, atOne, 0},
		{"an atom missed by half the sample", []float64{0, 1}, atOne, 0.5},
		{"an unsorted sample, as sorted", []float64{0.9, 0.5, 0.1}, uniform, 0.7 / 3},
		{"an unsorted sample with a tie", []float64{0.9, 0.2, 0.9}, uniform, 0.9 - 1.0/3},
	} {
		x := slices.Clone(c.x)
		require.InDelta(t, c.want, KSDistance(x, c.cdf), 1e-12, c.name)
		require.Equal(t, c.x, x, "%s: x is left as it is", c.name)
	}
}
