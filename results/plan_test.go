package results_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
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
	bare := &results.Plan{Format: results.PlanFormat}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"format", other.Marshal(), `format "swarmsim-sweep/0", want "swarmsim-sweep/1"`},
		{"edited", edited.Marshal(), "damaged: its content hashes to"},
		{"not JSON", []byte("{"), "unexpected end of JSON input"},
		// Found by FuzzParsePlan (testdata/fuzz): the short form of the hash
		// split µ, and the message was not valid UTF-8.
		{"hash not hex", []byte(`{"format": "swarmsim-sweep/1", "hash": "sha256:0123456789aµ"}`),
			"damaged: its content hashes to " + rundir.ShortHash(bare.ContentHash(), "…") + ", not to its hash sha256:0123456789a…"},
		// Without a hash the message ended in "not to its hash ".
		{"no hash", []byte(`{"format": "swarmsim-sweep/1"}`), "damaged: it has no hash (its content hashes to " + rundir.ShortHash(bare.ContentHash(), "…") + ")"},
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

// sweepDir writes a complete sweep directory of variant v over the grid
// axes task.coupling (the points) and task.size (4), none when points is
// nil: one trial per seed and point whose reward_mean and latency_mean
// are value(point, seed) as fmt.Sprint writes it, and a trial record for
// the first records trials (all when negative).
func sweepDir(t *testing.T, points []string, seeds int, value func(p, s int) any, records int) *rundir.Run {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sweep")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	p := &results.Plan{Format: results.PlanFormat, Scenario: "s", Seed: 1, Seeds: seeds, Variants: []string{"v"}, Metrics: []string{"reward_mean", "latency_mean"}}
	header := []string{"trial", "variant", "seed"}
	if points != nil {
		p.Grid = []results.Axis{{Path: "task.coupling", Values: points}, {Path: "task.size", Values: []string{"4"}}}
		header = append(header, "task.coupling", "task.size")
	} else {
		points = []string{""}
	}
	header = append(header, "reward_mean", "latency_mean")
	var rows [][]string
	for i, pt := range points {
		for s := range seeds {
			id := fmt.Sprintf("t%d-%d", i, s)
			row := []string{id, "v", strconv.Itoa(s + 1)}
			if p.Grid != nil {
				row = append(row, pt, "4")
			}
			rows = append(rows, append(row, fmt.Sprint(value(i, s)), fmt.Sprint(value(i, s))))
			if records < 0 || len(rows) <= records {
				require.NoError(t, d.Write(results.TrialsDir+"/"+id+".json", []byte("{}")))
			}
		}
	}
	p.Hash = p.ContentHash()
	require.NoError(t, d.Write(results.PlanFile, p.Marshal()))
	require.NoError(t, d.Write("trials.csv", rundir.CSV(header, rows)))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindSweep, Scenario: "s"}))
	r, err := rundir.Open(path)
	require.NoError(t, err)
	return r
}

// TestCompareSweeps: sweeps compare point by point over their seeds,
// each point named by its variant and parameters; a point only one side
// has is left out.
func TestCompareSweeps(t *testing.T) {
	a := sweepDir(t, []string{"0", "1", "2"}, 3, func(p, s int) any { return float64(10*p + s) }, -1)
	b := sweepDir(t, []string{"0", "1"}, 3, func(p, s int) any { return float64(10*p+s) + 2 }, -1)
	rows, err := results.Compare(a, b)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	for i, c := range rows {
		assert.Equal(t, fmt.Sprintf("v @ task.coupling=%d task.size=4", i/2), c.Variant)
		assert.Equal(t, []string{"reward_mean", "latency_mean"}[i%2], c.Metric)
		assert.Equal(t, 3, c.NA)
		assert.InDelta(t, 2, c.B-c.A, 1e-12, "B is A plus 2 on every seed")
		assert.InDelta(t, 2, c.Diff.Value, 1e-12)
	}
	assert.Less(t, rows[0].A, rows[2].A, "each point's own seeds")
	onlyA, onlyB, err := results.Unmatched(a, b)
	require.NoError(t, err)
	assert.Equal(t, []string{"v @ task.coupling=2 task.size=4"}, onlyA, "the point Compare left out")
	assert.Empty(t, onlyB)
	onlyA, onlyB, err = results.Unmatched(b, sweepDir(t, []string{"1", "5"}, 1, func(p, s int) any { return 1.0 }, -1))
	require.NoError(t, err)
	assert.Equal(t, []string{"v @ task.coupling=0 task.size=4"}, onlyA)
	assert.Equal(t, []string{"v @ task.coupling=5 task.size=4"}, onlyB)

	flat := func(p, s int) any { return float64(s) }
	rows, err = results.Compare(sweepDir(t, nil, 2, flat, -1), sweepDir(t, nil, 2, flat, -1))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, "v", rows[0].Variant, "no grid: the variant alone")
}

// TestCompareSweepsRefuses: a table without the sweep's plan, with more
// rows than trial records, or with a value that is not a number is an
// error naming the file.
func TestCompareSweepsRefuses(t *testing.T) {
	good := sweepDir(t, []string{"0"}, 2, func(p, s int) any { return 1 }, -1)
	shard := sweepDir(t, []string{"0"}, 2, func(p, s int) any { return 1 }, -1)
	shard.Manifest.Files = slices.DeleteFunc(shard.Manifest.Files, func(f string) bool { return f == results.PlanFile })
	cases := []struct {
		name string
		r    *rundir.Run
		want string
	}{
		{"a shard", shard, "is one shard's table, without the sweep's sweep.json"},
		{"cut short", sweepDir(t, []string{"0"}, 2, func(p, s int) any { return 1 }, 1), "trials.csv: 2 trials, and the manifest lists 1 trial records"},
		{"not a number", sweepDir(t, []string{"0"}, 2, func(p, s int) any { return "fast" }, -1), `trials.csv:2: column reward_mean: "fast" is not a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, pair := range [][2]*rundir.Run{{c.r, good}, {good, c.r}} {
				_, err := results.Compare(pair[0], pair[1])
				assert.ErrorContains(t, err, c.want)
			}
		})
	}
}
