package rlcr

import (
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// TestKeptMemoryChangesNothing trains one problem on fresh memory, then
// again on the memory that each of several other trainings left behind
// (more and fewer agents, a wider task, a shared replica, a hosted API,
// tool calls, restricted actions), and checks that every iteration and
// the policy are the same to the bit, and that the memory was reused.
func TestKeptMemoryChangesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector a sync.Pool drops what it is given at random")
	}
	// The pool drops what it keeps at a collection; without collections
	// the memory a training releases is the one the next one gets.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cfg := tinyConfig()
	memories.Get() // whatever earlier tests left: this training is on fresh memory
	wantRows, wantParams := train(t, tinyProblem(), cfg, 1)

	others := map[string]func(*Problem, *Config){
		"more agents": func(p *Problem, _ *Config) { p.Collective.Agents = 9 },
		"one agent":   func(p *Problem, _ *Config) { p.Collective.Agents = 1 },
		"wider task":  func(p *Problem, _ *Config) { p.Task.Width = 11 },
		"replica": func(p *Problem, _ *Config) {
			p.Collective.Serving.Replicas, p.Collective.Serving.MaxBatch = 1, 2
		},
		"api": func(p *Problem, _ *Config) {
			p.Collective.API = collective.API{RPM: 30, Concurrency: 2, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
		},
		"tools": func(p *Problem, _ *Config) {
			p.Task.ToolCalls, p.Task.ToolLatency, p.Collective.Tools.Pool = sim.Poisson(3), sim.Exponential(20), 1
		},
		"actions": func(_ *Problem, c *Config) { c.Actions = []string{"work", "delegate"} },
	}
	for name, edit := range others {
		prob, other := tinyProblem(), cfg
		edit(&prob, &other)
		train(t, prob, other, 1)
		kept, ok := memories.Get().(*memory)
		require.True(t, ok, "%s: no memory kept", name)
		memories.Put(kept)
		rows, params := train(t, tinyProblem(), cfg, 1)
		assert.Equal(t, fmt.Sprint(wantRows), fmt.Sprint(rows), "%s", name) // Sprint: NaN value_ev equals itself
		assert.Equal(t, wantParams, params, "%s", name)
		again, _ := memories.Get().(*memory)
		assert.True(t, again == kept, "%s: the training did not reuse the kept memory", name)
	}
}
