package rlcr

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
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

// MaxRollouts bounds batch × group, the rollouts of one iteration, which
// are all held until the update: as many as the episodes of a run
// (scenarios' maximum), so that the count and the memory estimates made
// from it stay within an int.
const MaxRollouts = 1_000_000_000

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
	// Divided rather than multiplied: the product of two large values
	// wraps around (2^32 × 2^32 is 0) and would pass every bound after.
	if c.Batch > MaxRollouts/c.Group {
		return fmt.Errorf("batch: %d with group %d is out of range (batch × group, the rollouts of an iteration, at most %d)", c.Batch, c.Group, MaxRollouts)
	}
	if c.Policy != "linear" && c.Policy != "mlp" {
		return fmt.Errorf("policy: %q is not allowed (allowed: linear, mlp)", c.Policy)
	}
	if c.Policy == "mlp" && (c.Hidden < 1 || c.Hidden > policy.MaxHidden) {
		return fmt.Errorf("hidden: %d is out of range (1 to %d for an mlp)", c.Hidden, policy.MaxHidden)
	}
	// Each check names one field, so that a scenario places its error at
	// that field's line.
	for _, f := range []struct {
		name string
		v    float64
		ok   bool
		want string
	}{
		{"lr", c.LR, c.LR > 0, "greater than 0"},
		{"lr_end", c.LREnd, c.LREnd >= 0, "0 or more"},
		{"beta1", c.Beta1, c.Beta1 >= 0 && c.Beta1 < 1, "[0, 1)"},
		{"beta2", c.Beta2, c.Beta2 >= 0 && c.Beta2 < 1, "[0, 1)"},
		{"eps", c.Eps, c.Eps > 0, "greater than 0"},
		{"clip_grad", c.ClipGrad, c.ClipGrad >= 0, "0 for none, or more"},
		{"entropy", c.Entropy, c.Entropy >= 0, "0 or more"},
		{"entropy_end", c.EntropyEnd, c.EntropyEnd >= 0, "0 or more"},
		{"baseline_rate", c.BaselineRate, c.BaselineRate > 0 && c.BaselineRate <= 1, "(0, 1]"},
		{"clip_ratio", c.ClipRatio, c.ClipRatio > 0, "greater than 0"},
		{"gamma", c.Gamma, c.Gamma >= 0 && c.Gamma <= 1, "[0, 1]"},
		{"lambda", c.Lambda, c.Lambda >= 0 && c.Lambda <= 1, "[0, 1]"},
		{"value_lr", c.ValueLR, c.ValueLR > 0, "greater than 0"},
	} {
		if !f.ok { // written so, a NaN fails too
			return fmt.Errorf("%s: %v is out of range (%s)", f.name, f.v, f.want)
		}
	}
	if c.Epochs < 1 {
		return fmt.Errorf("epochs: %d is out of range (at least 1)", c.Epochs)
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
	for _, s := range []struct {
		name string
		v    Schedule
	}{{"lr_schedule", c.LRSchedule}, {"entropy_schedule", c.EntropySchedule}} {
		if s.v != Constant && s.v != Linear && s.v != Cosine {
			return fmt.Errorf("%s: %q is not allowed (allowed: constant, linear, cosine)", s.name, s.v)
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
	// A group of one is its own baseline: R − mean_group(R), and an
	// agent's difference reward less its group mean, are 0 for every
	// decision, so that only the entropy bonus would move the policy.
	if c.Group == 1 && c.Advantage == FlatCollective {
		return fmt.Errorf("group: 1 gives every rollout of the flat-collective advantage an advantage of 0 (R less the mean of its group of one), so that nothing is learned (allowed: a group of at least 2, or an advantage without a group baseline: none, moving-average, ppo-gae, or per-agent with credit_baseline none)")
	}
	if c.Group == 1 && c.Advantage == PerAgent && c.CreditBaseline == GroupCredit {
		return fmt.Errorf("group: 1 gives every agent of the per-agent advantage with credit_baseline group an advantage of 0 (its difference reward less its mean over a group of one), so that nothing is learned (allowed: a group of at least 2, or credit_baseline none)")
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

// validate checks a training's arguments: the hyperparameters, and the
// problem's collective, task and reward, which must suit the training.
func validate(prob *Problem, cfg *Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := prob.Collective.Validate(); err != nil {
		return fmt.Errorf("collective: %w", err)
	}
	if err := prob.Task.Validate(); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	if err := prob.Reward.Validate(&prob.Collective); err != nil {
		return fmt.Errorf("reward: %w", err)
	}
	if err := prob.Reward.ValidateTraining(cfg); err != nil {
		return fmt.Errorf("reward: %w", err)
	}
	return nil
}
