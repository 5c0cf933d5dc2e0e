package collective_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// uniform picks one of the valid actions with equal chances.
var uniform = collective.PolicyFunc(func(_ *collective.Observation, m collective.Mask, u float64) collective.Action {
	n := 0
	for a := range collective.Action(collective.NumActions) {
		if m.Has(a) {
			n++
		}
	}
	k := int(u * float64(n))
	for a := range collective.Action(collective.NumActions) {
		if m.Has(a) {
			if k == 0 {
				return a
			}
			k--
		}
	}
	return m.First()
})

// fanOut is a plan and width parts of a minute each, assembled by a join;
// every attempt succeeds and nothing conflicts.
func fanOut(t *testing.T, width int) *task.Graph {
	f := task.Family{Shape: "fork-join", Width: width, Stages: 1, Work: sim.Const(60)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	return g
}

// briefer is the orchestrator of a fan-out that works the plan and the
// first `own` parts itself, shares each of them, then delegates the rest
// and submits; helpers work and never check or share.
func briefer(own int) collective.Policy {
	worked := 0
	return collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case !o.Main:
			if m.Has(collective.Work) {
				return collective.Work
			}
			return collective.Wait
		case m.Has(collective.Share):
			return collective.Share
		case o.Complete && m.Has(collective.Submit):
			return collective.Submit
		case m.Has(collective.Work) && (o.Progress == 0 || worked < own):
			if o.Progress > 0 {
				worked++
			}
			return collective.Work
		case m.Has(collective.Delegate):
			return collective.Delegate
		}
		return collective.Wait
	})
}

// TestHandoffMissChance counts misunderstood hand-offs over many episodes
// against the chance Miss·(1 − min(1, r/Findings)) of a helper that has
// read findings about r parts: the orchestrator shares r of its own parts
// before it delegates the other eight, and each helper receives them as it
// starts. Each count is binomial; the bound is five standard deviations.
func TestHandoffMissChance(t *testing.T) {
	const episodes, delegated = 200, 8
	for _, tt := range []struct {
		miss     float64
		findings int
		shared   int
		want     float64
	}{
		{1, 1, 0, 1},
		{0.6, 1, 0, 0.6},
		{0.6, 2, 1, 0.3},
		{0.6, 2, 2, 0},
		{0.6, 2, 3, 0},
	} {
		cfg := free(delegated + 1)
		cfg.Handoff = collective.Handoff{Miss: tt.miss, Findings: tt.findings}
		g := fanOut(t, delegated+tt.shared)
		misses := 0
		for seed := range uint64(episodes) {
			res, err := collective.Run(g, cfg, briefer(tt.shared), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.Equal(t, delegated, res.SubagentTasks)
			misses += res.HandoffMisses
			// Nobody checks, so a misunderstood part fails the result.
			assert.Equal(t, res.HandoffMisses == 0, res.Acceptable, "seed %d", seed)
		}
		n := float64(episodes * delegated)
		sd := math.Sqrt(tt.want * (1 - tt.want) / n)
		assert.InDelta(t, tt.want, float64(misses)/n, 5*sd+1e-12, "%+v", tt)
	}
}

// TestHandoffMissCaughtByCheck: a helper that checks its part catches a
// misunderstanding (with a perfect check) and redoes the part, which is
// then understood: the result is acceptable, every part was attempted
// twice, and the redo costs a minute of work per part.
func TestHandoffMissCaughtByCheck(t *testing.T) {
	helpersCheck := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
		if !o.Main && m.Has(collective.Check) {
			return collective.Check
		}
		return briefer(0).Decide(o, m, u)
	})
	g := fanOut(t, 4)
	cfg := free(5)
	base, err := collective.Run(g, cfg, helpersCheck, sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	cfg.Handoff = collective.Handoff{Miss: 1, Findings: 1}
	res, err := collective.Run(g, cfg, helpersCheck, sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, base.Acceptable)
	assert.True(t, res.Acceptable)
	assert.Equal(t, 4, res.HandoffMisses)
	assert.Equal(t, 4, res.Retries)
	assert.Equal(t, base.Finish+60*sim.Second, res.Finish, "the parts are redone side by side")
	assert.Equal(t, base.AgentTime+4*60*sim.Second, res.AgentTime)
}

// TestDuplicateByHand: a chain of two one-minute steps (two 30 s calls
// each). Hand-offs take the orchestrator 10 s to write and helpers 10 s to
// start. It delegates step a at 0 s (its helper works 10–70 s) and then,
// with nothing ready, a duplicate of a at 10 s, whose helper works from
// 20 s. When a is finished at 70 s the orchestrator works b; the duplicate
// is abandoned at the end of its call in progress (80 s), having made two
// calls and been busy from 10 s: 70 s of agent time, besides the
// orchestrator's extra 10 s of writing. Nothing else changes: the
// duplicate's work is never used.
func TestDuplicateByHand(t *testing.T) {
	f := task.Family{Shape: "chain", Length: 2, Work: sim.Const(60)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	cfg := free(3)
	cfg.Spawn = 10 * sim.Second
	cfg.Comm = collective.Comm{Topology: collective.PointToPoint, Write: sim.Second, MessageTokens: 10}
	cfg.Handoff.Duplicates = true
	run := func(dups int) *collective.Result {
		pol := orchestrated(func(o *collective.Observation, m collective.Mask) collective.Action {
			switch {
			case o.Ready > 0 && o.Progress > 0:
				return collective.Work
			case o.Ready > 0, o.Ready == 0 && m.Has(collective.Delegate) && dups > 0:
				if o.Ready == 0 {
					dups--
				}
				return collective.Delegate
			}
			return collective.Wait
		})
		res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{Record: true})
		require.NoError(t, err)
		return res
	}
	base, dup := run(0), run(1)
	require.True(t, base.Acceptable)
	assert.Equal(t, 130*sim.Second, base.Finish)
	assert.Equal(t, base.Finish, dup.Finish)
	assert.Equal(t, base.Acceptable, dup.Acceptable)
	assert.Equal(t, base.ModelCalls+2, dup.ModelCalls, "the duplicate made two calls")
	assert.Equal(t, base.AgentTime+80*sim.Second, dup.AgentTime)
	assert.Equal(t, 1, dup.Duplicates)
	assert.Zero(t, base.Duplicates)
	assert.Equal(t, []int{1, 2}, []int{base.Spawned, dup.Spawned})
	assert.Equal(t, []int{1, 2}, []int{base.SubagentTasks, dup.SubagentTasks})
	assert.Equal(t, []int{1, 1}, []int{base.SubagentDone, dup.SubagentDone})
	assert.Equal(t, 0.5, dup.SpawnFinishRate())
	// Once a was finished, nothing was left to duplicate.
	for _, d := range dup.Decisions {
		if d.Obs.Main && d.Obs.Ready == 0 && d.Obs.Elapsed >= 70 {
			assert.False(t, d.Mask.Has(collective.Delegate), "at %v s", d.Obs.Elapsed)
		}
	}
}

// TestDuplicatesMasked: without Handoff.Duplicates, delegation needs a
// ready subtask, so a policy that delegates whenever it may behaves as it
// always did; with it, delegations with nothing ready occur and are
// counted as assigned and never as completed. Independent attempts are
// left out, since the submission abandons those still running.
func TestDuplicatesMasked(t *testing.T) {
	var actions collective.Mask
	for a := range collective.Action(collective.NumActions) {
		if a != collective.Attempt {
			actions = actions.With(a)
		}
	}
	opts := collective.Options{Record: true, Actions: actions}
	total := 0
	for _, f := range families[1:] {
		for seed := range uint64(5) {
			g := draw(t, f, seed)
			cfg := collective.Defaults()
			cfg.Agents = 6
			res, err := collective.Run(g, cfg, uniform, sim.NewStreams(seed), opts)
			require.NoError(t, err)
			for _, d := range res.Decisions {
				if d.Obs.Ready == 0 {
					assert.False(t, d.Mask.Has(collective.Delegate), "%s seed %d", f.Shape, seed)
				}
			}
			assert.Zero(t, res.Duplicates)

			cfg.Handoff.Duplicates = true
			res, err = collective.Run(g, cfg, uniform, sim.NewStreams(seed), opts)
			require.NoError(t, err)
			dups := 0
			delegated := map[int]bool{} // agents that delegated a ready subtask
			for _, d := range res.Decisions {
				if d.Obs.Ready == 0 && d.Mask.Has(collective.Delegate) {
					assert.True(t, delegated[d.Agent], "%s seed %d: agent %d has no delegation to duplicate", f.Shape, seed, d.Agent)
				}
				if d.Action == collective.Delegate && d.Obs.Ready > 0 {
					delegated[d.Agent] = true
				}
				if d.Obs.Ready == 0 && d.Action == collective.Delegate {
					dups++
				}
			}
			assert.Equal(t, dups, res.Duplicates, "%s seed %d", f.Shape, seed)
			total += dups
			assert.Equal(t, res.Actions[collective.Delegate], res.SubagentTasks, "%s seed %d", f.Shape, seed)
			if !res.TimedOut {
				assert.Equal(t, res.SubagentTasks-dups, res.SubagentDone, "%s seed %d: every original finishes, no duplicate does", f.Shape, seed)
			}
		}
	}
	assert.Positive(t, total, "a uniform policy delegates duplicates")
}

// TestHandoffConfigErrors: each field's range, and settings that could
// never act.
func TestHandoffConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		agents int
		h      collective.Handoff
		want   string
	}{
		{4, collective.Handoff{Miss: -0.1, Findings: 1}, "handoff.miss: -0.1 is out of range [0, 1]"},
		{4, collective.Handoff{Miss: 1.5, Findings: 1}, "handoff.miss: 1.5 is out of range [0, 1]"},
		{4, collective.Handoff{Miss: math.NaN(), Findings: 1}, "handoff.miss: NaN is out of range"},
		{4, collective.Handoff{Miss: 0.5, Findings: -1}, "handoff.findings: -1 is negative"},
		{4, collective.Handoff{Miss: 0.5}, "handoff.findings: 0 would make every hand-off complete"},
		{4, collective.Handoff{Findings: 2}, "handoff.findings: 2 has no effect with handoff.miss 0"},
		{1, collective.Handoff{Miss: 0.5, Findings: 1}, "handoff.miss: 0.5 has no effect with agents 1"},
		{1, collective.Handoff{Duplicates: true}, "handoff.duplicates: true has no effect with agents 1"},
	} {
		cfg := collective.Defaults()
		cfg.Agents = tt.agents
		cfg.Handoff = tt.h
		err := cfg.Validate()
		require.Error(t, err, "%+v", tt.h)
		assert.Contains(t, err.Error(), tt.want)
	}
	cfg := collective.Defaults()
	cfg.Handoff = collective.Handoff{Miss: 1, Findings: 3, Duplicates: true}
	assert.NoError(t, cfg.Validate())
}

// TestHandoffFindingsWhileWorking: context may also reach a helper while it
// works. The orchestrator plans (0–60 s), delegates part a to a helper that
// takes `spawn` to start, works part b itself (60–120 s) and shares it at
// 120 s. A helper that starts at 100 s reads the finding when its last call
// begins (130 s) and understands a; one that starts at 80 s began its last
// call at 110 s and misunderstands it, and so does the first in a silent
// replay, where findings carry nothing.
func TestHandoffFindingsWhileWorking(t *testing.T) {
	pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case m.Has(collective.Share):
			return collective.Share
		case o.Main && o.Complete && m.Has(collective.Submit):
			return collective.Submit
		case o.Main && o.Ready > 1 && o.Progress > 0:
			return collective.Delegate
		case m.Has(collective.Work):
			return collective.Work
		}
		return collective.Wait
	})
	g := fanOut(t, 2)
	for _, tt := range []struct {
		spawn  sim.Time
		silent bool
		misses int
	}{
		{40 * sim.Second, false, 0},
		{20 * sim.Second, false, 1},
		{40 * sim.Second, true, 1},
	} {
		cfg := free(2)
		cfg.Spawn = tt.spawn
		cfg.Handoff = collective.Handoff{Miss: 1, Findings: 1}
		res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{Silent: tt.silent})
		require.NoError(t, err)
		assert.Equal(t, 1, res.SubagentTasks, "%+v", tt)
		assert.Equal(t, tt.misses, res.HandoffMisses, "%+v", tt)
		assert.Equal(t, tt.misses == 0, res.Acceptable, "%+v", tt)
	}
}

// TestDuplicateNeedsAHelper: a duplicate goes to an idle helper or a new
// one. The main agent hands the first part of a chain to a helper and
// looks again with nothing ready: with two agents nobody is left to take a
// duplicate, with three a third may be spawned.
func TestDuplicateNeedsAHelper(t *testing.T) {
	g := draw(t, task.Family{Shape: "chain", Length: 2, Work: sim.Const(60)}, 1)
	for _, tc := range []struct {
		agents int
		dup    bool
	}{{2, false}, {3, true}} {
		cfg := free(tc.agents)
		cfg.Handoff.Duplicates = true
		once := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
			if o.Main && o.Ready > 0 && m.Has(collective.Delegate) {
				return collective.Delegate
			}
			return boss.Decide(o, m, u)
		})
		res, err := collective.Run(g, cfg, once, sim.NewStreams(1), collective.Options{Record: true})
		require.NoError(t, err)
		require.Greater(t, len(res.Decisions), 2)
		require.Equal(t, collective.Delegate, res.Decisions[0].Action)
		d := res.Decisions[1]
		require.True(t, d.Obs.Main)
		require.Zero(t, d.Obs.Ready)
		assert.Equal(t, tc.dup, d.Mask.Has(collective.Delegate), "%d agents", tc.agents)
	}
}

// TestOnlyADelegatorDuplicates: a duplicate repeats the agent's own last
// delegation, so an agent that has delegated nothing is offered none. The
// main agent hands x0 (30 s) and x1 (3 min) to helpers and works x2; at
// 30 s x0's helper, with nothing ready, the team not full and x1 in
// progress, may wait but not delegate.
func TestOnlyADelegatorDuplicates(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "x0", Work: 30 * sim.Second}, {Name: "x1", Work: 3 * sim.Minute}, {Name: "x2", Work: 3 * sim.Minute},
	}, nil)
	require.NoError(t, err)
	cfg := free(4)
	cfg.Handoff.Duplicates = true
	pol := orchestrated(func(o *collective.Observation, m collective.Mask) collective.Action {
		if o.Ready >= 2 {
			return collective.Delegate
		}
		if m.Has(collective.Work) {
			return collective.Work
		}
		return collective.Wait
	})
	res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	var at30 []collective.Decision
	for _, d := range res.Decisions {
		if d.Obs.Elapsed == 30 {
			at30 = append(at30, d)
		}
	}
	require.Len(t, at30, 1)
	d := at30[0]
	require.Equal(t, 1, d.Agent, "x0's helper")
	require.Zero(t, d.Obs.Ready)
	require.Positive(t, d.Obs.Free, "the team has room for a duplicate's helper")
	assert.False(t, d.Mask.Has(collective.Delegate), "it delegated nothing to duplicate")
	assert.True(t, d.Mask.Has(collective.Wait))
	assert.Zero(t, res.Duplicates)
}

// TestDuplicateWhileHoldingStaysInTheTeam: the main agent delegates q to
// a helper and p (3 min) to another, works v itself and, holding v with
// nothing ready, delegates again while the helper of q waits idle and the
// team is full. Handing v on makes w ready, so the delegation is w's, not
// a duplicate of p, and it goes to the idle helper: no agent is spawned
// past the team's three, which a helper woken for w before the delegation
// left the delegation to do.
func TestDuplicateWhileHoldingStaysInTheTeam(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "q", Work: 30 * sim.Second}, {Name: "p", Work: 3 * sim.Minute},
		{Name: "v", Work: sim.Minute}, {Name: "w", Work: sim.Minute},
	}, []task.Edge{{From: 2, To: 3}})
	require.NoError(t, err)
	cfg := free(3)
	cfg.Handoff.Duplicates = true
	pol := orchestrated(func(o *collective.Observation, m collective.Mask) collective.Action {
		switch {
		case o.Ready == 1:
			return collective.Work
		case m.Has(collective.Delegate):
			return collective.Delegate
		}
		return collective.Wait
	})
	res, at60 := runInTeam(t, g, cfg, pol)
	assert.Equal(t, collective.Observation{Agent: 0, Main: true, Elapsed: 60, Progress: 30.0 / 330, Busy: 1, Idle: 1, Unchecked: true}, at60.Obs)
	assert.Equal(t, collective.Delegate, at60.Action)
	assert.Equal(t, 2, res.Spawned, "w went to the idle helper")
	assert.Zero(t, res.Duplicates, "v handed on made w ready: nothing was duplicated")
	assert.Equal(t, 3, res.SubagentTasks)
	assert.Equal(t, 3*sim.Minute, res.Finish)
	assert.True(t, res.Acceptable)
}

// TestHeldWakesWakeAfterTheDelegation: as in
// TestDuplicateWhileHoldingStaysInTheTeam, but v has two successors and two
// helpers wait idle at 60 s (those of q and r). Handing v on makes w and x
// ready; the delegation takes w to the longest-waiting helper (q's), and
// the helper of r is then woken for x: it decides at 60 s, and the main
// agent, deciding before it, finds no helper idle. Lost wakes would leave
// r's helper asleep and idle.
func TestHeldWakesWakeAfterTheDelegation(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "q", Work: 30 * sim.Second}, {Name: "r", Work: 30 * sim.Second}, {Name: "p", Work: 3 * sim.Minute},
		{Name: "v", Work: sim.Minute}, {Name: "w", Work: sim.Minute}, {Name: "x", Work: sim.Minute},
	}, []task.Edge{{From: 3, To: 4}, {From: 3, To: 5}})
	require.NoError(t, err)
	cfg := free(4)
	cfg.Handoff.Duplicates = true
	pol := orchestrated(func(o *collective.Observation, m collective.Mask) collective.Action {
		switch {
		case o.Ready == 1 && m.Has(collective.Work):
			return collective.Work
		case m.Has(collective.Delegate):
			return collective.Delegate
		}
		return collective.Wait
	})
	res, at60 := runInTeam(t, g, cfg, pol)
	assert.Equal(t, 2, at60.Obs.Idle, "the helpers of q and r")
	assert.Zero(t, res.Duplicates, "handing v on made w ready")
	var main, helpers []collective.Decision
	for _, d := range res.Decisions {
		switch {
		case d.Obs.Elapsed != 60:
		case d.Obs.Main:
			main = append(main, d)
		default:
			helpers = append(helpers, d)
		}
	}
	require.Len(t, main, 2, "the delegation, then x")
	assert.Equal(t, 1, main[1].Obs.Ready, "x")
	assert.Zero(t, main[1].Obs.Idle, "no helper idle: r's is awake")
	require.Len(t, helpers, 1)
	assert.Equal(t, 2, helpers[0].Agent, "r's helper, woken")
	assert.Equal(t, 3, res.Spawned)
	assert.Equal(t, 3*sim.Minute, res.Finish)
}

// TestDuplicatesStayInTheTeam: delegating duplicates whenever it may,
// from the main agent and helpers alike, with the makers or the
// orchestrator checking (where a delegation may accept parts handed back,
// making work ready), no agent ever sees more agents
// live than the team has (Free below 0): a duplicate goes to an idle
// helper or a new one only where the team has room, the waiting main
// agent counting as idle but taking no delegation.
func TestDuplicatesStayInTheTeam(t *testing.T) {
	dups := 0
	for _, by := range []collective.Checker{collective.ByMaker, collective.ByOrchestrator} {
		for _, pol := range []collective.Policy{passer, uniform} {
			for _, f := range families {
				for agents := 2; agents <= 6; agents++ {
					for seed := range uint64(10) {
						cfg := collective.Defaults()
						cfg.Agents = agents
						cfg.Handoff.Duplicates = true
						cfg.Check.By = by
						res, err := collective.Run(draw(t, f, seed), cfg, pol, sim.NewStreams(seed), collective.Options{Record: true})
						require.NoError(t, err)
						for i, d := range res.Decisions {
							require.GreaterOrEqual(t, d.Obs.Free, 0, "check by %v, %s, %d agents, seed %d, decision %d", by, f.Shape, agents, seed, i)
						}
						dups += res.Duplicates
					}
				}
			}
		}
	}
	assert.Positive(t, dups)
}

// TestDelegateWhileHoldingAfterAReviewStaysInTheTeam: the orchestrator
// checks its helpers' parts (Check.By). The main agent delegates q and p,
// works v, and holds v flagged past its retries; its review of q, handed
// back by q's helper, which then waits idle, makes r ready, whose wake
// waits for the main agent's decision. With r ready and the team full it
// delegates: handing v on makes w ready, and a helper woken for w then
// would leave r's delegation no idle helper, spawning a fourth agent.
func TestDelegateWhileHoldingAfterAReviewStaysInTheTeam(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "q", Work: 30 * sim.Second}, {Name: "p", Work: 3 * sim.Minute},
		{Name: "v", Work: sim.Minute}, {Name: "r", Work: sim.Minute}, {Name: "w", Work: sim.Minute},
	}, []task.Edge{{From: 0, To: 3}, {From: 2, To: 4}})
	require.NoError(t, err)
	cfg := free(3)
	cfg.Check.By = collective.ByOrchestrator
	cfg.Check.Accuracy = 0 // every good part is flagged
	cfg.Check.Retries = 0
	pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case o.Complete && m.Has(collective.Submit):
			return collective.Submit
		case m.Has(collective.Check):
			return collective.Check
		case !o.Main && m.Has(collective.Work):
			return collective.Work
		case !o.Main:
			return collective.Wait
		case (o.Ready >= 2 || o.Elapsed > 0) && m.Has(collective.Delegate):
			return collective.Delegate
		case m.Has(collective.Work):
			return collective.Work
		}
		return collective.Wait
	})
	res, held := runInTeam(t, g, cfg, pol)
	assert.Equal(t, 1, held.Obs.Ready)
	assert.Equal(t, 1, held.Obs.Idle)
	assert.Zero(t, held.Obs.Free)
	assert.Equal(t, 2, res.Spawned, "r went to the idle helper")
}

// TestAReviewNotCheckedIsAccepted: under Check.By orchestrator a helper
// hands its part back for the main agent's review; a main agent that
// chooses anything but Check accepts what came back, and the parts after
// it become ready. Here a (1 min) goes to a helper, the main agent waits
// instead of checking it at 60 s, and b, after a, is worked from then.
func TestAReviewNotCheckedIsAccepted(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "a", Work: sim.Minute}, {Name: "b", Work: sim.Minute}}, []task.Edge{{From: 0, To: 1}})
	require.NoError(t, err)
	cfg := free(2)
	cfg.Check.By = collective.ByOrchestrator
	checked := false
	pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case !o.Main && m.Has(collective.Check):
			return collective.Check // handed back
		case o.Main && m.Has(collective.Check):
			checked = true // offered the review, and declined
		case o.Main && o.Elapsed == 0 && m.Has(collective.Delegate):
			return collective.Delegate
		case o.Complete && m.Has(collective.Submit):
			return collective.Submit
		}
		if m.Has(collective.Work) {
			return collective.Work
		}
		return collective.Wait
	})
	res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, checked, "a came back for review")
	assert.True(t, res.Acceptable)
	assert.Equal(t, 2*sim.Minute, res.Finish, "b from 60 s")
}

// TestAWaitThatCompletesTheResultDecidesAgain: the main agent delegates x0
// (30 s) and works x1 (1 min) itself; x0's helper hands x0 back for review
// at 30 s. At 60 s the main agent holds x1 with x0 in review: the result is
// not complete and it may not submit. It waits, which accepts x0 and hands
// x1 on, completing the result: it decides again and submits at 60 s.
func TestAWaitThatCompletesTheResultDecidesAgain(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "x0", Work: 30 * sim.Second}, {Name: "x1", Work: sim.Minute}}, nil)
	require.NoError(t, err)
	cfg := free(2)
	cfg.Check.By = collective.ByOrchestrator
	pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case !o.Main && m.Has(collective.Check):
			return collective.Check // handed back
		case o.Complete && m.Has(collective.Submit):
			return collective.Submit
		case o.Ready >= 2:
			return collective.Delegate
		case m.Has(collective.Work):
			return collective.Work
		}
		return collective.Wait
	})
	res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	var waited bool
	for _, d := range res.Decisions {
		if d.Obs.Main && d.Obs.Elapsed == 60 && d.Action == collective.Wait {
			waited = true
			assert.False(t, d.Obs.Complete)
			assert.False(t, d.Mask.Has(collective.Submit))
		}
	}
	require.True(t, waited, "the main agent waits at 60 s, holding x1, with x0 in review")
	assert.True(t, res.Acceptable)
	assert.Equal(t, sim.Minute, res.Finish)
}

// runInTeam runs g, checks that no decision sees more agents live than
// the team has, and returns the result and the main agent's first
// delegation at 60 s, which the tests above arrange.
func runInTeam(t *testing.T, g *task.Graph, cfg collective.Config, pol collective.Policy) (*collective.Result, *collective.Decision) {
	t.Helper()
	res, err := collective.Run(g, cfg, pol, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	var at60 *collective.Decision
	for i, d := range res.Decisions {
		assert.GreaterOrEqual(t, d.Obs.Free, 0, "decision %d: more agents than the team's", i)
		if d.Obs.Main && d.Obs.Elapsed == 60 && d.Action == collective.Delegate && at60 == nil {
			at60 = &res.Decisions[i]
		}
	}
	require.NotNil(t, at60, "the main agent delegates at 60 s")
	return res, at60
}

// orchestrated is a test policy whose helpers work while they can and
// wait otherwise, and whose main agent submits a complete result and
// otherwise does what main says.
func orchestrated(main func(*collective.Observation, collective.Mask) collective.Action) collective.Policy {
	return collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case !o.Main && m.Has(collective.Work):
			return collective.Work
		case !o.Main:
			return collective.Wait
		case o.Complete && m.Has(collective.Submit):
			return collective.Submit
		}
		return main(o, m)
	})
}
