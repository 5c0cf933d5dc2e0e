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

// mergeUnchecked works every ready subtask and submits, never checking: parts
// are merged as they are.
var mergeUnchecked = collective.PolicyFunc(func(_ *collective.Observation, m collective.Mask, _ float64) collective.Action {
	for _, a := range []collective.Action{collective.Work, collective.Submit, collective.Wait} {
		if m.Has(a) {
			return a
		}
	}
	return m.First()
})

// TestBadPartSpoilsTheJoin: a part merged without verification spoils
// the synthesis and so the whole task (the error propagation of Kim et
// al. 2025). With three parts each acceptable with probability 0.8 and a
// plan and synthesis that are always acceptable, an episode is acceptable
// with probability 0.8³ = 0.512, not 1.
func TestBadPartSpoilsTheJoin(t *testing.T) {
	nodes := []task.Node{{Name: "plan", Work: sim.Minute}}
	var edges []task.Edge
	for i := 1; i <= 3; i++ {
		nodes = append(nodes, task.Node{Work: sim.Minute, Difficulty: 0.2})
		edges = append(edges, task.Edge{From: 0, To: task.ID(i)}, task.Edge{From: task.ID(i), To: 4})
	}
	nodes = append(nodes, task.Node{Name: "synthesis", Work: sim.Minute})
	g, err := task.New(nodes, edges)
	require.NoError(t, err)
	cfg := collective.Defaults()
	cfg.Agents = 1
	const episodes = 400
	ok := 0
	for seed := range uint64(episodes) {
		res, err := collective.Run(g, cfg, mergeUnchecked, sim.NewStreams(seed+1), collective.Options{})
		require.NoError(t, err)
		assert.Zero(t, res.Checks)
		if res.Acceptable {
			ok++
		}
	}
	// A binomial(400, 0.512) count has sd 10; 4 sd either side.
	want := math.Pow(0.8, 3) * episodes
	assert.InDelta(t, want, float64(ok), 40, "acceptable episodes of %d", episodes)
}
