package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestLegendNamesWhatVaries: latency-pressure's variants vary the latency
// weight, and their curves say so; variants that vary more settings than
// an entry can hold keep their names; long paths are shortened to their
// last part where that is unique.
func TestLegendNamesWhatVaries(t *testing.T) {
	vs := libraryVariants(t, "latency-pressure")
	paths, _ := Varied(vs)
	assert.Equal(t, []string{"reward.latency"}, paths)
	names := legendNames(vs)
	assert.Equal(t, "none: reward.latency 0", names[vs[0]])
	assert.Equal(t, "low: reward.latency 0.25", names[vs[1]])

	src := "task: {shape: fork-join, width: 4, stages: 1, work: 5m}\ncollective: {agents: 4, time_limit: 2h}\npolicy: {organization: split}\nreward: {penalty: linear}\nvariants:\n" +
		"  - {name: a}\n  - {name: b, set: {collective.agents: 8, train.lr: 0.2, reward.latency: 1, policy.organization: team}}\n"
	sc, err := scenarios.Parse([]byte(src), "x.yaml", nil)
	require.NoError(t, err)
	two := []*scenarios.Variant{&sc.Variants[0], &sc.Variants[1]}
	paths, _ = Varied(two)
	assert.Equal(t, []string{"collective.agents", "reward.latency", "train.lr"}, paths, "the policy section is not trained on")
	names = legendNames(two)
	assert.Equal(t, "a", names[two[0]])
	assert.Equal(t, "b", names[two[1]])

	// exp-contention's entries named in full did not fit a column-wide
	// chart, which was left out.
	vs = libraryVariants(t, "exp-contention")
	names = legendNames(vs)
	var got []string
	for _, v := range vs {
		assert.LessOrEqual(t, len(names[v]), maxEntry, names[v])
		got = append(got, names[v])
	}
	assert.Contains(t, got, "own-server: max_batch 100000, step_per_seq 0s")

	// exp-gae's λ does nothing under grpo's flat-collective advantage:
	// its entry leaves it out.
	vs = libraryVariants(t, "exp-gae")
	names = legendNames(vs)
	got = got[:0]
	for _, v := range vs {
		got = append(got, names[v])
	}
	assert.Equal(t, []string{"lambda-1: advantage ppo-gae, lambda 1", "lambda-0.95: advantage ppo-gae, lambda 0.95",
		"lambda-0.8: advantage ppo-gae, lambda 0.8", "grpo: advantage flat-collective"}, got)
}

// libraryVariants returns the variants of the library scenario name.
func libraryVariants(t *testing.T, name string) []*scenarios.Variant {
	t.Helper()
	sc, err := scenarios.Load(name, nil)
	require.NoError(t, err)
	vs := make([]*scenarios.Variant, len(sc.Variants))
	for i := range sc.Variants {
		vs[i] = &sc.Variants[i]
	}
	return vs
}

func TestShortPaths(t *testing.T) {
	assert.Equal(t, []string{"max_batch", "a.x", "b.x", "lr"}, shortPaths([]string{"collective.serving.max_batch", "a.x", "b.x", "train.lr"}))
}

func TestMovingAverage(t *testing.T) {
	assert.Equal(t, []float64{1, 2, 3}, movingAverage([]float64{1, 2, 3}, 1))
	assert.Equal(t, []float64{2, 3, 5, 7}, movingAverage([]float64{2, 4, 6, 8}, 2))
	got := movingAverage([]float64{1, math.NaN(), 3, 5}, 2)
	assert.True(t, math.IsNaN(got[1]) && math.IsNaN(got[2]), "%v", got)
	assert.Equal(t, []float64{1, 4}, []float64{got[0], got[3]}, "a NaN spoils only its windows")
}
