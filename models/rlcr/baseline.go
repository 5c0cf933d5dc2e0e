package rlcr

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// Baseline scores pol, a policy that does not learn (a fixed
// organization), on the episodes that iterations from to
// run.Config.Iterations-1 of run's training score the learned policy on:
// the same B task instances and G rollouts of each, under the same
// streams (common random numbers), with every decision pol's, scored with
// the same reward. It passes each iteration's figures of the rollouts to
// run.Emit: the columns of the update (decisions, entropy, action
// probabilities, gradient, steps) are left zero. So "the learned policy
// scores below the fixed organization" is a paired comparison, not one of
// two samples. run.Config.Actions is not applied: a fixed organization
// decides among every action. From, Save and Config's learning settings
// are not read.
func Baseline(ctx context.Context, run Run, pol collective.Policy, from int) error {
	run.Config.Actions = nil
	t := training{Run: run, memFor: getMemory}
	prob, cfg := &t.Problem, &t.Config
	if err := validate(prob, cfg); err != nil {
		return err
	}
	if pol == nil {
		// The rollouts wrap pol to record its decisions, so a nil one would
		// panic at the first decision rather than be refused by collective.Run.
		return errors.New("rlcr: Baseline's policy is nil (want a collective.Policy, such as one of package policy's organizations)")
	}
	if from < 0 || from > cfg.Iterations {
		return fmt.Errorf("rlcr: Baseline from iteration %d of %d", from, cfg.Iterations)
	}
	if t.Workers < 1 {
		t.Workers = runtime.GOMAXPROCS(0)
	}
	streams := sim.NewStreams(t.Seed)
	mem := t.memFor(cfg.Batch, cfg.Group)
	for it := from; it < cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := batch{iteration: it, streams: streams.Derive("iteration", uint64(it)), G: cfg.Group, rewards: mem.rewards}
		if err := t.scored(ctx, pol, &b, mem); err != nil {
			return err
		}
		if t.Emit != nil {
			if err := t.Emit(summarize(&b, mem.finish)); err != nil {
				return err
			}
		}
	}
	mem.release()
	return nil
}
