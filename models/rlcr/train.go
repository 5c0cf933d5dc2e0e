package rlcr

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
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

// Problem is what is learned: a task family, a collective and its reward.
type Problem struct {
	Task       task.Family
	Collective collective.Config
	Reward     Reward
	// MaxEvents bounds each rollout's events (collective.Options.MaxEvents);
	// 0 means the default.
	MaxEvents uint64
}

// Run is one training run: what is learned, how, and where the progress
// goes. Problem, Config and Seed fix the result; Workers, From, Emit and
// Save only pace, continue or watch it.
type Run struct {
	Problem Problem
	Config  Config
	Seed    uint64
	// Workers is how many rollouts run at once (0: GOMAXPROCS). The result
	// never depends on it.
	Workers int
	// From, when not nil, is a checkpoint to continue from: the iterations
	// From.Done onwards are run and emitted, and the policy returned is the
	// one an uninterrupted run returns.
	From *Checkpoint
	// Emit, when not nil, receives each iteration's summary as soon as it
	// is done.
	Emit func(Iteration) error
	// Save, when not nil, is called after each iteration (after Emit)
	// with the number of iterations done and checkpoint, which returns the
	// state to resume from, a fresh copy Save may keep. Save calls it only
	// for the iterations it keeps: copying the policy and its optimiser
	// after every iteration was a third of what a training process
	// allocated, each byte a fresh page.
	Save func(done int, checkpoint func() *Checkpoint) error
}

// Train learns a shared policy for run.Problem with the RLCR update and
// returns it. An error from Emit or Save stops the training and is
// returned as it is.
func Train(ctx context.Context, run Run) (policy.Softmax, error) {
	t := training{Run: run, memFor: getMemory}
	return t.run(ctx)
}

// training is one call of Train: what every step of the loop reads.
type training struct {
	Run // Workers is at least 1 once run has begun
	// memFor returns the memory for B×G rollouts: getMemory, or in a test
	// a memory of its choosing, since the pool may drop what it keeps at
	// any time (at a collection, at random under the race detector).
	memFor func(B, G int) *memory
}

// newPolicy returns the policy cfg names at its start: a linear policy's
// weights 0, an MLP's drawn from r.
func newPolicy(cfg *Config, r *rand.Rand) policy.Softmax {
	if cfg.Policy == "mlp" {
		return policy.NewMLP(cfg.Hidden, r)
	}
	return policy.NewLinear()
}

// run is the algorithm: set up, then per iteration 1. rollouts, 2. rewards,
// 3. advantages, 4. the update, 5. the report. What is not the algorithm
// (validation, memory kept across iterations, checkpoints) is marked
// plumbing.
func (t *training) run(ctx context.Context) (policy.Softmax, error) {
	prob, cfg := &t.Problem, &t.Config
	// Plumbing: the arguments are checked once, here.
	if err := validate(prob, cfg); err != nil {
		return nil, err
	}
	if t.Workers < 1 {
		t.Workers = runtime.GOMAXPROCS(0)
	}
	streams := sim.NewStreams(t.Seed)

	// The shared policy, its optimiser, and (for PPO) a learned value.
	pol := newPolicy(cfg, streams.New("init", 0))
	opt := newAdam(len(pol.Params()), cfg.Beta1, cfg.Beta2, cfg.Eps)
	value := policy.NewValue()
	valueOpt := newAdam(len(value.Params()), cfg.Beta1, cfg.Beta2, cfg.Eps)
	baseline := math.NaN() // moving average of rewards
	start := 0
	if t.From != nil {
		if err := t.From.restore(*cfg, pol, opt, value, valueOpt); err != nil {
			return nil, err
		}
		start, baseline = t.From.Done, t.From.Baseline
	}

	B, G := cfg.Batch, cfg.Group
	grad := make([]float64, len(pol.Params()))
	if cfg.WarmStart != "" && start == 0 { // a resumed run was warmed before
		if err := t.warmStart(ctx, pol, streams); err != nil {
			return nil, err
		}
	}
	// Plumbing: the batch's tables are reused by every iteration, and by
	// the next training.
	mem := t.memFor(B, G)
	// Plumbing: what Save asks for, after iteration done.
	done := start
	checkpoint := func() *Checkpoint {
		return &Checkpoint{Done: done, Params: slices.Clone(pol.Params()), Adam: opt.state(),
			Value: slices.Clone(value.Params()), ValueAdam: valueOpt.state(), Baseline: baseline}
	}
	for it := start; it < cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lr := cfg.LRSchedule.at(cfg.LR, cfg.LREnd, it, cfg.Iterations)
		entCoef := cfg.EntropySchedule.at(cfg.Entropy, cfg.EntropyEnd, it, cfg.Iterations)
		b := batch{iteration: it, streams: streams.Derive("iteration", uint64(it)), G: G, rewards: mem.rewards, adv: mem.adv}

		// 1. Rollouts: B task instances, G rollouts of each, all agents
		// deciding with the same parameters; 2. the collective reward of
		// every rollout (scored).
		if err := t.scored(ctx, pol, &b, mem); err != nil {
			return nil, err
		}

		// 3. Advantages: one value per rollout (flat) or per agent, then per
		// decision, and each decision's weight in the loss.
		b.samples = t.samples(b.results, mem)
		replays, err := t.advantages(ctx, pol, value, &b, &baseline)
		if err != nil {
			return nil, err
		}
		weigh(b.samples, cfg.LossNorm, B*G)
		stats := summarize(&b, mem.finish)
		stats.Replays = replays
		decisionStats(&stats, b.samples) // of the policy that acted

		// 4. The update: ascend the surrogate (policy-gradient or PPO's
		// clipped term, plus the entropy bonus), clipped and stepped with
		// Adam (PPO: several clipped epochs, then the value fitted to the
		// returns with several passes: the value loss).
		loss := objective{ppo: cfg.Advantage == PPOGAE, clipRatio: cfg.ClipRatio, entropy: entCoef}
		var gradNorm float64
		epochs := 1
		if loss.ppo {
			epochs = cfg.Epochs
		}
		for range epochs {
			policyGradient(pol, b.samples, loss, grad)
			gradNorm = clipNorm(grad, cfg.ClipGrad)
			opt.step(pol.Params(), grad, lr)
			stats.PolicySteps++
		}
		stats.ValueEV = math.NaN()
		if loss.ppo {
			stats.ValueEV = explainedVariance(b.samples)
			stats.ValueSteps = fitValue(b.samples, value, valueOpt, cfg.ValueLR, cfg.ValueEpochs)
		}

		// 5. Report, and (plumbing) the checkpoint to resume from.
		stats.GradNorm, stats.LR = gradNorm, lr
		if t.Emit != nil {
			if err := t.Emit(stats); err != nil {
				return nil, err
			}
		}
		done = it + 1
		if t.Save != nil {
			if err := t.Save(done, checkpoint); err != nil {
				return nil, err
			}
		}
	}
	mem.release()
	return pol, nil
}

// batch is one iteration's experience: B task instances, G rollouts of
// each (rollout i is of instance i/G, the rollouts of an instance its
// group), their collective rewards and their decisions. The slices are
// the memory's, valid until the next iteration.
type batch struct {
	iteration int
	streams   sim.Streams // the iteration's: tasks, rollouts and replays draw from it
	G         int
	graphs    []*task.Graph        // the B task instances
	results   []*collective.Result // the B×G rollouts
	rewards   []float64            // the collective reward of each rollout
	adv       []float64            // the advantage of each rollout, where the estimator gives one
	samples   []sample             // every decision, rollout by rollout
}

// scored runs b's rollouts with pol deciding and scores each with the
// collective reward, group by group (group-relative penalties compare the
// group's finish times), into b.rewards.
func (t *training) scored(ctx context.Context, pol collective.Policy, b *batch, mem *memory) error {
	if err := t.rollouts(ctx, pol, b, mem); err != nil {
		return err
	}
	prob, G, metrics := &t.Problem, b.G, mem.metrics
	for i, r := range b.results {
		metrics[i] = r.Metrics
	}
	for k := range len(b.results) / G {
		prob.Reward.Group(&prob.Collective, b.iteration, metrics[k*G:(k+1)*G], b.rewards[k*G:(k+1)*G])
	}
	return nil
}

// rollouts runs b's B×G episodes on a pool of workers and sets b.graphs
// and b.results; rolloutStreams says which streams each draws from.
// Results are indexed, so the pool's size changes nothing. Each rollout
// runs on its worker's runner in mem and decides through its own recorder;
// the results are valid until the next call.
func (t *training) rollouts(ctx context.Context, pol collective.Policy, b *batch, mem *memory) error {
	prob, G, iter, crn, actions := &t.Problem, b.G, b.streams, t.Config.CRN, t.Config.actionMask()
	graphs := mem.graphs
	b.graphs = graphs
	for k := range graphs {
		g, err := mem.drawers[k].Draw(&prob.Task, mem.taskRand(k, iter.Derive("task", uint64(k))))
		if err != nil {
			return fmt.Errorf("task draw: %w", err)
		}
		graphs[k] = g
	}
	// Plumbing: one runner per worker, kept from one iteration to the next.
	mem.growRunners(t.Workers)
	results := mem.results
	b.results = results
	return pool.Run(ctx, len(results), t.Workers, func(ctx context.Context, w, i int) error {
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

// allFeatures makes samples give every decision its features, for the
// test that finds skipping them changes nothing.
var allFeatures = false

// samples lists the rollouts' decisions (collect), with the features of
// those without a choice only where the estimator's value function reads
// them (ppo-gae).
func (t *training) samples(results []*collective.Result, mem *memory) []sample {
	return collect(results, mem, allFeatures || t.Config.Advantage == PPOGAE)
}

// collect lists the decisions of every rollout, in order, as samples. The
// recorders kept those the policy was asked about; a decision with one
// valid action, which the collective took without asking, gets
// probability 1 here, and its features if features is set: a value
// function reads them, the policy's gradient skips such a decision.
func collect(results []*collective.Result, mem *memory, features bool) []sample {
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
			if features {
				policy.Features(&d.Obs, &s.x)
			}
			s.probs[d.Action] = 1
		}
	}
	mem.samples = out
	return out
}

// advantages sets the advantage of every decision of the batch by the
// configured estimator and returns the number of counterfactual replays it
// ran.
func (t *training) advantages(ctx context.Context, pol collective.Policy, value *policy.Value, b *batch, baseline *float64) (int, error) {
	cfg := &t.Config
	samples := b.samples
	switch cfg.Advantage {
	case FlatCollective, NoBaseline, MovingAverage:
		perRollout := rolloutAdvantages(b.adv, *cfg, b.rewards, cfg.Group, baseline)
		for i := range samples {
			samples[i].adv = perRollout[samples[i].rollout]
		}
	case PerAgent:
		credit, replays, err := t.differenceRewards(ctx, pol, b)
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
		gae(b, value, cfg.Gamma, cfg.GammaUnit, cfg.Lambda)
	}
	return 0, nil
}

// rolloutAdvantages returns one advantage per rollout from the rewards of
// groups of g rollouts, in dst's memory where it has room; baseline
// carries the moving average across iterations (NaN before the first).
func rolloutAdvantages(dst []float64, cfg Config, rewards []float64, g int, baseline *float64) []float64 {
	adv := slices.Grow(dst[:0], len(rewards))[:len(rewards)]
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

// objective names the terms of the surrogate objective the policy ascends.
type objective struct {
	// ppo replaces the policy-gradient term Σ w·A·log π(a|x) by PPO's
	// clipped term Σ w·min(ρA, clip(ρ, 1±clipRatio)A), ρ = π/π_old.
	ppo       bool
	clipRatio float64
	// entropy is the coefficient of the entropy bonus Σ w·H(π(·|x)).
	entropy float64
}

// policyGradient sets grad to the gradient of the surrogate objective
//
//	Σ w·A·log π(a|x) + entCoef·Σ w·H(π(·|x))
//
// or, for PPO, of Σ w·min(ρA, clip(ρ, 1±ε)A) + entropy, with ρ = π/π_old.
func policyGradient(pol policy.Softmax, samples []sample, loss objective, grad []float64) {
	ppo, clipRatio, entCoef := loss.ppo, loss.clipRatio, loss.entropy
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
		term := policy.Term{X: &s.x, Mask: s.mask, Action: s.action, Scale: scale, EntCoef: s.weight * entCoef}
		if s.recorded && !ppo {
			pol.AddGradProbs(term, &s.probs, &s.logp, grad)
			continue
		}
		pol.AddGrad(term, grad)
	}
}
