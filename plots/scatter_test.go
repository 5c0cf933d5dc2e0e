package plots_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
)

// TestScatterIdentity draws points whose X do not increase with the line
// y = x: both axes span the smallest to the largest value of either.
func TestScatterIdentity(t *testing.T) {
	c := plots.Chart{XLabel: "recorded (s)", YLabel: "replayed (s)"}
	p, err := plots.Scatter(c, []plots.Series{{Name: "a", X: []float64{3, 1, 2}, Y: []float64{2.5, 1.5, 4}}, {Name: "b", X: []float64{0.5}, Y: []float64{1}}}, true)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 4}, []float64{p.X.Min, p.X.Max})
	assert.Equal(t, []float64{0.5, 4}, []float64{p.Y.Min, p.Y.Max})
}

func TestScatterErrors(t *testing.T) {
	c := plots.Chart{XLabel: "x (s)", YLabel: "y (s)"}
	one := plots.Series{X: []float64{1}, Y: []float64{1}}
	cases := []struct {
		name   string
		chart  plots.Chart
		series []plots.Series
		want   string
	}{
		{"none", c, nil, "no data"},
		{"no label", plots.Chart{XLabel: "x"}, []plots.Series{one}, "needs XLabel and YLabel"},
		{"empty", c, []plots.Series{{}}, "no data"},
		{"ragged", c, []plots.Series{{X: []float64{1, 2}, Y: []float64{1}}}, "lengths differ"},
		{"NaN", c, []plots.Series{{X: []float64{math.NaN()}, Y: []float64{1}}}, "X"},
		{"unnamed", c, []plots.Series{one, one}, "has no name"},
		{"repeated", c, []plots.Series{{Name: "a", X: one.X, Y: one.Y}, {Name: "a", X: one.X, Y: one.Y}}, "repeated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := plots.Scatter(tc.chart, tc.series, true)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
