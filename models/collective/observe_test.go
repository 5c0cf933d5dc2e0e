package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

func mask(actions ...collective.Action) collective.Mask {
	var m collective.Mask
	for _, a := range actions {
		m = m.With(a)
	}
	return m
}

// TestObservationsByHand follows one episode decision by decision, with
// every observation and mask worked out by hand. The orchestrator plans a
// one-minute step (two 30 s calls), delegates the two one-minute parts to
// helpers that take 10 s to start, and a helper assembles; nothing else
// costs time, and the time limit is 1000 s.
func TestObservationsByHand(t *testing.T) {
	cfg := free(3)
	cfg.Spawn = 10 * sim.Second
	cfg.TimeLimit = 1000 * sim.Second
	res, err := collective.Run(stageGraph(t), cfg, orchestrator(true), sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	const (
		W, D, A, S, C, Wt, Sub = collective.Work, collective.Delegate, collective.Attempt, collective.Share, collective.Check, collective.Wait, collective.Submit
	)
	want := []struct {
		obs  collective.Observation
		mask collective.Mask
		act  collective.Action
	}{
		// t = 0: the plan is the only ready subtask; two helpers may be spawned.
		{collective.Observation{Agent: 0, Main: true, Ready: 1, Free: 2, NextWork: 1}, mask(W, D, A), W},
		// t = 60: the plan is held, unchecked, and feeds no join.
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.06, Elapsed: 60, Free: 2, Unchecked: true}, mask(A, C, Wt), Wt},
		// Handing the plan on made both parts ready: a quarter of the work is done.
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.06, Elapsed: 60, Progress: 0.25, Ready: 2, Free: 2, NextWork: 1}, mask(W, D, A), D},
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.06, Elapsed: 60, Progress: 0.25, Ready: 1, Busy: 1, Free: 1, NextWork: 1}, mask(W, D, A), D},
		// Nothing left to do but wait for the helpers.
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.06, Elapsed: 60, Progress: 0.25, Busy: 2}, mask(Wt), Wt},
		// t = 130: helper 1 is done (10 s start, two calls); the assembly
		// still waits for helper 2's part, whose maker could use a finding.
		{collective.Observation{Agent: 1, TimeUsed: 0.13, Elapsed: 130, Progress: 0.25, Busy: 1, Idle: 1, Unchecked: true, Unshared: true}, mask(S, C, Wt), Wt},
		// Helper 2, a moment later: no partner is left to tell.
		{collective.Observation{Agent: 2, TimeUsed: 0.13, Elapsed: 130, Progress: 0.5, Idle: 2, Unchecked: true}, mask(C, Wt), Wt},
		// The assembly is ready and helper 1, woken first, takes it; the
		// waiting main agent is idle but cannot be delegated to.
		{collective.Observation{Agent: 1, TimeUsed: 0.13, Elapsed: 130, Progress: 0.75, Ready: 1, Busy: 1, Idle: 1, NextWork: 1}, mask(W), W},
		{collective.Observation{Agent: 2, TimeUsed: 0.13, Elapsed: 130, Progress: 0.75, Busy: 1, Idle: 1}, mask(Wt), Wt},
		// t = 190: the last part is held; only the main agent submits.
		{collective.Observation{Agent: 1, TimeUsed: 0.19, Elapsed: 190, Progress: 0.75, Idle: 2, Unchecked: true, Complete: true}, mask(C, Wt), Wt},
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.19, Elapsed: 190, Progress: 1, Idle: 2, Complete: true}, mask(Sub), Sub},
	}
	require.Len(t, res.Decisions, len(want))
	for i, w := range want {
		d := res.Decisions[i]
		assert.Equal(t, w.obs, d.Obs, "decision %d", i)
		assert.Equal(t, w.mask, d.Mask, "decision %d: mask", i)
		assert.Equal(t, w.act, d.Action, "decision %d: action", i)
		assert.Equal(t, w.obs.Agent, d.Agent, "decision %d: agent", i)
	}
	assert.Equal(t, 190*sim.Second, res.Finish)
	assert.True(t, res.Acceptable)
	// Main 60 s; helper 1 from its delegation at 60 s to 130 s, then the
	// assembly; helper 2 from 60 s to 130 s.
	assert.Equal(t, 260*sim.Second, res.AgentTime)
	assert.InDelta(t, 260.0/190, res.ParallelismMean, 1e-12)
	assert.Equal(t, 3, res.ParallelismPeak)
	assert.Equal(t, 2, res.Spawned)
	assert.Equal(t, [collective.NumActions]int{W: 2, D: 2, Wt: 6, Sub: 1}, res.Actions)
}
