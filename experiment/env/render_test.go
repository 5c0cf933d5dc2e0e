package env_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
)

// eachDecision steps e for steps steps with the first valid action of
// every active row, calling f on each pending decision before it is
// taken, with the row's rendering.
func eachDecision(t *testing.T, e *env.Env, steps int, f func(i int, p collective.Pending, text string)) {
	t.Helper()
	_, err := e.Reset(nil)
	require.NoError(t, err)
	for range steps {
		actions := make([]int32, e.NumEnvs())
		for i := range actions {
			if p, ok := e.Pending(i); ok {
				f(i, p, e.Render(i))
				actions[i] = int32(p.Mask.First())
			}
		}
		_, err = e.Step(actions)
		require.NoError(t, err)
	}
}

// TestRenderNamesTheKind checks that a reader learns the task's kind, which
// the features carry (kind_*): exp-architecture mixes the four kinds so
// that a policy must tell them apart, and a text without it would hide
// from a language model what a learned policy sees.
func TestRenderNamesTheKind(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "exp-architecture", Variant: "hybrid", NumEnvs: 8, Group: 1})
	require.NoError(t, err)
	seen := map[string]bool{}
	eachDecision(t, e, 200, func(i int, p collective.Pending, text string) {
		require.Positive(t, p.Obs.Kind, "row %d", i)
		kind := task.Kinds[p.Obs.Kind-1]
		seen[kind] = true
		assert.Contains(t, text, "\nTask: of the kind "+kind+", ", "row %d", i)
		assert.NotContains(t, text, ", .", "row %d: a kind without its description", i)
	})
	assert.Len(t, seen, len(task.Kinds), "every kind drawn: %v", seen)

	// A task drawn without a kind has no such line.
	e, err = env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 2, Group: 1})
	require.NoError(t, err)
	eachDecision(t, e, 20, func(i int, p collective.Pending, text string) {
		require.Zero(t, p.Obs.Kind)
		assert.False(t, strings.Contains(text, "\nTask:"), "row %d: %s", i, text)
	})
}

// TestObjectiveInDocs checks the objective that docs/environment.md shows.
func TestObjectiveInDocs(t *testing.T) {
	shown := fromDoc(t, "For\n`latency-pressure`'s high:\n\n```\n", "\n```")
	e, err := env.New(env.Config{Scenario: "latency-pressure", Variant: "high", NumEnvs: 1, Group: 1})
	require.NoError(t, err)
	assert.Equal(t, shown, e.Objective())
}
