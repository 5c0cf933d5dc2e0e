package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	c "github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Each fixed organization's rule, case by case, from docs/model.md: share
// unshared findings (team), check an unchecked part (all but
// independent), start independent attempts at time 0 (independent), fan
// out when more than one subtask is ready (split, team), work while
// anything is ready, submit a complete result (the main agent once no
// attempt is pending), else wait.
func TestFixedOrganizations(t *testing.T) {
	all := c.Mask(0)
	for a := range c.Action(c.NumActions) {
		all = all.With(a)
	}
	without := func(m c.Mask, as ...c.Action) c.Mask {
		for _, a := range as {
			m &^= 1 << a
		}
		return m
	}
	cases := []struct {
		name string
		org  string
		obs  c.Observation
		mask c.Mask
		want c.Action
	}{
		{"team shares first", "team", c.Observation{Unshared: true, Unchecked: true, Ready: 3}, all, c.Share},
		{"split does not share", "split", c.Observation{Unshared: true, Unchecked: true, Ready: 3}, all, c.Check},
		{"a share that is not valid", "team", c.Observation{Unshared: true, Ready: 1}, without(all, c.Share), c.Work},
		{"check before fanning out", "split", c.Observation{Unchecked: true, Ready: 3}, all, c.Check},
		{"independent does not check", "independent", c.Observation{Unchecked: true, Ready: 1}, all, c.Work},
		{"a check that is not valid", "sequential", c.Observation{Unchecked: true, Ready: 1}, without(all, c.Check), c.Work},
		{"attempts from the start", "independent", c.Observation{Main: true, Ready: 3}, all, c.Attempt},
		{"no attempts later", "independent", c.Observation{Main: true, Elapsed: 1, Ready: 3}, all, c.Work},
		{"helpers do not attempt", "independent", c.Observation{Ready: 3}, all, c.Work},
		{"an attempt that is not valid", "independent", c.Observation{Main: true, Ready: 3}, without(all, c.Attempt), c.Work},
		{"fan out", "split", c.Observation{Ready: 2}, all, c.Delegate},
		{"one ready part is worked", "split", c.Observation{Ready: 1}, all, c.Work},
		{"sequential does not fan out", "sequential", c.Observation{Ready: 5}, all, c.Work},
		{"a delegation that is not valid", "team", c.Observation{Ready: 5}, without(all, c.Delegate), c.Work},
		{"nothing ready, complete: submit", "split", c.Observation{Main: true, Complete: true}, all, c.Submit},
		{"a helper submits its part", "split", c.Observation{Complete: true, Pending: 2}, all, c.Submit},
		{"the main agent waits for attempts", "independent", c.Observation{Main: true, Elapsed: 1, Complete: true, Pending: 1}, all, c.Wait},
		{"incomplete: wait", "split", c.Observation{Main: true}, all, c.Wait},
		{"incomplete, no wait: submit", "split", c.Observation{Main: true}, without(all, c.Wait), c.Submit},
		{"submit not valid: the first valid", "split", c.Observation{Main: true, Complete: true}, c.Mask(0).With(c.Check).With(c.Wait), c.Check},
		{"nothing valid", "split", c.Observation{Main: true}, 0, c.Submit},
		{"decentralized shares", "decentralized", c.Observation{Unshared: true, Unchecked: true, Ready: 3}, all, c.Share},
		{"decentralized does not check", "decentralized", c.Observation{Unchecked: true, Ready: 3}, all, c.Delegate},
		{"nor falls back on a check", "decentralized", c.Observation{Complete: true}, c.Mask(0).With(c.Check).With(c.Wait), c.Wait},
		{"centralized checks", "centralized", c.Observation{Unchecked: true, Ready: 3}, all, c.Check},
		{"the orchestrator hands on one ready part", "centralized", c.Observation{Main: true, Ready: 1}, all, c.Delegate},
		{"with no helper to take it, it works", "centralized", c.Observation{Main: true, Ready: 3}, without(all, c.Delegate), c.Work},
		{"helpers work, never delegate", "centralized", c.Observation{Ready: 3}, all, c.Work},
		{"the hybrid orchestrator hands on", "hybrid", c.Observation{Main: true, Ready: 1}, all, c.Delegate},
		{"hybrid shares, then checks", "hybrid", c.Observation{Unshared: true, Unchecked: true, Ready: 3}, all, c.Share},
		{"single does not fan out", "single", c.Observation{Ready: 5}, all, c.Work},
	}
	for _, tc := range cases {
		f, err := policy.Organization(tc.org)
		require.NoError(t, err)
		assert.Equal(t, tc.want, f.Decide(&tc.obs, tc.mask, 0.5), "%s (%s)", tc.name, tc.org)
	}
}

// TestFixedHandoffs: the fixed organizations delegate only ready subtasks,
// and only split and team delegate at all. Scenarios rest on it: under
// `simulate run` they refuse handoff.duplicates for every fixed
// organization and handoff.miss for sequential and independent
// (scenarios' runInertRules). On a fan-out with misses and duplicates on,
// a uniform policy hands out duplicates; no organization does, and only
// the fanning-out ones have hand-offs to misunderstand.
func TestFixedHandoffs(t *testing.T) {
	f := task.Family{Shape: "fork-join", Width: 6, Stages: 1, Work: sim.LogNormal(600, 0.3), Difficulty: sim.Const(0.2)}
	cfg := c.Defaults()
	cfg.Agents, cfg.Spawn = 12, 120*sim.Second
	cfg.Handoff = c.Handoff{Miss: 1, Findings: 1, Duplicates: true}
	uniform := c.PolicyFunc(func(_ *c.Observation, m c.Mask, u float64) c.Action {
		var valid []c.Action
		for a := range c.Action(c.NumActions) {
			if m.Has(a) {
				valid = append(valid, a)
			}
		}
		return valid[int(u*float64(len(valid)))]
	})
	count := func(pol c.Policy) (delegated, misses, duplicates int) {
		for seed := range uint64(100) {
			streams := sim.NewStreams(seed)
			g, err := f.Draw(streams.New("task", 0))
			require.NoError(t, err)
			res, err := c.Run(g, cfg, pol, streams, c.Options{})
			require.NoError(t, err)
			delegated += res.Actions[c.Delegate]
			misses += res.HandoffMisses
			duplicates += res.Duplicates
		}
		return delegated, misses, duplicates
	}
	_, _, dups := count(uniform)
	require.Positive(t, dups, "the setting lets a policy hand out duplicates")
	for name, org := range policy.Organizations() {
		delegated, misses, dups := count(org)
		assert.Zero(t, dups, name)
		if org.Fanout || org.Orchestrates {
			assert.Positive(t, misses, "%s: a hand-off to misunderstand", name)
		} else {
			assert.Zero(t, delegated+misses, "%s never delegates", name)
		}
	}
}

// TestArchitectures: single decides as sequential, episode for episode,
// and uses one agent however many collective.agents allows; an
// orchestrator (centralized, hybrid) hands a chain's first step on, and
// every step when it verifies each itself (check.by: orchestrator), where
// split keeps the chain with one agent; decentralized delegates and
// shares but never checks.
func TestArchitectures(t *testing.T) {
	f := task.Family{Shape: "fork-join", Width: 6, Stages: 2, Work: sim.LogNormal(300, 0.5), Difficulty: sim.Const(0.3), OutputTokens: sim.Const(300), Coupling: sim.Const(0.5)}
	cfg := c.Defaults()
	cfg.Agents = 8
	run := func(name string, seed uint64) *c.Result {
		org, err := policy.Organization(name)
		require.NoError(t, err)
		streams := sim.NewStreams(seed)
		g, err := f.Draw(streams.New("task", 0))
		require.NoError(t, err)
		res, err := c.Run(g, cfg, org, streams, c.Options{})
		require.NoError(t, err)
		return res
	}
	for seed := range uint64(10) {
		assert.Equal(t, run("sequential", seed).Metrics, run("single", seed).Metrics, "single is sequential, seed %d", seed)
	}
	// Every step right and every check right: no step is redone.
	chain := task.Family{Shape: "chain", Length: 5, Work: sim.Const(300), Difficulty: sim.Const(0)}
	for _, tc := range []struct {
		org       string
		by        c.Checker
		agents    int
		delegated int
	}{
		{"split", c.ByOrchestrator, 8, 0}, {"team", c.ByOrchestrator, 8, 0},
		{"centralized", c.ByMaker, 8, 1}, {"centralized", c.ByOrchestrator, 8, 5}, {"hybrid", c.ByOrchestrator, 8, 5},
		// The one helper it may have is idle when each step it verified
		// becomes ready.
		{"centralized", c.ByOrchestrator, 2, 5},
	} {
		org, err := policy.Organization(tc.org)
		require.NoError(t, err)
		streams := sim.NewStreams(1)
		g, err := chain.Draw(streams.New("task", 0))
		require.NoError(t, err)
		cfg := cfg
		cfg.Check.By, cfg.Check.Accuracy, cfg.Agents = tc.by, 1, tc.agents
		res, err := c.Run(g, cfg, org, streams, c.Options{})
		require.NoError(t, err)
		assert.Equal(t, tc.delegated, res.Actions[c.Delegate], "%s, checks by %s, %d agents: delegations of a 5-step chain", tc.org, tc.by, tc.agents)
		if tc.delegated > 0 {
			assert.Equal(t, 1, res.Spawned, "%s, checks by %s, %d agents: one helper takes every step", tc.org, tc.by, tc.agents)
		}
	}
	var messages, delegations int
	for seed := range uint64(10) {
		single := run("single", seed)
		assert.Zero(t, single.Spawned, "single spawns nobody, seed %d", seed)
		assert.Equal(t, 1, single.ParallelismPeak, "seed %d", seed)
		dec := run("decentralized", seed)
		assert.Zero(t, dec.Checks, "decentralized never checks, seed %d", seed)
		messages += dec.Messages
		delegations += dec.Actions[c.Delegate]
	}
	assert.Positive(t, messages, "decentralized peers exchange findings")
	assert.Positive(t, delegations, "decentralized peers divide the work")
}
