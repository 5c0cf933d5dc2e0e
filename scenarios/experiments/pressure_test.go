package experiments

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestPressure checks exp-pressure's dose-response: over latency weights
// 0, 0.5 and 2, the learned parallelism (last tenth of training) rises
// and the finish time falls. Jonckheere–Terpstra, one-sided, by 20,000
// permutations, α = 0.01, 10 seeds per weight, trained for half the
// scenario's iterations to keep the test cheap.
func TestPressure(t *testing.T) {
	t.Parallel()
	sc := load(t, "exp-pressure", "train.iterations=75") // half the scenario's: the trend appears early
	require.Equal(t, "reward.latency", sc.Sweep.Grid[0].Path)
	weights := []string{"0", "0.5", "2"}
	trials, metrics := sweepTrials(t, sc, 10, func(tr *scenarios.Trial) bool {
		w := param(tr, "reward.latency")
		return w == weights[0] || w == weights[1] || w == weights[2]
	})
	par := make([][]float64, len(weights))
	lat := make([][]float64, len(weights))
	for i := range trials {
		for g, w := range weights {
			if param(&trials[i], "reward.latency") == w {
				par[g] = append(par[g], metrics[i]["parallelism_mean"])
				lat[g] = append(lat[g], -metrics[i]["latency_mean"])
			}
		}
	}
	for g := range weights {
		require.Len(t, par[g], seeds(10))
		t.Logf("weight %s: parallelism %.2f, latency %.0f s", weights[g], par[g], negate(lat[g]))
	}
	claim(t, "parallelism rises with the latency weight", trendP(par, 20000))
	claim(t, "finish time falls with the latency weight", trendP(lat, 20000))
}
