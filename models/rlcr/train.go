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

// Train learns a shared policy for prob with the RLCR update and returns
// it. emit receives each iteration's summary as soon as it is done. The
// result depends only on the arguments, never on workers.
func Train(ctx context.Context, prob Problem, cfg Config, seed uint64, workers int, emit func(Iteration) error) (policy.Softmax, error) {
	return Resume(ctx, prob, cfg, seed, workers, nil, emit, nil)
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
