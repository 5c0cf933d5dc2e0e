package results_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/scenarios"
)

// plan is a sweep of one grid axis and one random axis, two trials,
// with its hash set.
func plan() *results.Plan {
	p := &results.Plan{Format: results.PlanFormat, Scenario: "s", Seed: 3, Seeds: 1, Samples: 2, Variants: []string{"v"},
		Grid:   []results.Axis{{Path: "task.coupling", Values: []string{"0", "1"}}},
		Random: []results.RandomAxis{{Path: "reward.latency", Dist: "uniform(0, 1)"}},
		Trials: []results.TrialInfo{
			{ID: "t0", Variant: "v", Seed: 3, Sample: 0, Params: []scenarios.Param{{Path: "task.coupling", Value: "0"}, {Path: "reward.latency", Value: "0.5"}}},
			{ID: "t1", Variant: "v", Seed: 3, Sample: 1, Params: []scenarios.Param{{Path: "task.coupling", Value: "1"}, {Path: "reward.latency", Value: "0.25"}}},
		}}
	p.Hash = p.ContentHash()
	return p
}

// TestPlan: a plan reads back as written; trials are found by their id
// and named by their parameters, sample, variant and seed.
func TestPlan(t *testing.T) {
	p := plan()
	back, err := results.ParsePlan(p.Marshal())
	require.NoError(t, err)
	assert.Equal(t, p, back)
	assert.Equal(t, []string{"task.coupling", "reward.latency"}, p.ParamNames())
	for i, tr := range p.Trials {
		assert.Equal(t, i, p.Index(tr.ID))
		assert.Equal(t, i, p.TrialIndex()[tr.ID])
	}
	assert.Equal(t, -1, p.Index("t9"))
	assert.Equal(t, "task.coupling=1, reward.latency=0.25, sample 1, variant v, seed 3", p.Describe(1))
	p.Random = nil
	assert.Equal(t, "task.coupling=1, reward.latency=0.25, variant v, seed 3", p.Describe(1), "no sample without random axes")
}

// TestParsePlanRefuses: another format, a plan edited after it was
// hashed, and a file that is not JSON are errors; ReadPlan names the
// file, and its error for a directory without a plan is fs.ErrNotExist.
func TestParsePlanRefuses(t *testing.T) {
	other := plan()
	other.Format = "swarmsim-sweep/0"
	other.Hash = other.ContentHash()
	edited := plan()
	edited.Seed++
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"format", other.Marshal(), `format "swarmsim-sweep/0", want "swarmsim-sweep/1"`},
		{"edited", edited.Marshal(), "damaged: its content hashes to"},
		{"not JSON", []byte("{"), "unexpected end of JSON input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := results.ParsePlan(c.data)
			assert.ErrorContains(t, err, c.want)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, results.PlanFile), c.data, 0o644))
			_, err = results.ReadPlan(dir)
			assert.ErrorContains(t, err, filepath.Join(dir, results.PlanFile)+": "+c.want)
		})
	}
	_, err := results.ReadPlan(t.TempDir())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	p, err := results.ReadPlan(writePlan(t, plan()))
	require.NoError(t, err)
	assert.Equal(t, plan(), p)
}

// writePlan writes p to a new directory's sweep.json and returns the
// directory.
func writePlan(t *testing.T, p *results.Plan) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, results.PlanFile), p.Marshal(), 0o644))
	return dir
}
