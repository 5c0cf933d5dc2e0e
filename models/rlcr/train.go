package rlcr

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Advantage names how a rollout's reward becomes the advantage of its
// decisions.
type Advantage string

// Advantage estimators.
const (
	// FlatCollective is RLCR's default: A = R − mean of the group (÷ the
	// group's std with StdNorm), the same value for every decision of
	// every agent in the rollout.
	FlatCollective Advantage = "flat-collective"
	// NoBaseline uses the reward itself: A = R.
	NoBaseline Advantage = "none"
	// MovingAverage subtracts a running mean of past rewards.
	MovingAverage Advantage = "moving-average"
	// PerAgent gives each agent its difference reward: R minus the reward
	// of a counterfactual replay with the same random numbers (Credit),
	// less the group's mean difference reward for that agent
	// (CreditBaseline).
	PerAgent Advantage = "per-agent"
	// PPOGAE is PPO-clip with GAE(γ, λ) over each agent's decisions and a
	// learned linear value.
	PPOGAE Advantage = "ppo-gae"
)

// Credit names the counterfactual of per-agent credit.
type Credit string

// Counterfactuals of a difference reward.
const (
	// Contribution replays the episode with every decision drawn as
	// before, except that the agent's delegations, attempts and shares are
	// replaced by the first valid of work, wait, check, submit: what it
	// contributed is removed, not the agent. An agent that contributed
	// none of these gets exactly 0 without a replay.
	Contribution Credit = "contribution"
	// Passive replays the episode with the agent only working, waiting or
	// submitting at every decision.
	Passive Credit = "passive"
)

// CreditBaseline names what is subtracted from difference rewards.
type CreditBaseline string

// Baselines of difference rewards.
const (
	// GroupCredit subtracts, from agent k's difference reward in a rollout,
	// its mean over the rollouts of the group in which agent k decided.
	GroupCredit CreditBaseline = "group"
	// NoCredit uses the difference reward itself.
	NoCredit CreditBaseline = "none"
)

// LossNorm names how the policy-gradient loss is averaged.
type LossNorm string

// Loss normalisations. Per-rollout averaging gives each rollout the same
// weight however many decisions it has, which biases towards long
// rollouts' individual decisions counting less (the 1/|o| length bias that
// Dr. GRPO removes); per-decision averaging does not.
const (
	PerDecision LossNorm = "decision"
	PerRollout  LossNorm = "rollout"
)

// Config holds every hyperparameter of the learner.
type Config struct {
	Iterations int `yaml:"iterations" json:"iterations"` // policy updates
	Batch      int `yaml:"batch" json:"batch"`           // B: task instances per iteration
	Group      int `yaml:"group" json:"group"`           // G: rollouts per task instance

	Policy string `yaml:"policy" json:"policy"` // "linear" or "mlp"
	Hidden int    `yaml:"hidden" json:"hidden"` // MLP hidden units
	// Actions lists the actions the policy may choose among; the others
	// are masked (an ablation of what the policy may do). Where none of
	// them is valid the agent does what it must without a decision
	// (collective.Must), and if submit is not listed a complete result is
	// submitted without one. Empty means every action.
	Actions []string `yaml:"actions,omitempty" json:"actions,omitempty"`

	LR         float64  `yaml:"lr" json:"lr"`                   // Adam learning rate at the start
	LREnd      float64  `yaml:"lr_end" json:"lr_end"`           // ... and at the end
	LRSchedule Schedule `yaml:"lr_schedule" json:"lr_schedule"` // constant, linear or cosine
	Beta1      float64  `yaml:"beta1" json:"beta1"`
	Beta2      float64  `yaml:"beta2" json:"beta2"`
	Eps        float64  `yaml:"eps" json:"eps"`
	ClipGrad   float64  `yaml:"clip_grad" json:"clip_grad"` // global gradient-norm clip; 0 for none

	Entropy         float64  `yaml:"entropy" json:"entropy"`         // entropy bonus at the start
	EntropyEnd      float64  `yaml:"entropy_end" json:"entropy_end"` // ... and at the end
	EntropySchedule Schedule `yaml:"entropy_schedule" json:"entropy_schedule"`

	// CRN gives the G rollouts of one task instance the same environment
	// streams (attempt outcomes, checks, conflicts, selection), so that
	// they differ only in the policy's own draws: common random numbers
	// within a group.
	CRN bool `yaml:"crn" json:"crn"`

	Advantage    Advantage `yaml:"advantage" json:"advantage"`
	StdNorm      bool      `yaml:"std_norm" json:"std_norm"`           // divide by the group's std (GRPO)
	LossNorm     LossNorm  `yaml:"loss_norm" json:"loss_norm"`         // decision or rollout
	BaselineRate float64   `yaml:"baseline_rate" json:"baseline_rate"` // moving-average step

	Credit         Credit         `yaml:"credit" json:"credit"`                   // per-agent: contribution or passive
	CreditBaseline CreditBaseline `yaml:"credit_baseline" json:"credit_baseline"` // per-agent: group or none

	// WarmStart, when set, names a fixed organization whose decisions
	// the policy imitates for WarmIterations iterations before RLCR
	// starts (behaviour cloning: a base that already knows a tactic).
	WarmStart      string `yaml:"warm_start" json:"warm_start,omitempty"`
	WarmIterations int    `yaml:"warm_iterations" json:"warm_iterations,omitempty"`

	Epochs    int     `yaml:"epochs" json:"epochs"`         // PPO epochs per batch
	ClipRatio float64 `yaml:"clip_ratio" json:"clip_ratio"` // PPO ε
	Gamma     float64 `yaml:"gamma" json:"gamma"`           // GAE γ
	// GammaUnit, if set, makes γ a discount per this much virtual time
	// (γ^(Δt/unit) between decisions Δt apart, and from the last decision
	// to the finish) instead of per decision, so that zero-time
	// re-decisions are not discounted.
	GammaUnit   sim.Time `yaml:"gamma_unit" json:"gamma_unit"`
	Lambda      float64  `yaml:"lambda" json:"lambda"`             // GAE λ (1 was more stable in Open-Reasoner-Zero)
	ValueLR     float64  `yaml:"value_lr" json:"value_lr"`         // Adam learning rate of the value
	ValueEpochs int      `yaml:"value_epochs" json:"value_epochs"` // Adam steps on the value per iteration
}

// DefaultConfig returns the defaults: a linear policy trained with the
// flat collective advantage, per-decision loss averaging, Adam at 0.05
// decaying linearly to 0.01, and a small entropy bonus.
func DefaultConfig() Config {
	return Config{
		Iterations: 60, Batch: 8, Group: 8,
		Policy: "linear", Hidden: 16,
		LR: 0.05, LREnd: 0.01, LRSchedule: Linear, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, ClipGrad: 1,
		Entropy: 0.01, EntropyEnd: 0.001, EntropySchedule: Linear,
		CRN:       true,
		Advantage: FlatCollective, LossNorm: PerDecision, BaselineRate: 0.1,
		Credit: Contribution, CreditBaseline: GroupCredit,
		Epochs: 4, ClipRatio: 0.2, Gamma: 1, Lambda: 1, ValueLR: 0.01, ValueEpochs: 10,
	}
}

// Validate reports the first out-of-range hyperparameter.
func (c *Config) Validate() error {
	if c.Iterations < 1 {
		return fmt.Errorf("iterations: %d is out of range (at least 1)", c.Iterations)
	}
	if c.Batch < 1 {
		return fmt.Errorf("batch: %d is out of range (at least 1)", c.Batch)
	}
	if c.Group < 1 {
		return fmt.Errorf("group: %d is out of range (at least 1)", c.Group)
	}
	if c.Policy != "linear" && c.Policy != "mlp" {
		return fmt.Errorf("policy: %q is not allowed (allowed: linear, mlp)", c.Policy)
	}
	if c.Policy == "mlp" && c.Hidden < 1 {
		return fmt.Errorf("hidden: %d is out of range (at least 1 for an mlp)", c.Hidden)
	}
	if !(c.LR > 0) || !(c.LREnd >= 0) {
		return fmt.Errorf("lr: %v to %v is out of range (lr > 0, lr_end ≥ 0)", c.LR, c.LREnd)
	}
	if !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1) || !(c.Eps > 0) {
		return fmt.Errorf("beta1, beta2, eps: %v, %v, %v are out of range ([0,1), [0,1), > 0)", c.Beta1, c.Beta2, c.Eps)
	}
	if !(c.ClipGrad >= 0) {
		return fmt.Errorf("clip_grad: %v is out of range (0 for none, or more)", c.ClipGrad)
	}
	if !(c.Entropy >= 0) || !(c.EntropyEnd >= 0) {
		return fmt.Errorf("entropy: %v to %v is out of range (0 or more)", c.Entropy, c.EntropyEnd)
	}
	if !(c.BaselineRate > 0 && c.BaselineRate <= 1) {
		return fmt.Errorf("baseline_rate: %v is out of range (0, 1]", c.BaselineRate)
	}
	if c.Epochs < 1 || !(c.ClipRatio > 0) || !(c.Gamma >= 0 && c.Gamma <= 1) || !(c.Lambda >= 0 && c.Lambda <= 1) || !(c.ValueLR > 0) {
		return fmt.Errorf("epochs, clip_ratio, gamma, lambda, value_lr: %d, %v, %v, %v, %v are out of range (≥ 1, > 0, [0,1], [0,1], > 0)", c.Epochs, c.ClipRatio, c.Gamma, c.Lambda, c.ValueLR)
	}
	if c.ValueEpochs < 1 {
		return fmt.Errorf("value_epochs: %d is out of range (at least 1)", c.ValueEpochs)
	}
	if c.GammaUnit < 0 {
		return fmt.Errorf("gamma_unit: %v is out of range (0 for a discount per decision, or a duration)", c.GammaUnit)
	}
	if c.GammaUnit > 0 && c.Advantage != PPOGAE {
		return fmt.Errorf("gamma_unit: only the ppo-gae advantage discounts (advantage is %s)", c.Advantage)
	}
	if c.GammaUnit > 0 && c.Gamma == 1 {
		return fmt.Errorf("gamma_unit: has no effect with gamma 1 (set gamma below 1, or remove gamma_unit)")
	}
	for _, s := range []Schedule{c.LRSchedule, c.EntropySchedule} {
		if s != Constant && s != Linear && s != Cosine {
			return fmt.Errorf("schedule: %q is not allowed (allowed: constant, linear, cosine)", s)
		}
	}
	switch c.Advantage {
	case FlatCollective, NoBaseline, MovingAverage, PerAgent, PPOGAE:
	default:
		return fmt.Errorf("advantage: %q is not allowed (allowed: flat-collective, none, moving-average, per-agent, ppo-gae)", c.Advantage)
	}
	switch {
	case c.WarmIterations < 0:
		return fmt.Errorf("warm_iterations: %d is out of range (0 or more)", c.WarmIterations)
	case c.WarmStart == "" && c.WarmIterations > 0:
		return fmt.Errorf("warm_iterations: %d has nothing to imitate (set warm_start to an organization)", c.WarmIterations)
	case c.WarmStart != "" && c.WarmIterations == 0:
		return fmt.Errorf("warm_start: %q needs warm_iterations of 1 or more", c.WarmStart)
	case c.WarmStart != "":
		if _, err := policy.Organization(c.WarmStart); err != nil {
			return fmt.Errorf("warm_start: %w", err)
		}
	}
	if c.LossNorm != PerDecision && c.LossNorm != PerRollout {
		return fmt.Errorf("loss_norm: %q is not allowed (allowed: decision, rollout)", c.LossNorm)
	}
	if c.Credit != Contribution && c.Credit != Passive {
		return fmt.Errorf("credit: %q is not allowed (allowed: contribution, passive)", c.Credit)
	}
	if c.CreditBaseline != GroupCredit && c.CreditBaseline != NoCredit {
		return fmt.Errorf("credit_baseline: %q is not allowed (allowed: group, none)", c.CreditBaseline)
	}
	if c.Actions != nil {
		if _, err := collective.ParseMask(c.Actions); err != nil {
			return fmt.Errorf("actions%w", err)
		}
		if len(c.Actions) < 2 {
			return fmt.Errorf("actions: %d listed, want at least 2 (with fewer there is nothing to choose, and nothing to learn); leave it out for every action", len(c.Actions))
		}
	}
	return nil
}

// actionMask is the mask of the actions the policy may choose; 0 for all.
// The config must be valid.
func (c *Config) actionMask() collective.Mask {
	m, _ := collective.ParseMask(c.Actions)
	return m
}

// Problem is what is learned: a task family, a collective and its reward.
type Problem struct {
	Task       task.Family
	Collective collective.Config
	Reward     Reward
	// MaxEvents bounds each rollout's events (collective.Options.MaxEvents);
	// 0 means the default.
	MaxEvents uint64
}

// Iteration summarises one training iteration: the rollouts it ran and the
// update it made. It is one row of iterations.csv.
type Iteration struct {
	Iteration       int
	Episodes        int
	RewardMean      float64
	SuccessRate     float64
	LatencyMean     float64 // finish time, virtual seconds
	LatencyP90      float64
	ParallelismMean float64
	MessagesMean    float64
	ModelCallsMean  float64
	AgentTimeMean   float64 // virtual seconds
	// SpawnFinishRate is PARL's r_finish over the iteration: subagent
	// subtasks completed over those assigned, summed over its rollouts;
	// NaN when no rollout assigned one.
	SpawnFinishRate float64
	// CriticalStepsMean is the mean of the episodes' critical steps.
	CriticalStepsMean float64
	// HandoffMissesMean and DuplicatesMean are the mean per rollout of the
	// delegated parts misunderstood and of the duplicate delegations
	// (collective.Metrics.HandoffMisses, Duplicates).
	HandoffMissesMean float64
	DuplicatesMean    float64
	Decisions         int
	// DecisionsAcceptable and DecisionsFailed are the mean decisions per
	// rollout of the acceptable and of the other rollouts (NaN when there
	// are none): the length bias that loss normalisation can introduce
	// shows as a gap between them.
	DecisionsAcceptable float64
	DecisionsFailed     float64
	Entropy             float64                        // mean policy entropy over decisions
	ActionProbs         [collective.NumActions]float64 // mean π(a|x) over decisions
	GradNorm            float64
	LR                  float64
	Replays             int     // per-agent: counterfactual episodes run
	PolicySteps         int     // Adam steps on the policy this iteration
	ValueSteps          int     // Adam steps on the value (PPO)
	ValueEV             float64 // PPO: explained variance of the returns by the value that computed the advantages; NaN otherwise
}

// Train learns a shared policy for prob with the RLCR update and returns
// it. emit receives each iteration's summary as soon as it is done. The
// result depends only on the arguments, never on workers.
func Train(ctx context.Context, prob Problem, cfg Config, seed uint64, workers int, emit func(Iteration) error) (policy.Softmax, error) {
	return Resume(ctx, prob, cfg, seed, workers, nil, emit, nil)
}

// Checkpoint is what Train carries from one iteration to the next: the
// policy, the optimisers' moments and step counts, the learned value and
// the moving-average baseline. The random streams need nothing saved:
// iteration t draws from streams derived from the seed and t alone. So
// training resumed from a checkpoint takes exactly the steps it would
// have taken without stopping.
type Checkpoint struct {
	Done      int       // iterations done
	Params    []float64 // the policy's parameters
	Adam      AdamState
	Value     []float64 // the learned value's parameters (PPO)
	ValueAdam AdamState
	Baseline  float64 // the moving average of rewards; NaN before the first
}

// AdamState is the state of one Adam optimiser.
type AdamState struct {
	M, V []float64
	T    int
}

// Resume is Train continued from a checkpoint from (nil: from the start)
// with the same arguments: the iterations from.Done onwards are run and
// emitted, and the policy returned is the one an uninterrupted Train
// returns. save, when not nil, receives the checkpoint after each
// iteration (after emit); it may keep it, as it is not reused.
func Resume(ctx context.Context, prob Problem, cfg Config, seed uint64, workers int, from *Checkpoint, emit func(Iteration) error, save func(*Checkpoint) error) (policy.Softmax, error) {
	return resume(ctx, prob, cfg, seed, workers, from, emit, save, getMemory)
}

// resume is Resume on the memory memFor returns for B×G rollouts, so that
// a test can say which memory a training reuses: the pool may drop what it
// keeps at any time (at a collection, at random under the race detector).
func resume(ctx context.Context, prob Problem, cfg Config, seed uint64, workers int, from *Checkpoint, emit func(Iteration) error, save func(*Checkpoint) error, memFor func(B, G int) *memory) (policy.Softmax, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := prob.Collective.Validate(); err != nil {
		return nil, fmt.Errorf("collective: %w", err)
	}
	if err := prob.Task.Validate(); err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	if err := prob.Reward.Validate(&prob.Collective); err != nil {
		return nil, fmt.Errorf("reward: %w", err)
	}
	if err := prob.Reward.ValidateTraining(&cfg); err != nil {
		return nil, fmt.Errorf("reward: %w", err)
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	streams := sim.NewStreams(seed)

	// The shared policy, its optimiser, and (for PPO) a learned value.
	var pol policy.Softmax = policy.NewLinear()
	if cfg.Policy == "mlp" {
		pol = policy.NewMLP(cfg.Hidden, streams.New("init", 0))
	}
	opt := newAdam(len(pol.Params()), cfg.Beta1, cfg.Beta2, cfg.Eps)
	value := policy.NewValue()
	valueOpt := newAdam(len(value.Params()), cfg.Beta1, cfg.Beta2, cfg.Eps)
	baseline := math.NaN() // moving average of rewards
	start := 0
	if from != nil {
		if err := from.restore(cfg, pol, opt, value, valueOpt); err != nil {
			return nil, err
		}
		start, baseline = from.Done, from.Baseline
	}

	B, G := cfg.Batch, cfg.Group
	grad := make([]float64, len(pol.Params()))
	if cfg.WarmStart != "" && start == 0 { // a resumed run was warmed before
		if err := warmStart(ctx, prob, pol, cfg, streams, workers); err != nil {
			return nil, err
		}
	}
	mem := memFor(B, G) // reused by every iteration, and by the next training
	rewards := mem.rewards
	for it := start; it < cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lr := cfg.LRSchedule.at(cfg.LR, cfg.LREnd, it, cfg.Iterations)
		entCoef := cfg.EntropySchedule.at(cfg.Entropy, cfg.EntropyEnd, it, cfg.Iterations)
		iterStreams := streams.Derive("iteration", uint64(it))

		// 1. Rollouts: B task instances, G rollouts of each, all agents
		// deciding with the same parameters.
		results, graphs, err := rollouts(ctx, prob, pol, iterStreams, B, G, cfg.actionMask(), cfg.CRN, workers, mem)
		if err != nil {
			return nil, err
		}

		// 2. The collective reward of every rollout, scored group by group
		// (group-relative penalties compare the group's finish times).
		metrics := mem.metrics
		for i, r := range results {
			metrics[i] = r.Metrics
		}
		for b := range B {
			prob.Reward.Group(&prob.Collective, it, metrics[b*G:(b+1)*G], rewards[b*G:(b+1)*G])
		}

		// 3. Advantages: one value per rollout (flat) or per agent, then per
		// decision.
		samples := collect(results, mem)
		replays, err := advantages(ctx, prob, cfg, pol, value, iterStreams, graphs, results, rewards, it, workers, &baseline, samples)
		if err != nil {
			return nil, err
		}
		weigh(samples, cfg.LossNorm, B*G)
		stats := summarize(it, results, rewards, samples, mem.finish)
		stats.Replays = replays
		decisionStats(&stats, samples) // of the policy that acted

		// 4. The update: ascend Σ w·A·∇log π(a|x) + entropy bonus, clipped
		// and stepped with Adam (PPO: several clipped epochs, then the
		// value fitted to the returns with several passes).
		var gradNorm float64
		epochs := 1
		if cfg.Advantage == PPOGAE {
			epochs = cfg.Epochs
		}
		for range epochs {
			policyGradient(pol, samples, cfg.Advantage == PPOGAE, cfg.ClipRatio, entCoef, grad)
			gradNorm = clipNorm(grad, cfg.ClipGrad)
			opt.step(pol.Params(), grad, lr)
			stats.PolicySteps++
		}
		stats.ValueEV = math.NaN()
		if cfg.Advantage == PPOGAE {
			stats.ValueEV = explainedVariance(samples)
			stats.ValueSteps = fitValue(samples, value, valueOpt, cfg.ValueLR, cfg.ValueEpochs)
		}

		// 5. Report.
		stats.GradNorm, stats.LR = gradNorm, lr
		if emit != nil {
			if err := emit(stats); err != nil {
				return nil, err
			}
		}
		if save != nil {
			cp := &Checkpoint{Done: it + 1, Params: slices.Clone(pol.Params()), Adam: opt.state(),
				Value: slices.Clone(value.Params()), ValueAdam: valueOpt.state(), Baseline: baseline}
			if err := save(cp); err != nil {
				return nil, err
			}
		}
	}
	mem.release()
	return pol, nil
}

// restore puts the checkpoint's state into a freshly built learner,
// refusing one that does not fit it (another policy kind or size, or more
// iterations than cfg has).
func (cp *Checkpoint) restore(cfg Config, pol policy.Softmax, opt *adam, value *policy.Value, valueOpt *adam) error {
	switch {
	case cp.Done < 0 || cp.Done > cfg.Iterations:
		return fmt.Errorf("checkpoint: %d iterations done, of %d", cp.Done, cfg.Iterations)
	case len(cp.Params) != len(pol.Params()) || len(cp.Value) != len(value.Params()):
		return fmt.Errorf("checkpoint: %d policy and %d value parameters, not %d and %d", len(cp.Params), len(cp.Value), len(pol.Params()), len(value.Params()))
	}
	if err := opt.restore(cp.Adam); err != nil {
		return fmt.Errorf("checkpoint: policy optimiser: %w", err)
	}
	if err := valueOpt.restore(cp.ValueAdam); err != nil {
		return fmt.Errorf("checkpoint: value optimiser: %w", err)
	}
	copy(pol.Params(), cp.Params)
	copy(value.Params(), cp.Value)
	return nil
}

// advantages sets the advantage of every decision of the batch by the
// configured estimator and returns the number of counterfactual replays it
// ran.
func advantages(ctx context.Context, prob Problem, cfg Config, pol collective.Policy, value *policy.Value, iter sim.Streams, graphs []*task.Graph, results []*collective.Result, rewards []float64, it, workers int, baseline *float64, samples []sample) (int, error) {
	switch cfg.Advantage {
	case FlatCollective, NoBaseline, MovingAverage:
		perRollout := rolloutAdvantages(cfg, rewards, cfg.Group, baseline)
		for i := range samples {
			samples[i].adv = perRollout[samples[i].rollout]
		}
	case PerAgent:
		credit, replays, err := differenceRewards(ctx, prob, cfg.Credit, pol, iter, graphs, results, rewards, it, cfg.actionMask(), cfg.CRN, workers)
		if err != nil {
			return 0, err
		}
		if cfg.CreditBaseline == GroupCredit {
			groupBaseline(credit, cfg.Group)
		}
		for i := range samples {
			s := &samples[i]
			s.adv = credit[s.rollout][s.agent]
		}
		return replays, nil
	case PPOGAE:
		gae(samples, results, rewards, value, cfg.Gamma, cfg.GammaUnit, cfg.Lambda)
	}
	return 0, nil
}

// rolloutAdvantages returns one advantage per rollout from the rewards of
// groups of g rollouts; baseline carries the moving average across
// iterations (NaN before the first).
func rolloutAdvantages(cfg Config, rewards []float64, g int, baseline *float64) []float64 {
	adv := make([]float64, len(rewards))
	if cfg.Advantage == MovingAverage && math.IsNaN(*baseline) {
		*baseline = meanOf(rewards)
	}
	for b := 0; b < len(rewards); b += g {
		mean, std := meanStd(rewards[b : b+g])
		for i := b; i < b+g; i++ {
			switch cfg.Advantage {
			case FlatCollective:
				adv[i] = rewards[i] - mean
				if cfg.StdNorm {
					adv[i] /= std + 1e-8
				}
			case NoBaseline:
				adv[i] = rewards[i]
			case MovingAverage:
				adv[i] = rewards[i] - *baseline
			}
		}
	}
	if cfg.Advantage == MovingAverage {
		*baseline += float64(cfg.BaselineRate * (meanOf(rewards) - *baseline))
	}
	return adv
}

// policyGradient sets grad to the gradient of the surrogate objective
//
//	Σ w·A·log π(a|x) + entCoef·Σ w·H(π(·|x))
//
// or, for PPO, of Σ w·min(ρA, clip(ρ, 1±ε)A) + entropy, with ρ = π/π_old.
func policyGradient(pol policy.Softmax, samples []sample, ppo bool, clipRatio, entCoef float64, grad []float64) {
	clear(grad)
	var probs [collective.NumActions]float64
	for i := range samples {
		s := &samples[i]
		if s.mask.Single() {
			continue // no choice, no gradient: both terms are exactly 0
		}
		scale := s.weight * s.adv
		if ppo {
			pol.Probs(&s.x, s.mask, &probs)
			ratio := probs[s.action] / s.pOld
			if (s.adv > 0 && ratio > 1+clipRatio) || (s.adv < 0 && ratio < 1-clipRatio) {
				scale = 0 // the clipped surrogate is flat here
			} else {
				scale *= ratio // ∇ρ = ρ·∇log π
			}
		}
		if s.recorded && !ppo {
			pol.AddGradProbs(&s.x, s.mask, s.action, &s.probs, &s.logp, scale, s.weight*entCoef, grad)
			continue
		}
		pol.AddGrad(&s.x, s.mask, s.action, scale, s.weight*entCoef, grad)
	}
}

// rollouts runs B×G episodes on a pool of workers; rolloutStreams says
// which streams each draws from. Results are indexed, so the pool's size
// changes nothing. Each rollout runs on its worker's runner in mem and
// decides through its own recorder; the results are valid until the next
// call.
func rollouts(ctx context.Context, prob Problem, pol collective.Policy, iter sim.Streams, B, G int, actions collective.Mask, crn bool, workers int, mem *memory) ([]*collective.Result, []*task.Graph, error) {
	graphs := mem.graphs
	for b := range B {
		g, err := prob.Task.Draw(iter.Derive("task", uint64(b)).New("graph", 0))
		if err != nil {
			return nil, nil, fmt.Errorf("task draw: %w", err)
		}
		graphs[b] = g
	}
	mem.growRunners(workers)
	results := mem.results
	err := parallel(ctx, B*G, workers, func(w, i int) error {
		rec := &mem.recs[i]
		rec.pol, rec.rollout, rec.buf = pol, i, rec.buf[:0]
		rec.soft, _ = pol.(policy.Softmax)
		env, opts := rolloutStreams(iter, i, G, crn, &rec.own)
		opts.Record, opts.Actions = true, actions
		opts.Context, opts.MaxEvents = ctx, prob.MaxEvents
		r, err := mem.runners[w].Run(graphs[i/G], prob.Collective, rec, env, opts)
		if err != nil {
			results[i] = nil // not the last iteration's
			return err
		}
		results[i] = mem.keep(i, r)
		return nil
	})
	return results, graphs, err
}

// rolloutStreams returns the environment's streams and the options that
// carry the policy's streams for rollout i, of task instance i/G. Task b
// is drawn from iter.Derive("task", b) and the policy of rollout i draws
// from iter.Derive("rollout", i). With crn the environment of every
// rollout of task b is iter.Derive("task", b) too (its purposes differ
// from the task draw's); without, each rollout's environment is its own
// rollout streams, as independent of its group's as of any other.
// own receives the policy's streams: the caller's memory, so that nothing
// is allocated.
func rolloutStreams(iter sim.Streams, i, G int, crn bool, own *sim.Streams) (sim.Streams, collective.Options) {
	*own = iter.Derive("rollout", uint64(i))
	if !crn {
		return *own, collective.Options{}
	}
	return iter.Derive("task", uint64(i/G)), collective.Options{Decisions: own}
}

// parallel calls fn(w, i) for i in 0..n-1 on up to workers goroutines,
// w being the goroutine's number (0..workers-1, for memory of its own), and
// returns the errors joined in index order, so that errors too are
// deterministic. One worker runs them in order on the calling goroutine.
func parallel(ctx context.Context, n, workers int, fn func(w, i int) error) error {
	if workers <= 1 {
		var errs []error
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(0, i); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				errs[i] = fn(w, i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(slices.DeleteFunc(errs, func(e error) bool { return e == nil })...)
}

// sample is one decision prepared for the update.
type sample struct {
	x       [policy.NumFeatures]float64
	mask    collective.Mask
	action  collective.Action
	rollout int
	agent   int
	adv     float64
	weight  float64
	pOld    float64                        // π(a|x) when the rollout ran
	at      float64                        // virtual seconds when the decision was taken
	v       float64                        // PPO: the value's prediction when the advantages were computed
	ret     float64                        // PPO: the value target
	probs   [collective.NumActions]float64 // π(·|x) when the rollout ran
	logp    [collective.NumActions]float64 // log π(·|x) when the rollout ran
	// recorded says probs and logp were computed when the rollout ran, so
	// that the first gradient at those parameters need not compute them.
	recorded bool
}

// collect lists the decisions of every rollout, in order, as samples. The
// recorders kept those the policy was asked about; a decision with one
// valid action, which the collective took without asking, gets its
// features here and probability 1.
func collect(results []*collective.Result, mem *memory) []sample {
	// The decisions are counted first, so that the samples are made in
	// place (a sample is half a kilobyte): growing the slice as they come
	// cost a fresh training five times their size in copies.
	n := 0
	for _, r := range results {
		n += len(r.Decisions)
	}
	out := mem.samples
	if cap(out) < n {
		out = make([]sample, n, n+n/4)
	}
	out = out[:n]
	k := 0
	for i, r := range results {
		asked := mem.recs[i].buf
		for j := range r.Decisions {
			d := &r.Decisions[j]
			s := &out[k]
			k++
			if !d.Mask.Single() {
				*s = asked[0]
				asked = asked[1:]
				continue
			}
			*s = sample{} // in place, as the recorder makes its samples
			s.mask, s.action, s.rollout, s.agent, s.pOld, s.at, s.recorded = d.Mask, d.Action, i, d.Agent, 1, d.Obs.Elapsed, true
			policy.Features(&d.Obs, &s.x)
			s.probs[d.Action] = 1
		}
	}
	mem.samples = out
	return out
}

// weigh sets each sample's loss weight: 1/(all decisions), or
// 1/(rollouts × decisions of its rollout).
func weigh(samples []sample, norm LossNorm, rollouts int) {
	if norm == PerDecision {
		for i := range samples {
			samples[i].weight = 1 / float64(len(samples))
		}
		return
	}
	count := make([]int, rollouts)
	for _, s := range samples {
		count[s.rollout]++
	}
	for i := range samples {
		samples[i].weight = 1 / float64(rollouts*count[samples[i].rollout])
	}
}

// differenceRewards returns, for each rollout and agent that decided, R
// minus the reward of the same episode replayed under the counterfactual,
// and the number of replays it ran: one per agent that decided (passive),
// or per agent that delegated, attempted or shared (contribution).
func differenceRewards(ctx context.Context, prob Problem, cf Credit, pol collective.Policy, iter sim.Streams, graphs []*task.Graph, results []*collective.Result, rewards []float64, it int, actions collective.Mask, crn bool, workers int) ([]map[int]float64, int, error) {
	type job struct{ rollout, agent int }
	var jobs []job
	credit := make([]map[int]float64, len(results))
	for i, r := range results {
		credit[i] = map[int]float64{}
		contributed := map[int]bool{}
		for _, d := range r.Decisions {
			credit[i][d.Agent] = 0
			contributed[d.Agent] = contributed[d.Agent] || contribution(d.Action)
		}
		for _, a := range slices.Sorted(maps.Keys(credit[i])) { // sorted: the jobs' order is fixed
			if cf == Passive || contributed[a] {
				jobs = append(jobs, job{i, a})
			}
		}
	}
	G := len(results) / len(graphs)
	replays := make([]collective.Metrics, len(jobs))
	err := parallel(ctx, len(jobs), workers, func(_, j int) error {
		jb := jobs[j]
		var p collective.Policy = withoutContribution{pol, jb.agent}
		if cf == Passive {
			p = passive{pol, jb.agent}
		}
		var own sim.Streams
		env, opts := rolloutStreams(iter, jb.rollout, G, crn, &own)
		opts.Actions = actions
		opts.Context, opts.MaxEvents = ctx, prob.MaxEvents
		r, err := collective.Run(graphs[jb.rollout/G], prob.Collective, p, env, opts)
		if err == nil {
			replays[j] = r.Metrics
		}
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	for j, jb := range jobs {
		// Score the replay within the original group, so that
		// group-relative penalties keep their reference.
		b := jb.rollout / G
		group := make([]collective.Metrics, G)
		for k := range G {
			group[k] = results[b*G+k].Metrics
		}
		group[jb.rollout%G] = replays[j]
		out := make([]float64, G)
		prob.Reward.Group(&prob.Collective, it, group, out)
		credit[jb.rollout][jb.agent] = rewards[jb.rollout] - out[jb.rollout%G]
	}
	return credit, len(jobs), nil
}

// groupBaseline subtracts from each agent's difference reward its mean
// over the rollouts of the group (of g) in which that agent decided.
func groupBaseline(credit []map[int]float64, g int) {
	for b := 0; b < len(credit); b += g {
		sum, n := map[int]float64{}, map[int]int{}
		for _, c := range credit[b : b+g] {
			for a, d := range c {
				sum[a] += d
				n[a]++
			}
		}
		for _, c := range credit[b : b+g] {
			for a := range c {
				c[a] -= sum[a] / float64(n[a])
			}
		}
	}
}

// contribution reports whether an action is one the contribution
// counterfactual removes.
func contribution(a collective.Action) bool {
	return a == collective.Delegate || a == collective.Attempt || a == collective.Share
}

// withoutContribution lets every agent decide as the policy does, with
// the same draws, except that one agent's delegations, attempts and shares
// become its first other valid action.
type withoutContribution struct {
	collective.Policy
	agent int
}

func (p withoutContribution) Decide(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	act := p.Policy.Decide(o, m, u)
	if o.Agent != p.agent || !contribution(act) {
		return act
	}
	for _, a := range []collective.Action{collective.Work, collective.Wait, collective.Check, collective.Submit} {
		if m.Has(a) {
			return a
		}
	}
	return act // nothing else is valid: the contribution stands
}

// passive makes one agent only work, wait or submit; the others follow the
// policy.
type passive struct {
	collective.Policy
	agent int
}

func (p passive) Decide(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	if o.Agent != p.agent {
		return p.Policy.Decide(o, m, u)
	}
	for _, a := range []collective.Action{collective.Work, collective.Wait, collective.Submit} {
		if m.Has(a) && (a != collective.Submit || o.Complete || !m.Has(collective.Wait)) {
			return a
		}
	}
	return p.Policy.Decide(o, m, u)
}

// gae computes GAE(γ, λ) advantages over each agent's decisions, in the
// order it took them, with the rollout's reward after its last decision,
// then normalises them over the batch. The discount between two decisions
// is γ, or γ^(Δt/unit) with a time unit (and the reward, which arrives at
// the finish, is discounted from the last decision to it):
//
//	δ_j = γ_j·V(x_{j+1}) − V(x_j) (the last: γ_end·R − V(x_j)),  A_j = δ_j + γ_j·λ·A_{j+1}
func gae(samples []sample, results []*collective.Result, rewards []float64, value *policy.Value, gamma float64, unit sim.Time, lambda float64) {
	discount := func(from, to float64) float64 {
		if unit <= 0 {
			return gamma
		}
		return math.Pow(gamma, (to-from)/unit.Seconds())
	}
	type key struct{ rollout, agent int }
	traj := map[key][]int{}
	var order []key
	for i, s := range samples {
		k := key{s.rollout, s.agent}
		if _, ok := traj[k]; !ok {
			order = append(order, k)
		}
		traj[k] = append(traj[k], i)
	}
	for _, k := range order {
		idx := traj[k]
		last := &samples[idx[len(idx)-1]]
		last.v = value.Predict(&last.x)
		end := 1.0 // the reward comes right after the last decision...
		if unit > 0 {
			end = discount(last.at, results[k.rollout].Metrics.Finish.Seconds()) // ... or at the finish
		}
		last.adv = float64(end*rewards[k.rollout]) - last.v
		last.ret = last.adv + last.v
		for j := len(idx) - 2; j >= 0; j-- {
			s, next := &samples[idx[j]], &samples[idx[j+1]]
			s.v = value.Predict(&s.x)
			g := discount(s.at, next.at)
			s.adv = float64(g*next.v) - s.v + float64(g*lambda*next.adv)
			s.ret = s.adv + s.v
		}
	}
	advs := make([]float64, len(samples))
	for i := range samples {
		advs[i] = samples[i].adv
	}
	mean, std := meanStd(advs)
	for i := range samples {
		samples[i].adv = (samples[i].adv - mean) / (std + 1e-8)
	}
}

// fitValue takes epochs Adam steps on the value's mean squared error to
// the returns and returns how many it took.
func fitValue(samples []sample, value *policy.Value, opt *adam, lr float64, epochs int) int {
	grad := make([]float64, len(value.Params()))
	for range epochs {
		clear(grad)
		for i := range samples {
			value.AddGrad(&samples[i].x, samples[i].ret, -1/float64(len(samples)), grad)
		}
		opt.step(value.Params(), grad, lr)
	}
	return epochs
}

// explainedVariance is 1 − Var(ret − v)/Var(ret) over the batch: 1 for a
// value that predicts the returns, 0 for one that predicts their mean, NaN
// when the returns do not vary.
func explainedVariance(samples []sample) float64 {
	ret, res := make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		ret[i], res[i] = s.ret, s.ret-s.v
	}
	_, sr := meanStd(ret)
	_, se := meanStd(res)
	if sr == 0 {
		return math.NaN()
	}
	return 1 - se*se/(sr*sr)
}

func summarize(it int, results []*collective.Result, rewards []float64, samples []sample, finish []float64) Iteration {
	n := float64(len(results))
	st := Iteration{Iteration: it, Episodes: len(results), Decisions: len(samples), RewardMean: meanOf(rewards)}
	assigned, done := 0, 0
	var okDecisions, okRollouts, failDecisions, failRollouts int
	for i, r := range results {
		m := &r.Metrics
		finish[i] = m.Finish.Seconds()
		if m.Acceptable {
			st.SuccessRate += 1 / n
			okDecisions += len(r.Decisions)
			okRollouts++
		} else {
			failDecisions += len(r.Decisions)
			failRollouts++
		}
		st.CriticalStepsMean += float64(m.CriticalSteps) / n
		st.LatencyMean += finish[i] / n
		st.ParallelismMean += m.ParallelismMean / n
		st.MessagesMean += float64(m.Messages) / n
		st.ModelCallsMean += float64(m.ModelCalls) / n
		st.AgentTimeMean += m.AgentTime.Seconds() / n
		st.HandoffMissesMean += float64(m.HandoffMisses) / n
		st.DuplicatesMean += float64(m.Duplicates) / n
		assigned += m.SubagentTasks
		done += m.SubagentDone
	}
	st.SpawnFinishRate = math.NaN()
	if assigned > 0 {
		st.SpawnFinishRate = float64(done) / float64(assigned)
	}
	st.DecisionsAcceptable = float64(okDecisions) / float64(okRollouts)
	st.DecisionsFailed = float64(failDecisions) / float64(failRollouts)
	slices.Sort(finish)
	st.LatencyP90 = finish[int(math.Ceil(0.9*n))-1]
	return st
}

// decisionStats fills the entropy and mean action probabilities.
func decisionStats(st *Iteration, samples []sample) {
	// The sums are kept in locals, not in st, so that each addition need
	// not wait for the store of the one before; their order is the same.
	probs, entropy := st.ActionProbs, st.Entropy
	n := float64(len(samples))
	for i := range samples {
		if s := &samples[i]; s.mask.Single() {
			probs[s.action] += 1 / n // and no entropy
			continue
		}
		for a, p := range samples[i].probs {
			if p == 0 {
				continue // ±0 leaves a sum begun at +0 as it is
			}
			probs[a] += p / n
			if p > 0 {
				entropy -= p * math.Log(p) / n
			}
		}
	}
	st.ActionProbs, st.Entropy = probs, entropy
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func meanStd(xs []float64) (float64, float64) {
	m := meanOf(xs)
	v := 0.0
	for _, x := range xs {
		v += float64((x - m) * (x - m))
	}
	return m, math.Sqrt(v / float64(len(xs)))
}
