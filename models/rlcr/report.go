package rlcr

import (
	"math"
	"math/bits"
	"slices"

	"github.com/swarmsim/swarmsim/models/collective"
)

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

// summarize returns the Iteration row of batch b, all but what the update
// adds; finish is scratch for the rollouts' finish times.
func summarize(b *batch, finish []float64) Iteration {
	it, results, rewards, samples := b.iteration, b.results, b.rewards, b.samples
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

// allActions is the mask of every action.
const allActions collective.Mask = 1<<collective.NumActions - 1

// decisionStats fills the entropy and mean action probabilities.
func decisionStats(st *Iteration, samples []sample) {
	// The sums are kept in locals, not in st, so that each addition need
	// not wait for the store of the one before; their order is the same.
	probs, entropy := st.ActionProbs, st.Entropy
	n := float64(len(samples))
	for i := range samples {
		s := &samples[i]
		if s.mask.Single() {
			probs[s.action] += 1 / n // and no entropy
			continue
		}
		// The valid actions only, in order: the others' probabilities are
		// exactly 0, which the sums skip anyway.
		for v := s.mask & allActions; v != 0; v &= v - 1 {
			a := bits.TrailingZeros8(uint8(v))
			p := s.probs[a]
			if p == 0 {
				continue // ±0 leaves a sum begun at +0 as it is
			}
			probs[a] += p / n
			if p > 0 {
				// The log π the policy recorded with p: not math.Log(p),
				// which costs a call and rounds p's own rounding again.
				entropy -= p * s.logp[a] / n
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
