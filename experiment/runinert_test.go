package experiment_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/scenarios"
)

// inertBase is a fork-join that every collective setting can act on:
// parts to delegate, check, share findings about and, with a coupling (a
// value of its own, inert where no parts are reconciled), reconcile.
const inertBase = `name: inert
seed: 5
episodes: 24
task:
  shape: fork-join
  width: 6
  stages: 1
  work: exp(6m)
  difficulty: 0.3
collective:
  agents: 6
  time_limit: 3h
  calls: {span: 5s}
`

// TestRunInertChangesNothing checks the promise behind RunInert: a value
// that simulate run refuses as never acting under the variant's fixed
// organization leaves every episode as it was. Each setting the rules
// judge is set in turn under every organization; where the scenario's
// RunInert names it, the evaluation must be the same as without it, to
// the bit.
func TestRunInertChangesNothing(t *testing.T) {
	values := []string{
		"collective.comm.topology=broadcast", "collective.comm.topology=blackboard",
		"collective.comm.write=1s", "collective.comm.read=10ms", "collective.comm.latency=30s",
		"collective.comm.bandwidth=1", "collective.comm.message_tokens=5000",
		"collective.select.cost=20m", "collective.select.accuracy=0.1", "collective.select.merge=synthesis",
		"collective.spawn=10m", "collective.check.by=orchestrator",
		"collective.check.cost=3", "collective.check.accuracy=0.1", "collective.check.retries=0",
		"collective.reconcile.mode=rework,task.coupling=0.7", "task.coupling=0.7",
		"collective.handoff.miss=0.5,collective.handoff.findings=2",
	}
	orgs := slices.Sorted(func(yield func(string) bool) {
		for name := range policy.Organizations() {
			if !yield(name) {
				return
			}
		}
	})
	refused := 0
	for _, org := range orgs {
		base, err := scenarios.Parse([]byte(inertBase), "inert.yaml", []string{"policy.organization=" + org})
		require.NoError(t, err)
		require.NoError(t, base.RunInert(), org)
		want := evaluate(t, base, experiment.EvalOptions{})
		for _, v := range values {
			path, _, _ := strings.Cut(v, "=")
			sc, err := scenarios.Parse([]byte(inertBase), "inert.yaml", append([]string{"policy.organization=" + org}, strings.Split(v, ",")...))
			require.NoError(t, err, "%s %s", org, v)
			if err := sc.RunInert(); err == nil || !strings.Contains(err.Error(), path) {
				continue
			}
			refused++
			got := evaluate(t, sc, experiment.EvalOptions{})
			require.Len(t, got, len(want))
			for i := range got {
				assert.Equal(t, want[i].Metrics, got[i].Metrics, "%s %s: episode %d", org, v, i)
				assert.Equal(t, want[i].Reward, got[i].Reward, "%s %s: episode %d", org, v, i)
			}
		}
	}
	// The rules refuse most settings under sequential alone; a count far
	// below would mean the loop checked little.
	assert.Greater(t, refused, 40, "settings refused and checked")
}
