package rlcr

import (
	"context"
	"errors"
	"fmt"
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
	// of a replay, with the same random numbers, in which that agent only
	// ever works or waits (no delegation, attempts, sharing or checks).
	PerAgent Advantage = "per-agent"
	// PPOGAE is PPO-clip with GAE(γ, λ) over each agent's decisions and a
	// learned linear value.
	PPOGAE Advantage = "ppo-gae"
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

	Advantage    Advantage `yaml:"advantage" json:"advantage"`
	StdNorm      bool      `yaml:"std_norm" json:"std_norm"`           // divide by the group's std (GRPO)
	LossNorm     LossNorm  `yaml:"loss_norm" json:"loss_norm"`         // decision or rollout
	BaselineRate float64   `yaml:"baseline_rate" json:"baseline_rate"` // moving-average step

	// WarmStart, when set, names a fixed organization whose decisions
	// the policy imitates for WarmIterations iterations before RLCR
	// starts (behaviour cloning: a base that already knows a tactic).
	WarmStart      string `yaml:"warm_start" json:"warm_start,omitempty"`
	WarmIterations int    `yaml:"warm_iterations" json:"warm_iterations,omitempty"`

	Epochs    int     `yaml:"epochs" json:"epochs"`         // PPO epochs per batch
	ClipRatio float64 `yaml:"clip_ratio" json:"clip_ratio"` // PPO ε
	Gamma     float64 `yaml:"gamma" json:"gamma"`           // GAE γ
	Lambda    float64 `yaml:"lambda" json:"lambda"`         // GAE λ (1 was more stable in Open-Reasoner-Zero)
	ValueLR   float64 `yaml:"value_lr" json:"value_lr"`
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
		Advantage: FlatCollective, LossNorm: PerDecision, BaselineRate: 0.1,
		Epochs: 4, ClipRatio: 0.2, Gamma: 1, Lambda: 1, ValueLR: 0.01,
	}
}

// Validate reports the first out-of-range hyperparameter.
func (c *Config) Validate() error {
	switch {
	case c.Iterations < 1:
		return fmt.Errorf("iterations: %d is out of range (at least 1)", c.Iterations)
	case c.Batch < 1:
		return fmt.Errorf("batch: %d is out of range (at least 1)", c.Batch)
	case c.Group < 1:
		return fmt.Errorf("group: %d is out of range (at least 1)", c.Group)
	case c.Policy != "linear" && c.Policy != "mlp":
		return fmt.Errorf("policy: %q is not allowed (allowed: linear, mlp)", c.Policy)
	case c.Policy == "mlp" && c.Hidden < 1:
		return fmt.Errorf("hidden: %d is out of range (at least 1 for an mlp)", c.Hidden)
	case !(c.LR > 0) || !(c.LREnd >= 0):
		return fmt.Errorf("lr: %v to %v is out of range (lr > 0, lr_end ≥ 0)", c.LR, c.LREnd)
	case !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1) || !(c.Eps > 0):
		return fmt.Errorf("beta1, beta2, eps: %v, %v, %v are out of range ([0,1), [0,1), > 0)", c.Beta1, c.Beta2, c.Eps)
	case !(c.ClipGrad >= 0):
		return fmt.Errorf("clip_grad: %v is out of range (0 for none, or more)", c.ClipGrad)
	case !(c.Entropy >= 0) || !(c.EntropyEnd >= 0):
		return fmt.Errorf("entropy: %v to %v is out of range (0 or more)", c.Entropy, c.EntropyEnd)
	case !(c.BaselineRate > 0 && c.BaselineRate <= 1):
		return fmt.Errorf("baseline_rate: %v is out of range (0, 1]", c.BaselineRate)
	case c.Epochs < 1 || !(c.ClipRatio > 0) || !(c.Gamma >= 0 && c.Gamma <= 1) || !(c.Lambda >= 0 && c.Lambda <= 1) || !(c.ValueLR > 0):
		return fmt.Errorf("epochs, clip_ratio, gamma, lambda, value_lr: %d, %v, %v, %v, %v are out of range (≥ 1, > 0, [0,1], [0,1], > 0)", c.Epochs, c.ClipRatio, c.Gamma, c.Lambda, c.ValueLR)
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
	return nil
}

// Problem is what is learned: a task family, a collective and its reward.
type Problem struct {
	Task       task.Family
	Collective collective.Config
	Reward     Reward
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
	// CriticalStepsMean is the mean of the episodes' critical steps.
	CriticalStepsMean float64
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
}

// Train learns a shared policy for prob with the RLCR update and returns
// it. emit receives each iteration's summary as soon as it is done. The
// result depends only on the arguments, never on workers.
func Train(ctx context.Context, prob Problem, cfg Config, seed uint64, workers int, emit func(Iteration) error) (policy.Softmax, error) {
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

	B, G := cfg.Batch, cfg.Group
	if cfg.WarmStart != "" {
		if err := warmStart(ctx, prob, pol, cfg, streams, workers); err != nil {
			return nil, err
		}
	}
	grad := make([]float64, len(pol.Params()))
	rewards := make([]float64, B*G)
	for it := range cfg.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lr := cfg.LRSchedule.at(cfg.LR, cfg.LREnd, it, cfg.Iterations)
		entCoef := cfg.EntropySchedule.at(cfg.Entropy, cfg.EntropyEnd, it, cfg.Iterations)
		iterStreams := streams.Derive("iteration", uint64(it))

		// 1. Rollouts: B task instances, G rollouts of each, all agents
		// deciding with the same parameters.
		results, graphs, err := rollouts(ctx, prob, pol, iterStreams, B, G, workers)
		if err != nil {
			return nil, err
		}

		// 2. The collective reward of every rollout, scored group by group
		// (group-relative penalties compare the group's finish times).
		metrics := make([]collective.Metrics, B*G)
		for i, r := range results {
			metrics[i] = r.Metrics
		}
		for b := range B {
			prob.Reward.Group(&prob.Collective, it, metrics[b*G:(b+1)*G], rewards[b*G:(b+1)*G])
		}

		// 3. Advantages: one value per rollout (flat) or per agent, then per
		// decision.
		samples := collect(results, pol)
		switch cfg.Advantage {
		case FlatCollective, NoBaseline, MovingAverage:
			perRollout := rolloutAdvantages(cfg, rewards, G, &baseline)
			for i := range samples {
				samples[i].adv = perRollout[samples[i].rollout]
			}
		case PerAgent:
			credit, err := differenceRewards(ctx, prob, pol, iterStreams, graphs, results, rewards, it, workers)
			if err != nil {
				return nil, err
			}
			for i := range samples {
				s := &samples[i]
				s.adv = credit[s.rollout][s.agent]
			}
		case PPOGAE:
			gae(samples, rewards, value, cfg.Gamma, cfg.Lambda)
		}
		weigh(samples, cfg.LossNorm, B*G)
		stats := summarize(it, results, rewards, samples)
		decisionStats(&stats, samples, pol) // of the policy that acted

		// 4. The update: ascend Σ w·A·∇log π(a|x) + entropy bonus, clipped
		// and stepped with Adam (PPO: several clipped epochs).
		var gradNorm float64
		epochs := 1
		if cfg.Advantage == PPOGAE {
			epochs = cfg.Epochs
		}
		for range epochs {
			policyGradient(pol, samples, cfg.Advantage == PPOGAE, cfg.ClipRatio, entCoef, grad)
			gradNorm = clipNorm(grad, cfg.ClipGrad)
			opt.step(pol.Params(), grad, lr)
		}
		if cfg.Advantage == PPOGAE {
			fitValue(samples, value, valueOpt, cfg.ValueLR)
		}

		// 5. Report.
		stats.GradNorm, stats.LR = gradNorm, lr
		if emit != nil {
			if err := emit(stats); err != nil {
				return nil, err
			}
		}
	}
	return pol, nil
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
		*baseline += cfg.BaselineRate * (meanOf(rewards) - *baseline)
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
		pol.AddGrad(&s.x, s.mask, s.action, scale, s.weight*entCoef, grad)
	}
}

// rollouts runs B×G episodes on a pool of workers. Rollout i of task b
// gets streams iter.Derive("rollout", b·G+i); task b is drawn from
// iter.Derive("task", b). Results are indexed, so the pool's size changes
// nothing.
func rollouts(ctx context.Context, prob Problem, pol collective.Policy, iter sim.Streams, B, G, workers int) ([]*collective.Result, []*task.Graph, error) {
	graphs := make([]*task.Graph, B)
	for b := range B {
		g, err := prob.Task.Draw(iter.Derive("task", uint64(b)).New("graph", 0))
		if err != nil {
			return nil, nil, fmt.Errorf("task draw: %w", err)
		}
		graphs[b] = g
	}
	results := make([]*collective.Result, B*G)
	err := parallel(ctx, B*G, workers, func(i int) error {
		r, err := collective.Run(graphs[i/G], prob.Collective, pol, iter.Derive("rollout", uint64(i)), collective.Options{Record: true})
		results[i] = r
		return err
	})
	return results, graphs, err
}

// parallel calls fn(0..n-1) on up to workers goroutines and returns the
// first error (by index, so that errors too are deterministic).
func parallel(ctx context.Context, n, workers int, fn func(int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				errs[i] = fn(i)
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
	pOld    float64 // π(a|x) when the rollout ran
	ret     float64 // PPO: the value target
}

func collect(results []*collective.Result, pol policy.Softmax) []sample {
	n := 0
	for _, r := range results {
		n += len(r.Decisions)
	}
	out := make([]sample, 0, n)
	var probs [collective.NumActions]float64
	for i, r := range results {
		for _, d := range r.Decisions {
			s := sample{mask: d.Mask, action: d.Action, rollout: i, agent: d.Agent}
			policy.Features(&d.Obs, &s.x)
			pol.Probs(&s.x, s.mask, &probs)
			s.pOld = probs[d.Action]
			out = append(out, s)
		}
	}
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

// differenceRewards returns, for each rollout and agent, R minus the reward
// of the same episode replayed with that agent acting passively.
func differenceRewards(ctx context.Context, prob Problem, pol collective.Policy, iter sim.Streams, graphs []*task.Graph, results []*collective.Result, rewards []float64, it, workers int) ([]map[int]float64, error) {
	type job struct{ rollout, agent int }
	var jobs []job
	for i, r := range results {
		agents := map[int]bool{}
		for _, d := range r.Decisions {
			agents[d.Agent] = true
		}
		for a := range len(r.Decisions) + 1 {
			if agents[a] {
				jobs = append(jobs, job{i, a})
			}
		}
	}
	G := len(results) / len(graphs)
	replays := make([]collective.Metrics, len(jobs))
	err := parallel(ctx, len(jobs), workers, func(j int) error {
		jb := jobs[j]
		r, err := collective.Run(graphs[jb.rollout/G], prob.Collective, passive{pol, jb.agent}, iter.Derive("rollout", uint64(jb.rollout)), collective.Options{})
		if err == nil {
			replays[j] = r.Metrics
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	credit := make([]map[int]float64, len(results))
	for i := range credit {
		credit[i] = map[int]float64{}
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
	return credit, nil
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
// order it took them, with the rollout's reward at its last decision, then
// normalises them over the batch.
func gae(samples []sample, rewards []float64, value *policy.Value, gamma, lambda float64) {
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
		next, acc := 0.0, 0.0
		for j := len(idx) - 1; j >= 0; j-- {
			s := &samples[idx[j]]
			v := value.Predict(&s.x)
			r := 0.0
			if j == len(idx)-1 {
				r = rewards[k.rollout]
			}
			delta := r + gamma*next - v
			acc = delta + gamma*lambda*acc
			s.adv = acc
			s.ret = acc + v
			next = v
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

// fitValue takes one Adam step on the value's squared error to the returns.
func fitValue(samples []sample, value *policy.Value, opt *adam, lr float64) {
	grad := make([]float64, len(value.Params()))
	for i := range samples {
		value.AddGrad(&samples[i].x, samples[i].ret, -1/float64(len(samples)), grad)
	}
	opt.step(value.Params(), grad, lr)
}

func summarize(it int, results []*collective.Result, rewards []float64, samples []sample) Iteration {
	n := float64(len(results))
	st := Iteration{Iteration: it, Episodes: len(results), Decisions: len(samples), RewardMean: meanOf(rewards)}
	finish := make([]float64, len(results))
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
	}
	st.DecisionsAcceptable = float64(okDecisions) / float64(okRollouts)
	st.DecisionsFailed = float64(failDecisions) / float64(failRollouts)
	slices.Sort(finish)
	st.LatencyP90 = finish[int(math.Ceil(0.9*n))-1]
	return st
}

// decisionStats fills the entropy and mean action probabilities.
func decisionStats(st *Iteration, samples []sample, pol policy.Softmax) {
	var probs [collective.NumActions]float64
	for i := range samples {
		pol.Probs(&samples[i].x, samples[i].mask, &probs)
		for a, p := range probs {
			st.ActionProbs[a] += p / float64(len(samples))
			if p > 0 {
				st.Entropy -= p * math.Log(p) / float64(len(samples))
			}
		}
	}
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
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)))
}
