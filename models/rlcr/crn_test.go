package rlcr

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// luckyProblem is tinyProblem with subtasks that often fail, so that the
// environment's draws decide much of the outcome.
func luckyProblem() Problem {
	prob := tinyProblem()
	prob.Task.Difficulty = sim.Const(0.3)
	return prob
}

// TestCRNSharesTheEnvironmentWithinAGroup runs a policy that ignores its
// random draws: with common random numbers every rollout of a group is the
// same episode, and groups (different task instances) differ; without,
// rollouts of one group see different luck.
func TestCRNSharesTheEnvironmentWithinAGroup(t *testing.T) {
	prob := luckyProblem()
	split, err := policy.Organization("split")
	require.NoError(t, err)
	const B, G = 4, 6
	for _, crn := range []bool{true, false} {
		differ := 0
		for seed := range uint64(10) {
			iter := sim.NewStreams(seed).Derive("iteration", 0)
			results := iteration0(t, rollouter(prob, B, G, crn), split, iter, newMemory(B, G)).results
			for b := range B {
				for i := 1; i < G; i++ {
					same := results[b*G+i].Metrics == results[b*G].Metrics
					if crn {
						require.True(t, same, "seed %d, group %d, rollout %d differs from rollout 0 under CRN", seed, b, i)
					} else if !same {
						differ++
					}
				}
			}
			if crn {
				assert.NotEqual(t, results[0].Metrics, results[G].Metrics, "seed %d: two task instances ran the same episode", seed)
			}
		}
		if !crn {
			assert.Greater(t, differ, 0, "without CRN the rollouts of a group see different luck")
		}
	}
}

// TestCRNKeepsThePolicysDraws checks that the rollouts of a group still
// differ in what a sampling policy decides: CRN shares the environment,
// not the policy's draws.
func TestCRNKeepsThePolicysDraws(t *testing.T) {
	prob := luckyProblem()
	iter := sim.NewStreams(5).Derive("iteration", 0)
	const B, G = 2, 4
	results := iteration0(t, rollouter(prob, B, G, true), policy.NewLinear(), iter, newMemory(B, G)).results
	for b := range B {
		distinct := map[string]bool{}
		for i := range G {
			distinct[actionString(results[b*G+i].Decisions)] = true
		}
		assert.Greater(t, len(distinct), 1, "group %d: every rollout took the same decisions", b)
	}
}

// rollouter is a training of prob with B×G rollouts an iteration, with
// common random numbers or not, on two workers, for its rollouts and
// advantages.
func rollouter(prob Problem, B, G int, crn bool) *training {
	return &training{Run: Run{Problem: prob, Config: Config{Batch: B, Group: G, CRN: crn}, Workers: 2}}
}

// iteration0 runs tr's rollouts by pol from iter on mem, as Train's step
// 1 does, and returns the batch.
func iteration0(t *testing.T, tr *training, pol collective.Policy, iter sim.Streams, mem *memory) *batch {
	t.Helper()
	b := &batch{streams: iter, G: tr.Config.Group}
	require.NoError(t, tr.rollouts(context.Background(), pol, b, mem))
	return b
}

func actionString(ds []collective.Decision) string {
	s := make([]byte, len(ds))
	for i, d := range ds {
		s[i] = byte('0' + d.Action)
	}
	return string(s)
}

// flagshipLike is the latency-pressure scenario's problem (scenarios
// cannot be loaded from here) at its medium latency weight.
func flagshipLike() Problem {
	c := collective.Defaults()
	c.Agents, c.Spawn, c.TimeLimit = 12, 2*sim.Minute, 6*sim.Hour
	return Problem{
		Task: task.Family{Shape: "fork-join", Width: 12, Stages: 1,
			Work: sim.LogNormal(600, 0.3), Difficulty: sim.Const(0.01), OutputTokens: sim.Const(500)},
		Collective: c,
		Reward:     Reward{Task: 1, Latency: 0.5, Penalty: PenaltyLinear, Cost: 1},
	}
}

// batchGradient is the flat-collective policy gradient of one batch of
// tr at pol's parameters, computed as Train's steps 1 to 4 compute it.
func batchGradient(t *testing.T, tr *training, pol policy.Softmax, iter sim.Streams) []float64 {
	t.Helper()
	prob, cfg := tr.Problem, tr.Config
	B, G := cfg.Batch, cfg.Group
	mem := newMemory(B, G)
	results := iteration0(t, rollouter(prob, B, G, cfg.CRN), pol, iter, mem).results
	metrics := make([]collective.Metrics, B*G)
	for i, r := range results {
		metrics[i] = r.Metrics
	}
	rewards := make([]float64, B*G)
	for b := range B {
		prob.Reward.Group(&prob.Collective, 0, metrics[b*G:(b+1)*G], rewards[b*G:(b+1)*G])
	}
	baseline := math.NaN()
	adv := rolloutAdvantages(nil, cfg, rewards, G, &baseline)
	samples := collect(results, mem, true)
	for i := range samples {
		samples[i].adv = adv[samples[i].rollout]
	}
	weigh(samples, cfg.LossNorm, B*G)
	grad := make([]float64, len(pol.Params()))
	policyGradient(pol, samples, objective{}, grad)
	return grad
}

// gradientVariance is the total variance (trace of the covariance) of the
// batch gradient of tr over repeated batches at fixed parameters.
func gradientVariance(t *testing.T, tr *training, pol policy.Softmax, seed uint64, repeats int) float64 {
	t.Helper()
	root := sim.NewStreams(seed)
	grads := make([][]float64, repeats)
	for r := range repeats {
		grads[r] = batchGradient(t, tr, pol, root.Derive("iteration", uint64(r)))
	}
	total := 0.0
	for j := range grads[0] {
		col := make([]float64, repeats)
		for r := range repeats {
			col[r] = grads[r][j]
		}
		_, sd := meanStd(col)
		total += sd * sd * float64(repeats) / float64(repeats-1)
	}
	return total
}

// TestCRNLowersGradientVariance is the claim docs/rlcr.md reports: on the
// flagship's problem, common random numbers lower the variance of the
// batch gradient once the policy has learned something (at the uniform
// initial policy the cost of its random detours dominates every group's
// spread, and CRN has little to remove). For each of 12 seeds it trains
// 20 iterations, then compares the total gradient variance over 16
// batches at those parameters with CRN and without; one-sided exact sign
// test over the seeds at α = 0.01 (CRN lower in at least 11 of 12:
// p = 0.0032). Written on seeds 1000–1011; the seeds below (1–12) were
// first run after the test and its threshold were fixed.
func TestCRNLowersGradientVariance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20,000 episodes")
	}
	prob := flagshipLike()
	cfg := DefaultConfig()
	cfg.Iterations, cfg.Batch, cfg.Group = 20, 4, 8
	const seeds, repeats = 12, 16
	lower := 0
	ratios := make([]float64, 0, seeds)
	for s := range uint64(seeds) {
		seed := 1 + s
		cfg.CRN = true
		pol, err := Train(context.Background(), Run{Problem: prob, Config: cfg, Seed: seed, Workers: 2})
		require.NoError(t, err)
		with := gradientVariance(t, &training{Run: Run{Problem: prob, Config: cfg}}, pol, seed, repeats)
		cfg.CRN = false
		without := gradientVariance(t, &training{Run: Run{Problem: prob, Config: cfg}}, pol, seed, repeats)
		if with < without {
			lower++
		}
		ratios = append(ratios, with/without)
	}
	t.Logf("gradient variance with CRN / without, per seed: %.3f", ratios)
	assert.GreaterOrEqual(t, lower, 11, "CRN lowers the gradient's variance in at least 11 of %d seeds (sign test, α = 0.01)", seeds)
}
