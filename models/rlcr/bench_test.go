package rlcr

import (
	"context"
	"testing"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// benchProblem is the flagship's problem (latency-pressure, variant high):
// a 12-wide fork-join of LogNormal(10 min) parts, twelve agents, helpers
// that take two minutes to start.
func benchProblem() Problem {
	c := collective.Defaults()
	c.Agents, c.Spawn, c.TimeLimit = 12, 2*sim.Minute, 6*sim.Hour
	return Problem{
		Task:       task.Family{Shape: "fork-join", Width: 12, Stages: 1, Work: sim.LogNormal(600, 0.3), Difficulty: sim.Const(0.01), OutputTokens: sim.Const(500)},
		Collective: c,
		Reward:     Reward{Task: 1, Latency: 1, Penalty: PenaltyLinear, Cost: 1},
	}
}

// BenchmarkTrainIteration measures one training iteration in steady state
// (64 rollouts of the flagship's problem, then the update) on one worker,
// and reports episodes and decisions per second; allocs/op are the
// allocations of one iteration. The iterations run inside one Train, so
// the loop is over b.N, not b.Loop: iteration 0 grows the trainer's
// memory, and the timer and allocation counts start after it.
func BenchmarkTrainIteration(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Iterations = b.N + 1
	var episodes, decisions int
	b.ReportAllocs()
	_, err := Train(context.Background(), benchProblem(), cfg, 1, 1, func(it Iteration) error {
		if it.Iteration == 0 {
			b.ResetTimer()
			return nil
		}
		episodes += it.Episodes
		decisions += it.Decisions
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(episodes)/sec, "episodes/s")
	b.ReportMetric(float64(decisions)/sec, "decisions/s")
}
