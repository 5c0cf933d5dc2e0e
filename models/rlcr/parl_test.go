package rlcr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// TestPARLTermsAsDefined checks r_parallel and r_finish against Kimi
// K2.5's definitions on hand-made episodes: r_parallel counts subagents
// instantiated (not peak busy agents) over agents − 1, capped at 1;
// r_finish is subagent subtasks completed over assigned, 0 with none.
func TestPARLTermsAsDefined(t *testing.T) {
	c := collective.Defaults()
	c.Agents, c.TimeLimit = 5, sim.Hour
	parallel := Reward{Task: 1, Penalty: PenaltyNone, Parallel: 1, Anneal: 10}
	finish := Reward{Task: 1, Penalty: PenaltyNone, Finish: 1, Anneal: 10}
	require.NoError(t, parallel.Validate(&c))
	require.NoError(t, finish.Validate(&c))
	score := func(r Reward, m collective.Metrics) float64 {
		out := []float64{0}
		r.Group(&c, 0, []collective.Metrics{m}, out)
		return out[0]
	}
	for _, tc := range []struct {
		name               string
		m                  collective.Metrics
		rParallel, rFinish float64
	}{
		{"alone", collective.Metrics{ParallelismPeak: 1}, 0, 0},
		{"busy peak without spawning", collective.Metrics{ParallelismPeak: 5}, 0, 0},
		{"three of four helpers", collective.Metrics{Spawned: 3, SubagentTasks: 6, SubagentDone: 6}, 0.75, 1},
		{"more spawns than slots", collective.Metrics{Spawned: 9, SubagentTasks: 9, SubagentDone: 3}, 1, 1.0 / 3},
		{"spawned, nothing finished", collective.Metrics{Spawned: 2, SubagentTasks: 4}, 0.5, 0},
	} {
		assert.InDelta(t, tc.rParallel, score(parallel, tc.m), 1e-12, "%s: r_parallel", tc.name)
		assert.InDelta(t, tc.rFinish, score(finish, tc.m), 1e-12, "%s: r_finish", tc.name)
	}
}
