package collective

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// TestEventBoundNamesTheCause: the default bound's message gives the
// bound Run computed with its formula, and names the team size and its
// setting, the likely cause when a huge team meets a small task; a bound
// the caller set is said to be set.
func TestEventBoundNamesTheCause(t *testing.T) {
	g, err := task.Family{Shape: "fork-join", Width: 3, Stages: 1, Work: sim.Const(60)}.Draw(rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	work := PolicyFunc(func(_ *Observation, m Mask, _ float64) Action {
		for _, a := range []Action{Submit, Work, Attempt} {
			if m.Has(a) {
				return a
			}
		}
		return Wait
	})
	cfg := Defaults()
	cfg.Agents = 1_000_000
	var r Runner
	_, err = r.Run(g, cfg, work, sim.NewStreams(1), Options{})
	require.NoError(t, err)
	msg := r.ep.eventBound()
	assert.Contains(t, msg, "the episode's bound: 1005000 events = 1000 per subtask × 5 subtasks + 1000000;")
	assert.Contains(t, msg, "this team has 1000000 agents (collective.agents) for 5 subtasks")

	_, err = r.Run(g, cfg, work, sim.NewStreams(1), Options{MaxEvents: 1 << 20})
	require.NoError(t, err)
	assert.Equal(t, "the episode's bound: 1048576 events, as set", r.ep.eventBound())
}
