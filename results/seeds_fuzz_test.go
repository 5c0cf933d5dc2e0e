package results_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
)

// FuzzLastTenths: a training's iterations.csv, as a user may have cut or
// edited it, is read into one value per seed of each variant and metric,
// which TrainSummary aggregates into a table with one row per variant and
// metric, or refused with an error that names the file. Nothing panics.
func FuzzLastTenths(f *testing.F) {
	f.Add([]byte("variant,seed,iteration,success_rate,turns_mean\na,1,0,0.5,3\na,1,1,1,2\na,2,0,0,4\na,2,1,1,1\nb,1,0,1,1\n"))
	f.Add([]byte("variant,seed,iteration,success_rate\na,1,0,NaN\na,1,1,+Inf\n"))
	f.Add([]byte("variant,seed,iteration,success_rate\na,1,0,1\na,2,0,1\na,2,1,1\n"))
	f.Add([]byte("variant,seed,iteration\na,18446744073709551615,0\n"))
	f.Add([]byte("variant,iteration,seed,x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := rundir.ParseTable("iterations.csv", data)
		if err != nil {
			return
		}
		sv, err := results.LastTenths(tab)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "iterations.csv:"), "%v", err)
			return
		}
		rows := 0
		for _, v := range sv.Variants {
			for _, m := range sv.Metrics {
				require.Len(t, sv.Values[v][m], len(sv.Seeds[v]), "variant %s, metric %s", v, m)
				rows++
			}
		}
		for _, m := range sv.Metrics {
			if _, ok := metric.Lookup(m); !ok {
				return // metric.Of panics in tests on a column it does not know
			}
		}
		summary, err := rundir.ParseTable("summary.csv", results.TrainSummary(sv, nil))
		require.NoError(t, err)
		require.Len(t, summary.Rows, rows)
	})
}
