package train

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
)

// TestFinalBarsSeeds: a final-value chart says over how many seeds its
// bars are, a range where a metric is undefined for some seeds of a
// variant (exp-parl's spawn finish rate, over 7 of 10 seeds where no
// subagent was assigned on 3), and its CSV names the column of IQMs so.
func TestFinalBarsSeeds(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		a, b []float64
		stat string
	}{
		{"all seeds", []float64{1, 2, 3, 4}, []float64{2, 3, 4, 5}, "IQM, 4 seeds"},
		{"fewer for one", []float64{1, 2, 3, 4}, []float64{nan, 3, nan, 5}, "IQM, 2 to 4 seeds"},
		{"fewer for all", []float64{nan, 2, 3, 4}, []float64{2, nan, 4, 5}, "IQM, 3 seeds"},
		{"one", []float64{nan, nan, 3, nan}, []float64{nan, nan, nan, nan}, "IQM, 1 seed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &results.SeedValues{Variants: []string{"a", "b"}, Values: map[string]map[string][]float64{
				"a": {"spawn_finish_rate": tc.a}, "b": {"spawn_finish_rate": tc.b},
			}}
			var chart experiment.Chart
			for _, c := range finalBars(sv, "95% bootstrap CI") {
				if c.Name == "final_spawn_finish_rate" {
					chart = c
				}
			}
			dir, err := rundir.Create(filepath.Join(t.TempDir(), "train"), false)
			require.NoError(t, err)
			cw, err := experiment.NewChartWriter(dir, nil)
			require.NoError(t, err)
			require.NoError(t, chart.Draw(cw))
			require.NoError(t, cw.Close())
			data, err := os.ReadFile(filepath.Join(dir.Path(), experiment.ChartsDir, experiment.ChartIndex))
			require.NoError(t, err)
			specs, err := plots.ParseSpecs(experiment.ChartIndex, data)
			require.NoError(t, err)
			require.Len(t, specs, 1)
			assert.Equal(t, tc.stat, specs[0].Stat)
			csv, err := os.ReadFile(filepath.Join(dir.Path(), experiment.ChartsDir, "final_spawn_finish_rate.csv"))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(csv), "label,iqm,lo,hi\n"), "%s", csv)
		})
	}
}
