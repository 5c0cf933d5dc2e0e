package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// delegator delegates whenever it may (the main agent only, or every agent
// with helpers too), the main agent submits a complete result, and
// otherwise agents work or wait.
func delegator(helpersToo bool) collective.Policy {
	return collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case (o.Main || helpersToo) && m.Has(collective.Delegate):
			return collective.Delegate
		case o.Main && m.Has(collective.Submit) && o.Complete:
			return collective.Submit
		case m.Has(collective.Work):
			return collective.Work
		}
		return collective.Wait
	})
}

// boss delegates from the main agent; helpers work or wait. passer
// delegates from every agent.
var boss, passer = delegator(false), delegator(true)

// checker is boss that checks every part it may.
var checker = collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	if m.Has(collective.Check) {
		return collective.Check
	}
	return boss.Decide(o, m, u)
})

// TestWaitingMainAgentTakesNewWork: a part x of a minute feeds two parts w
// and z of a minute each; there are two agents. The main agent delegates x
// and waits. When the helper hands x on, both w and z become ready and no
// helper is idle (the one that made x is still deciding), so the waiting
// main agent is woken and takes w while the helper takes z: the task ends
// at 120 s. Were the main agent left asleep, the helper would make w and
// z one after the other and finish at 180 s.
func TestWaitingMainAgentTakesNewWork(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "x", Work: sim.Minute}, {Name: "w", Work: sim.Minute}, {Name: "z", Work: sim.Minute},
	}, []task.Edge{{From: 0, To: 1}, {From: 0, To: 2}})
	require.NoError(t, err)
	res, err := collective.Run(g, free(2), boss, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 2*sim.Minute, res.Finish)
	// The helper is busy from 0 to 120 s (x, then z), the main agent from
	// 60 to 120 s (w).
	assert.Equal(t, 3*sim.Minute, res.AgentTime)
	assert.Equal(t, 2, res.ParallelismPeak)
	assert.Equal(t, 1, res.Spawned)
	var mainWork []float64
	for _, d := range res.Decisions {
		if d.Agent == 0 && d.Action == collective.Work {
			mainWork = append(mainWork, d.Obs.Elapsed)
		}
	}
	assert.Equal(t, []float64{60}, mainWork, "the main agent works once, when x is handed on")
}

// TestDecisionDrawsAreDistinct: every decision an agent makes gets a draw
// of its own, forced decisions (one valid action) included in the count,
// so that no two decisions of one agent share their randomness. A policy
// that records its draws runs the team organization on every family.
func TestDecisionDrawsAreDistinct(t *testing.T) {
	team := org(t, "team")
	forced := 0
	for _, f := range families {
		for seed := range uint64(5) {
			seen := map[int]map[float64]bool{}
			rec := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
				if seen[o.Agent] == nil {
					seen[o.Agent] = map[float64]bool{}
				}
				assert.False(t, seen[o.Agent][u], "%s seed %d: agent %d drew %v twice", f.Shape, seed, o.Agent, u)
				seen[o.Agent][u] = true
				return team.Decide(o, m, u)
			})
			res, err := collective.Run(draw(t, f, seed), collective.Defaults(), rec, sim.NewStreams(seed), collective.Options{Record: true})
			require.NoError(t, err)
			chosen := 0
			for _, s := range seen {
				chosen += len(s)
			}
			single := 0
			for _, d := range res.Decisions {
				if d.Mask.Single() {
					single++
				}
			}
			// The policy saw every decision that had a choice.
			require.Equal(t, len(res.Decisions)-single, chosen, "%s seed %d", f.Shape, seed)
			forced += single
		}
	}
	require.Greater(t, forced, 100, "forced decisions interleave with chosen ones")
}

// TestWorkSpansCarryTheirTokens: in a trace, each work span is one model
// call and carries that call's prompt and output tokens, so the work spans
// add up to the episode's token counts; no other span carries tokens.
func TestWorkSpansCarryTheirTokens(t *testing.T) {
	for _, f := range families {
		for _, name := range []string{"sequential", "team"} {
			g := draw(t, f, 4)
			res, err := collective.Run(g, collective.Defaults(), org(t, name), sim.NewStreams(4), collective.Options{Trace: true})
			require.NoError(t, err)
			var prompt, output int64
			for _, s := range res.Trace.Spans {
				if s.Kind == "work" {
					assert.Positive(t, s.Prompt, "%s %s: %+v", f.Shape, name, s)
					prompt += s.Prompt
					output += s.Output
					continue
				}
				assert.Zero(t, s.Prompt, "%s %s: %+v", f.Shape, name, s)
				assert.Zero(t, s.Output, "%s %s: %+v", f.Shape, name, s)
			}
			require.Positive(t, res.OutputTokens)
			assert.Equal(t, res.PromptTokens, prompt, "%s %s", f.Shape, name)
			assert.Equal(t, res.OutputTokens, output, "%s %s", f.Shape, name)
		}
	}
}

// TestHelperDelegatesToIdleHelper: parts a and b (a minute each) and x
// (two minutes), and y after x; four agents. The main agent hands a, b and
// x to three helpers and waits. The helpers of a and b are idle from 60 s.
// When x is handed on at 120 s, y is ready and the longest-waiting helper
// (a's maker) is woken; it delegates y to the other idle helper, which is
// then no longer idle. Each row is who decided when, how many of the
// others were idle and busy, and what it did.
func TestHelperDelegatesToIdleHelper(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute}, {Name: "b", Work: sim.Minute},
		{Name: "x", Work: 2 * sim.Minute}, {Name: "y", Work: sim.Minute},
	}, []task.Edge{{From: 2, To: 3}})
	require.NoError(t, err)
	res, err := collective.Run(g, free(4), passer, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	type row struct {
		agent      int
		at         float64
		idle, busy int
		act        collective.Action
	}
	const D, Wt, Sub = collective.Delegate, collective.Wait, collective.Submit
	want := []row{
		{0, 0, 0, 0, D}, {0, 0, 0, 1, D}, {0, 0, 0, 2, D}, {0, 0, 0, 3, Wt},
		{1, 60, 1, 2, Wt},  // a's maker; the main agent waits
		{2, 60, 2, 1, Wt},  // b's maker
		{3, 120, 3, 0, Wt}, // x's maker hands x on: y is ready, a's maker woken
		{1, 120, 2, 1, D},  // y goes to b's maker, idle
		{3, 120, 1, 2, Wt}, // x's maker: nothing left
		{1, 120, 2, 1, Wt}, // a's maker, after the hand-off
		{2, 180, 3, 0, Wt}, // y done: the result is complete
		{0, 180, 3, 0, Sub},
	}
	var got []row
	for _, d := range res.Decisions {
		got = append(got, row{d.Agent, d.Obs.Elapsed, d.Obs.Idle, d.Obs.Busy, d.Action})
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 3*sim.Minute, res.Finish)
	assert.Equal(t, 3, res.Spawned, "y went to a helper that was there")
	assert.Equal(t, 4, res.SubagentTasks)
}

// TestHandoffsInTrace repeats TestHelperDelegatesToIdleHelper with costs:
// a hand-off of 100 tokens takes 1 s to write (10 ms a token) and 1 s to
// deliver, and a new helper 10 s to start. Each hand-off is sent when it
// is written and arrives a second later; a new helper's first slice is
// its start-up (it starts at 10 s, after the message arrived), and the
// idle helper that takes y waits for the message alone (an input slice
// of 2 s).
func TestHandoffsInTrace(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute}, {Name: "b", Work: sim.Minute},
		{Name: "x", Work: 2 * sim.Minute}, {Name: "y", Work: sim.Minute},
	}, []task.Edge{{From: 2, To: 3}})
	require.NoError(t, err)
	cfg := free(4)
	cfg.Spawn = 10 * sim.Second
	cfg.Comm = collective.Comm{Topology: collective.PointToPoint, MessageTokens: 100, Write: 10 * sim.Millisecond, Latency: sim.Second}
	res, err := collective.Run(g, cfg, passer, sim.NewStreams(1), collective.Options{Trace: true})
	require.NoError(t, err)
	s := sim.Second
	var handoffs []collective.Flow
	for _, f := range res.Trace.Flows {
		if f.Kind == "handoff" {
			handoffs = append(handoffs, f)
		}
	}
	// The main agent writes three hand-offs one after the other from 0 s;
	// a's maker writes y's from 132 s, when x (12 s to 132 s) is done.
	assert.Equal(t, []collective.Flow{
		{From: 0, To: 1, Send: 1 * s, Arrive: 2 * s, Kind: "handoff"},
		{From: 0, To: 2, Send: 2 * s, Arrive: 3 * s, Kind: "handoff"},
		{From: 0, To: 3, Send: 3 * s, Arrive: 4 * s, Kind: "handoff"},
		{From: 1, To: 2, Send: 133 * s, Arrive: 134 * s, Kind: "handoff"},
	}, handoffs)
	type slice struct {
		agent      int
		start, end sim.Time
	}
	kinds := map[string][]slice{}
	for _, sp := range res.Trace.Spans {
		if sp.Kind == "spawn" || sp.Kind == "input" {
			kinds[sp.Kind] = append(kinds[sp.Kind], slice{sp.Agent, sp.Start, sp.End})
		}
	}
	assert.Equal(t, map[string][]slice{
		"spawn": {{1, 0, 10 * s}, {2, 1 * s, 11 * s}, {3, 2 * s, 12 * s}},
		"input": {{2, 132 * s, 134 * s}},
	}, kinds)
	assert.Equal(t, 194*s, res.Finish)
}

// TestFindingTimesInTrace: a finding is sent when it is written and
// arrives after the delivery latency. Parts a (a minute) and b (two) join
// at a coupled assembly; the main agent delegates a and works on b; a's
// maker shares it at 60 s to b's maker: written in 1 s, delivered in 1 s.
func TestFindingTimesInTrace(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute}, {Name: "b", Work: 2 * sim.Minute}, {Name: "asm", Work: sim.Minute, Coupling: 1},
	}, []task.Edge{{From: 0, To: 2}, {From: 1, To: 2}})
	require.NoError(t, err)
	// Point to point, the finding goes to b's maker; broadcast, to the
	// only other member of the team, the same agent.
	for _, topology := range []collective.Topology{collective.PointToPoint, collective.Broadcast} {
		cfg := free(3)
		cfg.Comm = collective.Comm{Topology: topology, MessageTokens: 100, Write: 10 * sim.Millisecond, Latency: sim.Second}
		res, err := collective.Run(g, cfg, sharer, sim.NewStreams(1), collective.Options{Trace: true})
		require.NoError(t, err)
		var findings []collective.Flow
		for _, f := range res.Trace.Flows {
			if f.Kind == "finding" {
				findings = append(findings, f)
			}
		}
		// a's maker starts when the hand-off has arrived (2 s): a is done at 62 s.
		assert.Equal(t, []collective.Flow{{From: 1, To: 0, Send: 63 * sim.Second, Arrive: 64 * sim.Second, Kind: "finding"}}, findings, "%s", topology)
		assert.Zero(t, res.Conflicts, "%s: b's last call began at 91 s, after the finding arrived", topology)
	}
}

// TestIndependentAttemptsAreSpawned: every independent attempt is a new
// agent, counted as spawned and as a subagent's task.
func TestIndependentAttemptsAreSpawned(t *testing.T) {
	for _, f := range families {
		for seed := range uint64(5) {
			res, err := collective.Run(draw(t, f, seed), collective.Defaults(), org(t, "independent"), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.Positive(t, res.Attempts, "%s seed %d", f.Shape, seed)
			assert.Equal(t, res.Attempts, res.Spawned, "%s seed %d", f.Shape, seed)
			assert.Equal(t, res.Attempts, res.SubagentTasks, "%s seed %d", f.Shape, seed)
		}
	}
}

// TestRetryDroppedAsMoot: a part being made again after its check flagged
// it is dropped when an alternative settles the search, and its maker then
// holds nothing. Tries of 60 s (always bad) and 100 s (always good) feed
// a one-minute pick; every agent checks what it may (perfect checks). The
// first try is flagged at 60 s and made again; the second is checked and
// handed on at 100 s, which skips the first; its maker drops it at its
// next call (120 s) and has nothing to check. Three checks: each try once
// and the pick.
func TestRetryDroppedAsMoot(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "try0", Work: sim.Minute, Difficulty: 0.999999},
		{Name: "try1", Work: 100 * sim.Second},
		{Name: "pick", Work: sim.Minute, Join: task.JoinAny},
	}, []task.Edge{{From: 0, To: 2}, {From: 1, To: 2}})
	require.NoError(t, err)
	res, err := collective.Run(g, free(3), checker, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	assert.True(t, res.Acceptable)
	assert.Equal(t, 160*sim.Second, res.Finish)
	assert.Equal(t, 3, res.Checks)
	assert.Equal(t, 1, res.Retries)
	dropped := 0
	for _, d := range res.Decisions {
		if d.Agent == 1 && d.Obs.Elapsed == 120 {
			dropped++
			assert.False(t, d.Obs.Unchecked, "the dropped try's maker holds nothing")
			assert.Equal(t, collective.Wait, d.Action)
		}
	}
	assert.Equal(t, 1, dropped, "the first try's maker decides once when it drops it")
}

// TestFinishedAttemptFreesItsAgent: an independent attempt's agent leaves
// when it submits, and its place is free again. A chain of two one-minute
// parts and three agents: the main agent starts an attempt, hands the
// first part to a helper (whose hand-off takes 10 s to arrive) and makes
// the second itself, from 70 s to 130 s. The attempt, alone and without
// messages, submits at 120 s; at 130 s the main agent sees one agent free
// again and no attempt pending.
func TestFinishedAttemptFreesItsAgent(t *testing.T) {
	f := task.Family{Shape: "chain", Length: 2, Work: sim.Const(60)}
	g := draw(t, f, 1)
	hedger := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
		switch {
		case o.Main && o.Attempts == 0 && m.Has(collective.Attempt):
			return collective.Attempt
		case m.Has(collective.Submit) && o.Complete:
			return collective.Submit
		}
		return boss.Decide(o, m, u)
	})
	cfg := free(3)
	cfg.Comm.Latency = 10 * sim.Second
	res, err := collective.Run(g, cfg, hedger, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	last := res.Decisions[len(res.Decisions)-1]
	require.Equal(t, 0, last.Agent)
	assert.Equal(t, 130.0, last.Obs.Elapsed)
	assert.Equal(t, 1, last.Obs.Free, "the attempt's agent has left")
	assert.Zero(t, last.Obs.Pending)
	assert.Equal(t, 1, last.Obs.Attempts)
	assert.Equal(t, collective.Submit, last.Action)
	assert.Equal(t, 2, res.Spawned)
}

// TestHeldAlternativeDroppedAsMoot: an alternative held while it is
// checked is dropped when another settles the search first, and its maker
// then holds nothing. Tries of 60 s and 40 s feed a pick; checks cost the
// part's work. The second try is checked from 40 s to 80 s and handed on;
// the first, checked from 60 s, is moot when its check ends at 120 s.
func TestHeldAlternativeDroppedAsMoot(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "try0", Work: sim.Minute},
		{Name: "try1", Work: 40 * sim.Second},
		{Name: "pick", Work: sim.Minute, Join: task.JoinAny},
	}, []task.Edge{{From: 0, To: 2}, {From: 1, To: 2}})
	require.NoError(t, err)
	cfg := free(3)
	cfg.Check.Cost = 1
	res, err := collective.Run(g, cfg, checker, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	assert.True(t, res.Acceptable)
	dropped := 0
	for _, d := range res.Decisions {
		if d.Agent == 1 && d.Obs.Elapsed == 120 {
			dropped++
			assert.False(t, d.Obs.Unchecked, "the moot try's maker holds nothing")
			assert.False(t, d.Mask.Has(collective.Check))
		}
	}
	assert.Equal(t, 1, dropped, "the first try's maker decides once when its check ends")
	assert.Equal(t, 3, res.Checks, "each try and the pick")
}
