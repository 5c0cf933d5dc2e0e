package rlcr_test

import (
	"context"
	"fmt"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Train a shared policy for a collective of six agents on six-way
// fork-joins, with a linear latency penalty: delegation becomes more
// likely as the policy learns that parallel work finishes sooner.
func ExampleTrain() {
	c := collective.Defaults()
	c.Agents, c.TimeLimit = 6, 4*sim.Hour
	prob := rlcr.Problem{
		Task:       task.Family{Shape: "fork-join", Width: 6, Stages: 1, Work: sim.LogNormal(600, 0.3), OutputTokens: sim.Const(500)},
		Collective: c,
		Reward:     rlcr.Reward{Task: 1, Latency: 1, Penalty: rlcr.PenaltyLinear},
	}
	cfg := rlcr.DefaultConfig()
	cfg.Iterations = 40
	var first, last rlcr.Iteration
	_, err := rlcr.Train(context.Background(), rlcr.Run{Problem: prob, Config: cfg, Seed: 1, Workers: 2, Emit: func(it rlcr.Iteration) error {
		if it.Iteration == 0 {
			first = it
		}
		last = it
		return nil
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("p(delegate) %.2f -> %.2f\n", first.ActionProbs[collective.Delegate], last.ActionProbs[collective.Delegate])
	fmt.Printf("latency %.0f -> %.0f min\n", first.LatencyMean/60, last.LatencyMean/60)
	// Output:
	// p(delegate) 0.06 -> 0.20
	// latency 85 -> 38 min
}
