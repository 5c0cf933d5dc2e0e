package experiment

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// TestCompareCharts checks that a comparison charts only the charted
// metrics a variant has a difference of, leaving out (with a note) the
// variants without one.
func TestCompareCharts(t *testing.T) {
	nan := math.NaN()
	rows := []results.Comparison{
		{Variant: "a", Metric: "reward_mean", Diff: stats.Interval{Value: 1, Lo: 0.5, Hi: 1.5}},
		{Variant: "b", Metric: "reward_mean", Diff: stats.Interval{Value: nan, Lo: nan, Hi: nan}},
		{Variant: "a", Metric: "latency_mean", Diff: stats.Interval{Value: nan, Lo: nan, Hi: nan}},
		{Variant: "a", Metric: "lr", Diff: stats.Interval{Value: 1, Lo: 0.5, Hi: 1.5}}, // not charted
	}
	charts := CompareCharts(rows)
	require.Len(t, charts, 1)
	assert.Equal(t, "diff_reward_mean", charts[0].Name)

	dir, err := rundir.Create(filepath.Join(t.TempDir(), "compare"), false)
	require.NoError(t, err)
	cw, err := NewChartWriter(dir)
	require.NoError(t, err)
	require.NoError(t, charts[0].Draw(cw))
	require.NoError(t, cw.Close())
	data, err := os.ReadFile(filepath.Join(dir.Path(), ChartsDir, ChartIndex))
	require.NoError(t, err)
	assert.Contains(t, string(data), "left out (no values): b")
	assert.Contains(t, string(data), `"reward_mean, B - A"`, "a unit of 1 is not written")
}
