package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/scenarios"
)

// scalingJob is a training run of v whose mean rewards are rewards.
func scalingJob(v *scenarios.Variant, seed uint64, rewards ...float64) *Job {
	j := &Job{Variant: v, Seed: seed}
	for i, r := range rewards {
		j.Rows = append(j.Rows, rlcr.Iteration{Iteration: i, RewardMean: r})
	}
	return j
}

func TestScalingCharts(t *testing.T) {
	variant := func(name string, agents int, adv rlcr.Advantage, std bool) scenarios.Variant {
		v := scenarios.Variant{Name: name}
		v.Spec.Collective.Agents = agents
		v.Spec.Train = rlcr.DefaultConfig()
		v.Spec.Train.Advantage, v.Spec.Train.StdNorm = adv, std
		return v
	}
	vs := []scenarios.Variant{
		variant("flat-2", 2, rlcr.FlatCollective, false),
		variant("flat-4", 4, rlcr.FlatCollective, false),
		variant("grpo-2", 2, rlcr.FlatCollective, true),
		variant("grpo-4", 4, rlcr.FlatCollective, true),
	}
	// Ten iterations each, so the last tenth is the last iteration. At
	// two agents the best final reward is 1 and the target 0.8: flat's
	// five-iteration mean reaches it at iteration 8, ÷std's at 4. At four
	// agents the best is 2 and the target 1.6, which ÷std's mean reaches
	// at iteration 4 (0, 2, 2, 2, 2) and flat never (counted as 10).
	jobs := []*Job{
		scalingJob(&vs[0], 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1),
		scalingJob(&vs[1], 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
		scalingJob(&vs[2], 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1),
		scalingJob(&vs[3], 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2),
	}
	specs, series := scalingCharts(Trained(jobs), jobs, "IQM, 1 seeds", "95% bootstrap CI")
	require.Len(t, specs, 2)
	require.Len(t, series, 2)
	assert.Equal(t, "scaling_final_reward", specs[0].Name)
	assert.Equal(t, "scaling_iterations_to_target", specs[1].Name)
	assert.Equal(t, "scaling", specs[1].Kind)
	assert.Equal(t, "1 of 4 runs never reached it (counted as 10)", specs[1].Note)

	final, iters := series[0], series[1]
	require.Len(t, final, 2)
	assert.Equal(t, "flat-collective", final[0].Name)
	assert.Equal(t, "flat-collective ÷std", final[1].Name)
	assert.Equal(t, []float64{2, 4}, final[0].X)
	assert.Equal(t, []float64{1, 1}, final[0].Y)
	assert.Equal(t, []float64{1, 2}, final[1].Y)
	assert.Equal(t, []float64{8, 10}, iters[0].Y)
	assert.Equal(t, []float64{4, 4}, iters[1].Y)
}

func TestScalingChartsNeedTeamSizes(t *testing.T) {
	one := scenarios.Variant{Name: "a"}
	one.Spec.Collective.Agents = 4
	other := one
	other.Name, other.Spec.Train.StdNorm = "b", true
	jobs := []*Job{scalingJob(&one, 1, 0, 1), scalingJob(&other, 1, 0, 1)}
	specs, _ := scalingCharts([]*scenarios.Variant{&one, &other}, jobs, "", "")
	assert.Empty(t, specs, "one team size")

	other.Spec.Collective.Agents, other.Spec.Train.StdNorm = 8, true
	specs, _ = scalingCharts([]*scenarios.Variant{&one, &other}, jobs, "", "")
	assert.Empty(t, specs, "two sizes, but no estimator trained at both")
}

func TestEstimatorName(t *testing.T) {
	c := rlcr.DefaultConfig()
	assert.Equal(t, "flat-collective", estimatorName(&c))
	c.Advantage, c.Credit = rlcr.PerAgent, rlcr.Passive
	assert.Equal(t, "per-agent (passive)", estimatorName(&c))
	c.Advantage, c.StdNorm = rlcr.FlatCollective, true
	assert.Equal(t, "flat-collective ÷std", estimatorName(&c))
}
