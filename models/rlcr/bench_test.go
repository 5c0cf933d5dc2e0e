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
	benchTrain(b, benchProblem(), DefaultConfig())
}

func benchTrain(b *testing.B, prob Problem, cfg Config) {
	cfg.Iterations = b.N + 1
	var episodes, decisions int
	b.ReportAllocs()
	_, err := Train(context.Background(), Run{Problem: prob, Config: cfg, Seed: 1, Workers: 1, Emit: func(it Iteration) error {
		if it.Iteration == 0 {
			b.ResetTimer()
			return nil
		}
		episodes += it.Episodes
		decisions += it.Decisions
		return nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(episodes)/sec, "episodes/s")
	b.ReportMetric(float64(decisions)/sec, "decisions/s")
}

// peerProblem is the model of the rlcr-peer scenario and of
// bench/rlcr_peer.py: a fork-join of 8 Exp(10 min) parts, eight agents,
// free model calls and messages, a 200 min limit, the latency weight 0.5.
func peerProblem() (Problem, Config) {
	c := collective.Defaults()
	c.Agents, c.Spawn, c.TimeLimit = 8, 2*sim.Minute, 200*sim.Minute
	c.Calls = collective.Calls{}
	c.Comm = collective.Comm{Topology: collective.PointToPoint}
	c.Check.Retries = 0
	prob := Problem{
		Task:       task.Family{Shape: "fork-join", Width: 8, Stages: 1, Work: sim.Exponential(600)},
		Collective: c,
		Reward:     Reward{Task: 1, Latency: 0.5, Penalty: PenaltyLinear},
	}
	cfg := DefaultConfig()
	cfg.Batch, cfg.Group = 4, 8
	cfg.LR, cfg.LREnd, cfg.LRSchedule, cfg.ClipGrad = 0.05, 0.05, Constant, 0
	cfg.Entropy, cfg.EntropyEnd = 0, 0
	cfg.Actions = []string{"work", "delegate"}
	return prob, cfg
}

// BenchmarkTrainPeer is BenchmarkTrainIteration on the peer's model:
// 32 rollouts of about ten decisions each, then the update.
func BenchmarkTrainPeer(b *testing.B) {
	prob, cfg := peerProblem()
	benchTrain(b, prob, cfg)
}

// BenchmarkTrainIssue9 is the workload whose figure issue 9 quotes as
// "today" (3,590 episodes/s): a whole one-iteration Train from scratch per
// loop, start-up included, on the flagship's problem. Its policy is the
// uniform one of iteration 0 (about 114 decisions per episode), and its
// allocations are what a sweep of many short trainings pays per training.
func BenchmarkTrainIssue9(b *testing.B) {
	prob, cfg := benchProblem(), DefaultConfig()
	cfg.Iterations = 1
	var episodes, decisions int
	b.ReportAllocs()
	for b.Loop() {
		_, err := Train(context.Background(), Run{Problem: prob, Config: cfg, Seed: 1, Workers: 1, Emit: func(it Iteration) error {
			episodes += it.Episodes
			decisions += it.Decisions
			return nil
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(episodes)/sec, "episodes/s")
	b.ReportMetric(float64(decisions)/sec, "decisions/s")
}
