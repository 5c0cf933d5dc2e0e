package train

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestAlike: the variants that differ only in their policy section are
// the ones training cannot tell apart, and Jobs trains the first of each
// group once.
func TestAlike(t *testing.T) {
	const head = "task: {shape: fork-join, width: 4, stages: 1, work: 5m}\ncollective: {agents: 4}\npolicy: {organization: split}\nvariants:\n"
	tests := []struct {
		name, scenario string
		src            string
		want           [][]int
		trained        []string
	}{
		{"tiny", "tiny", "", [][]int{{0, 1}}, []string{"split"}},
		{"organizations", "organizations", "", [][]int{{0, 1, 2}}, []string{"sequential"}},
		{"latency pressure", "latency-pressure", "", nil, []string{"none", "low", "medium", "high"}},
		{"two groups and one apart", "", head + "  - {name: a}\n  - {name: b, set: {collective.agents: 8}}\n  - {name: c, set: {policy.organization: team}}\n  - {name: d, set: {collective.agents: 8, policy.organization: sequential}}\n  - {name: e, set: {train.lr: 0.2}}\n",
			[][]int{{0, 2}, {1, 3}}, []string{"a", "b", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sc *scenarios.Scenario
			var err error
			if tt.src != "" {
				sc, err = scenarios.Parse([]byte(tt.src), "x.yaml", nil)
			} else {
				sc, err = scenarios.Load(tt.scenario, nil)
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, Alike(sc.Variants))
			jobs, total := Jobs(sc, 1, 2)
			var names []string
			for _, v := range Trained(jobs) {
				names = append(names, v.Name)
			}
			assert.Equal(t, tt.trained, names)
			assert.Len(t, jobs, 2*len(tt.trained))
			assert.Equal(t, 2*len(tt.trained)*sc.Variants[0].Spec.Train.Iterations, total)
		})
	}
}

// TestBaselinesScoreEveryVariant: every variant, trained or not, gets a
// baseline per seed over the last tenth of its training, and a variant's
// baseline differs from another's when their organizations differ (the
// same episodes, other decisions).
func TestBaselinesScoreEveryVariant(t *testing.T) {
	sc, err := scenarios.Load("tiny", []string{"train.iterations=20", "train.batch=2", "train.group=2"})
	require.NoError(t, err)
	jobs, err := Baselines(context.Background(), sc, 3, 2, Options{Workers: 2})
	require.NoError(t, err)
	require.Len(t, jobs, 4)
	assert.Equal(t, 2*2*2, BaselineIterations(sc, 2), "two iterations (a tenth of 20) of two variants and two seeds")
	for _, j := range jobs {
		require.Len(t, j.Rows, 2, "%s seed %d", j.Variant.Name, j.Seed)
		assert.Equal(t, 18, j.Rows[0].Iteration)
	}
	sv := baselineValues(jobs)
	assert.Equal(t, []string{"split", "team"}, sv.Variants)
	assert.Equal(t, []uint64{3, 4}, sv.Seeds["team"])
	assert.NotEqual(t, sv.Values["split"]["latency_mean"], sv.Values["team"]["latency_mean"])
	r := jobs[0].Rows
	assert.InDelta(t, (r[0].RewardMean+r[1].RewardMean)/2, sv.Values["split"]["reward_mean"][0], 1e-12)
}
