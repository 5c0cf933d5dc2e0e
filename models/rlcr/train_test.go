package rlcr

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

func tinyProblem() Problem {
	c := collective.Defaults()
	c.TimeLimit = 2 * sim.Hour
	return Problem{
		Task:       task.Family{Shape: "fork-join", Width: 4, Stages: 1, Work: sim.Exponential(300), Difficulty: sim.Const(0.1), OutputTokens: sim.Const(300)},
		Collective: c,
		Reward:     Reward{Task: 1, Latency: 1, Penalty: PenaltyLinear},
	}
}

func tinyConfig() Config {
	cfg := DefaultConfig()
	cfg.Iterations, cfg.Batch, cfg.Group = 4, 2, 4
	return cfg
}

func train(t *testing.T, prob Problem, cfg Config, workers int) ([]Iteration, []float64) {
	t.Helper()
	var rows []Iteration
	pol, err := Train(context.Background(), Run{Problem: prob, Config: cfg, Seed: 7, Workers: workers, Emit: func(it Iteration) error {
		rows = append(rows, it)
		return nil
	}})
	require.NoError(t, err)
	return rows, pol.Params()
}

func TestWorkersDoNotChangeResults(t *testing.T) {
	for _, adv := range []Advantage{FlatCollective, PerAgent, PPOGAE} {
		cfg := tinyConfig()
		cfg.Advantage = adv
		r1, p1 := train(t, tinyProblem(), cfg, 1)
		r2, p2 := train(t, tinyProblem(), cfg, 2)
		assert.Equal(t, fmt.Sprint(r1), fmt.Sprint(r2), "%s", adv) // Sprint: NaN value_ev equals itself
		assert.Equal(t, p1, p2, "%s", adv)
	}
}

// A decision without a choice gets its features only where a value
// function reads them: training with every decision's features gives the
// same iterations and parameters (flat and per-agent read no features of
// such a decision, nor do the estimators that weigh samples as flat does).
func TestSkippedFeaturesChangeNothing(t *testing.T) {
	t.Cleanup(func() { allFeatures = false })
	for _, adv := range []Advantage{FlatCollective, PerAgent, PPOGAE} {
		cfg := tinyConfig()
		cfg.Advantage = adv
		r1, p1 := train(t, tinyProblem(), cfg, 1)
		allFeatures = true
		r2, p2 := train(t, tinyProblem(), cfg, 1)
		allFeatures = false
		assert.Equal(t, fmt.Sprint(r1), fmt.Sprint(r2), "%s", adv) // Sprint: NaN value_ev equals itself
		assert.Equal(t, p1, p2, "%s", adv)
	}
}

// ppo-gae's value function sees every decision's features, those without
// a choice included; the other estimators' samples leave them out.
func TestSamplesFeaturesForTheValueFunction(t *testing.T) {
	tr := rollouter(tinyProblem(), 2, 4, true)
	mem := newMemory(2, 4)
	b := iteration0(t, tr, policy.NewLinear(), sim.NewStreams(5).Derive("iteration", 0), mem)
	for _, adv := range []Advantage{FlatCollective, PPOGAE} {
		tr.Config.Advantage = adv
		samples := tr.samples(b.results, mem)
		k, single := 0, 0
		for _, r := range b.results {
			for j := range r.Decisions {
				d, s := &r.Decisions[j], &samples[k]
				k++
				if !d.Mask.Single() {
					continue
				}
				single++
				var want [policy.NumFeatures]float64
				if adv == PPOGAE {
					policy.Features(&d.Obs, &want)
				}
				require.Equal(t, want, s.x, "%s: decision %d of rollout %d", adv, j, s.rollout)
			}
		}
		require.Positive(t, single, "the tiny problem has decisions without a choice")
	}
}

// Every option is wired into the update: each trains parameters unlike
// the default's and unlike every other option's, all finite, with a
// probability distribution over actions at every iteration.
func TestTrainRunsEveryOption(t *testing.T) {
	options := map[string]func(*Config){
		"default":          func(*Config) {},
		"std_norm":         func(c *Config) { c.StdNorm = true },
		"loss_norm":        func(c *Config) { c.LossNorm = PerRollout },
		"none":             func(c *Config) { c.Advantage = NoBaseline },
		"moving-average":   func(c *Config) { c.Advantage = MovingAverage },
		"per-agent":        func(c *Config) { c.Advantage = PerAgent },
		"ppo-gae":          func(c *Config) { c.Advantage = PPOGAE },
		"ppo-gae lambda":   func(c *Config) { c.Advantage, c.Lambda = PPOGAE, 0.5 },
		"ppo-gae gamma":    func(c *Config) { c.Advantage, c.Gamma = PPOGAE, 0.9 },
		"ppo-gae per time": func(c *Config) { c.Advantage, c.Gamma, c.GammaUnit = PPOGAE, 0.9, 10*sim.Minute },
		"mlp":              func(c *Config) { c.Policy = "mlp" },
		"mlp rollout":      func(c *Config) { c.Policy, c.LossNorm = "mlp", PerRollout },
		"entropy":          func(c *Config) { c.Entropy, c.EntropyEnd = 0.1, 0.1 },
		"lr cosine":        func(c *Config) { c.LRSchedule = Cosine },
		"clip_grad":        func(c *Config) { c.ClipGrad = 0.01 },
	}
	trained := map[string][]float64{}
	for name, edit := range options {
		cfg := tinyConfig()
		edit(&cfg)
		rows, params := train(t, tinyProblem(), cfg, 2)
		require.Len(t, rows, cfg.Iterations)
		for _, r := range rows {
			sum := 0.0
			for _, p := range r.ActionProbs {
				sum += p
			}
			assert.InDelta(t, 1, sum, 1e-9, name)
			assert.Equal(t, cfg.Batch*cfg.Group, r.Episodes, name)
		}
		for _, p := range params {
			require.False(t, math.IsNaN(p) || math.IsInf(p, 0), name)
		}
		trained[name] = params
	}
	for a, pa := range trained {
		for b, pb := range trained {
			if a < b {
				assert.NotEqual(t, pa, pb, "%s and %s train the same parameters", a, b)
			}
		}
	}
}

// randomSamples builds decisions on random observations.
func randomSamples(r *rand.Rand, n int) []sample {
	out := make([]sample, n)
	for i := range out {
		o := collective.Observation{
			Main: r.IntN(2) == 0, TimeUsed: r.Float64(), Elapsed: 3000 * r.Float64(), Progress: r.Float64(),
			Ready: r.IntN(6), Busy: r.IntN(4), Idle: r.IntN(3), Free: r.IntN(4), Unread: r.IntN(3),
			Unchecked: r.IntN(2) == 0, Unshared: r.IntN(2) == 0, Coupling: r.Float64(), NextWork: 2 * r.Float64(),
		}
		s := &out[i]
		policy.Features(&o, &s.x)
		for s.mask == 0 || popcount(s.mask) < 2 {
			s.mask = collective.Mask(r.IntN(1 << collective.NumActions))
		}
		for !s.mask.Has(s.action) {
			s.action = collective.Action(r.IntN(collective.NumActions))
		}
		s.adv = r.NormFloat64()
		s.weight = 1 / float64(n)
		s.pOld = 0.05 + 0.9*r.Float64()
	}
	return out
}

func popcount(m collective.Mask) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// surrogate is the objective whose gradient policyGradient computes,
// written independently from it.
func surrogate(pol policy.Softmax, samples []sample, ppo bool, clipRatio, ent float64) float64 {
	var probs [collective.NumActions]float64
	j := 0.0
	for _, s := range samples {
		pol.Probs(&s.x, s.mask, &probs)
		p := probs[s.action]
		if ppo {
			ratio := p / s.pOld
			j += s.weight * math.Min(ratio*s.adv, math.Max(1-clipRatio, math.Min(1+clipRatio, ratio))*s.adv)
		} else {
			j += s.weight * s.adv * math.Log(p)
		}
		h := 0.0
		for _, q := range probs {
			if q > 0 {
				h -= q * math.Log(q)
			}
		}
		j += s.weight * ent * h
	}
	return j
}

func TestPolicyGradientMatchesFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []string{"linear", "mlp"} {
		for _, ppo := range []bool{false, true} {
			var pol policy.Softmax = policy.NewLinear()
			if kind == "mlp" {
				pol = policy.NewMLP(6, rand.New(rand.NewPCG(3, 4)))
			}
			params := pol.Params()
			for i := range params {
				params[i] = 0.3 * r.NormFloat64()
			}
			samples := randomSamples(r, 20)
			// Decisions without a choice, as collect makes them: no
			// gradient, but a weight in the average.
			for i := 3; i < len(samples); i += 7 {
				s := &samples[i]
				s.mask, s.pOld, s.probs, s.recorded = collective.Mask(0).With(s.action), 1, [collective.NumActions]float64{}, true
				s.probs[s.action] = 1
			}
			if !ppo {
				// As a recorder keeps them: the update reads the recorded
				// probabilities rather than computing them again.
				for i := range samples {
					if s := &samples[i]; !s.mask.Single() {
						pol.ProbsLog(&s.x, s.mask, &s.probs, &s.logp)
						s.recorded = true
					}
				}
			}
			grad := make([]float64, len(params))
			policyGradient(pol, samples, objective{ppo: ppo, clipRatio: 0.2, entropy: 0.05}, grad)
			const h = 1e-6
			for i := range params {
				orig := params[i]
				params[i] = orig + h
				up := surrogate(pol, samples, ppo, 0.2, 0.05)
				params[i] = orig - h
				down := surrogate(pol, samples, ppo, 0.2, 0.05)
				params[i] = orig
				fd := (up - down) / (2 * h)
				assert.InDelta(t, fd, grad[i], 1e-6+1e-4*math.Abs(fd), "%s ppo=%v param %d", kind, ppo, i)
			}
		}
	}
}

// A bandit: one state, three valid actions with known mean rewards. The
// update with a group baseline must find the best arm.
func TestBanditSolved(t *testing.T) {
	arms := map[collective.Action]float64{collective.Work: 0.2, collective.Delegate: 0.5, collective.Check: 0.9}
	mask := collective.Mask(0).With(collective.Work).With(collective.Delegate).With(collective.Check)
	for _, kind := range []string{"linear", "mlp"} {
		var pol policy.Softmax = policy.NewLinear()
		if kind == "mlp" {
			pol = policy.NewMLP(8, rand.New(rand.NewPCG(5, 6)))
		}
		obs := collective.Observation{Main: true, Ready: 2}
		r := rand.New(rand.NewPCG(7, 8))
		opt := newAdam(len(pol.Params()), 0.9, 0.999, 1e-8)
		grad := make([]float64, len(pol.Params()))
		for range 300 {
			samples := make([]sample, 16)
			rewards := make([]float64, 16)
			for i := range samples {
				s := &samples[i]
				policy.Features(&obs, &s.x)
				s.mask = mask
				s.action = pol.Decide(&obs, mask, r.Float64())
				s.rollout = i
				rewards[i] = arms[s.action] + 0.3*r.NormFloat64()
			}
			baseline := math.NaN()
			adv := rolloutAdvantages(nil, DefaultConfig(), rewards, 16, &baseline)
			for i := range samples {
				samples[i].adv = adv[i]
			}
			weigh(samples, PerDecision, 16)
			policyGradient(pol, samples, objective{}, grad)
			opt.step(pol.Params(), grad, 0.05)
		}
		var x [policy.NumFeatures]float64
		policy.Features(&obs, &x)
		var probs [collective.NumActions]float64
		pol.Probs(&x, mask, &probs)
		assert.Greater(t, probs[collective.Check], 0.95, "%s: p(best arm)", kind)
	}
}

// A two-step problem: first delegate or work, then check or wait. Only
// delegate followed by check pays 1; everything else pays 0.2 at most. The
// flat advantage credits both decisions of a rollout alike, and must still
// find the optimal pair.
func TestTwoStepSolved(t *testing.T) {
	first := collective.Mask(0).With(collective.Work).With(collective.Delegate)
	second := collective.Mask(0).With(collective.Check).With(collective.Wait)
	o1 := collective.Observation{Main: true, Ready: 3, Free: 2}
	o2 := collective.Observation{Main: true, Unchecked: true, Busy: 1}
	payoff := func(a, b collective.Action) float64 {
		switch {
		case a == collective.Delegate && b == collective.Check:
			return 1
		case a == collective.Work && b == collective.Wait:
			return 0.2
		}
		return 0
	}
	pol := policy.NewLinear()
	r := rand.New(rand.NewPCG(9, 10))
	opt := newAdam(len(pol.Params()), 0.9, 0.999, 1e-8)
	grad := make([]float64, len(pol.Params()))
	for range 300 {
		var samples []sample
		rewards := make([]float64, 16)
		for i := range rewards {
			a := pol.Decide(&o1, first, r.Float64())
			b := pol.Decide(&o2, second, r.Float64())
			rewards[i] = payoff(a, b)
			s1 := sample{mask: first, action: a, rollout: i}
			policy.Features(&o1, &s1.x)
			s2 := sample{mask: second, action: b, rollout: i}
			policy.Features(&o2, &s2.x)
			samples = append(samples, s1, s2)
		}
		baseline := math.NaN()
		adv := rolloutAdvantages(nil, DefaultConfig(), rewards, 16, &baseline)
		for i := range samples {
			samples[i].adv = adv[samples[i].rollout]
		}
		weigh(samples, PerDecision, 16)
		policyGradient(pol, samples, objective{}, grad)
		opt.step(pol.Params(), grad, 0.05)
	}
	var x [policy.NumFeatures]float64
	var probs [collective.NumActions]float64
	policy.Features(&o1, &x)
	pol.Probs(&x, first, &probs)
	p1 := probs[collective.Delegate]
	policy.Features(&o2, &x)
	pol.Probs(&x, second, &probs)
	p2 := probs[collective.Check]
	assert.Greater(t, p1*p2, 0.9, "p(delegate)·p(check) = %.3f·%.3f", p1, p2)
}

func TestConfigValidate(t *testing.T) {
	good := DefaultConfig()
	require.NoError(t, good.Validate())
	good.Actions = []string{"work", "delegate"}
	require.NoError(t, good.Validate())
	ppo := func(c *Config) { c.Advantage, c.Gamma = PPOGAE, 0.9 }
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Iterations = 0 }, "iterations: 0 is out of range"},
		{func(c *Config) { c.Batch = 0 }, "batch: 0"},
		{func(c *Config) { c.Group = 0 }, "group: 0"},
		// The product would overflow an int (2^32 × 2^32 wraps to 0) and
		// slip past every bound computed from it.
		{func(c *Config) { c.Batch, c.Group = 1<<32, 1<<32 }, "batch: 4294967296 with group 4294967296 is out of range (batch × group, the rollouts of an iteration, at most 1000000000)"},
		{func(c *Config) { c.Batch, c.Group = 1_000_000_001, 1 }, "batch: 1000000001 with group 1 is out of range"},
		{func(c *Config) { c.Policy = "transformer" }, `policy: "transformer" is not allowed`},
		{func(c *Config) { c.Policy, c.Hidden = "mlp", 0 }, "hidden: 0"},
		// policy.NewMLP panics beyond MaxHidden: a training of hidden
		// 100000000 ended in an internal error.
		{func(c *Config) { c.Policy, c.Hidden = "mlp", policy.MaxHidden+1 }, "hidden: 1025 is out of range (1 to 1024 for an mlp)"},
		{func(c *Config) { c.Advantage = "gae" }, `advantage: "gae" is not allowed`},
		{func(c *Config) { c.LossNorm = "token" }, `loss_norm: "token" is not allowed`},
		{func(c *Config) { c.LRSchedule = "step" }, `lr_schedule: "step" is not allowed (allowed: constant, linear, cosine)`},
		{func(c *Config) { c.EntropySchedule = "step" }, `entropy_schedule: "step" is not allowed`},
		{func(c *Config) { c.LR = math.NaN() }, "lr: NaN"},
		{func(c *Config) { c.LREnd = -1 }, "lr_end: -1 is out of range (0 or more)"},
		{func(c *Config) { c.Beta1 = 1 }, "beta1: 1 is out of range ([0, 1))"},
		{func(c *Config) { c.Beta2 = -0.1 }, "beta2: -0.1 is out of range ([0, 1))"},
		{func(c *Config) { c.Eps = 0 }, "eps: 0 is out of range (greater than 0)"},
		{func(c *Config) { c.ClipGrad = -1 }, "clip_grad: -1"},
		{func(c *Config) { c.Entropy = -1 }, "entropy: -1 is out of range (0 or more)"},
		{func(c *Config) { c.EntropyEnd = -1 }, "entropy_end: -1 is out of range (0 or more)"},
		{func(c *Config) { c.BaselineRate = 0 }, "baseline_rate: 0"},
		{func(c *Config) { c.Epochs = 0 }, "epochs: 0 is out of range (at least 1)"},
		{func(c *Config) { c.ClipRatio = 0 }, "clip_ratio: 0 is out of range (greater than 0)"},
		{func(c *Config) { c.Lambda = -0.5 }, "lambda: -0.5 is out of range ([0, 1])"},
		{func(c *Config) { c.ValueLR = 0 }, "value_lr: 0 is out of range (greater than 0)"},
		{func(c *Config) { c.Gamma = 1.5 }, "gamma: 1.5 is out of range ([0, 1])"},
		{func(c *Config) { c.ValueEpochs = 0 }, "value_epochs: 0 is out of range"},
		{func(c *Config) { ppo(c); c.GammaUnit = -sim.Second }, "gamma_unit: -1s is out of range"},
		{func(c *Config) { c.Gamma, c.GammaUnit = 0.9, sim.Minute }, "gamma_unit: only the ppo-gae advantage discounts"},
		{func(c *Config) { ppo(c); c.Gamma, c.GammaUnit = 1, sim.Minute }, "gamma_unit: has no effect with gamma 1"},
		{func(c *Config) { c.Credit = "shapley" }, `credit: "shapley" is not allowed (allowed: contribution, passive)`},
		{func(c *Config) { c.CreditBaseline = "mean" }, `credit_baseline: "mean" is not allowed (allowed: group, none)`},
		{func(c *Config) { c.Actions = []string{"work"} }, "actions: 1 listed, want at least 2"},
		{func(c *Config) { c.Actions = []string{} }, "actions: 0 listed"},
		{func(c *Config) { c.Actions = []string{"work", "wrok"} }, "actions"},
		{func(c *Config) { c.Actions = []string{"work", "work"} }, "actions"},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		err := c.Validate()
		if assert.Error(t, err, tc.want) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	c := DefaultConfig()
	ppo(&c)
	c.GammaUnit = sim.Minute
	assert.NoError(t, c.Validate())
	// The ends of every range are allowed.
	for i, edit := range []func(*Config){
		func(c *Config) { c.Iterations, c.Batch, c.Group, c.Advantage = 1, 1, 1, NoBaseline },
		func(c *Config) { c.Policy, c.Hidden = "mlp", 1 },
		func(c *Config) { c.Policy, c.Hidden = "mlp", policy.MaxHidden },
		// batch × group of exactly MaxRollouts, whole and split.
		func(c *Config) { c.Batch, c.Group, c.Advantage = MaxRollouts, 1, NoBaseline },
		func(c *Config) { c.Batch, c.Group = MaxRollouts/8, 8 },
		func(c *Config) { c.LREnd = 0 },
		func(c *Config) { c.Beta1, c.Beta2 = 0, 0 },
		func(c *Config) { c.ClipGrad = 0 },
		func(c *Config) { c.Entropy, c.EntropyEnd = 0, 0 },
		func(c *Config) { c.BaselineRate = 1 },
		func(c *Config) { c.Epochs, c.ValueEpochs = 1, 1 },
		func(c *Config) { c.Gamma, c.Lambda = 0, 0 },
		func(c *Config) { c.Gamma, c.Lambda = 1, 1 },
	} {
		c := DefaultConfig()
		edit(&c)
		assert.NoError(t, c.Validate(), "boundary %d", i)
	}
	for i, edit := range []func(*Config){
		func(c *Config) { c.LR = 0 },
		func(c *Config) { c.Beta2 = 1 },
		func(c *Config) { c.Eps = 0 },
		func(c *Config) { c.ClipRatio = 0 },
		func(c *Config) { c.ValueLR = 0 },
		func(c *Config) { c.Lambda = -0.1 },
		func(c *Config) { c.Lambda = 1.1 },
		func(c *Config) { c.Beta1 = -0.1 },
		func(c *Config) { c.Entropy = -1 },
	} {
		c := DefaultConfig()
		edit(&c)
		assert.Error(t, c.Validate(), "beyond the boundary %d", i)
	}
}

// A group of one makes the group baseline its own reward: the flat
// collective advantage R − mean_group(R), and per-agent credit less the
// group's mean, are exactly 0 for every decision, so that only the
// entropy bonus would move the policy. Such a configuration is refused;
// the estimators without a group baseline accept it.
func TestGroupOfOneWhereTheBaselineIsTheGroups(t *testing.T) {
	baseline := math.NaN()
	for _, std := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.StdNorm = std
		assert.Equal(t, []float64{0, 0, 0}, rolloutAdvantages(nil, cfg, []float64{1, -2, 0.3}, 1, &baseline), "std_norm %v", std)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // "" for no error
	}{
		{"flat-collective", func(*Config) {}, "group: 1 gives every rollout of the flat-collective advantage an advantage of 0"},
		{"flat-collective ÷ std", func(c *Config) { c.StdNorm = true }, "group: 1 gives every rollout of the flat-collective advantage an advantage of 0"},
		{"per-agent, group baseline", func(c *Config) { c.Advantage = PerAgent }, "group: 1 gives every agent of the per-agent advantage with credit_baseline group an advantage of 0"},
		{"per-agent, no baseline", func(c *Config) { c.Advantage, c.CreditBaseline = PerAgent, NoCredit }, ""},
		{"none", func(c *Config) { c.Advantage = NoBaseline }, ""},
		{"moving-average", func(c *Config) { c.Advantage = MovingAverage }, ""},
		{"ppo-gae", func(c *Config) { c.Advantage = PPOGAE }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Group = 1
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tc.want)
			}
			c.Group = 2
			assert.NoError(t, c.Validate(), "a group of two has a baseline")
		})
	}
}

// TestTrainActionsMasksTheRest trains a policy that may only work or
// delegate: the other actions get no probability at any decision, and
// their weights stay at zero.
func TestTrainActionsMasksTheRest(t *testing.T) {
	for _, adv := range []Advantage{FlatCollective, PerAgent, PPOGAE} {
		cfg := tinyConfig()
		cfg.Advantage = adv
		cfg.Actions = []string{"work", "delegate"}
		rows, params := train(t, tinyProblem(), cfg, 2)
		for _, it := range rows {
			require.Positive(t, it.Decisions)
			assert.InDelta(t, 1, it.ActionProbs[collective.Work]+it.ActionProbs[collective.Delegate], 1e-9, "%s", adv)
		}
		for a := range collective.Action(collective.NumActions) {
			if a == collective.Work || a == collective.Delegate {
				continue
			}
			row := params[int(a)*policy.NumFeatures : (int(a)+1)*policy.NumFeatures]
			assert.Equal(t, make([]float64, policy.NumFeatures), row, "%s: weights of %v", adv, a)
		}
	}
}

// Workers 0 means GOMAXPROCS; any other count is kept as given (a run
// asked to stay on one worker must not spread over every processor).
func TestWorkersDefaultToGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3)) // so that 1 and GOMAXPROCS differ
	cfg := tinyConfig()
	cfg.Iterations, cfg.Batch, cfg.Group = 1, 1, 2
	for _, c := range []struct{ workers, want int }{{0, 3}, {1, 1}, {2, 2}, {5, 5}} {
		tr := training{Run: Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: c.workers}, memFor: getMemory}
		_, err := tr.run(context.Background())
		require.NoError(t, err)
		assert.Equal(t, c.want, tr.Workers, "Workers %d", c.workers)
	}
}

// collect makes the samples in the memory's slice wherever it holds them
// all, its capacity exactly the decisions' count included, and leaves
// nothing of the last iteration's samples in them.
func TestCollectReusesTheMemorysSamples(t *testing.T) {
	single := collective.Mask(0).With(collective.Wait)
	r := &collective.Result{}
	for j := range 3 {
		r.Decisions = append(r.Decisions, collective.Decision{Agent: j, Mask: single, Action: collective.Wait,
			Obs: collective.Observation{Elapsed: float64(10 * j)}})
	}
	for _, c := range []struct {
		cap   int
		reuse bool
	}{{2, false}, {3, true}, {5, true}} {
		mem := newMemory(1, 1)
		old := make([]sample, c.cap)
		for i := range old {
			old[i] = sample{adv: 5, weight: 0.5, pOld: 0.3, rollout: 9, v: 1, ret: 2}
		}
		mem.samples = old[:0]
		out := collect([]*collective.Result{r}, mem, false)
		require.Len(t, out, 3, "cap %d", c.cap)
		assert.Equal(t, c.reuse, &out[0] == &old[0], "cap %d: reused", c.cap)
		assert.Same(t, &out[0], &mem.samples[0], "cap %d: the memory keeps the samples", c.cap)
		for j, s := range out {
			var probs [collective.NumActions]float64
			probs[collective.Wait] = 1
			want := sample{mask: single, action: collective.Wait, rollout: 0, agent: j, pOld: 1, at: float64(10 * j), probs: probs, recorded: true}
			assert.Equal(t, want, s, "cap %d, decision %d", c.cap, j)
		}
	}
}

// At the edge of PPO's clip range the update takes the unclipped gradient
// w·A·ρ·∇log π (the derivative from inside the range, and what autograd
// through min and clamp gives there, clamp passing its gradient at its
// bounds); only strictly beyond it, on the side where the clip binds
// (ρ > 1+ε for A > 0, ρ < 1-ε for A < 0), is the clipped term flat. The
// policy is linear at 0, so π is 1/4 on each of the four valid actions and
// every ρ below is exact.
func TestPPOClipEdges(t *testing.T) {
	mask := collective.Mask(0).With(collective.Work).With(collective.Delegate).With(collective.Check).With(collective.Wait)
	for _, c := range []struct {
		name             string
		adv, eps, pOld   float64
		ratio, wantScale float64
	}{
		{"A>0 inside", 1, 1, 0.25, 1, 1},
		{"A>0 at 1+ε", 1, 1, 0.125, 2, 2},
		{"A>0 beyond 1+ε", 1, 1, 0.0625, 4, 0},
		{"A>0 below 1-ε", 1, 0.5, 1, 0.25, 0.25},
		{"A<0 inside", -1, 0.5, 0.25, 1, -1},
		{"A<0 at 1-ε", -1, 0.5, 0.5, 0.5, -0.5},
		{"A<0 beyond 1-ε", -1, 0.5, 1, 0.25, 0},
		{"A<0 above 1+ε", -1, 0.5, 0.125, 2, -2},
		{"A=0 beyond", 0, 0.5, 0.0625, 4, 0},
	} {
		pol := policy.NewLinear()
		r := rand.New(rand.NewPCG(5, 6))
		samples := randomSamples(r, 1)
		s := &samples[0]
		s.mask, s.action, s.adv, s.pOld, s.weight = mask, collective.Check, c.adv, c.pOld, 1
		var probs [collective.NumActions]float64
		pol.Probs(&s.x, s.mask, &probs)
		require.Equal(t, c.ratio, probs[s.action]/s.pOld, c.name)

		grad := make([]float64, len(pol.Params()))
		policyGradient(pol, samples, objective{ppo: true, clipRatio: c.eps}, grad)
		// ∇log π(a|x), from the policy (its own tests check it), and scaled.
		want := make([]float64, len(grad))
		pol.AddGrad(policy.Term{X: &s.x, Mask: s.mask, Action: s.action, Scale: 1}, want)
		require.NotZero(t, slices.Max(want)-slices.Min(want), c.name)
		for i := range want {
			want[i] *= c.wantScale
		}
		assert.InDeltaSlice(t, want, grad, 1e-12, c.name)
	}
}
