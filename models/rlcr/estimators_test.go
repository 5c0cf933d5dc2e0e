package rlcr

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/sim"
)

// Each estimator against an independent computation on a case small
// enough to work by hand: the wanted values below are written from the
// definitions in docs/rlcr.md, not from the code under test.

// whiten is the batch normalisation GAE applies, written out.
func whiten(xs []float64) []float64 {
	m := 0.0
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m) / float64(len(xs))
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = (x - m) / (math.Sqrt(v) + 1e-8)
	}
	return out
}

// gaeCase is one agent's three decisions in rollout 0 (reward 1) and
// another agent's single decision in rollout 1 (reward −0.5), with a value
// whose predictions V0..V3 are far from the returns.
func gaeCase(t *testing.T) ([]sample, *policy.Value, []float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(11, 12))
	samples := randomSamples(r, 4)
	for i := range samples {
		samples[i].rollout, samples[i].agent = 0, 2
		samples[i].at = float64(60 * i)
	}
	samples[3].rollout, samples[3].agent = 1, 0
	value := policy.NewValue()
	for i := range value.Params() {
		value.Params()[i] = 0.2 * r.NormFloat64()
	}
	V := make([]float64, 4)
	for i := range samples {
		V[i] = value.Predict(&samples[i].x)
	}
	require.Greater(t, math.Abs(V[0]-V[1])+math.Abs(V[1]-V[2]), 0.05, "the value varies")
	return samples, value, V
}

func TestGAEThreeDecisions(t *testing.T) {
	const gamma = 0.9
	results := []*collective.Result{{}, {}}
	for _, lambda := range []float64{0, 0.5, 1} {
		samples, value, V := gaeCase(t)
		gae(&batch{samples: samples, results: results, rewards: []float64{1, -0.5}}, value, gamma, 0, lambda)
		// δ_j = r_j + γ V_{j+1} − V_j with the reward after the last
		// decision; A_j = Σ_l (γλ)^l δ_{j+l}.
		d0, d1, d2 := gamma*V[1]-V[0], gamma*V[2]-V[1], 1-V[2]
		gl := gamma * lambda
		raw := []float64{d0 + gl*d1 + gl*gl*d2, d1 + gl*d2, d2, -0.5 - V[3]}
		switch lambda {
		case 0:
			assert.InDelta(t, d0, raw[0], 1e-15, "λ = 0 is the one-step TD error")
		case 1:
			assert.InDelta(t, gamma*gamma-V[0], raw[0], 1e-12, "λ = 1 is the discounted return minus the value")
		}
		want := whiten(raw)
		for i := range samples {
			assert.InDelta(t, want[i], samples[i].adv, 1e-9, "λ = %v, decision %d: whitened advantage", lambda, i)
			assert.InDelta(t, raw[i]+V[i], samples[i].ret, 1e-12, "λ = %v, decision %d: the value's target", lambda, i)
			assert.InDelta(t, V[i], samples[i].v, 1e-15)
		}
	}
}

// With a time unit, γ discounts per minute here: the decisions at 0 s, 0 s
// (a zero-time re-decision: no discount) and 120 s (γ²), the finish at
// 180 s (γ from the last decision).
func TestGAEDiscountsPerUnitOfTime(t *testing.T) {
	const gamma = 0.5
	samples, value, V := gaeCase(t)
	samples[0].at, samples[1].at, samples[2].at, samples[3].at = 0, 0, 120, 0
	results := []*collective.Result{{Metrics: collective.Metrics{Finish: 180 * sim.Second}}, {Metrics: collective.Metrics{Finish: 0}}}
	gae(&batch{samples: samples, results: results, rewards: []float64{1, -0.5}}, value, gamma, sim.Minute, 1)
	raw := []float64{0.125 - V[0], 0.125 - V[1], 0.5 - V[2], -0.5 - V[3]}
	want := whiten(raw)
	for i := range samples {
		assert.InDelta(t, want[i], samples[i].adv, 1e-9, "decision %d", i)
		assert.InDelta(t, raw[i]+V[i], samples[i].ret, 1e-12, "decision %d", i)
	}
	// λ = 0 with a unit: δ_0 = γ^0·V1 − V0, δ_1 = γ²·V2 − V1.
	samples, value, V = gaeCase(t)
	samples[0].at, samples[1].at, samples[2].at, samples[3].at = 0, 0, 120, 0
	gae(&batch{samples: samples, results: results, rewards: []float64{1, -0.5}}, value, gamma, sim.Minute, 0)
	raw = []float64{V[1] - V[0], 0.25*V[2] - V[1], 0.5 - V[2], -0.5 - V[3]}
	for i := range samples {
		assert.InDelta(t, raw[i]+V[i], samples[i].ret, 1e-12, "λ = 0, decision %d", i)
	}
}

func TestRolloutAdvantages(t *testing.T) {
	rewards := []float64{1, 2, 3, 6, 10, 10, 10, 14} // two groups of four
	cfg := DefaultConfig()
	nan := math.NaN()
	cases := []struct {
		name string
		edit func(*Config)
		want []float64
	}{
		// Group means 3 and 11.
		{"flat", func(*Config) {}, []float64{-2, -1, 0, 3, -1, -1, -1, 3}},
		// Population stds √3.5 and √3, kept off 0 by 1e-8.
		{"flat ÷ std", func(c *Config) { c.StdNorm = true }, []float64{
			-2 / (math.Sqrt(3.5) + 1e-8), -1 / (math.Sqrt(3.5) + 1e-8), 0, 3 / (math.Sqrt(3.5) + 1e-8),
			-1 / (math.Sqrt(3) + 1e-8), -1 / (math.Sqrt(3) + 1e-8), -1 / (math.Sqrt(3) + 1e-8), 3 / (math.Sqrt(3) + 1e-8)}},
		{"none", func(c *Config) { c.Advantage = NoBaseline }, rewards},
		{"none ignores std_norm", func(c *Config) { c.Advantage, c.StdNorm = NoBaseline, true }, rewards},
		// The first baseline is the first batch's mean, 7.
		{"moving-average", func(c *Config) { c.Advantage = MovingAverage }, []float64{-6, -5, -4, -1, 3, 3, 3, 7}},
	}
	for _, tc := range cases {
		c := cfg
		tc.edit(&c)
		baseline := nan
		got := rolloutAdvantages(nil, c, rewards, 4, &baseline)
		for i := range tc.want {
			assert.InDelta(t, tc.want[i], got[i], 1e-14, "%s: rollout %d", tc.name, i)
		}
	}
	// A group whose rewards are all equal has advantage 0, with or
	// without ÷ std (the 1e-8 keeps it finite).
	c := cfg
	c.StdNorm = true
	baseline := nan
	for _, a := range rolloutAdvantages(nil, c, []float64{0.5, 0.5}, 2, &baseline) {
		assert.Equal(t, 0.0, a)
	}
	// Nor does a mean that rounds off the equal rewards (0.1·3/3 is
	// 0.10000000000000002) make the std NaN: its variance is a sum of
	// squares, never below 0.
	for _, a := range rolloutAdvantages(nil, c, []float64{0.1, 0.1, 0.1}, 3, &baseline) {
		assert.InDelta(t, 0.0, a, 1e-8)
	}
}

// The moving-average baseline b starts at the first batch's mean and
// moves b ← b + η(mean − b) after each batch, used before it moves.
func TestMovingAverageBaselineUpdates(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Advantage, cfg.BaselineRate = MovingAverage, 0.25
	b := math.NaN()
	assert.Equal(t, []float64{-1, 1}, rolloutAdvantages(nil, cfg, []float64{1, 3}, 2, &b))
	assert.Equal(t, 2.0, b, "2 + 0.25·(2 − 2)")
	assert.Equal(t, []float64{3, 5}, rolloutAdvantages(nil, cfg, []float64{5, 7}, 2, &b))
	assert.Equal(t, 3.0, b, "2 + 0.25·(6 − 2)")
	assert.Equal(t, []float64{-3, -3}, rolloutAdvantages(nil, cfg, []float64{0, 0}, 1, &b))
	assert.Equal(t, 2.25, b, "3 + 0.25·(0 − 3)")
}

func TestLossNormWeights(t *testing.T) {
	samples := make([]sample, 5)
	for i, r := range []int{0, 1, 1, 1, 2} {
		samples[i].rollout = r
	}
	weigh(samples, PerDecision, 4) // rollout 3 has no decisions
	for i := range samples {
		assert.Equal(t, 0.2, samples[i].weight, "decision: 1/(all decisions)")
	}
	weigh(samples, PerRollout, 4)
	// 1/(rollouts × decisions of the rollout): 1/(4·1), 1/(4·3), 1/(4·1).
	want := []float64{0.25, 1.0 / 12, 1.0 / 12, 1.0 / 12, 0.25}
	for i := range samples {
		assert.InDelta(t, want[i], samples[i].weight, 1e-15, "rollout: decision %d", i)
	}
}

func TestValueFitLowersItsError(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	samples := randomSamples(r, 200)
	target := policy.NewValue()
	for i := range target.Params() {
		target.Params()[i] = r.NormFloat64()
	}
	for i := range samples {
		samples[i].ret = target.Predict(&samples[i].x) + 0.1*r.NormFloat64()
	}
	mse := func(v *policy.Value) float64 {
		e := 0.0
		for i := range samples {
			d := v.Predict(&samples[i].x) - samples[i].ret
			e += d * d / float64(len(samples))
		}
		return e
	}
	value := policy.NewValue()
	opt := newAdam(len(value.Params()), 0.9, 0.999, 1e-8)
	before := mse(value)
	assert.Equal(t, 1, fitValue(samples, value, opt, 0.01, 1))
	one := mse(value)
	assert.Less(t, one, before, "one step lowers the error")
	assert.Equal(t, 30, fitValue(samples, value, opt, 0.01, 30))
	assert.Less(t, mse(value), one-0.1*(before-one), "more passes lower it further")
}

func TestExplainedVariance(t *testing.T) {
	mk := func(ret, v []float64) []sample {
		s := make([]sample, len(ret))
		for i := range s {
			s[i].ret, s[i].v = ret[i], v[i]
		}
		return s
	}
	ret := []float64{1, 2, 3}
	assert.InDelta(t, 1, explainedVariance(mk(ret, ret)), 1e-15, "a perfect value")
	assert.InDelta(t, 0, explainedVariance(mk(ret, []float64{2, 2, 2})), 1e-15, "the mean")
	assert.InDelta(t, 0, explainedVariance(mk(ret, []float64{7, 7, 7})), 1e-15, "a constant off the mean explains nothing either")
	assert.InDelta(t, -3, explainedVariance(mk(ret, []float64{3, 2, 1})), 1e-12, "1 − (8/3)/(2/3)")
	assert.True(t, math.IsNaN(explainedVariance(mk([]float64{1, 1}, []float64{0, 2}))), "returns that do not vary")
}

// The trainer's own statistics of its update: Adam steps on the policy
// (1, or epochs for PPO) and on the value (value_epochs), and the value's
// explained variance (PPO only).
func TestUpdateStepsPerEstimator(t *testing.T) {
	for _, adv := range []Advantage{FlatCollective, NoBaseline, MovingAverage, PerAgent, PPOGAE} {
		cfg := tinyConfig()
		cfg.Advantage, cfg.Epochs, cfg.ValueEpochs = adv, 3, 5
		rows, _ := train(t, tinyProblem(), cfg, 2)
		for _, r := range rows {
			if adv == PPOGAE {
				assert.Equal(t, 3, r.PolicySteps, "%s", adv)
				assert.Equal(t, 5, r.ValueSteps, "%s", adv)
				assert.False(t, math.IsNaN(r.ValueEV), "%s", adv)
				assert.LessOrEqual(t, r.ValueEV, 1.0)
			} else {
				assert.Equal(t, 1, r.PolicySteps, "%s", adv)
				assert.Equal(t, 0, r.ValueSteps, "%s", adv)
				assert.True(t, math.IsNaN(r.ValueEV), "%s", adv)
			}
			if adv == PerAgent {
				assert.Positive(t, r.Replays)
			} else {
				assert.Zero(t, r.Replays)
			}
		}
	}
	// The epochs are steps that move the policy, and the value passes
	// move the value (seen through the next iterations' advantages).
	params := map[[2]int][]float64{}
	for _, e := range [][2]int{{1, 1}, {3, 1}, {1, 5}} {
		cfg := tinyConfig()
		cfg.Advantage, cfg.Epochs, cfg.ValueEpochs = PPOGAE, e[0], e[1]
		_, params[e] = train(t, tinyProblem(), cfg, 2)
	}
	assert.NotEqual(t, params[[2]int{1, 1}], params[[2]int{3, 1}], "epochs")
	assert.NotEqual(t, params[[2]int{1, 1}], params[[2]int{1, 5}], "value_epochs")
}

// The trainer's own advantages, read back from its samples: the flat
// estimator gives every decision of every agent of a rollout R − mean of
// its group; none gives R itself.
func TestFlatAdvantageIsSharedByEveryDecision(t *testing.T) {
	prob := tinyProblem()
	pol := policy.NewLinear()
	const B, G = 2, 4
	iter := sim.NewStreams(3).Derive("iteration", 0)
	mem := newMemory(B, G)
	tr := rollouter(prob, B, G, true)
	bt := iteration0(t, tr, pol, iter, mem)
	results := bt.results
	rewards := make([]float64, B*G)
	for b := range B {
		metrics := make([]collective.Metrics, G)
		for k := range G {
			metrics[k] = results[b*G+k].Metrics
		}
		prob.Reward.Group(&prob.Collective, 0, metrics, rewards[b*G:(b+1)*G])
	}
	for _, adv := range []Advantage{FlatCollective, NoBaseline} {
		cfg := tinyConfig()
		cfg.Batch, cfg.Group, cfg.Advantage = B, G, adv
		samples := collect(results, mem, true)
		tr.Config = cfg
		bt.rewards, bt.samples = rewards, samples
		baseline := math.NaN()
		_, err := tr.advantages(context.Background(), pol, policy.NewValue(), bt, &baseline)
		require.NoError(t, err)
		agents := map[int]bool{}
		for _, s := range samples {
			agents[s.agent] = true
			b := s.rollout / G
			want := rewards[s.rollout]
			if adv == FlatCollective {
				want -= (rewards[b*G] + rewards[b*G+1] + rewards[b*G+2] + rewards[b*G+3]) / 4
			}
			assert.InDelta(t, want, s.adv, 1e-12, "%s: rollout %d agent %d", adv, s.rollout, s.agent)
		}
		assert.Greater(t, len(agents), 1, "several agents decide")
	}
	spread := 0.0
	for _, r := range rewards {
		spread = math.Max(spread, math.Abs(r-rewards[0]))
	}
	require.Positive(t, spread, "the rewards differ, so the mean matters")
}

// The difference reward is R minus the counterfactual's reward (not the
// reverse), computed here by replaying each rollout with an independent
// copy of the counterfactual; an agent that contributed nothing gets
// exactly 0 without a replay, and one whose passive replay changes
// nothing gets 0 from its replay.
func TestDifferenceRewards(t *testing.T) {
	prob := tinyProblem()
	split, err := policy.Organization("split")
	require.NoError(t, err)
	const B, G = 2, 3
	iter := sim.NewStreams(5).Derive("iteration", 0)
	tr := rollouter(prob, B, G, true)
	bt := iteration0(t, tr, split, iter, newMemory(B, G))
	results, graphs := bt.results, bt.graphs
	rewards := make([]float64, B*G) // the linear penalty scores a rollout alone as in its group
	for i, r := range results {
		prob.Reward.Group(&prob.Collective, 0, []collective.Metrics{r.Metrics}, rewards[i:i+1])
	}

	bt.rewards = rewards
	tr.Config.Credit = Contribution
	credit, replays, err := tr.differenceRewards(context.Background(), split, bt)
	require.NoError(t, err)
	positive, zeros, jobs := 0, 0, 0
	for i, r := range results {
		contributed := map[int]bool{}
		decided := map[int]bool{}
		for _, d := range r.Decisions {
			decided[d.Agent] = true
			if d.Action == collective.Delegate || d.Action == collective.Attempt || d.Action == collective.Share {
				contributed[d.Agent] = true
			}
		}
		assert.Len(t, credit[i], len(decided), "every agent that decided has a credit")
		for a := range decided {
			if !contributed[a] {
				assert.Equal(t, 0.0, credit[i][a], "rollout %d agent %d contributed nothing", i, a)
				zeros++
				continue
			}
			jobs++
			cf := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
				act := split.Decide(o, m, u)
				if o.Agent == a && (act == collective.Delegate || act == collective.Attempt || act == collective.Share) {
					for _, alt := range []collective.Action{collective.Work, collective.Wait, collective.Check, collective.Submit} {
						if m.Has(alt) {
							return alt
						}
					}
				}
				return act
			})
			var own sim.Streams
			env, opts := rolloutStreams(iter, i, G, true, &own)
			rep, err := collective.Run(graphs[i/G], prob.Collective, cf, env, opts)
			require.NoError(t, err)
			out := []float64{0}
			prob.Reward.Group(&prob.Collective, 0, []collective.Metrics{rep.Metrics}, out)
			assert.InDelta(t, rewards[i]-out[0], credit[i][a], 1e-12, "rollout %d agent %d", i, a)
			if credit[i][a] > 0 {
				positive++
			}
		}
	}
	assert.Equal(t, jobs, replays, "one replay per contributing agent")
	assert.Positive(t, positive, "the main agent's delegations speed the split up under a latency penalty")
	assert.Positive(t, zeros, "helpers that only work get 0")

	// Passive: a replay for every agent; one that only worked anyway
	// replays the same episode and gets 0.
	tr.Config.Credit = Passive
	credit, replays, err = tr.differenceRewards(context.Background(), split, bt)
	require.NoError(t, err)
	n, helpersZero := 0, 0
	for i := range results {
		n += len(credit[i])
		for a, c := range credit[i] {
			if a > 0 && c == 0 {
				helpersZero++
			}
		}
	}
	assert.Equal(t, n, replays)
	assert.Positive(t, helpersZero)
}

func TestGroupBaselineOfCredit(t *testing.T) {
	credit := []map[int]float64{
		{0: 1, 1: 0.5}, {0: 3}, // group 0: agent 0 averages 2, agent 1 decided once
		{0: -1, 2: 4}, {0: -1, 2: 2}, // group 1
	}
	groupBaseline(credit, 2)
	assert.Equal(t, []map[int]float64{{0: -1, 1: 0}, {0: 1}, {0: 0, 2: 1}, {0: 0, 2: -1}}, credit)
}

func TestPerAgentTrainsWithEachCredit(t *testing.T) {
	params := map[string][]float64{}
	for _, cf := range []Credit{Contribution, Passive} {
		for _, b := range []CreditBaseline{GroupCredit, NoCredit} {
			cfg := tinyConfig()
			cfg.Advantage, cfg.Credit, cfg.CreditBaseline = PerAgent, cf, b
			_, p := train(t, tinyProblem(), cfg, 2)
			for k, other := range params {
				assert.NotEqual(t, other, p, "%s/%s trains like %s", cf, b, k)
			}
			params[string(cf)+"/"+string(b)] = p
		}
	}
}

// The iteration's summary, against values worked by hand: ten rollouts
// finishing at 1..10 s, the odd ones acceptable.
func TestSummarize(t *testing.T) {
	results := make([]*collective.Result, 10)
	rewards := make([]float64, 10)
	for i := range results {
		results[i] = &collective.Result{Metrics: collective.Metrics{
			Finish: sim.Time(i+1) * sim.Second, Acceptable: i%2 == 1, ParallelismMean: float64(i),
			Messages: i, ModelCalls: 2 * i, AgentTime: sim.Time(3*i) * sim.Second,
			SubagentTasks: i, SubagentDone: i / 2,
			CriticalSteps: 4 * i, HandoffMisses: i % 4, Duplicates: i % 3,
		}, Decisions: make([]collective.Decision, i)}
		rewards[i] = float64(i)
	}
	st := summarize(&batch{iteration: 4, results: results, rewards: rewards, samples: make([]sample, 7)}, make([]float64, 10))
	assert.Equal(t, 4, st.Iteration)
	assert.Equal(t, 10, st.Episodes)
	assert.Equal(t, 7, st.Decisions)
	assert.InDelta(t, 4.5, st.RewardMean, 1e-12)
	assert.InDelta(t, 0.5, st.SuccessRate, 1e-12)
	assert.InDelta(t, 5.5, st.LatencyMean, 1e-12)
	assert.Equal(t, 9.0, st.LatencyP90, "the 9th of 10 sorted finish times")
	assert.InDelta(t, 4.5, st.ParallelismMean, 1e-12)
	assert.InDelta(t, 4.5, st.MessagesMean, 1e-12)
	assert.InDelta(t, 9, st.ModelCallsMean, 1e-12)
	assert.InDelta(t, 13.5, st.AgentTimeMean, 1e-12)
	assert.InDelta(t, 20.0/45, st.SpawnFinishRate, 1e-15, "subagent subtasks done over assigned, pooled")
	assert.InDelta(t, 18, st.CriticalStepsMean, 1e-12)
	assert.InDelta(t, 1.3, st.HandoffMissesMean, 1e-12)
	assert.InDelta(t, 0.9, st.DuplicatesMean, 1e-12)
	assert.InDelta(t, 5, st.DecisionsAcceptable, 1e-12, "decisions of the acceptable rollouts 1, 3, 5, 7, 9")
	assert.InDelta(t, 4, st.DecisionsFailed, 1e-12, "decisions of the failed rollouts 0, 2, 4, 6, 8")
	one := summarize(&batch{results: results[:1], rewards: rewards[:1]}, make([]float64, 1))
	assert.Equal(t, 1.0, one.LatencyP90, "one rollout is its own 90th percentile")
	assert.True(t, math.IsNaN(one.SpawnFinishRate), "no subtask assigned")
}

// The entropy and mean action probabilities over decisions, from the
// probabilities recorded when they were taken: uniform over two and over
// four valid actions, entropies log 2 and log 4.
func TestDecisionStats(t *testing.T) {
	w, d, s, wait := collective.Work, collective.Delegate, collective.Submit, collective.Wait
	samples := make([]sample, 2)
	// As a recorder keeps them: each probability with its log.
	samples[0].probs[w], samples[0].probs[d] = 0.5, 0.5
	samples[0].logp[w], samples[0].logp[d] = -math.Log(2), -math.Log(2)
	samples[0].mask = collective.Mask(0).With(w).With(d)
	for _, a := range []collective.Action{w, d, s, wait} {
		samples[1].probs[a], samples[1].logp[a] = 0.25, -math.Log(4)
		samples[1].mask = samples[1].mask.With(a)
	}
	var st Iteration
	decisionStats(&st, samples)
	assert.InDelta(t, (math.Log(2)+math.Log(4))/2, st.Entropy, 1e-12)
	assert.InDelta(t, (0.5+0.25)/2, st.ActionProbs[w], 1e-12)
	assert.InDelta(t, (0.5+0.25)/2, st.ActionProbs[d], 1e-12)
	assert.InDelta(t, 0.25/2, st.ActionProbs[s], 1e-12)
	assert.Zero(t, st.ActionProbs[collective.Check])

	// A decision with one valid action, as collect makes it, counts in
	// both means: entropy 0, probability 1 for its action.
	forced := sample{mask: collective.Mask(0).With(collective.Check), action: collective.Check}
	forced.probs[collective.Check] = 1
	st = Iteration{}
	decisionStats(&st, append(samples, forced))
	assert.InDelta(t, (math.Log(2)+math.Log(4)+0)/3, st.Entropy, 1e-12)
	assert.InDelta(t, (0.5+0.25+0)/3, st.ActionProbs[w], 1e-12)
	assert.InDelta(t, 1.0/3, st.ActionProbs[collective.Check], 1e-12)
}

// The passive counterfactual's agent works while it can, waits rather
// than submit an incomplete result, and submits a complete one; the other
// agents decide as the policy does.
func TestPassive(t *testing.T) {
	all := collective.Mask(0)
	for a := range collective.Action(collective.NumActions) {
		all = all.With(a)
	}
	always := collective.PolicyFunc(func(*collective.Observation, collective.Mask, float64) collective.Action { return collective.Check })
	p := passive{always, 1}
	cases := []struct {
		obs  collective.Observation
		mask collective.Mask
		want collective.Action
	}{
		{collective.Observation{Agent: 0}, all, collective.Check},
		{collective.Observation{Agent: 1}, all, collective.Work},
		{collective.Observation{Agent: 1}, all &^ (1 << collective.Work), collective.Wait},
		{collective.Observation{Agent: 1, Complete: true}, collective.Mask(0).With(collective.Wait).With(collective.Submit), collective.Wait},
		{collective.Observation{Agent: 1, Complete: true}, collective.Mask(0).With(collective.Submit), collective.Submit},
		{collective.Observation{Agent: 1}, collective.Mask(0).With(collective.Submit).With(collective.Check), collective.Submit},
		{collective.Observation{Agent: 1}, collective.Mask(0).With(collective.Check).With(collective.Share), collective.Check},
	}
	for i, tc := range cases {
		assert.Equal(t, tc.want, p.Decide(&tc.obs, tc.mask, 0.5), "case %d", i)
	}
	w := withoutContribution{collective.PolicyFunc(func(*collective.Observation, collective.Mask, float64) collective.Action { return collective.Share }), 1}
	for _, tc := range []struct {
		agent int
		mask  collective.Mask
		want  collective.Action
	}{
		{0, all, collective.Share},
		{1, all, collective.Work},
		{1, all &^ (1 << collective.Work), collective.Wait},
		{1, collective.Mask(0).With(collective.Share).With(collective.Check).With(collective.Submit), collective.Check},
		{1, collective.Mask(0).With(collective.Share).With(collective.Submit), collective.Submit},
		{1, collective.Mask(0).With(collective.Share).With(collective.Delegate), collective.Share},
	} {
		o := collective.Observation{Agent: tc.agent}
		assert.Equal(t, tc.want, w.Decide(&o, tc.mask, 0.5), "without contribution, agent %d", tc.agent)
	}
}

func TestTrainStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Train(ctx, Run{Problem: tinyProblem(), Config: tinyConfig(), Seed: 1, Workers: 2})
	assert.ErrorIs(t, err, context.Canceled)
	n := 0
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = Train(ctx, Run{Problem: tinyProblem(), Config: tinyConfig(), Seed: 1, Workers: 2, Emit: func(Iteration) error {
		n++
		cancel()
		return nil
	}})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, n, "no iteration after the cancellation")
}

func TestTrainRejectsBadProblems(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Problem, *Config)
		want string
	}{
		{func(_ *Problem, c *Config) { c.Batch = 0 }, "batch: 0"},
		{func(p *Problem, _ *Config) { p.Collective.Agents = 0 }, "collective: "},
		{func(p *Problem, _ *Config) { p.Task.Width = 0 }, "task: "},
		{func(p *Problem, _ *Config) { p.Reward.Penalty = "cubic" }, `reward: penalty: "cubic"`},
		// Without a group baseline, so that the group of one is the reward's problem alone.
		{func(p *Problem, c *Config) {
			p.Reward.Penalty, c.Group, c.Advantage = PenaltyGroupRelative, 1, NoBaseline
		}, "reward: penalty: group-relative"},
		{func(_ *Problem, c *Config) { c.Group = 1 }, "group: 1 gives every rollout of the flat-collective advantage an advantage of 0"},
	} {
		prob, cfg := tinyProblem(), tinyConfig()
		tc.edit(&prob, &cfg)
		_, err := Train(context.Background(), Run{Problem: prob, Config: cfg, Seed: 1, Workers: 2})
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// PPO's clipped surrogate is what its later epochs ascend: with a clip
// ratio too small to move, the update differs from one with a clip ratio
// too large to bind.
func TestPPOClipActsInLaterEpochs(t *testing.T) {
	params := map[float64][]float64{}
	for _, clip := range []float64{1e-9, 100} {
		cfg := tinyConfig()
		cfg.Advantage, cfg.Epochs, cfg.ClipRatio = PPOGAE, 3, clip
		_, params[clip] = train(t, tinyProblem(), cfg, 2)
	}
	assert.NotEqual(t, params[1e-9], params[100])
}

// Per-agent advantages read back from the trainer: with the group
// baseline each agent's credits have mean 0 over the rollouts of a group
// in which it decided; without it they are the difference rewards.
func TestPerAgentAdvantagesReadBack(t *testing.T) {
	prob := tinyProblem()
	split, err := policy.Organization("split")
	require.NoError(t, err)
	const B, G = 2, 4
	iter := sim.NewStreams(5).Derive("iteration", 0)
	mem := newMemory(B, G)
	tr := rollouter(prob, B, G, true)
	bt := iteration0(t, tr, split, iter, mem)
	results := bt.results
	rewards := make([]float64, B*G)
	for i, r := range results {
		prob.Reward.Group(&prob.Collective, 0, []collective.Metrics{r.Metrics}, rewards[i:i+1])
	}
	bt.rewards = rewards
	tr.Config.Credit = Contribution
	raw, _, err := tr.differenceRewards(context.Background(), split, bt)
	require.NoError(t, err)
	for _, base := range []CreditBaseline{GroupCredit, NoCredit} {
		cfg := tinyConfig()
		cfg.Batch, cfg.Group, cfg.Advantage, cfg.CreditBaseline = B, G, PerAgent, base
		samples := make([]sample, 0)
		for i, r := range results {
			for _, d := range r.Decisions {
				samples = append(samples, sample{rollout: i, agent: d.Agent})
			}
		}
		tr.Config = cfg
		bt.samples = samples
		baseline := math.NaN()
		_, err := tr.advantages(context.Background(), split, policy.NewValue(), bt, &baseline)
		require.NoError(t, err)
		type key struct{ group, agent int }
		sum, n := map[key]float64{}, map[key]int{}
		seen := map[[2]int]bool{}
		for _, s := range samples {
			if base == NoCredit {
				assert.Equal(t, raw[s.rollout][s.agent], s.adv)
			}
			if !seen[[2]int{s.rollout, s.agent}] {
				seen[[2]int{s.rollout, s.agent}] = true
				k := key{s.rollout / G, s.agent}
				sum[k] += s.adv
				n[k]++
			}
		}
		nonzero := false
		for k := range sum {
			if base == GroupCredit {
				assert.InDelta(t, 0, sum[k]/float64(n[k]), 1e-12, "group %d agent %d", k.group, k.agent)
			} else if sum[k] != 0 {
				nonzero = true
			}
		}
		if base == NoCredit {
			assert.True(t, nonzero, "raw difference rewards do not average to 0")
		}
	}
}

// With a group-relative penalty the counterfactual is scored within its
// own group: the rollout's replay among the group's other rollouts, for
// every agent that decided. (A policy that never submits would score every
// rollout at the time limit, every rank 0, wherever it was scored.)
func TestDifferenceRewardsScoreReplaysInTheirGroup(t *testing.T) {
	prob := tinyProblem()
	prob.Reward.Penalty = PenaltyGroupRelative
	// Every attempt acceptable: the rank of an unacceptable rollout is
	// cut at 0, which would hide where it was scored.
	prob.Task.Difficulty = sim.Const(0)
	// A stochastic policy, so that the rollouts of a group differ and the
	// ranks depend on which group the replay is scored in; it submits a
	// complete result, so that the finish times differ (an episode that
	// never submits is scored at the time limit).
	lin := policy.NewLinear()
	r := rand.New(rand.NewPCG(15, 16))
	for i := range lin.Params() {
		lin.Params()[i] = r.NormFloat64()
	}
	split := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
		if o.Complete && m.Has(collective.Submit) {
			return collective.Submit
		}
		return lin.Decide(o, m, u)
	})
	const B, G = 3, 4
	iter := sim.NewStreams(9).Derive("iteration", 0)
	tr := rollouter(prob, B, G, true)
	bt := iteration0(t, tr, split, iter, newMemory(B, G))
	results, graphs := bt.results, bt.graphs
	metrics := make([]collective.Metrics, B*G)
	for i, r := range results {
		metrics[i] = r.Metrics
	}
	rewards := make([]float64, B*G)
	for b := range B {
		prob.Reward.Group(&prob.Collective, 0, metrics[b*G:(b+1)*G], rewards[b*G:(b+1)*G])
	}
	bt.rewards = rewards
	tr.Config.Credit = Passive
	credit, _, err := tr.differenceRewards(context.Background(), split, bt)
	require.NoError(t, err)
	checked := 0
	for i := range results {
		for _, a := range slices.Sorted(maps.Keys(credit[i])) {
			env, opts := rolloutStreams(iter, i, G, true, new(sim.Streams))
			rep, err := collective.Run(graphs[i/G], prob.Collective, passive{split, a}, env, opts)
			require.NoError(t, err)
			group := slices.Clone(metrics[i/G*G : i/G*G+G])
			group[i%G] = rep.Metrics
			out := make([]float64, G)
			prob.Reward.Group(&prob.Collective, 0, group, out)
			assert.InDelta(t, rewards[i]-out[i%G], credit[i][a], 1e-12, "rollout %d agent %d", i, a)
			checked++
		}
	}
	require.Greater(t, checked, len(results), "helpers' credit is checked too")
	for b := range B {
		moved := false
		for _, c := range credit[b*G : (b+1)*G] {
			for _, d := range c {
				moved = moved || d != 0
			}
		}
		require.True(t, moved, "group %d: a passive agent moves some rank", b)
	}
}

// GAE over decisions of several agents and rollouts taken in interleaved
// order, against the sum form A_j = Σ_l (Π_{k<l} γ_{j+k}·λ)·δ_{j+l} over
// each agent's own decisions (not the backward recursion gae uses), per
// decision and per unit of time, with a zero-time re-decision.
func TestGAEInterleavedAgainstTheSumForm(t *testing.T) {
	const gamma, unit = 0.9, 60.0
	finish := []float64{400, 500}
	rewards := []float64{0.8, -0.3}
	results := []*collective.Result{{Metrics: collective.Metrics{Finish: secs(finish[0])}}, {Metrics: collective.Metrics{Finish: secs(finish[1])}}}
	for _, withUnit := range []bool{false, true} {
		for _, lambda := range []float64{0, 0.7, 1} {
			r := rand.New(rand.NewPCG(5, 55))
			samples := randomSamples(r, 12)
			for i := range samples {
				samples[i].rollout, samples[i].agent, samples[i].at = r.IntN(2), r.IntN(3), float64(30*i)
			}
			samples[5].at = samples[4].at
			value := policy.NewValue()
			for i := range value.Params() {
				value.Params()[i] = 0.3 * r.NormFloat64()
			}
			u := sim.Time(0)
			if withUnit {
				u = secs(unit)
			}
			gae(&batch{samples: samples, results: results, rewards: rewards}, value, gamma, u, lambda)

			raw := make([]float64, len(samples))
			V := make([]float64, len(samples))
			for i := range samples {
				V[i] = value.Predict(&samples[i].x)
			}
			discount := func(from, to float64) float64 {
				if !withUnit {
					return gamma
				}
				return math.Pow(gamma, (to-from)/unit)
			}
			for rollout := range 2 {
				for agent := range 3 {
					var idx []int
					for i, s := range samples {
						if s.rollout == rollout && s.agent == agent {
							idx = append(idx, i)
						}
					}
					n := len(idx)
					delta, g := make([]float64, n), make([]float64, n)
					for j, i := range idx {
						if j+1 < n {
							g[j] = discount(samples[i].at, samples[idx[j+1]].at)
							delta[j] = g[j]*V[idx[j+1]] - V[i]
							continue
						}
						end := 1.0 // the reward right after the last decision, or at the finish
						if withUnit {
							end = discount(samples[i].at, finish[rollout])
						}
						delta[j] = end*rewards[rollout] - V[i]
					}
					for j, i := range idx {
						f := 1.0
						for l := j; l < n; l++ {
							raw[i] += f * delta[l]
							f *= g[l] * lambda
						}
					}
				}
			}
			want := whiten(raw)
			for i := range samples {
				assert.InDelta(t, want[i], samples[i].adv, 1e-12, "unit %v, λ %v, decision %d", withUnit, lambda, i)
				assert.InDelta(t, raw[i]+V[i], samples[i].ret, 1e-12, "unit %v, λ %v, decision %d: return", withUnit, lambda, i)
			}
		}
	}
}
