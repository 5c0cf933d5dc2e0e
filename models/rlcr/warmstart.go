package rlcr

import (
	"context"
	"fmt"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/sim"
)

// warmStart fits pol to the decisions of the fixed organization
// cfg.WarmStart by behaviour cloning: for cfg.WarmIterations iterations it
// runs B×G episodes with the organization deciding, and takes an Adam step
// (its own optimiser, at cfg.LR) up the mean log-likelihood of the
// organization's actions at the decisions that had a choice. This stands
// for a base model that already knows a tactic before RL starts. The
// episodes draw from the streams' "warm" branch, so the RL iterations see
// the same tasks as without it.
func (t *training) warmStart(ctx context.Context, pol policy.Softmax, streams sim.Streams) error {
	prob, cfg := &t.Problem, &t.Config
	org, err := policy.Organization(cfg.WarmStart)
	if err != nil {
		return err
	}
	opt := newAdam(len(pol.Params()), cfg.Beta1, cfg.Beta2, cfg.Eps)
	grad := make([]float64, len(pol.Params()))
	n := cfg.Batch * cfg.Group
	results := make([]*collective.Result, n)
	var x [policy.NumFeatures]float64
	for it := range cfg.WarmIterations {
		iter := streams.Derive("warm", uint64(it))
		err := pool.Run(ctx, n, t.Workers, func(ctx context.Context, _, i int) error {
			g, err := prob.Task.Draw(iter.Derive("task", uint64(i)).New("graph", 0))
			if err != nil {
				return fmt.Errorf("task draw: %w", err)
			}
			results[i], err = collective.Run(g, prob.Collective, org, iter.Derive("rollout", uint64(i)),
				collective.Options{Record: true, Context: ctx, MaxEvents: prob.MaxEvents})
			return err
		})
		if err != nil {
			return fmt.Errorf("warm start: %w", err)
		}
		decisions := 0
		for _, r := range results {
			for j := range r.Decisions {
				if !r.Decisions[j].Mask.Single() {
					decisions++
				}
			}
		}
		if decisions == 0 {
			return fmt.Errorf("warm start: organization %s made no decision with a choice", cfg.WarmStart)
		}
		clear(grad)
		for _, r := range results {
			for j := range r.Decisions {
				d := &r.Decisions[j]
				if d.Mask.Single() {
					continue
				}
				policy.Features(&d.Obs, &x)
				pol.AddGrad(policy.Term{X: &x, Mask: d.Mask, Action: d.Action, Scale: 1 / float64(decisions)}, grad)
			}
		}
		clipNorm(grad, cfg.ClipGrad)
		opt.step(pol.Params(), grad, cfg.LR)
	}
	return nil
}
