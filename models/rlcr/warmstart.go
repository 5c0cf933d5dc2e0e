package rlcr

import (
	"context"
	"fmt"

	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/sim"
)

// warmStart fits pol to the decisions of the fixed organization
// cfg.WarmStart by behaviour cloning: for cfg.WarmIterations iterations it
// runs a batch of episodes with the organization deciding, and takes an
// Adam step (its own optimiser, at cfg.LR) up the mean log-likelihood of
// the organization's actions. This stands for a base model that already
// knows a tactic before RL starts. The episodes draw from the streams'
// "warm" branch, so the RL iterations see the same tasks as without it.
func warmStart(ctx context.Context, prob Problem, pol policy.Softmax, cfg Config, streams sim.Streams, workers int) error {
	org, err := policy.Organization(cfg.WarmStart)
	if err != nil {
		return err
	}
	opt := newAdam(len(pol.Params()), cfg.Beta1, cfg.Beta2, cfg.Eps)
	grad := make([]float64, len(pol.Params()))
	for it := range cfg.WarmIterations {
		results, _, err := rollouts(ctx, prob, org, streams.Derive("warm", uint64(it)), cfg.Batch, cfg.Group, workers)
		if err != nil {
			return fmt.Errorf("warm start: %w", err)
		}
		samples := collect(results, pol)
		if len(samples) == 0 {
			return fmt.Errorf("warm start: organization %s made no decisions", cfg.WarmStart)
		}
		clear(grad)
		for i := range samples {
			s := &samples[i]
			pol.AddGrad(&s.x, s.mask, s.action, 1/float64(len(samples)), 0, grad)
		}
		clipNorm(grad, cfg.ClipGrad)
		opt.step(pol.Params(), grad, cfg.LR)
	}
	return nil
}
