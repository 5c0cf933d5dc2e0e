package scenarios_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
)

// TestSweepTaskKind: task.kind is a sweep axis; each trial draws graphs
// of its kind, with the base's explicit fields on top of the preset.
func TestSweepTaskKind(t *testing.T) {
	const src = `name: k
task:
  kind: decomposable
  difficulty: 0.2
collective: {agents: 4}
policy: {organization: split}
sweep:
  command: run
  grid:
    task.kind: [decomposable, navigation, sequential, tool-heavy]
`
	sc, err := scenarios.Parse([]byte(src), "k.yaml", nil)
	require.NoError(t, err)
	trials, err := sc.Trials(1, "")
	require.NoError(t, err)
	require.Len(t, trials, len(task.Kinds))
	for i, tr := range trials {
		assert.Equal(t, task.Kinds[i], tr.Params[0].Value)
		g, err := tr.Variant.Spec.Task.Draw(rand.New(rand.NewPCG(1, 2)))
		require.NoError(t, err)
		assert.Equal(t, task.Kinds[i], g.Kind())
		if task.Kinds[i] != task.KindNavigation { // its selection node has difficulty 0
			assert.Equal(t, 0.2, g.Nodes[0].Difficulty, "the base's difficulty overrides every preset's")
		}
	}
}

// TestKindErrorsInSweeps: a sweep that takes the kind where an explicit
// field cannot go is an error naming the field and the kind.
func TestKindErrorsInSweeps(t *testing.T) {
	const src = `name: k
task:
  kind: decomposable
  width: 4
policy: {organization: split}
sweep:
  command: run
  grid:
    task.kind: [decomposable, sequential]
`
	_, err := scenarios.Parse([]byte(src), "k.yaml", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "task.width")
	assert.Contains(t, err.Error(), `not used by kind "sequential" (its shape "chain" uses: length)`)
}

// TestKindToolPool: a tool pool needs a task that calls tools, and the
// tool-heavy kind's preset does; the sequential kind's does not.
func TestKindToolPool(t *testing.T) {
	for _, tc := range []struct {
		kind, err string
	}{
		{task.KindToolHeavy, ""},
		{task.KindSequential, "collective.tools.pool: 2 sandboxes, but the task makes no tool calls"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			src := "task: {kind: " + tc.kind + "}\ncollective: {agents: 4, tools: {pool: 2}}\npolicy: {organization: split}\n"
			_, err := scenarios.Parse([]byte(src), "k.yaml", nil)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// TestKindZeroField: a field given as 0 under a kind whose preset gives
// it another value would silently keep the preset's: an error, wherever
// the 0 is given; a field left out, or a 0 the preset has too, is not.
func TestKindZeroField(t *testing.T) {
	const base = "name: k\ncollective: {agents: 2}\npolicy: {organization: split}\n"
	for _, tc := range []struct {
		name, src string
		sets      []string
		want      string // "" for no error
	}{
		{"file", "task: {kind: decomposable, difficulty: 0}\n", nil, `k.yaml:4:28: task.difficulty: 0 cannot be told from leaving the field out, so kind "decomposable" would keep its 0.05`},
		{"false", "task: {kind: tool-heavy, single_sink: false}\n", nil, `task.single_sink: false cannot be told from leaving the field out, so kind "tool-heavy" would keep its true`},
		{"flag", "task: {kind: navigation}\n", []string{"task.loop=0"}, `task.loop: 0 cannot be told from leaving the field out, so kind "navigation" would keep its 4`},
		{"variant map", "task: {kind: sequential}\nvariants: [{name: a}, {name: b, set: {task: {output_tokens: 0}}}]\n", nil, `task.output_tokens: 0 cannot be told from leaving the field out, so kind "sequential" would keep its 3000`},
		{"component", "task: {shape: mixture, components: [{weight: 1, kind: tool-heavy, tool_calls: 0, tool_latency: 0}]}\n", nil, `task.components[0].tool_calls: 0 cannot be told from leaving the field out`},
		{"sweep axis", "task: {kind: decomposable}\nsweep: {command: run, grid: {task.difficulty: [0.1, 0]}}\n", nil, `task.difficulty=0: task.difficulty: 0 cannot be told from leaving the field out`},
		{"sweep kind", "task: {kind: decomposable, loop: 0}\nsweep: {command: run, grid: {task.kind: [decomposable, navigation]}}\n", nil, `task.kind=navigation: task.loop: 0 cannot be told from leaving the field out, so kind "navigation" would keep its 4`},
		// Without axes the trial is named by its variant alone.
		{"sweep without axes", "task: {kind: decomposable, difficulty: 0}\nsweep: {command: run}\n", nil, `trial variant default: task.difficulty: 0 cannot be told from leaving the field out`},
		{"same as preset", "task: {kind: decomposable, coupling: 0}\n", nil, ""},
		{"no kind", "task: {shape: chain, length: 2, work: 1m, difficulty: 0}\n", nil, ""},
		{"overridden later", "task: {kind: decomposable, difficulty: 0}\nvariants: [{name: a, set: {task.difficulty: 0.2}}]\n", nil, ""},
		{"swept over", "task: {kind: decomposable, difficulty: 0}\nsweep: {command: run, grid: {task.difficulty: [0.1, 0.2]}}\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(base+tc.src), "k.yaml", tc.sets)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
