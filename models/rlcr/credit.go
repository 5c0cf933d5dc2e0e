package rlcr

import (
	"context"
	"maps"
	"slices"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// differenceRewards returns, for each rollout and agent that decided, R
// minus the reward of the same episode replayed under the counterfactual,
// and the number of replays it ran: one per agent that decided (passive),
// or per agent that delegated, attempted or shared (contribution).
func (t *training) differenceRewards(ctx context.Context, pol collective.Policy, b *batch) ([]map[int]float64, int, error) {
	prob, cf, actions, crn := &t.Problem, t.Config.Credit, t.Config.actionMask(), t.Config.CRN
	iter, graphs, results, rewards, it := b.streams, b.graphs, b.results, b.rewards, b.iteration
	type job struct{ rollout, agent int }
	var jobs []job
	credit := make([]map[int]float64, len(results))
	for i, r := range results {
		credit[i] = map[int]float64{}
		contributed := map[int]bool{}
		for _, d := range r.Decisions {
			credit[i][d.Agent] = 0
			contributed[d.Agent] = contributed[d.Agent] || contribution(d.Action)
		}
		for _, a := range slices.Sorted(maps.Keys(credit[i])) { // sorted: the jobs' order is fixed
			if cf == Passive || contributed[a] {
				jobs = append(jobs, job{i, a})
			}
		}
	}
	G := len(results) / len(graphs)
	replays := make([]collective.Metrics, len(jobs))
	err := pool.Run(ctx, len(jobs), t.Workers, func(ctx context.Context, _, j int) error {
		jb := jobs[j]
		var p collective.Policy = withoutContribution{pol, jb.agent}
		if cf == Passive {
			p = passive{pol, jb.agent}
		}
		var own sim.Streams
		env, opts := rolloutStreams(iter, jb.rollout, G, crn, &own)
		opts.Actions = actions
		opts.Context, opts.MaxEvents = ctx, prob.MaxEvents
		r, err := collective.Run(graphs[jb.rollout/G], prob.Collective, p, env, opts)
		if err == nil {
			replays[j] = r.Metrics
		}
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	for j, jb := range jobs {
		// Score the replay within the original group, so that
		// group-relative penalties keep their reference.
		first := jb.rollout / G * G
		group := make([]collective.Metrics, G)
		for k := range G {
			group[k] = results[first+k].Metrics
		}
		group[jb.rollout%G] = replays[j]
		out := make([]float64, G)
		prob.Reward.Group(&prob.Collective, it, group, out)
		credit[jb.rollout][jb.agent] = rewards[jb.rollout] - out[jb.rollout%G]
	}
	return credit, len(jobs), nil
}

// groupBaseline subtracts from each agent's difference reward its mean
// over the rollouts of the group (of g) in which that agent decided.
func groupBaseline(credit []map[int]float64, g int) {
	for b := 0; b < len(credit); b += g {
		sum, n := map[int]float64{}, map[int]int{}
		for _, c := range credit[b : b+g] {
			for a, d := range c {
				sum[a] += d
				n[a]++
			}
		}
		for _, c := range credit[b : b+g] {
			for a := range c {
				c[a] -= sum[a] / float64(n[a])
			}
		}
	}
}

// contribution reports whether an action is one the contribution
// counterfactual removes.
func contribution(a collective.Action) bool {
	return a == collective.Delegate || a == collective.Attempt || a == collective.Share
}

// withoutContribution lets every agent decide as the policy does, with
// the same draws, except that one agent's delegations, attempts and shares
// become its first other valid action.
type withoutContribution struct {
	collective.Policy
	agent int
}

func (p withoutContribution) Decide(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	act := p.Policy.Decide(o, m, u)
	if o.Agent != p.agent || !contribution(act) {
		return act
	}
	for _, a := range []collective.Action{collective.Work, collective.Wait, collective.Check, collective.Submit} {
		if m.Has(a) {
			return a
		}
	}
	return act // nothing else is valid: the contribution stands
}

// passive makes one agent only work, wait or submit; the others follow the
// policy.
type passive struct {
	collective.Policy
	agent int
}

func (p passive) Decide(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	if o.Agent != p.agent {
		return p.Policy.Decide(o, m, u)
	}
	for _, a := range []collective.Action{collective.Work, collective.Wait, collective.Submit} {
		if m.Has(a) && (a != collective.Submit || o.Complete || !m.Has(collective.Wait)) {
			return a
		}
	}
	return p.Policy.Decide(o, m, u)
}
