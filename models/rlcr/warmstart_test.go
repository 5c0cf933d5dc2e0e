package rlcr

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/sim"
)

// agreement is the fraction of the organization's decisions (on episodes
// it ran itself) on which pol's most probable action is the
// organization's.
func agreement(t *testing.T, prob Problem, pol policy.Softmax, org string) float64 {
	t.Helper()
	f, err := policy.Organization(org)
	require.NoError(t, err)
	agree, n := 0, 0
	var probs [collective.NumActions]float64
	eachChoice(t, prob, f, sim.NewStreams(99), 16, func(d *collective.Decision, x *[policy.NumFeatures]float64) {
		pol.Probs(x, d.Mask, &probs)
		best := collective.Action(0)
		for a := range collective.Action(collective.NumActions) {
			if probs[a] > probs[best] {
				best = a
			}
		}
		if best == d.Action {
			agree++
		}
		n++
	})
	return float64(agree) / float64(n)
}

// eachChoice runs the organization org on n task instances, instance i
// drawn from streams' branch "task" i and played from its branch "rollout"
// i, and calls f with each decision that had a choice and its features.
func eachChoice(t *testing.T, prob Problem, org collective.Policy, streams sim.Streams, n int, f func(d *collective.Decision, x *[policy.NumFeatures]float64)) {
	t.Helper()
	var x [policy.NumFeatures]float64
	for i := range uint64(n) {
		g, err := prob.Task.Draw(streams.Derive("task", i).New("graph", 0))
		require.NoError(t, err)
		r, err := collective.Run(g, prob.Collective, org, streams.Derive("rollout", i), collective.Options{Record: true})
		require.NoError(t, err)
		for j := range r.Decisions {
			if d := &r.Decisions[j]; !d.Mask.Single() {
				policy.Features(&d.Obs, &x)
				f(d, &x)
			}
		}
	}
}

func TestWarmStartImitatesTheOrganization(t *testing.T) {
	prob := tinyProblem()
	for _, org := range []string{"split", "sequential"} {
		cfg := tinyConfig()
		cfg.WarmStart, cfg.WarmIterations, cfg.LR = org, 30, 0.1
		cold := policy.NewLinear()
		before := agreement(t, prob, cold, org)
		warm := policy.NewLinear()
		require.NoError(t, (&training{Run: Run{Problem: prob, Config: cfg, Workers: 1}}).warmStart(context.Background(), warm, sim.NewStreams(7)))
		after := agreement(t, prob, warm, org)
		assert.Greater(t, after, 0.9, "%s: agreement after cloning", org)
		assert.Greater(t, after, before, "%s: cloning must move towards the organization", org)
	}
}

func TestWarmStartValidation(t *testing.T) {
	for _, c := range []struct {
		org   string
		iters int
		want  string
	}{
		{"", 5, "nothing to imitate"},
		{"split", 0, "needs warm_iterations"},
		{"split", -1, "out of range"},
		{"committee", 5, "unknown organization"},
	} {
		cfg := DefaultConfig()
		cfg.WarmStart, cfg.WarmIterations = c.org, c.iters
		err := cfg.Validate()
		require.Error(t, err, "%+v", c)
		assert.Contains(t, err.Error(), c.want)
	}
	cfg := DefaultConfig()
	cfg.WarmStart, cfg.WarmIterations = "team", 3
	assert.NoError(t, cfg.Validate())
}

// One warm-start iteration is one Adam step up the mean log-likelihood of
// the organization's choices: from Adam's definition its first step is
// lr·ĝ/(|ĝ|+ε) per coordinate (bias-corrected m̂ = ĝ, v̂ = ĝ²), with ĝ the
// mean over the decisions with a choice of ∇log π(a|x). A large ε keeps the
// step proportional to ĝ, so that a sum in place of the mean shows. The
// episodes are rebuilt from the streams warmStart documents: the "warm"
// branch, iteration 0.
func TestWarmStartStepsUpTheMeanLogLikelihood(t *testing.T) {
	prob := tinyProblem()
	cfg := tinyConfig()
	cfg.WarmStart, cfg.WarmIterations, cfg.LR, cfg.Eps, cfg.ClipGrad = "split", 1, 0.1, 1, 0
	streams := sim.NewStreams(7)

	org, err := policy.Organization(cfg.WarmStart)
	require.NoError(t, err)
	zero := policy.NewLinear()
	sum := make([]float64, len(zero.Params()))
	decisions := 0
	eachChoice(t, prob, org, streams.Derive("warm", 0), cfg.Batch*cfg.Group, func(d *collective.Decision, x *[policy.NumFeatures]float64) {
		zero.AddGrad(policy.Term{X: x, Mask: d.Mask, Action: d.Action, Scale: 1}, sum)
		decisions++
	})
	require.Greater(t, decisions, 1)
	want := make([]float64, len(sum))
	for i, s := range sum {
		g := s / float64(decisions)
		want[i] = cfg.LR * g / (math.Abs(g) + cfg.Eps)
	}
	require.NotZero(t, slices.Max(want)-slices.Min(want))

	pol := policy.NewLinear()
	require.NoError(t, (&training{Run: Run{Problem: prob, Config: cfg, Workers: 1}}).warmStart(context.Background(), pol, streams))
	assert.InDeltaSlice(t, want, pol.Params(), 1e-12)
}
