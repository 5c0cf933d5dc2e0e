package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// TestCompareChartsFinishTime checks that a comparison charts the finish
// time of every kind of directory: a run's, a training's and a run
// sweep's, whose finish_mean compare of two sweeps of exp-communication
// left out.
func TestCompareChartsFinishTime(t *testing.T) {
	for _, m := range []string{"finish_time", "latency_mean", "finish_mean"} {
		t.Run(m, func(t *testing.T) {
			rows := []results.Comparison{{Variant: "a", Metric: m, Diff: stats.Interval{Value: -30, Lo: -61, Hi: 2}}}
			charts := CompareCharts(rows, "A", "B", true)
			require.Len(t, charts, 1)
			assert.Equal(t, "diff_"+m, charts[0].Name)
		})
	}
}

// TestCompareChartsStat checks that a comparison's charts say what their
// differences are of: IQMs over seeds for trainings and sweeps, a run's
// means over episodes, paired where every bar is; a bare "difference"
// read as one of means on a training's chart.
func TestCompareChartsStat(t *testing.T) {
	iv := stats.Interval{Value: -30, Lo: -61, Hi: 2}
	for _, tc := range []struct {
		name      string
		paired    []bool
		overSeeds bool
		want      string
	}{
		{"training or sweep", []bool{false, false}, true, "IQM difference over seeds"},
		{"runs of one seed", []bool{true, true}, false, "mean difference, paired by episode"},
		{"runs of two seeds", []bool{false, false}, false, "difference of means over episodes"},
		{"runs paired in part", []bool{true, false}, false, "difference of means over episodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rows []results.Comparison
			for i, p := range tc.paired {
				rows = append(rows, results.Comparison{Variant: fmt.Sprint("v", i), Metric: "reward_mean", Diff: iv, Paired: p})
			}
			charts := CompareCharts(rows, "A", "B", tc.overSeeds)
			require.Len(t, charts, 1)
			specs := drawnSpecs(t, charts)
			require.Len(t, specs, 1)
			assert.Equal(t, tc.want, specs[0].Stat)
		})
	}
}

// TestCompareCharts checks that a comparison charts only the charted
// metrics a variant has a difference of, leaving out (with a note) the
// variants without one, as charts of differences whose values are
// labelled with the metric's label and unit and the names of A and B
// (issue 26, item 6: they read "reward_mean, B - A").
func TestCompareCharts(t *testing.T) {
	nan := math.NaN()
	rows := []results.Comparison{
		{Variant: "a", Metric: "reward_mean", Diff: stats.Interval{Value: 1, Lo: 0.5, Hi: 1.5}},
		{Variant: "b", Metric: "reward_mean", Diff: stats.Interval{Value: nan, Lo: nan, Hi: nan}},
		{Variant: "a", Metric: "latency_mean", Diff: stats.Interval{Value: -30, Lo: -61, Hi: 2}},
		{Variant: "a", Metric: "success_rate", Diff: stats.Interval{Value: nan, Lo: nan, Hi: nan}},
		{Variant: "a", Metric: "lr", Diff: stats.Interval{Value: 1, Lo: 0.5, Hi: 1.5}}, // not charted
	}
	charts := CompareCharts(rows, "none", "high", true)
	require.Len(t, charts, 2)
	assert.Equal(t, "diff_reward_mean", charts[0].Name)
	assert.Equal(t, "diff_latency_mean", charts[1].Name)

	specs := drawnSpecs(t, charts)
	require.Len(t, specs, 2)
	assert.Equal(t, "left out (no values): b", specs[0].Note)
	assert.Equal(t, "mean reward, high – none", specs[0].YLabel)
	assert.Equal(t, "mean finish time (s), high – none", specs[1].YLabel)
	for _, s := range specs {
		assert.True(t, s.Difference, "%s is a chart of differences", s.Name)
	}
}

// drawnSpecs draws charts into a new directory's chart writer and returns
// the specs its index holds.
func drawnSpecs(t *testing.T, charts []Chart) []plots.Spec {
	t.Helper()
	dir, err := rundir.Create(filepath.Join(t.TempDir(), "compare"), false)
	require.NoError(t, err)
	cw, err := NewChartWriter(dir, nil)
	require.NoError(t, err)
	for _, c := range charts {
		require.NoError(t, c.Draw(cw))
	}
	require.NoError(t, cw.Close())
	data, err := os.ReadFile(filepath.Join(dir.Path(), ChartsDir, ChartIndex))
	require.NoError(t, err)
	specs, err := plots.ParseSpecs(ChartIndex, data)
	require.NoError(t, err)
	return specs
}
