package sweep

import (
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// referenced is a run sweep of organizations and team sizes with two
// variants and two seeds, each trial beside the sequential agent alone.
const referenced = `name: referenced
seed: 4
episodes: 4
task:
  shape: fork-join
  width: 3
  stages: 1
  work: exp(5m)
  difficulty: 0.3
collective:
  agents: 3
  time_limit: 2h
policy:
  organization: split
variants:
  - name: easy
  - name: hard
    set: {task.difficulty: 0.6}
sweep:
  command: run
  seeds: 2
  grid:
    policy.organization: [independent, sequential, team]
    collective.agents: [3, 1]
  reference: {policy.organization: sequential, collective.agents: 1}
  metrics: [success_rate, turns_mean, message_density, redundancy_mean, error_amplification, coordination_overhead, efficiency, success_gain]
`

// TestReferences: every trial's reference has the reference's values,
// the trial's other values, variant, seed and sample; a reference trial
// is its own.
func TestReferences(t *testing.T) {
	p, _, err := NewPlan(load(t, referenced), 4, "")
	require.NoError(t, err)
	refs, err := References(p)
	require.NoError(t, err)
	require.Len(t, refs, len(p.Trials))
	own := 0
	for i, j := range refs {
		tr, ref := p.Trials[i], p.Trials[j]
		assert.Equal(t, tr.Variant, ref.Variant, p.Describe(i))
		assert.Equal(t, tr.Seed, ref.Seed, p.Describe(i))
		assert.Equal(t, []scenarios.Param{{Path: "policy.organization", Value: "sequential"}, {Path: "collective.agents", Value: "1"}}, ref.Params, p.Describe(i))
		if i == j {
			own++
		}
	}
	assert.Equal(t, 2*2, own, "one reference per variant and seed")

	plain, _, err := NewPlan(load(t, small), 4, "")
	require.NoError(t, err)
	refs, err = References(plain)
	assert.NoError(t, err)
	assert.Nil(t, refs, "a sweep without a reference")
}

// TestReferencesErrors: a plan whose trials lack their reference, or have
// two, is an error naming the trial and the reference.
func TestReferencesErrors(t *testing.T) {
	p, _, err := NewPlan(load(t, referenced), 4, "")
	require.NoError(t, err)

	missing := *p
	missing.Trials = slices.DeleteFunc(slices.Clone(p.Trials), func(tr results.TrialInfo) bool {
		return tr.Variant == "hard" && tr.Seed == 5 && tr.Params[0].Value == "sequential" && tr.Params[1].Value == "1"
	})
	_, err = References(&missing)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no reference trial: the sweep has no trial with policy.organization=sequential, collective.agents=1")
	assert.Contains(t, err.Error(), "variant hard, seed 5")

	ambiguous := *p
	ambiguous.Trials = slices.Clone(p.Trials)
	twin := ambiguous.Trials[6] // variant easy, sequential, 1 agent, seed 4: a reference
	twin.ID = "twin"
	ambiguous.Trials = append(ambiguous.Trials, twin)
	_, err = References(&ambiguous)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sweep reference policy.organization=sequential, collective.agents=1 is ambiguous")

	elsewhere := *p
	elsewhere.Reference = []scenarios.Param{{Path: "task.coupling", Value: "0"}}
	_, err = References(&elsewhere)
	assert.ErrorContains(t, err, "has no reference trial", "a reference off the axes matches no trial")

	noRef := *p
	noRef.Reference = nil
	_, _, err = WithRelative(&noRef, nil)
	assert.ErrorContains(t, err, "the relative metrics error_amplification, coordination_overhead, efficiency, success_gain need a reference")
}

// TestWithRelative computes the relative metrics of records made by hand:
// the reference succeeds in 0.6 of its episodes in 10 turns, the trial in
// 0.2 in 40.
func TestWithRelative(t *testing.T) {
	p, _, err := NewPlan(load(t, referenced), 4, "")
	require.NoError(t, err)
	refs, err := References(p)
	require.NoError(t, err)
	i := 0 // variant easy, split, 3 agents, seed 4
	require.NotEqual(t, i, refs[i])
	r := newRecord(p, i, map[string]float64{"success_rate": 0.2, "turns_mean": 40})
	ref := newRecord(p, refs[i], map[string]float64{"success_rate": 0.6, "turns_mean": 10})
	recs := map[string]*Record{r.ID: r, ref.ID: ref}

	out, got, err := WithRelative(p, recs)
	require.NoError(t, err)
	assert.Equal(t, []string{"success_rate", "turns_mean", "message_density", "redundancy_mean",
		"error_amplification", "coordination_overhead", "efficiency", "success_gain"}, out.Metrics, "the relative metrics follow the recorded ones")
	assert.Empty(t, out.Relative)
	assert.Equal(t, p.Hash, out.Hash)
	m := got[r.ID].Metrics
	assert.InDelta(t, 2, float64(m["error_amplification"]), 1e-12, "0.8 failing over 0.4")
	assert.InDelta(t, 3, float64(m["coordination_overhead"]), 1e-12, "30 turns more over 10")
	assert.InDelta(t, 0.05, float64(m["efficiency"]), 1e-12, "0.2 over 4 times the turns")
	assert.InDelta(t, -2.0/3, float64(m["success_gain"]), 1e-12)
	m = got[ref.ID].Metrics
	assert.Equal(t, Value(1), m["error_amplification"], "the reference against itself")
	assert.Equal(t, Value(0), m["coordination_overhead"])
	assert.Equal(t, Value(0.6), m["efficiency"])
	assert.Equal(t, Value(0), m["success_gain"])
	assert.Len(t, r.Metrics, len(p.Metrics), "the records read are left as they are")

	// Without its reference's record (a shard's table), a trial's relative
	// metrics are NaN.
	_, got, err = WithRelative(p, map[string]*Record{r.ID: r})
	require.NoError(t, err)
	assert.True(t, math.IsNaN(float64(got[r.ID].Metrics["error_amplification"])))

	plain, _, err := NewPlan(load(t, small), 4, "")
	require.NoError(t, err)
	same, sameRecs, err := WithRelative(plain, recs)
	require.NoError(t, err)
	assert.Same(t, plain, same, "a sweep without relative metrics is written as before")
	assert.Equal(t, recs, sameRecs)
}

// TestReferencedTable runs the referenced sweep and compares its
// trials.csv with the golden file (go test -update rewrites it): the axes
// and the columns the scaling experiment reads, the relative metrics last.
func TestReferencedTable(t *testing.T) {
	p, recs := sweptRecords(t, load(t, referenced))
	out, withRel, err := WithRelative(p, recs)
	require.NoError(t, err)
	got := Table(out, withRel)
	header := strings.SplitN(string(got), "\n", 2)[0]
	assert.Equal(t, "trial,variant,seed,policy.organization,collective.agents,success_rate,turns_mean,message_density,redundancy_mean,"+
		"error_amplification,coordination_overhead,efficiency,success_gain", header)
	golden := filepath.Join("testdata", "referenced_trials.csv")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// TestRelativeMetricsCovered: every relative metric a scenario may name
// has its formula here, and every formula a name.
func TestRelativeMetricsCovered(t *testing.T) {
	assert.ElementsMatch(t, scenarios.RelativeMetrics(), slices.Collect(maps.Keys(relativeValue)))
}
