package rlcr

// TargetWindow is the number of iterations whose mean reward must reach a
// target (IterationsToTarget): one iteration's mean over B·G rollouts is
// noisy enough to cross a target by luck and fall back.
const TargetWindow = 5

// TargetFraction is how far from the initial towards the best reward the
// target of IterationsToTarget lies in exp-credit (docs/experiments.md):
// far enough that reaching it needs the policy to learn, short of the
// best so that runs that end near it reach it.
const TargetFraction = 0.8

// Target is the reward a fraction frac of the way from initial (the
// uniform policy's, iteration 0) to best (the best final reward of the
// runs being compared), the level that IterationsToTarget times.
func Target(initial, best, frac float64) float64 { return initial + float64(frac*(best-initial)) }

// IterationsToTarget returns the first iteration at which the mean reward
// of the last TargetWindow iterations (fewer at the start) reaches
// target, and true; a run that never reaches it is scored len(rewards),
// one past its last iteration, and false, so that rank tests count it as
// slower than every run that did.
func IterationsToTarget(rewards []float64, target float64) (int, bool) {
	sum := 0.0
	for i, r := range rewards {
		sum += r
		n := min(i+1, TargetWindow)
		if i >= TargetWindow {
			sum -= rewards[i-TargetWindow]
		}
		if sum/float64(n) >= target {
			return i, true
		}
	}
	return len(rewards), false
}
