package rlcr

import (
	"context"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// TestKeptMemoryChangesNothing trains each of two problems (the tiny one,
// and one behind a hosted API) on fresh memory, then again on the memory
// that each of several other trainings used (more and fewer agents, a
// wider task, a shared replica, a hosted API with other limits, tool
// calls, restricted actions, a training that failed midway), and checks
// that every iteration and the policy are the same to the bit. The memory
// is handed over by hand, not through the pool, which may drop it.
func TestKeptMemoryChangesNothing(t *testing.T) {
	cfg := tinyConfig()
	withAPI := func(p *Problem) {
		p.Collective.API = serving.API{RPM: 30, Concurrency: 2, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	}
	targets := map[string]func(*Problem){"tiny": func(*Problem) {}, "api": withAPI}
	others := map[string]func(*Problem, *Config){
		"more agents": func(p *Problem, _ *Config) { p.Collective.Agents = 9 },
		"one agent":   func(p *Problem, _ *Config) { p.Collective.Agents = 1 },
		"wider task":  func(p *Problem, _ *Config) { p.Task.Width = 11 },
		"replica": func(p *Problem, _ *Config) {
			p.Collective.Serving.Replicas, p.Collective.Serving.MaxBatch = 1, 2
		},
		"api": func(p *Problem, _ *Config) {
			p.Collective.API = serving.API{RPM: 12, TPM: 200000, Concurrency: 1, TTFT: sim.Exponential(2), OutputRate: 40}
		},
		"tools": func(p *Problem, _ *Config) {
			p.Task.ToolCalls, p.Task.ToolLatency, p.Collective.Tools.Pool = sim.Poisson(3), sim.Exponential(20), 1
		},
		"actions": func(_ *Problem, c *Config) { c.Actions = []string{"work", "delegate"} },
		"failed":  func(p *Problem, _ *Config) { p.MaxEvents = 60 }, // stops in its episodes' midst
	}
	run := func(prob Problem, cfg Config, mem *memory) ([]Iteration, []float64, error) {
		var rows []Iteration
		tr := training{Run: Run{Problem: prob, Config: cfg, Seed: 7, Workers: 1, Emit: func(it Iteration) error {
			rows = append(rows, it)
			return nil
		}}, memFor: func(B, G int) *memory {
			require.Len(t, mem.recs, B*G)
			return mem
		}}
		pol, err := tr.run(context.Background())
		if err != nil {
			return nil, nil, err
		}
		return rows, pol.Params(), nil
	}
	for tname, target := range targets {
		prob := tinyProblem()
		target(&prob)
		wantRows, wantParams, err := run(prob, cfg, newMemory(cfg.Batch, cfg.Group))
		require.NoError(t, err)
		for name, edit := range others {
			kept := newMemory(cfg.Batch, cfg.Group)
			otherProb, otherCfg := tinyProblem(), cfg
			edit(&otherProb, &otherCfg)
			_, _, err := run(otherProb, otherCfg, kept)
			require.Equal(t, name == "failed", err != nil, "%s: %v", name, err)
			require.NotZero(t, cap(kept.recs[0].buf), "%s: the memory was not used", name)
			rows, params, err := run(prob, cfg, kept)
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprint(wantRows), fmt.Sprint(rows), "%s after %s", tname, name) // Sprint: NaN value_ev equals itself
			assert.Equal(t, wantParams, params, "%s after %s", tname, name)
		}
	}
}

// TestMemoryPool: a released memory is handed to the next training of its
// size, and only to one of its size, without the policy of the training
// that released it; Train releases its memory.
func TestMemoryPool(t *testing.T) {
	m := getMemory(2, 3)
	require.Len(t, m.recs, 6)
	require.Len(t, m.graphs, 2)
	m.recs[0].pol, m.recs[0].soft = &m.recs[1], nil
	m.graphs[1], m.results[5] = new(task.Graph), &collective.Result{}
	m.release()
	assert.Nil(t, m.recs[0].pol, "the policy is dropped")
	assert.Equal(t, 0, countNonNil(m.graphs)+countNonNil(m.results), "the graphs and results are dropped")

	other := getMemory(3, 2) // the same rollouts, other shapes
	require.Len(t, other.recs, 6)
	require.Len(t, other.graphs, 3)
	assert.NotSame(t, m, other)

	// The pool may drop what it is given (a collection, the race
	// detector), and a goroutine that moved to another P may miss it:
	// reuse is asked for until it happens.
	reused := false
	for range 100 {
		m.release()
		if getMemory(2, 3) == m {
			reused = true
			break
		}
	}
	assert.True(t, reused, "a released memory of the size asked for is reused")

	// A training gets its memory from the pool and releases it there: a
	// memory that decided (no other code here makes one) comes back.
	cfg := tinyConfig()
	released := false
	for range 20 {
		train(t, tinyProblem(), cfg, 1)
		if m := getMemory(cfg.Batch, cfg.Group); cap(m.recs[0].buf) > 0 {
			released = true
			break
		}
	}
	assert.True(t, released, "Train releases its memory to the pool")
}

func countNonNil[T any](s []*T) int {
	n := 0
	for _, p := range s {
		if p != nil {
			n++
		}
	}
	return n
}

// TestRecordedBytesCoversTheDecisions: on large fork-join graphs with as
// many agents as parts, under a linear policy at its start, a rollout records at
// least one decision and at most DecisionsPerSubtask per subtask, so that
// RecordedBytes neither misses the decisions a wide task records nor
// counts several times as many.
func TestRecordedBytesCoversTheDecisions(t *testing.T) {
	widths := []int{1000, 3000}
	if race.Enabled {
		widths = widths[:1] // the race detector looks at the same code on the narrower task
	}
	for _, width := range widths {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			prob := tinyProblem()
			prob.Task.Width, prob.Collective.Agents = width, width
			cfg := tinyConfig()
			cfg.Iterations, cfg.Batch, cfg.Group = 1, 2, 2
			rows, _ := train(t, prob, cfg, 1)
			nodes := prob.Task.Nodes()
			perRollout := float64(rows[0].Decisions) / float64(rows[0].Episodes)
			assert.LessOrEqual(t, perRollout, float64(DecisionsPerSubtask*nodes), "decisions per rollout")
			assert.GreaterOrEqual(t, perRollout, float64(nodes), "decisions per rollout")
			assert.InDelta(t, float64(nodes)*RecordedBytes(1), RecordedBytes(nodes), 1e-6, "linear in the subtasks")
			// Each decision kept is a sample in its recorder and a
			// decision in its result: the bytes cover those of the
			// decisions recorded, and are not several times as many.
			perDecision := float64(unsafe.Sizeof(sample{}) + unsafe.Sizeof(collective.Decision{}))
			assert.GreaterOrEqual(t, RecordedBytes(nodes), perRollout*perDecision, "bytes per rollout")
			assert.LessOrEqual(t, RecordedBytes(nodes), DecisionsPerSubtask*perRollout*perDecision, "bytes per rollout")
		})
	}
}
