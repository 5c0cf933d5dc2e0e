package experiments

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestCommunication checks exp-communication at the cheapest message size:
// at the smallest coupling a split finishes sooner than a team (sharing is
// pure overhead), and at the largest a team succeeds more often (sharing
// reconciles the parts). Split and team trials of one seed share their
// task draws, so the differences are paired by seed; each seed's value is
// the mean over the scenario's episodes. Wilcoxon signed-rank, one-sided,
// α = 0.01, 10 seeds.
func TestCommunication(t *testing.T) {
	t.Parallel()
	sc := load(t, "exp-communication", "episodes=100")
	grid := sc.Sweep.Grid
	require.Equal(t, []string{"task.coupling", "collective.comm.message_tokens", "policy.organization"},
		[]string{grid[0].Path, grid[1].Path, grid[2].Path}, "the experiment's axes")
	lowest, highest := grid[0].Values[0], grid[0].Values[len(grid[0].Values)-1]
	cheapest := grid[1].Values[0]
	trials, metrics := sweepTrials(t, sc, 10, func(tr *scenarios.Trial) bool {
		k := param(tr, "task.coupling")
		org := param(tr, "policy.organization")
		return (k == lowest || k == highest) && param(tr, "collective.comm.message_tokens") == cheapest && (org == "split" || org == "team")
	})
	// value[coupling][org][seed]
	value := map[string]map[string]map[uint64]map[string]float64{}
	for i := range trials {
		tr := &trials[i]
		k, org := param(tr, "task.coupling"), param(tr, "policy.organization")
		if value[k] == nil {
			value[k] = map[string]map[uint64]map[string]float64{}
		}
		if value[k][org] == nil {
			value[k][org] = map[uint64]map[string]float64{}
		}
		value[k][org][tr.Seed] = metrics[i]
	}
	diff := func(k, metric string) []float64 {
		var d []float64
		for seed, team := range value[k]["team"] {
			d = append(d, team[metric]-value[k]["split"][seed][metric])
		}
		require.Len(t, d, seeds(10))
		return d
	}
	claim(t, fmt.Sprintf("coupling %s: split finishes sooner than team (finish_mean, team − split > 0)", lowest),
		signedRankP(diff(lowest, "finish_mean")))
	claim(t, fmt.Sprintf("coupling %s: team succeeds more often than split (success_rate, team − split > 0)", highest),
		signedRankP(diff(highest, "success_rate")))
}
