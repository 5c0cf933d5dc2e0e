package train

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/rlcr"
)

// An iterationColumn is a column of iterations.csv: a stable name and how
// to read it from an iteration.
type iterationColumn struct {
	name  string
	value func(*rlcr.Iteration) float64
}

// iterationColumns are the columns of iterations.csv after variant, seed
// and iteration.
var iterationColumns = func() []iterationColumn {
	cols := []iterationColumn{
		{"episodes", func(r *rlcr.Iteration) float64 { return float64(r.Episodes) }},
		{"reward_mean", func(r *rlcr.Iteration) float64 { return r.RewardMean }},
		{"success_rate", func(r *rlcr.Iteration) float64 { return r.SuccessRate }},
		{"latency_mean", func(r *rlcr.Iteration) float64 { return r.LatencyMean }},
		{"latency_p90", func(r *rlcr.Iteration) float64 { return r.LatencyP90 }},
		{"parallelism_mean", func(r *rlcr.Iteration) float64 { return r.ParallelismMean }},
		{"messages_mean", func(r *rlcr.Iteration) float64 { return r.MessagesMean }},
		{"model_calls_mean", func(r *rlcr.Iteration) float64 { return r.ModelCallsMean }},
		{"agent_time_mean", func(r *rlcr.Iteration) float64 { return r.AgentTimeMean }},
		{"spawn_finish_rate", func(r *rlcr.Iteration) float64 { return r.SpawnFinishRate }},
		{"critical_steps_mean", func(r *rlcr.Iteration) float64 { return r.CriticalStepsMean }},
		{"decisions", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) }},
		{"decisions_acceptable", func(r *rlcr.Iteration) float64 { return r.DecisionsAcceptable }},
		{"decisions_failed", func(r *rlcr.Iteration) float64 { return r.DecisionsFailed }},
		{"entropy", func(r *rlcr.Iteration) float64 { return r.Entropy }},
	}
	for a := range collective.Action(collective.NumActions) {
		cols = append(cols, iterationColumn{"prob_" + a.String(), func(r *rlcr.Iteration) float64 { return r.ActionProbs[a] }})
	}
	return append(cols, []iterationColumn{
		{"grad_norm", func(r *rlcr.Iteration) float64 { return r.GradNorm }},
		{"lr", func(r *rlcr.Iteration) float64 { return r.LR }},
		{"replays", func(r *rlcr.Iteration) float64 { return float64(r.Replays) }},
		{"policy_steps", func(r *rlcr.Iteration) float64 { return float64(r.PolicySteps) }},
		{"value_steps", func(r *rlcr.Iteration) float64 { return float64(r.ValueSteps) }},
		{"value_ev", func(r *rlcr.Iteration) float64 { return r.ValueEV }},
	}...)
}()

// ColumnNames returns the names of every column iterations.csv can
// have after variant, seed and iteration, so that a help text can name
// them all.
func ColumnNames() []string {
	var names []string
	for _, cs := range [][]iterationColumn{iterationColumns, handoffIterationColumns} {
		for _, c := range cs {
			names = append(names, c.name)
		}
	}
	return names
}

// HandoffColumnNames returns the names of the hand-off columns of
// iterations.csv.
func HandoffColumnNames() []string {
	names := make([]string, len(handoffIterationColumns))
	for i, c := range handoffIterationColumns {
		names[i] = c.name
	}
	return names
}

// handoffIterationColumns follow in the iterations of scenarios with a
// handoff section (see experiment.UsesHandoff).
var handoffIterationColumns = []iterationColumn{
	{"handoff_misses_mean", func(r *rlcr.Iteration) float64 { return r.HandoffMissesMean }},
	{"duplicates_mean", func(r *rlcr.Iteration) float64 { return r.DuplicatesMean }},
}

// IterationValue returns the reader of the iterations.csv column name
// from an iteration: the one reading of an iteration's metrics that
// iterations.csv, the learning curves and a sweep's train trials share.
// name is one of ColumnNames; another is a programming error, and panics.
func IterationValue(name string) func(*rlcr.Iteration) float64 {
	for _, cs := range [][]iterationColumn{iterationColumns, handoffIterationColumns} {
		for _, c := range cs {
			if c.name == name {
				return c.value
			}
		}
	}
	panic(fmt.Sprintf("train: no iterations.csv column %q", name))
}
