package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
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

// TestCouplingObserved repeats the hand-worked episode with the assembly
// coupled (κ = 0.5): the parts' makers, and the main agent looking at a
// ready part, see the join's coupling; nothing else they see changes
// before the assembly.
func TestCouplingObserved(t *testing.T) {
	f := task.Family{Shape: "fork-join", Width: 2, Stages: 1, Work: sim.Const(60), Coupling: sim.Const(0.5)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	cfg := free(3)
	cfg.Spawn = 10 * sim.Second
	res, err := collective.Run(g, cfg, orchestrator(true), sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	var coupling []float64
	for _, d := range res.Decisions[:7] {
		coupling = append(coupling, d.Obs.Coupling)
	}
	// Decisions 2 and 3 look at a ready part; 5 and 6 hold one.
	assert.Equal(t, []float64{0, 0, 0.5, 0.5, 0, 0.5, 0.5}, coupling)
}

// sharer shares whenever it may, and otherwise acts as orchestrator(true).
var sharer = collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	if m.Has(collective.Share) {
		return collective.Share
	}
	return orchestrator(true).Decide(o, m, u)
})

// TestSharingByHand: a plan, a one-minute part a and a two-minute part b,
// and an assembly of coupling 1. Helper 1 finishes a at 130 s and shares
// it; helper 2 reads the finding before b's last call (at 160 s), so the
// parts are reconciled and the result is acceptable at 250 s. In the
// silent replay the same finding carries nothing: the same episode, but a
// conflict fails it. Messages are of 100 tokens; reading costs nothing.
func TestSharingByHand(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "plan", Work: 60 * sim.Second},
		{Name: "a", Work: 60 * sim.Second},
		{Name: "b", Work: 120 * sim.Second},
		{Name: "asm", Work: 60 * sim.Second, Coupling: 1},
	}, []task.Edge{{From: 0, To: 1}, {From: 0, To: 2}, {From: 1, To: 3}, {From: 2, To: 3}})
	require.NoError(t, err)
	for _, tc := range []struct {
		topology      collective.Topology
		messages      int
		messageTokens int64
		mainUnread    int
		prompt        int64
	}{
		// Two hand-offs and the finding to b's maker.
		{collective.PointToPoint, 3, 300, 0, 900},
		// The board is written once and read by b's maker; the main agent
		// has not read it when it submits. A board entry is visible at
		// once, so b's maker reads it at its call that starts at 130 s
		// (a message is delivered by an event after that call began): one
		// more call of 200 tokens.
		{collective.Blackboard, 3, 400, 1, 1000},
		// One message to each other agent of the team.
		{collective.Broadcast, 4, 400, 1, 900},
	} {
		cfg := free(3)
		cfg.Spawn = 10 * sim.Second
		cfg.Comm = collective.Comm{Topology: tc.topology, MessageTokens: 100}
		res, err := collective.Run(g, cfg, sharer, sim.NewStreams(1), collective.Options{Record: true})
		require.NoError(t, err)
		assert.True(t, res.Acceptable, "%s", tc.topology)
		assert.Zero(t, res.Conflicts, "%s", tc.topology)
		assert.Equal(t, 250*sim.Second, res.Finish, "%s", tc.topology)
		assert.Equal(t, tc.messages, res.Messages, "%s", tc.topology)
		assert.Equal(t, tc.messageTokens, res.MessageTokens, "%s", tc.topology)
		assert.Equal(t, 1, res.Actions[collective.Share], "%s", tc.topology)
		// Helper contexts: 100 (hand-off) for each call, and 200 for the
		// call after reading the finding: 2·100 (a) + 3·100 + 200 (b) +
		// 2·100 (assembly).
		assert.Equal(t, tc.prompt, res.PromptTokens, "%s", tc.topology)
		last := res.Decisions[len(res.Decisions)-1]
		require.True(t, last.Obs.Main)
		assert.Equal(t, tc.mainUnread, last.Obs.Unread, "%s: the main agent's unread findings", tc.topology)

		silent, err := collective.Run(g, cfg, sharer, sim.NewStreams(1), collective.Options{Record: true, Silent: true})
		require.NoError(t, err)
		assert.False(t, silent.Acceptable, "%s: without what the finding carries the parts conflict", tc.topology)
		assert.Equal(t, 1, silent.Conflicts, "%s", tc.topology)
		want := res.Metrics
		want.Acceptable, want.Conflicts = false, 1
		assert.Equal(t, want, silent.Metrics, "%s: otherwise the same episode", tc.topology)
		assert.Equal(t, res.Decisions, silent.Decisions, "%s", tc.topology)
	}
}

// TestHeldFirstPartObserved: the part with ID 0 is observed like any other
// when held. Parts a (ID 0, one minute) and b (two minutes) join at a
// coupled assembly (κ = 0.5); the main agent delegates a and works on b.
// The helper holding a at 60 s sees it unchecked, unshared (b's maker
// could use a finding) and coupled at 0.5, and may share, check or wait.
func TestHeldFirstPartObserved(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute},
		{Name: "b", Work: 2 * sim.Minute},
		{Name: "asm", Work: sim.Minute, Coupling: 0.5},
	}, []task.Edge{{From: 0, To: 2}, {From: 1, To: 2}})
	require.NoError(t, err)
	cfg := free(3)
	cfg.TimeLimit = 1000 * sim.Second
	res, err := collective.Run(g, cfg, sharer, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	require.Greater(t, len(res.Decisions), 2)
	const D, W = collective.Delegate, collective.Work
	assert.Equal(t, []collective.Action{D, W}, []collective.Action{res.Decisions[0].Action, res.Decisions[1].Action})
	d := res.Decisions[2]
	want := collective.Observation{
		Agent: 1, Elapsed: 60, TimeUsed: 0.06, Busy: 1, Free: 1,
		Unchecked: true, Unshared: true, Coupling: 0.5,
	}
	assert.Equal(t, want, d.Obs)
	assert.Equal(t, mask(collective.Share, collective.Check, collective.Wait), d.Mask)
	assert.Equal(t, collective.Share, d.Action)
}

// TestBoardAndLoneJoinByHand: parts a and b of a minute join at an
// assembly (κ = 0.5) that feeds a tail whose coupling (0.7) is ignored, as
// it has a single predecessor. The main agent delegates a and works on b;
// both are done at 60 s. On a blackboard where writing and delivery cost
// nothing, the helper's finding about a is available the instant it is
// written, so the main agent, deciding at that same instant, has it
// unread. Whoever looks at the assembly, ready or held, sees the tail's
// coupling as 0.
func TestBoardAndLoneJoinByHand(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute},
		{Name: "b", Work: sim.Minute},
		{Name: "asm", Work: sim.Minute, Coupling: 0.5},
		{Name: "tail", Work: sim.Minute, Coupling: 0.7},
	}, []task.Edge{{From: 0, To: 2}, {From: 1, To: 2}, {From: 2, To: 3}})
	require.NoError(t, err)
	cfg := free(3)
	cfg.Comm = collective.Comm{Topology: collective.Blackboard, MessageTokens: 100}
	res, err := collective.Run(g, cfg, sharer, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	require.Greater(t, len(res.Decisions), 8)
	type seen struct {
		agent           int
		elapsed         float64
		unread          int
		coupling        float64
		ready, unshared bool
		act             collective.Action
	}
	var got []seen
	for _, d := range res.Decisions[2:9] {
		o := d.Obs
		got = append(got, seen{o.Agent, o.Elapsed, o.Unread, o.Coupling, o.Ready > 0, o.Unshared, d.Action})
	}
	assert.Equal(t, []seen{
		{1, 60, 0, 0.5, false, true, collective.Share}, // the helper holds a
		{0, 60, 1, 0.5, false, true, collective.Share}, // the main agent holds b; a's finding is on the board
		{1, 60, 1, 0.5, false, false, collective.Wait}, // b's finding too; a is handed on
		{0, 60, 1, 0.5, false, false, collective.Wait}, // b is handed on: the assembly is ready
		{1, 60, 1, 0, true, false, collective.Work},    // the assembly feeds only the tail
		{0, 60, 1, 0, false, false, collective.Wait},
		{1, 120, 0, 0, false, false, collective.Wait}, // the helper holds the assembly
	}, got)
}

// TestNewcomerGetsSiblingFindings: parts a and b join at an assembly of
// coupling 1, so they conflict unless b's maker read a finding about a. A
// helper makes a (60 s), shares it and goes on to z, a five-minute part
// after a; b follows y, which the main agent makes, and goes to a second
// helper when y is handed on (at 60 s or at 120 s). Nobody works on b when
// a is shared, so no message carries the finding: the newcomer is handed
// it when it starts b, even at the very instant it became available. Its
// two calls read the hand-off and the finding (2·200 tokens), the first
// helper's twelve the hand-off (12·100): 1600 prompt tokens.
func TestNewcomerGetsSiblingFindings(t *testing.T) {
	for _, y := range []sim.Time{sim.Minute, 2 * sim.Minute} {
		g, err := task.New([]task.Node{
			{Name: "a", Work: sim.Minute},
			{Name: "y", Work: y},
			{Name: "z", Work: 5 * sim.Minute},
			{Name: "b", Work: sim.Minute},
			{Name: "asm", Work: sim.Minute, Coupling: 1},
		}, []task.Edge{{From: 0, To: 2}, {From: 0, To: 4}, {From: 1, To: 3}, {From: 3, To: 4}})
		require.NoError(t, err)
		cfg := free(3)
		cfg.Comm = collective.Comm{Topology: collective.PointToPoint, MessageTokens: 100}
		res, err := collective.Run(g, cfg, sharer, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		assert.Zero(t, res.Conflicts, "y %v", y)
		assert.True(t, res.Acceptable, "y %v", y)
		assert.Equal(t, 1, res.Actions[collective.Share], "y %v", y)
		assert.Equal(t, 2, res.Messages, "y %v: the two hand-offs", y)
		assert.Equal(t, int64(1600), res.PromptTokens, "y %v", y)
		assert.Equal(t, 6*sim.Minute, res.Finish, "y %v: a and z", y)
	}
}

// Every decision sees the kind of the task it works on: 1 + the kind's
// index in task.Kinds for a graph drawn from a kind (alone or as a
// mixture's component), 0 for one drawn without.
func TestObservationKind(t *testing.T) {
	type kindCase struct {
		name   string
		family task.Family
		want   int
	}
	tests := []kindCase{
		{"no kind", task.Family{Shape: "fork-join", Width: 2, Stages: 1, Work: sim.Const(60)}, 0},
		{"mixture of one kind", task.Family{Shape: "mixture", Components: []task.Component{{Weight: 1, Family: task.Family{Kind: task.KindSequential}}}}, 3},
	}
	for i, k := range task.Kinds {
		tests = append(tests, kindCase{k, task.Family{Kind: k}, i + 1})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := tt.family.Draw(sim.NewStreams(1).New("task", 0))
			require.NoError(t, err)
			res, err := collective.Run(g, free(3), org(t, "split"), sim.NewStreams(1), collective.Options{Record: true})
			require.NoError(t, err)
			require.NotEmpty(t, res.Decisions)
			for _, d := range res.Decisions {
				require.Equal(t, tt.want, d.Obs.Kind, "decision of agent %d at %v s", d.Agent, d.Obs.Elapsed)
			}
		})
	}
}
