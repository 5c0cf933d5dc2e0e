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
		{task.KindSequential, "collective.tools.pool: 4 sandboxes, but the task makes no tool calls"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			src := "task: {kind: " + tc.kind + "}\ncollective: {agents: 4, tools: {pool: 4}}\npolicy: {organization: split}\n"
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
