package rlcr

import (
	"math"

	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/sim"
)

// gae computes GAE(γ, λ) advantages over each agent's decisions, in the
// order it took them, with the rollout's reward after its last decision,
// then normalises them over the batch. The discount between two decisions
// is γ, or γ^(Δt/unit) with a time unit (and the reward, which arrives at
// the finish, is discounted from the last decision to it):
//
//	δ_j = γ_j·V(x_{j+1}) − V(x_j) (the last: γ_end·R − V(x_j)),  A_j = δ_j + γ_j·λ·A_{j+1}
func gae(b *batch, value *policy.Value, gamma float64, unit sim.Time, lambda float64) {
	samples, results, rewards := b.samples, b.results, b.rewards
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
