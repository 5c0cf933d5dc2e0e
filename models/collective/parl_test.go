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

// orchestrator delegates while more than one subtask is ready, works on
// the last one itself unless told to delegate everything, submits a
// complete result and otherwise waits; helpers work or wait.
func orchestrator(delegateAll bool) collective.Policy {
	return collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, _ float64) collective.Action {
		switch {
		case o.Main && m.Has(collective.Submit) && o.Complete:
			return collective.Submit
		case o.Main && m.Has(collective.Delegate) && (o.Ready > 1 || delegateAll && o.Progress > 0):
			return collective.Delegate
		case m.Has(collective.Work):
			return collective.Work
		}
		return collective.Wait
	})
}

// stageGraph is a plan, two parts and an assembly, each a minute of work:
// two model calls of 30 s.
func stageGraph(t *testing.T) *task.Graph {
	f := task.Family{Shape: "fork-join", Width: 2, Stages: 1, Work: sim.Const(60)}
	g, err := f.Draw(nil)
	require.NoError(t, err)
	require.Equal(t, 4, g.Len())
	return g
}

// TestCriticalStepsByStage works PARL's critical steps, Σ over stages of
// (orchestrator's steps + longest subagent's), out by hand. The main agent
// plans (1 turn + 2 calls = 3); then waits, delegates both parts (3
// turns, 6), and the later helper's 2 calls end the stage at 8 (the main
// agent's own turn while the helpers work is off the chain); a helper
// assembles (2 calls, 10); the main agent's submitting turn makes 11.
func TestCriticalStepsByStage(t *testing.T) {
	cfg := free(3)
	cfg.Spawn = 10 * sim.Second
	res, err := collective.Run(stageGraph(t), cfg, orchestrator(true), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 8, res.ModelCalls)
	assert.Equal(t, 11, res.CriticalSteps)
	assert.Equal(t, 2, res.SubagentTasks)
	assert.Equal(t, 2, res.SubagentDone)
	assert.Equal(t, 1.0, res.SpawnFinishRate())
}

// TestCriticalStepsOfOneAgent: with one agent everything is on one chain,
// so the critical steps are every model call and every decision turn.
func TestCriticalStepsOfOneAgent(t *testing.T) {
	for _, f := range families {
		for seed := range uint64(5) {
			g := draw(t, f, seed)
			res, err := collective.Run(g, collective.Defaults(), org(t, "sequential"), sim.NewStreams(seed), collective.Options{Record: true})
			require.NoError(t, err)
			assert.Equal(t, res.ModelCalls+len(res.Decisions), res.CriticalSteps, "%s seed %d", f.Shape, seed)
			assert.Zero(t, res.SubagentTasks)
			assert.True(t, math.IsNaN(res.SpawnFinishRate()), "nothing assigned: the rate is undefined")
		}
	}
}

// TestSpawnFinishRate counts subtasks assigned to subagents and those
// they completed: every delegation and attempt is assigned, and a time
// limit that stops the helpers leaves theirs unfinished.
func TestSpawnFinishRate(t *testing.T) {
	cfg := free(3)
	cfg.Spawn = 10 * sim.Second
	cfg.TimeLimit = 100 * sim.Second // the helpers would finish at 130 s
	res, err := collective.Run(stageGraph(t), cfg, orchestrator(true), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.TimedOut)
	assert.Equal(t, 2, res.SubagentTasks)
	assert.Zero(t, res.SubagentDone)
	assert.Zero(t, res.SpawnFinishRate())

	for _, f := range families[1:] { // a chain never has two subtasks to split
		for _, name := range []string{"split", "independent"} {
			for seed := range uint64(5) {
				res, err := collective.Run(draw(t, f, seed), collective.Defaults(), org(t, name), sim.NewStreams(seed), collective.Options{})
				require.NoError(t, err)
				assigned := res.Actions[collective.Delegate] + res.Attempts
				assert.Equal(t, assigned, res.SubagentTasks, "%s %s seed %d", f.Shape, name, seed)
				assert.Positive(t, res.SubagentTasks, "%s %s seed %d", f.Shape, name, seed)
				assert.Equal(t, res.SubagentTasks, res.SubagentDone, "%s %s seed %d: no time limit, every subagent finishes", f.Shape, name, seed)
			}
		}
	}
}
