package rlcr

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
)

// baseline runs Baseline and returns the rows it emitted.
func baseline(t *testing.T, prob Problem, cfg Config, pol collective.Policy, from, workers int) []Iteration {
	t.Helper()
	var rows []Iteration
	err := Baseline(context.Background(), Run{Problem: prob, Config: cfg, Seed: 7, Workers: workers, Emit: func(it Iteration) error {
		rows = append(rows, it)
		return nil
	}}, pol, from)
	require.NoError(t, err)
	return rows
}

// TestBaselineScoresTheTrainingsEpisodes: Baseline with the policy a
// training starts from reproduces the figures of that training's first
// iteration (the same tasks, rollouts and streams, and the same reward);
// its rows do not depend on where it starts or on the workers.
func TestBaselineScoresTheTrainingsEpisodes(t *testing.T) {
	prob, cfg := tinyProblem(), tinyConfig()
	trained, _ := train(t, prob, cfg, 1)
	first := baseline(t, prob, cfg, policy.NewLinear(), 0, 1)
	require.Len(t, first, cfg.Iterations)
	for _, r := range []*Iteration{&first[0], &trained[0]} {
		r.Decisions, r.Entropy, r.ActionProbs, r.GradNorm, r.LR, r.PolicySteps, r.ValueSteps, r.ValueEV = 0, 0, [collective.NumActions]float64{}, 0, 0, 0, 0, 0
	}
	// NaN (no failed rollout) is not equal to itself: the rows are
	// compared as printed.
	assert.Equal(t, fmt.Sprintf("%+v", trained[0]), fmt.Sprintf("%+v", first[0]), "iteration 0: the policy has not learned yet")
	assert.NotEqual(t, trained[cfg.Iterations-1].RewardMean, first[cfg.Iterations-1].RewardMean, "the training has moved on by its last iteration")

	team, err := policy.Organization("team")
	require.NoError(t, err)
	all := baseline(t, prob, cfg, team, 0, 1)
	tail := baseline(t, prob, cfg, team, 2, 3)
	assert.Equal(t, fmt.Sprintf("%+v", all[2:]), fmt.Sprintf("%+v", tail), "from iteration 2, on three workers")
	assert.Equal(t, 2, tail[0].Iteration)
	assert.NotEqual(t, all[0].RewardMean, first[0].RewardMean, "team is not the learner's start")

	err = Baseline(context.Background(), Run{Problem: prob, Config: cfg, Seed: 7}, team, cfg.Iterations+1)
	assert.ErrorContains(t, err, "Baseline from iteration 5 of 4")
	// From Iterations is the empty range, which the check allows (only
	// past it is an error): it runs nothing and emits no row.
	assert.Empty(t, baseline(t, prob, cfg, team, cfg.Iterations, 1), "from iteration 4 of 4: nothing to score")
}

// TestBaselineRefusesBadArguments: a nil policy and a start past the
// iterations are errors that say so, not a panic in a rollout.
func TestBaselineRefusesBadArguments(t *testing.T) {
	prob, cfg := tinyProblem(), tinyConfig()
	team, err := policy.Organization("team")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		pol  collective.Policy
		from int
		want string
	}{
		{"nil policy", nil, 0, "policy is nil"},
		{"from past the end", team, cfg.Iterations + 1, "Baseline from iteration 5 of 4"},
		{"negative from", team, -1, "Baseline from iteration -1 of 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Baseline(context.Background(), Run{Problem: prob, Config: cfg, Seed: 7, Workers: 1}, tc.pol, tc.from)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
