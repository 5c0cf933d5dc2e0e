package rlcr

import (
	"context"
	"testing"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// BenchmarkTrainIteration measures one training iteration (64 rollouts of
// a 14-subtask fork-join with twelve agents, then the update) on one
// worker, and reports episodes and decisions per second.
func BenchmarkTrainIteration(b *testing.B) {
	c := collective.Defaults()
	c.Agents, c.Spawn, c.TimeLimit = 12, 2*sim.Minute, 6*sim.Hour
	prob := Problem{
		Task:       task.Family{Shape: "fork-join", Width: 12, Stages: 1, Work: sim.LogNormal(600, 0.3), Difficulty: sim.Const(0.01), OutputTokens: sim.Const(500)},
		Collective: c,
		Reward:     Reward{Task: 1, Latency: 1, Penalty: PenaltyLinear, Cost: 1},
	}
	cfg := DefaultConfig()
	cfg.Iterations = 1
	var episodes, decisions int
	b.ReportAllocs()
	for b.Loop() {
		_, err := Train(context.Background(), prob, cfg, 1, 1, func(it Iteration) error {
			episodes += it.Episodes
			decisions += it.Decisions
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(episodes)/sec, "episodes/s")
	b.ReportMetric(float64(decisions)/sec, "decisions/s")
}
