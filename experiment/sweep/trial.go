package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strconv"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// Outcome is what one trial produced: its final metrics, and what its own
// output directory may hold.
type Outcome struct {
	Metrics map[string]float64
	// Train trials: the learned policy and the iterations.
	Policy     policy.Softmax
	Iterations []rlcr.Iteration
	// Run trials: the episodes.
	Rows []experiment.Row
	// Replay trials: the recorded runs and their replay.
	Runs     []replay.Run
	Replayed []calibrate.Replayed
}

// runMetrics reads the run metrics from a summary and, for what it does
// not hold, the episodes. A trial's message density is its messages over
// its turns, the paper's ratio of totals, not the mean of its episodes'
// ratios (undefined for an episode without turns).
var runMetrics = map[string]func(*experiment.Summary, []experiment.Row) float64{
	"success_rate":           func(s *experiment.Summary, _ []experiment.Row) float64 { return s.Success.Value },
	"finish_mean":            func(s *experiment.Summary, _ []experiment.Row) float64 { return s.Finish.Value },
	"finish_acceptable_mean": func(s *experiment.Summary, _ []experiment.Row) float64 { return s.FinishAcceptable.Value },
	"reward_mean":            func(s *experiment.Summary, _ []experiment.Row) float64 { return s.Reward.Value },
	"parallelism_mean":       func(s *experiment.Summary, _ []experiment.Row) float64 { return s.Parallelism.Value },
	"messages_mean":          func(s *experiment.Summary, _ []experiment.Row) float64 { return s.Messages.Value },
	"model_calls_mean":       func(s *experiment.Summary, _ []experiment.Row) float64 { return s.ModelCalls.Value },
	"tokens_mean":            func(s *experiment.Summary, _ []experiment.Row) float64 { return s.Tokens.Value },
	"agent_time_mean":        func(s *experiment.Summary, _ []experiment.Row) float64 { return s.AgentTime.Value },
	"cost_per_acceptable":    func(s *experiment.Summary, _ []experiment.Row) float64 { return s.CostPerAcceptable },
	"turns_mean":             func(s *experiment.Summary, _ []experiment.Row) float64 { return s.ModelCalls.Value },
	"message_density": func(s *experiment.Summary, _ []experiment.Row) float64 {
		return metric.MessageDensity(s.Messages.Value, s.ModelCalls.Value)
	},
	"redundancy_mean": func(_ *experiment.Summary, rows []experiment.Row) float64 {
		return rowMean(rows, experiment.Redundancy)
	},
	"handoff_misses_mean": func(_ *experiment.Summary, rows []experiment.Row) float64 {
		return rowMean(rows, func(m *collective.Metrics) float64 { return float64(m.HandoffMisses) })
	},
}

// rowMean returns the mean of f over the episodes' metrics.
func rowMean(rows []experiment.Row, f func(*collective.Metrics) float64) float64 {
	sum := 0.0
	for i := range rows {
		sum += f(&rows[i].Metrics)
	}
	return sum / float64(len(rows))
}

// RunTrial runs trial t of sc's sweep and returns its outcome with every
// metric the command offers. A train trial runs rlcr.Train on one worker
// and averages each metric over the last tenth of the iterations (at
// least one; those with a value, stats.MeanDefined); a run trial evaluates the variant for the scenario's
// episodes from the trial's seed and summarizes them; a replay trial
// replays recorded runs (replayTrial). maxEvents bounds each episode's
// events, or a replay's (0: the default); an episode past it is an error.
// The outcome depends only on the trial's spec and seed (and a replay's
// traces).
func RunTrial(ctx context.Context, sc *scenarios.Scenario, t *scenarios.Trial, maxEvents uint64) (*Outcome, error) {
	if sc.Sweep == nil {
		return nil, fmt.Errorf("scenario %s has no sweep section", sc.Name)
	}
	switch sc.Sweep.Command {
	case scenarios.SweepTrain:
		return trainTrial(ctx, t, maxEvents)
	case scenarios.SweepRun:
		return runTrial(ctx, sc, t, maxEvents)
	case scenarios.SweepReplay:
		return replayTrial(ctx, t, maxEvents)
	}
	return nil, fmt.Errorf("sweep command %q is not train, run or replay", sc.Sweep.Command)
}

func trainTrial(ctx context.Context, t *scenarios.Trial, maxEvents uint64) (*Outcome, error) {
	o := &Outcome{Metrics: map[string]float64{}}
	prob := t.Variant.Problem()
	prob.MaxEvents = maxEvents
	pol, err := rlcr.Train(ctx, rlcr.Run{Problem: prob, Config: t.Variant.Spec.Train, Seed: t.Seed, Workers: 1, Emit: func(it rlcr.Iteration) error {
		o.Iterations = append(o.Iterations, it)
		return nil
	}})
	if err != nil {
		return nil, err
	}
	o.Policy = pol
	tail := stats.LastTenth(o.Iterations)
	values := make([]float64, len(tail))
	for _, name := range scenarios.SweepMetrics(scenarios.SweepTrain) {
		value := train.IterationValue(name)
		for i := range tail {
			values[i] = value(&tail[i])
		}
		o.Metrics[name] = stats.MeanDefined(values)
	}
	return o, nil
}

func runTrial(ctx context.Context, sc *scenarios.Scenario, t *scenarios.Trial, maxEvents uint64) (*Outcome, error) {
	one := &scenarios.Scenario{
		Name:     sc.Name,
		Source:   sc.Source,
		Seed:     t.Seed,
		Episodes: sc.Episodes,
		Base:     t.Variant.Spec,
		Variants: []scenarios.Variant{t.Variant},
	}
	o := &Outcome{Metrics: map[string]float64{}}
	err := experiment.Evaluate(ctx, one, experiment.EvalOptions{Workers: 1, MaxEvents: maxEvents}, func(r experiment.Row) error {
		o.Rows = append(o.Rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sum := experiment.Summarize(o.Rows)[0]
	for name, value := range runMetrics {
		o.Metrics[name] = value(&sum, o.Rows)
	}
	return o, nil
}

// IterationsCSV renders a train trial's iterations: the iteration, then
// the value of every train metric in the iteration.
func IterationsCSV(iters []rlcr.Iteration) []byte {
	names := scenarios.SweepMetrics(scenarios.SweepTrain)
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(append([]string{"iteration"}, names...))
	values := make([]func(*rlcr.Iteration) float64, len(names))
	for k, name := range names {
		values[k] = train.IterationValue(name)
	}
	for i := range iters {
		row := []string{strconv.Itoa(iters[i].Iteration)}
		for _, value := range values {
			row = append(row, numtext.Shortest(value(&iters[i])))
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}
