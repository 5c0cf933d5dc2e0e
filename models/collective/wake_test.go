package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// boss delegates whenever it may, submits a complete result, and
// otherwise works or waits; helpers work or wait.
var boss = collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
	switch {
	case o.Main && m.Has(collective.Delegate):
		return collective.Delegate
	case o.Main && m.Has(collective.Submit) && o.Complete:
		return collective.Submit
	case m.Has(collective.Work):
		return collective.Work
	}
	return collective.Wait
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
