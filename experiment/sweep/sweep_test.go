package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/results"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
	"github.com/swarmsim/swarmsim/stats"
)

// small is a sweep of 2 × 2 points and 2 seeds with short trainings.
const small = `name: small
seed: 4
episodes: 3
task:
  shape: fork-join
  width: 3
  stages: 1
  work: exp(5m)
collective:
  agents: 3
  time_limit: 2h
policy:
  organization: split
reward:
  penalty: linear
  latency: 0.5 # the grids that leave reward.latency weigh the penalty too
train:
  iterations: 5
  batch: 2
  group: 2
sweep:
  command: train
  seeds: 2
  grid:
    reward.latency: [0, 1]
    task.coupling: [0, 0.9]
  metrics: [reward_mean, parallelism_mean, prob_share]
`

func load(t *testing.T, text string, sets ...string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse([]byte(text), "small.yaml", sets)
	require.NoError(t, err)
	return sc
}

func TestShardOwns(t *testing.T) {
	for n := 1; n <= 5; n++ {
		owners := make([]int, 23)
		for i := range n {
			s := Shard{i, n}
			for j := range owners {
				if s.Owns(j) {
					owners[j]++
					assert.Equal(t, i, j%n)
				}
			}
		}
		for j, c := range owners {
			assert.Equal(t, 1, c, "trial %d of %d shards has one owner", j, n)
		}
	}
	assert.True(t, Shard{}.Owns(7), "the zero shard is the whole sweep")
	assert.False(t, All.Sharded())
}

func TestParseShard(t *testing.T) {
	s, err := parseShard("3/16")
	require.NoError(t, err)
	assert.Equal(t, Shard{3, 16}, s)
	assert.Equal(t, "3/16", s.String())
	// The bounds of the number of shards are allowed: 1 (the whole sweep)
	// and maxShards.
	for in, want := range map[string]Shard{"0/1": All, "999999/1000000": {999999, maxShards}} {
		s, err := parseShard(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, s, in)
	}
	// Every refusal quotes the value, not only the first kind: spaces or a
	// newline in it ran into the message (FuzzParseShard found "1/0"
	// refused unquoted).
	for _, tc := range []struct{ name, in, err string }{
		{"empty", "", `--shard "": want i/n`},
		{"no slash", "3", `--shard "3": want i/n`},
		{"not numbers", "a/b", `--shard "a/b": want i/n`},
		{"index past the last", "16/16", `--shard "16/16": shard 16 is out of range (0 to 15 for 16 shards)`},
		{"negative index", "-1/4", `--shard "-1/4": shard -1 is out of range (0 to 3 for 4 shards)`},
		{"no shards", "1/0", `--shard "1/0": 0 shards is out of range (1 to 1000000)`},
		{"too many shards", "0/1000001", `--shard "0/1000001": 1000001 shards is out of range (1 to 1000000)`},
		{"negative shards", "1/-2", `--shard "1/-2": -2 shards is out of range`},
		{"spaces", " 16 / 16", `--shard " 16 / 16": shard 16 is out of range`},
		{"newline", "0/\n0", `--shard "0/\n0": 0 shards is out of range`},
	} {
		_, err := parseShard(tc.in)
		assert.ErrorContains(t, err, tc.err, tc.name)
	}
}

func TestResolveShard(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(name string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	tests := []struct {
		flag   string
		shards int
		env    []string
		want   Shard
		from   string
		err    string
	}{
		{want: All},
		{flag: "1/3", want: Shard{1, 3}, from: "--shard", env: []string{EnvSlurmID, "2", EnvSlurmCount, "4"}},
		{flag: "1/3", shards: 4, err: "disagree"},
		{env: []string{EnvSlurmID, "2", EnvSlurmCount, "4"}, want: Shard{2, 4}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "7", EnvSlurmMin, "5", EnvSlurmCount, "4"}, want: Shard{2, 4}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "9", EnvSlurmMin, "1", EnvSlurmStep, "2", EnvSlurmCount, "8"}, want: Shard{4, 8}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "3"}, shards: 5, want: Shard{3, 5}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "3"}, err: "--shards N"},
		{env: []string{EnvSlurmID, "4", EnvSlurmCount, "4"}, err: "--array=0-3"},
		{env: []string{EnvSlurmID, "1", EnvSlurmCount, "4"}, shards: 3, err: "disagrees"},
		{env: []string{EnvSlurmID, "x", EnvSlurmCount, "4"}, err: "not an integer"},
		{env: []string{EnvK8sIndex, "15"}, shards: 16, want: Shard{15, 16}, from: EnvK8sIndex},
		{env: []string{EnvK8sIndex, "15"}, err: "--shards N"},
		{env: []string{EnvK8sIndex, "16"}, shards: 16, err: "out of range"},
		{env: []string{EnvSlurmID, "1", EnvSlurmCount, "2", EnvK8sIndex, "0"}, want: Shard{1, 2}, from: EnvSlurmID},
		{shards: 1, want: All},
		{shards: 4, err: "needs the shard's index"},
		// Set but blank: a script's variable that was never set.
		{env: []string{EnvSlurmID, "", EnvSlurmCount, "3"}, err: "SLURM_ARRAY_TASK_ID is set but blank"},
		{env: []string{EnvSlurmID, "1", EnvSlurmCount, " "}, err: "SLURM_ARRAY_TASK_COUNT is set but blank"},
		{env: []string{EnvK8sIndex, ""}, shards: 3, err: "JOB_COMPLETION_INDEX is set but blank"},
		{env: []string{EnvSlurmID, "0", EnvSlurmCount, "0"}, err: "0 shards is out of range (1 to"},
		// A whole array, with its maximum: 0-15, 1-16, 0-30:2.
		{env: []string{EnvSlurmID, "15", EnvSlurmMin, "0", EnvSlurmMax, "15", EnvSlurmStep, "1", EnvSlurmCount, "16"}, want: Shard{15, 16}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "1", EnvSlurmMin, "1", EnvSlurmMax, "16", EnvSlurmCount, "16"}, want: Shard{0, 16}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "30", EnvSlurmMin, "0", EnvSlurmMax, "30", EnvSlurmStep, "2", EnvSlurmCount, "16"}, want: Shard{15, 16}, from: EnvSlurmID},
		// A resubmitted subset (--array=3,7) names other shards: every
		// task fails, the first too, which would pass for shard 0 of 2.
		{env: []string{EnvSlurmID, "3", EnvSlurmMin, "3", EnvSlurmMax, "7", EnvSlurmStep, "1", EnvSlurmCount, "2"}, err: "not a whole array"},
		{env: []string{EnvSlurmID, "3", EnvSlurmMin, "3", EnvSlurmMax, "7", EnvSlurmCount, "2"}, err: "--shard i/n"},
		{env: []string{EnvSlurmID, "3", EnvSlurmMin, "3", EnvSlurmMax, "7"}, shards: 2, err: "not a whole array"},
		{env: []string{EnvSlurmID, "3", EnvSlurmMax, " "}, shards: 2, err: "SLURM_ARRAY_TASK_MAX is set but blank"},
		// A step of 3 from 2: tasks 2, 5, 8, 11 are shards 0 to 3, and
		// task 6 is none of them.
		{env: []string{EnvSlurmID, "5", EnvSlurmMin, "2", EnvSlurmStep, "3", EnvSlurmCount, "4"}, want: Shard{1, 4}, from: EnvSlurmID},
		{env: []string{EnvSlurmID, "6", EnvSlurmMin, "2", EnvSlurmStep, "3", EnvSlurmCount, "4"}, err: "is not on the array's step 3 from 2"},
		// A subset of one task (--array=7 of 3-7) is not a whole array either.
		{env: []string{EnvSlurmID, "7", EnvSlurmMin, "3", EnvSlurmMax, "7", EnvSlurmCount, "1"}, err: "not a whole array"},
	}
	for _, tc := range tests {
		s, from, err := ResolveShard(tc.flag, tc.shards, env(tc.env...))
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%+v", tc)
			continue
		}
		require.NoError(t, err, "%+v", tc)
		assert.Equal(t, tc.want, s, "%+v", tc)
		assert.Equal(t, tc.from, from, "%+v", tc)
	}
}

// TestTableWritesNoNegativeZero: trials.csv, read by people, writes a
// metric's negative zero as 0, which it equals; the record keeps the
// value exactly (TestValueJSON).
func TestTableWritesNoNegativeZero(t *testing.T) {
	p := &results.Plan{Variants: []string{"v"}, Metrics: []string{"reward_mean", "prob_share"},
		Trials: []results.TrialInfo{{ID: "t0", Variant: "v", Seed: 1}}}
	recs := map[string]*Record{"t0": {ID: "t0", Metrics: map[string]Value{
		"reward_mean": Value(math.Copysign(0, -1)), "prob_share": Value(-0.5)}}}
	assert.Equal(t, "trial,variant,seed,reward_mean,prob_share\nt0,v,1,0,-0.5\n", string(Table(p, recs)))
}

func TestValueJSON(t *testing.T) {
	for _, v := range []float64{0, 1.5, -2, 1e-300, 0.1 + 0.2, math.Inf(1), math.Inf(-1), math.NaN()} {
		b, err := json.Marshal(Value(v))
		require.NoError(t, err)
		var back Value
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		if math.IsNaN(v) {
			assert.True(t, math.IsNaN(float64(back)))
			assert.Equal(t, `"NaN"`, string(b))
		} else {
			assert.Equal(t, math.Float64bits(v), math.Float64bits(float64(back)), "%v round-trips exactly through %s", v, b)
		}
	}
	// null was refused only because it reads as a string, "", which the
	// message then named; read as a number it would have been 0.
	for _, tc := range []struct {
		name, in string
		into     any
		err      string
	}{
		{"finite value as a string", `"12"`, new(Value), `metric value "12": want a number`},
		{"null", `null`, new(Value), `metric value null: want a number, "NaN", "+Inf" or "-Inf"`},
		{"null in a record's metrics", `{"metrics": {"reward_mean": null}}`, new(Record), `metric value null: want a number`},
	} {
		assert.ErrorContains(t, json.Unmarshal([]byte(tc.in), tc.into), tc.err, tc.name)
	}
}

func TestPlan(t *testing.T) {
	sc := load(t, small)
	p, trials, err := NewPlan(sc, 4, "")
	require.NoError(t, err)
	require.Len(t, trials, 8)
	require.Len(t, p.Trials, 8)
	assert.Equal(t, []string{"reward.latency", "task.coupling"}, p.ParamNames())
	assert.Equal(t, "reward.latency=1, task.coupling=0.9, variant default, seed 5", p.Describe(7))

	again, _, err := NewPlan(load(t, small), 4, "")
	require.NoError(t, err)
	assert.Equal(t, string(p.Marshal()), string(again.Marshal()), "the same sweep gives the same bytes")
	other, _, err := NewPlan(sc, 5, "")
	require.NoError(t, err)
	assert.NotEqual(t, p.Hash, other.Hash, "the seed is part of the sweep")
	other, _, err = NewPlan(load(t, small, "train.iterations=6"), 4, "")
	require.NoError(t, err)
	assert.NotEqual(t, p.Hash, other.Hash, "so is every setting")
	assert.Equal(t, p.Trials[0].ID, other.Trials[0].ID, "trial IDs name parameters, variant and seed only")

	back, err := results.ParsePlan(p.Marshal())
	require.NoError(t, err)
	assert.Equal(t, p, back)
	damaged := strings.Replace(string(p.Marshal()), `"seeds": 2`, `"seeds": 3`, 1)
	_, err = results.ParsePlan([]byte(damaged))
	assert.ErrorContains(t, err, "damaged")

	_, _, err = NewPlan(load(t, strings.Split(small, "sweep:")[0]), 4, "")
	assert.ErrorContains(t, err, "no sweep section")

	// A training's episodes are train's; a run's are the scenario's.
	assert.Zero(t, p.Episodes)
	run, _, err := NewPlan(load(t, small, "sweep.command=run", "sweep.metrics=[success_rate]", "sweep.grid={task.coupling: [0, 0.9]}"), 4, "")
	require.NoError(t, err)
	assert.Equal(t, 3, run.Episodes)

	// Only one variant's trials, and only its name among the variants.
	two := load(t, small+"variants:\n  - name: a\n  - name: b\n    set: {collective.agents: 2}\n")
	only, _, err := NewPlan(two, 4, "b")
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, only.Variants)
	require.Len(t, only.Trials, 8)
	assert.Equal(t, "b", only.Trials[0].Variant)
}

func TestMetricsCoverCommands(t *testing.T) {
	for _, m := range scenarios.SweepMetrics(scenarios.SweepTrain) {
		assert.Contains(t, train.ColumnNames(), m, "a train metric is a column of iterations.csv")
	}
	for _, m := range scenarios.SweepMetrics(scenarios.SweepRun) {
		assert.Contains(t, runMetrics, m)
	}
	assert.Len(t, runMetrics, len(scenarios.SweepMetrics(scenarios.SweepRun)))
}

// prepared plans sc's sweep and prepares dir for it.
func prepared(t *testing.T, dir string, sc *scenarios.Scenario) (*results.Plan, []scenarios.Trial) {
	t.Helper()
	p, trials, err := NewPlan(sc, sc.Seed, "")
	require.NoError(t, err)
	_, err = Prepare(dir, p, false)
	require.NoError(t, err)
	return p, trials
}

// runAll runs a sweep in dir and returns its table.
func runAll(t *testing.T, dir string, sc *scenarios.Scenario, workers int, shard Shard) []byte {
	t.Helper()
	p, trials := prepared(t, dir, sc)
	st, err := Check(dir, p, shard)
	require.NoError(t, err)
	require.NoError(t, Execute(context.Background(), &Work{Dir: dir, Plan: p, Scenario: sc, Trials: trials}, st.Pending, Options{Workers: workers}))
	recs, bad, err := ReadRecords(dir, p)
	require.NoError(t, err)
	require.Empty(t, bad)
	return Table(p, recs)
}

func TestExecuteResumeMerge(t *testing.T) {
	sc := load(t, small)
	tmp := t.TempDir()
	want := runAll(t, filepath.Join(tmp, "one"), sc, 1, All)
	lines := strings.Split(strings.TrimSpace(string(want)), "\n")
	require.Len(t, lines, 9)
	assert.Equal(t, "trial,variant,seed,reward.latency,task.coupling,reward_mean,parallelism_mean,prob_share", lines[0])
	assert.Equal(t, string(want), string(runAll(t, filepath.Join(tmp, "three"), sc, 3, All)), "workers change nothing")

	// Two shards in two directories, merged.
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	runAll(t, a, sc, 2, Shard{0, 2})
	runAll(t, b, sc, 2, Shard{1, 2})
	m, err := Merge([]string{a, b, filepath.Join(tmp, "one")})
	require.NoError(t, err)
	assert.Empty(t, m.Missing)
	assert.Equal(t, 8, m.Duplicates, "the unsharded directory repeats every trial")
	assert.Equal(t, 16, m.Read, "4 and 4 trial files in the shards', 8 in the unsharded directory")
	assert.Equal(t, string(want), string(Table(m.Plan, m.Records)))

	m, err = Merge([]string{a})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3, 5, 7}, m.Missing)

	// Resume: only the trials without a valid file run.
	dir := filepath.Join(tmp, "resume")
	runAll(t, dir, sc, 2, Shard{0, 2})
	p, trials, err := NewPlan(sc, sc.Seed, "")
	require.NoError(t, err)
	// A truncated file is run again.
	require.NoError(t, os.WriteFile(RecordPath(dir, p.Trials[0].ID), []byte(`{"format": `), 0o644))
	st, err := Check(dir, p, All)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 3, 5, 7}, st.Pending)
	assert.Equal(t, 3, st.Done(), "trials 2, 4 and 6 of the 8 have valid records")
	require.Len(t, st.Invalid, 1)
	var ran atomic.Int32
	require.NoError(t, Execute(context.Background(), &Work{Dir: dir, Plan: p, Scenario: sc, Trials: trials}, st.Pending, Options{Workers: 2, Finished: func(*scenarios.Trial) { ran.Add(1) }}))
	assert.EqualValues(t, 5, ran.Load())
	recs, _, err := ReadRecords(dir, p)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(Table(p, recs)))

	// Another sweep is refused, then cleared with fresh.
	other, _, err := NewPlan(load(t, small, "sweep.seeds=1"), 4, "")
	require.NoError(t, err)
	_, err = Prepare(dir, other, false)
	assert.ErrorIs(t, err, ErrOtherSweep)
	assert.ErrorContains(t, err, "--fresh")
	// The old sweep's page goes with it; a file of the user's stays.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.html"), []byte("the old sweep's page"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
	_, err = Prepare(dir, other, true)
	require.NoError(t, err)
	recs, _, err = ReadRecords(dir, other)
	require.NoError(t, err)
	assert.Empty(t, recs)
	assert.NoFileExists(t, filepath.Join(dir, "report.html"))
	assert.FileExists(t, filepath.Join(dir, "notes.txt"))
}

// TestExecuteOutputFails: a trial whose output cannot be written stops
// the sweep with that error and leaves no record, so that the trial runs
// again on resuming.
func TestExecuteOutputFails(t *testing.T) {
	sc := load(t, small)
	dir := t.TempDir()
	p, trials := prepared(t, dir, sc)
	full := errors.New("disk full")
	err := Execute(context.Background(), &Work{Dir: dir, Plan: p, Scenario: sc, Trials: trials}, []int{0}, Options{Workers: 1, Output: func(*scenarios.Trial, *Outcome) error { return full }})
	assert.ErrorIs(t, err, full)
	st, err := Check(dir, p, All)
	require.NoError(t, err)
	assert.Contains(t, st.Pending, 0)
}

func TestExecuteStopsOnCancel(t *testing.T) {
	sc := load(t, small)
	dir := t.TempDir()
	p, trials := prepared(t, dir, sc)
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	err := Execute(ctx, &Work{Dir: dir, Plan: p, Scenario: sc, Trials: trials}, []int{0, 1, 2, 3, 4, 5, 6, 7}, Options{Workers: 1, Finished: func(*scenarios.Trial) {
		if n.Add(1) == 2 {
			cancel()
		}
	}})
	assert.ErrorIs(t, err, context.Canceled)
	recs, _, err := ReadRecords(dir, p)
	require.NoError(t, err)
	assert.Len(t, recs, 2, "the finished trials are kept")
}

func TestRunTrial(t *testing.T) {
	sc := load(t, small, "sweep.command=run", "sweep.metrics=[success_rate, finish_mean, cost_per_acceptable]")
	p, trials, err := NewPlan(sc, 1, "")
	require.NoError(t, err)
	o, err := RunTrial(context.Background(), sc, &trials[0], 0)
	require.NoError(t, err)
	assert.Len(t, o.Rows, 3, "the scenario's episodes")
	assert.Len(t, o.Metrics, len(runMetrics))
	r := newRecord(p, 0, o.Metrics)
	assert.Len(t, r.Metrics, 3)
	back, err := parseRecord(p, p.TrialIndex(), r.marshal())
	require.NoError(t, err)
	assert.True(t, same(r, back))
}

// TestRunTrialEpisodeMeans: the metrics a run trial reads from its
// episodes are their means; with every hand-off misunderstood (miss 1,
// no findings shared under split) each delegation is a miss.
func TestRunTrialEpisodeMeans(t *testing.T) {
	sc := load(t, small, "sweep.command=run", "sweep.metrics=[handoff_misses_mean, redundancy_mean]",
		"collective.handoff.miss=1", "collective.handoff.findings=1")
	_, trials, err := NewPlan(sc, 1, "")
	require.NoError(t, err)
	o, err := RunTrial(context.Background(), sc, &trials[0], 0)
	require.NoError(t, err)
	var misses, redundancy float64
	for _, r := range o.Rows {
		misses += float64(r.Metrics.HandoffMisses)
		redundancy += experiment.Redundancy(&r.Metrics)
	}
	n := float64(len(o.Rows))
	assert.Positive(t, misses, "split delegates parts of a fork-join, and every hand-off is missed")
	assert.InDelta(t, misses/n, o.Metrics["handoff_misses_mean"], 1e-12)
	assert.InDelta(t, redundancy/n, o.Metrics["redundancy_mean"], 1e-12)
}

// TestRunTrialMaxEvents: the event bound reaches the episodes of both
// commands' trials; without one they finish.
func TestRunTrialMaxEvents(t *testing.T) {
	tests := []struct {
		command   string
		maxEvents uint64
		wantErr   bool
	}{
		{"train", 20, true},
		{"run", 20, true},
		{"train", 0, false},
		{"run", 0, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.command, tt.maxEvents), func(t *testing.T) {
			sc := load(t, small, "sweep.command="+tt.command, "sweep.metrics=[reward_mean]")
			_, trials, err := NewPlan(sc, 1, "")
			require.NoError(t, err)
			_, err = RunTrial(context.Background(), sc, &trials[0], tt.maxEvents)
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, sim.ErrEventLimit)
			assert.Contains(t, err.Error(), "the episode's bound: 20 events")
		})
	}
}

// sweptRecords runs every trial of sc's sweep on two workers into a new
// directory and returns its plan and records, read back.
func sweptRecords(t *testing.T, sc *scenarios.Scenario) (*results.Plan, map[string]*Record) {
	t.Helper()
	dir := t.TempDir()
	runAll(t, dir, sc, 2, All)
	p, err := results.ReadPlan(dir)
	require.NoError(t, err)
	recs, _, err := ReadRecords(dir, p)
	require.NoError(t, err)
	return p, recs
}

// TestChartsSayTheirSeeds: where the records lack trials (one shard's, a
// partial merge's) or values (not finite), a chart's statistic says over
// how many of the sweep's seeds its points are, not the sweep's count.
func TestChartsSayTheirSeeds(t *testing.T) {
	p, recs := sweptRecords(t, load(t, small))
	require.Equal(t, 2, p.Seeds)
	drop := func(keep func(i int) bool) map[string]*Record {
		out := map[string]*Record{}
		for i, tr := range p.Trials {
			if keep(i) {
				out[tr.ID] = recs[tr.ID]
			}
		}
		return out
	}
	first := p.Trials[0]
	for _, tc := range []struct {
		name string
		recs map[string]*Record
		want string
	}{
		{"all", recs, "IQM, 2 seeds"},
		{"one seed of each point", drop(func(i int) bool { return p.Trials[i].Seed == first.Seed }), "IQM, 1 of 2 seeds"},
		{"one seed of one point", drop(func(i int) bool { return i != 0 || p.Trials[i].Seed != first.Seed }), "IQM, 1 to 2 of 2 seeds"},
		{"one point left out", drop(func(i int) bool { return !slices.Equal(p.Trials[i].Point, first.Point) }), "IQM, 2 seeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			charts, _ := Charts(p, tc.recs)
			require.NotEmpty(t, charts)
			for _, c := range charts {
				assert.True(t, strings.HasPrefix(c.Stat, tc.want), "%s: %s", c.Name, c.Stat)
				for _, s := range c.Series {
					assert.Equal(t, c.Series[0].Lo == nil, s.Lo == nil, "%s: every curve has a band, or none", c.Name)
				}
			}
		})
	}
	// A value that is not finite (a mean over no successful episode) is
	// left out of its point: that metric's charts say so, the others not.
	nan := maps.Clone(recs)
	r := *recs[first.ID]
	r.Metrics = maps.Clone(r.Metrics)
	r.Metrics["reward_mean"] = Value(math.NaN())
	nan[first.ID] = &r
	charts, _ := Charts(p, nan)
	require.NotEmpty(t, charts)
	for _, c := range charts {
		want := "IQM, 2 seeds"
		if strings.HasPrefix(c.Name, "reward_mean") {
			want = "IQM, 1 to 2 of 2 seeds"
		}
		assert.True(t, strings.HasPrefix(c.Stat, want), "%s: %s", c.Name, c.Stat)
	}
}

func TestCharts(t *testing.T) {
	sc := load(t, small)
	p, recs := sweptRecords(t, sc)
	charts, warnings := Charts(p, recs)
	assert.Empty(t, warnings)
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{
		"reward_mean_vs_reward_latency", "reward_mean_vs_task_coupling", "reward_mean_heatmap",
		"parallelism_mean_vs_reward_latency", "parallelism_mean_vs_task_coupling", "parallelism_mean_heatmap",
		"prob_share_vs_reward_latency", "prob_share_vs_task_coupling", "prob_share_heatmap",
		PhaseChart,
	}, names)
	line := charts[3]
	require.Len(t, line.Series, 2, "one curve per value of the other axis")
	assert.Equal(t, "task.coupling = 0", line.Series[0].Name)
	assert.Equal(t, []float64{0, 1}, line.Series[0].X)
	assert.NotNil(t, line.Series[0].Lo, "a band over two seeds")
	// The first curve's point at latency 1 holds only its own coupling's
	// trials (Point is latency, coupling).
	var own []float64
	for _, tr := range p.Trials {
		if slices.Equal(tr.Point, []int{1, 0}) {
			own = append(own, float64(recs[tr.ID].Metrics["parallelism_mean"]))
		}
	}
	require.Len(t, own, 2)
	assert.InDelta(t, stats.IQM(own), line.Series[0].Y[1], 1e-12)
	phase := charts[len(charts)-1]
	require.NotNil(t, phase.Grid)
	assert.Equal(t, []string{"0", "1"}, phase.Grid.X, "latency weight across, as the scenario writes it")
	assert.Equal(t, []string{"0", "0.9"}, phase.Grid.Y, "coupling up")
	assert.Equal(t, "IQM, 2 seeds", phase.Stat, "the cell's statistic is named")
	assert.True(t, phase.Grid.Annotate, "a 2 × 2 map writes its values in the cells")
	assert.Equal(t, "learned "+metric.Of("parallelism_mean").Label, phase.ZLabel, "a training's parallelism is its learned policy's")
	// Over coupling, latency is drawn as curves: only seeds are pooled,
	// though coupling is the second axis (the other one has index 0).
	assert.Equal(t, "reward_mean_vs_task_coupling", charts[1].Name)
	assert.Equal(t, "IQM, 2 seeds", charts[1].Stat)
	assert.Len(t, charts[1].Series, 2, "one curve per latency weight")
	// The cell at latency 1, coupling 0.9 is the IQM over its seeds, as
	// the terminal's summary prints it.
	var xs []float64
	for _, tr := range p.Trials {
		if slices.Equal(tr.Point, []int{1, 1}) {
			xs = append(xs, float64(recs[tr.ID].Metrics["parallelism_mean"]))
		}
	}
	assert.InDelta(t, stats.IQM(xs), phase.Grid.Z[1][1], 1e-12)
	for _, ps := range Summarize(p, recs) {
		if slices.Equal(ps.Params, []string{"1", "0.9"}) {
			assert.InDelta(t, ps.Aggregates[slices.Index(p.Metrics, "parallelism_mean")].IQM.Value, phase.Grid.Z[1][1], 1e-12, "the summary's IQM")
		}
	}

	// The phase chart puts latency across whichever axis comes first.
	swapped := load(t, small, "sweep.grid={task.coupling: [0, 0.9], reward.latency: [0, 1]}")
	sp, srecs := sweptRecords(t, swapped)
	scharts, _ := Charts(sp, srecs)
	require.Equal(t, PhaseChart, scharts[len(scharts)-1].Name)
	assert.Equal(t, []string{"0", "1"}, scharts[len(scharts)-1].Grid.X, "latency weight across")
	assert.Equal(t, []string{"0", "0.9"}, scharts[len(scharts)-1].Grid.Y, "coupling up")

	// Missing trials leave gaps, not wrong charts.
	delete(recs, p.Trials[0].ID)
	delete(recs, p.Trials[1].ID)
	charts, warnings = Charts(p, recs)
	assert.NotEmpty(t, warnings)
	for _, c := range charts {
		assert.Nil(t, c.Grid, "heat maps need every cell: %s", c.Name)
	}
}

func TestChartsWithACategoricalAxis(t *testing.T) {
	sc := load(t, small, `sweep={command: run, seeds: 2, grid: {task.coupling: [0, 0.9], collective.spawn: [2s, 1m], policy.organization: [split, team]}, metrics: [success_rate]}`)
	p, recs := sweptRecords(t, sc)
	charts, warnings := Charts(p, recs)
	assert.Empty(t, warnings)
	byName := map[string]Chart{}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
		byName[c.Name] = c
	}
	assert.Equal(t, []string{
		"success_rate_vs_task_coupling", "success_rate_vs_collective_spawn", "success_rate_vs_policy_organization",
		"success_rate_heatmap_split", "success_rate_heatmap_team", "success_rate_diff_team_minus_split",
	}, names)
	line := byName["success_rate_vs_task_coupling"]
	require.Len(t, line.Series, 2, "one curve per organization")
	assert.Equal(t, "collective.spawn (s)", byName["success_rate_vs_collective_spawn"].XLabel, "an axis without a label of its own names its unit")
	assert.Equal(t, "split", line.Series[0].Name)
	assert.Equal(t, "team", line.Series[1].Name)

	// Each cell of an organization's map is its IQM over seeds; the
	// difference map subtracts split's cell from team's, with the
	// interval of the difference beside it.
	seeds := func(org, coupling, spawn int) []float64 {
		var xs []float64
		for _, tr := range p.Trials {
			if slices.Equal(tr.Point, []int{coupling, spawn, org}) {
				xs = append(xs, float64(recs[tr.ID].Metrics["success_rate"]))
			}
		}
		require.Len(t, xs, 2)
		return xs
	}
	iqm := func(org, coupling, spawn int) float64 { return stats.IQM(seeds(org, coupling, spawn)) }
	split, team, diff := byName["success_rate_heatmap_split"], byName["success_rate_heatmap_team"], byName["success_rate_diff_team_minus_split"]
	assert.Equal(t, []string{"2s", "1m"}, split.Grid.Y, "durations as the scenario writes them")
	for r := range 2 { // spawn, up
		for c := range 2 { // coupling, across
			assert.InDelta(t, iqm(0, c, r), split.Grid.Z[r][c], 1e-12)
			assert.InDelta(t, iqm(1, c, r), team.Grid.Z[r][c], 1e-12)
			assert.InDelta(t, iqm(1, c, r)-iqm(0, c, r), diff.Grid.Z[r][c], 1e-12)
			want := stats.Default.Diff(seeds(0, c, r), seeds(1, c, r), stats.IQM)
			if experiment.Finite(want.Lo) {
				require.NotNil(t, diff.Grid.Lo)
				assert.InDelta(t, want.Lo, diff.Grid.Lo[r][c], 1e-12)
				assert.InDelta(t, want.Hi, diff.Grid.Hi[r][c], 1e-12)
			}
		}
	}
	assert.Contains(t, diff.Title, "team minus split")
	assert.Equal(t, &plots.Sides{Low: "split better", High: "team better"}, diff.Sides, "success: higher is better")
	orgs := byName["success_rate_vs_policy_organization"]
	require.Len(t, orgs.Points, 2)
	assert.Equal(t, "team", orgs.Points[1].Label)
}

// TestChartsFacets: with two categorical axes, each value of the first
// gets the charts of a sweep over the others, named with its value, and
// its cells hold only its own trials.
func TestChartsFacets(t *testing.T) {
	sc := load(t, small, `sweep={command: run, seeds: 2, grid: {task.coupling: [0, 0.9], reward.penalty: [linear, quadratic], collective.agents: [2, 3], policy.organization: [split, team]}, metrics: [success_rate]}`)
	p, recs := sweptRecords(t, sc)
	// The penalty does not change a run's success: shift the quadratic
	// trials' so that a facet holding the other value's trials shows.
	for _, tr := range p.Trials {
		if tr.Point[1] == 1 {
			recs[tr.ID].Metrics["success_rate"] += 1
		}
	}
	charts, warnings := Charts(p, recs)
	assert.Empty(t, warnings)
	byName := map[string]Chart{}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
		byName[c.Name] = c
	}
	facet := []string{
		"success_rate_vs_task_coupling", "success_rate_vs_collective_agents", "success_rate_vs_policy_organization",
		"success_rate_heatmap_split", "success_rate_heatmap_team", "success_rate_diff_team_minus_split",
	}
	// The pooled charts first, as without facets.
	want := []string{"success_rate_vs_task_coupling", "success_rate_vs_reward_penalty", "success_rate_vs_collective_agents", "success_rate_vs_policy_organization", "success_rate_heatmap"}
	for _, v := range []string{"linear", "quadratic"} {
		for _, c := range facet {
			want = append(want, c+"_"+v)
		}
	}
	assert.Equal(t, want, names)
	// A facet's cell is the IQM of its own trials only.
	split := byName["success_rate_heatmap_split_quadratic"]
	assert.Equal(t, "quadratic; split", split.Title)
	var xs []float64
	for _, tr := range p.Trials {
		if slices.Equal(tr.Point, []int{1, 1, 0, 0}) { // coupling 0.9, quadratic, 2 agents, split
			xs = append(xs, float64(recs[tr.ID].Metrics["success_rate"]))
		}
	}
	require.Len(t, xs, 2)
	assert.InDelta(t, stats.IQM(xs), split.Grid.Z[0][1], 1e-12, "2 agents up, coupling 0.9 across")
	assert.Equal(t, "IQM, 2 seeds", split.Stat, "nothing else pooled in a facet's per-organization map")
	assert.Equal(t, "linear; team minus split", byName["success_rate_diff_team_minus_split_linear"].Title)
	assert.Equal(t, "linear", byName["success_rate_vs_task_coupling_linear"].Title)
	assert.True(t, split.Page, "a facet's title needs a page's width")
	assert.False(t, byName["success_rate_heatmap"].Page)
}

// TestChartsPoolSamples: a chart's statistic names what its values pool
// besides seeds: a line over one of three axes pools random samples and
// the other axes.
func TestChartsPoolSamples(t *testing.T) {
	sc := load(t, small, `sweep={command: run, seeds: 1, grid: {collective.agents: [2, 3], task.width: [2, 3], task.stages: [1, 2]}, random: {task.coupling: "uniform(0, 0.9)"}, samples: 2, metrics: [success_rate]}`)
	p, recs := sweptRecords(t, sc)
	charts, _ := Charts(p, recs)
	require.NotEmpty(t, charts)
	assert.Equal(t, "success_rate_vs_collective_agents", charts[0].Name)
	assert.Equal(t, "IQM, 1 seed, samples, axes", charts[0].Stat)
}

// TestDiffSides: the colour scale's ends follow the metric's direction.
func TestDiffSides(t *testing.T) {
	for _, tc := range []struct {
		better metric.Better
		want   plots.Sides
	}{
		{metric.Higher, plots.Sides{Low: "split better", High: "team better"}},
		{metric.Lower, plots.Sides{Low: "team better", High: "split better"}},
		{metric.None, plots.Sides{Low: "team lower", High: "team higher"}},
	} {
		assert.Equal(t, tc.want, diffSides(tc.better, "split", "team"), tc.better)
	}
}

// TestChartsOverCategoricalAxesOnly: a sweep whose axes are not all
// numbers still draws its charts: points over the organizations, and a
// heat map with the organizations as ticks. Every chart is drawn to a
// file.
func TestChartsOverCategoricalAxesOnly(t *testing.T) {
	for _, tc := range []struct {
		grid string
		want []string
	}{
		{"{policy.organization: [split, team]}", []string{"success_rate_vs_policy_organization"}},
		// One numeric axis: a single curve, no other axis to draw.
		{"{task.coupling: [0, 0.9]}", []string{"success_rate_vs_task_coupling"}},
		// The categorical axis first still gets its per-value maps.
		{"{policy.organization: [split, team], task.coupling: [0, 0.9], collective.agents: [2, 3]}", []string{
			"success_rate_vs_policy_organization", "success_rate_vs_task_coupling", "success_rate_vs_collective_agents",
			"success_rate_heatmap_split", "success_rate_heatmap_team", "success_rate_diff_team_minus_split"}},
		{"{policy.organization: [split, team], task.coupling: [0, 0.9]}", []string{
			"success_rate_vs_policy_organization", "success_rate_vs_task_coupling", "success_rate_heatmap"}},
		// Numbers written descending are drawn ascending.
		{"{policy.organization: [split, team], task.coupling: [0.9, 0]}", []string{
			"success_rate_vs_policy_organization", "success_rate_vs_task_coupling", "success_rate_heatmap"}},
	} {
		t.Run(tc.grid, func(t *testing.T) {
			sc := load(t, small, `sweep={command: run, seeds: 2, grid: `+tc.grid+`, metrics: [success_rate]}`)
			p, recs := sweptRecords(t, sc)
			charts, warnings := Charts(p, recs)
			assert.Empty(t, warnings)
			dir, err := rundir.Create(filepath.Join(t.TempDir(), "sweep"), false)
			require.NoError(t, err)
			cw, err := experiment.NewChartWriter(dir, []string{"svg"}) // the subject is which charts, not their formats
			require.NoError(t, err)
			var names []string
			for _, c := range charts {
				names = append(names, c.Name)
				require.NoError(t, c.Draw(cw), c.Name)
				for _, ext := range []string{".svg", ".csv"} {
					assert.FileExists(t, dir.Join(filepath.Join(experiment.ChartsDir, c.Name+ext)))
				}
			}
			assert.Equal(t, tc.want, names)
			if len(tc.want) == 3 {
				hm := charts[2].Grid
				assert.Equal(t, []string{"split", "team"}, hm.X, "organizations across, named")
				assert.Equal(t, []string{"0", "0.9"}, hm.Y)
				// A 2 × 2 map has room for its values: each cell's, to one
				// decimal, is text of the drawing.
				require.True(t, hm.Annotate)
				svg, err := os.ReadFile(dir.Join(filepath.Join(experiment.ChartsDir, charts[2].Name+".svg")))
				require.NoError(t, err)
				for _, row := range hm.Z {
					for _, z := range row {
						label := fmt.Sprintf(">%.1f</text>", z)
						assert.True(t, strings.Contains(string(svg), label), "the map writes %s", label)
					}
				}
			}
		})
	}
}

// TestChartsPerValueUpToMaxSeries: a category of plots.MaxSeries values,
// as many as a chart draws curves, still gets a heat map per value and the
// differences from the first.
func TestChartsPerValueUpToMaxSeries(t *testing.T) {
	orgs := scenarios.OrganizationNames()
	require.Len(t, orgs, plots.MaxSeries)
	sc := load(t, small, `sweep={command: run, seeds: 1, grid: {policy.organization: [`+strings.Join(orgs, ", ")+`], task.coupling: [0, 0.9], collective.agents: [2, 3]}, metrics: [success_rate]}`)
	p, recs := sweptRecords(t, sc)
	charts, warnings := Charts(p, recs)
	assert.Empty(t, warnings)
	want := []string{"success_rate_vs_policy_organization", "success_rate_vs_task_coupling", "success_rate_vs_collective_agents"}
	for _, o := range orgs {
		want = append(want, "success_rate_heatmap_"+o)
	}
	for _, o := range orgs[1:] {
		want = append(want, "success_rate_diff_"+o+"_minus_"+orgs[0])
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
	}
	assert.Equal(t, want, names)

	// A map over the category: 8 columns, or rows, still have room for
	// the values.
	category := "policy.organization: [" + strings.Join(orgs, ", ") + "]"
	for _, grid := range []string{category + ", task.coupling: [0, 0.9]", "task.coupling: [0, 0.9], " + category} {
		sc = load(t, small, `sweep={command: run, seeds: 1, grid: {`+grid+`}, metrics: [success_rate]}`)
		p, recs = sweptRecords(t, sc)
		charts, warnings = Charts(p, recs)
		assert.Empty(t, warnings)
		require.Equal(t, "success_rate_heatmap", charts[len(charts)-1].Name)
		hm := charts[len(charts)-1].Grid
		assert.Contains(t, [][]string{hm.X, hm.Y}, orgs, grid)
		assert.True(t, hm.Annotate, grid)
	}
}

// TestMergeNotASweep: a path that is no sweep directory is said to be
// what it is: missing, a file, or a directory without sweep.json.
func TestMergeNotASweep(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "s.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: s\n"), 0o644))
	sweepDir := filepath.Join(root, "sw")
	shard := filepath.Join(sweepDir, "shard-1-of-4")
	require.NoError(t, os.MkdirAll(shard, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sweepDir, results.PlanFile), []byte("{}"), 0o644))
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(root, "missing"), filepath.Join(root, "missing") + " does not exist: want a directory that simulate sweep wrote"},
		{file, file + " is a file, not a directory: want a directory that simulate sweep wrote"},
		{root, root + ": not a sweep directory: it has no sweep.json"},
		// A shard's own table, which sweep names when it ends: the sweep
		// is the directory above.
		{shard, shard + ": not a sweep directory: it has no sweep.json; it holds a shard's own tables: merge " + sweepDir + ", the sweep's directory"},
	} {
		_, err := Merge([]string{tc.dir})
		assert.EqualError(t, err, tc.want)
	}
}

// TestValueLabel: tick labels read as the scenario writes the values.
func TestValueLabel(t *testing.T) {
	for _, tc := range []struct {
		ax   results.Axis
		want []string
	}{
		{results.Axis{Values: []string{"300", "30000", "1e+06", "0.02"}, Numbers: []float64{300, 30000, 1e6, 0.02}}, []string{"300", "30000", "1000000", "0.02"}},
		{results.Axis{Values: []string{"2s", "2m0s", "1h0m0s", "1h30m0s", "1m0.5s", "500ms"}, Numbers: []float64{2, 120, 3600, 5400, 60.5, 0.5}, Unit: "s"},
			[]string{"2s", "2m", "1h", "1h30m", "1m0.5s", "500ms"}},
		{results.Axis{Values: []string{"team", "split"}}, []string{"team", "split"}},
	} {
		var got []string
		for i := range tc.ax.Values {
			got = append(got, valueLabel(&tc.ax, i))
		}
		assert.Equal(t, tc.want, got)
	}
}

// TestHeatmapCellIsTheSummarysIQM: with an outlying seed, a heat map's
// cell is the IQM the summary (and so the terminal) reports, not the
// mean, and the chart says so. (It drew the mean, unnamed, before.)
func TestHeatmapCellIsTheSummarysIQM(t *testing.T) {
	p := &results.Plan{
		Seeds:    5,
		Variants: []string{"v"},
		Metrics:  []string{"reward_mean"},
		Grid: []results.Axis{
			{Path: "reward.cost", Values: []string{"0", "1"}, Numbers: []float64{0, 1}},
			{Path: "task.coupling", Values: []string{"0"}, Numbers: []float64{0}},
		},
	}
	recs := map[string]*Record{}
	for x := range 2 {
		for seed := range 5 {
			id := fmt.Sprintf("t%d-%d", x, seed)
			v := Value(1 + seed%2)
			if seed == 4 {
				v = 100 // one seed far out
			}
			p.Trials = append(p.Trials, results.TrialInfo{ID: id, Variant: "v", Seed: uint64(seed), Point: []int{x, 0},
				Params: []scenarios.Param{{Path: "reward.cost", Value: p.Grid[0].Values[x]}, {Path: "task.coupling", Value: "0"}}})
			recs[id] = &Record{ID: id, Variant: "v", Metrics: map[string]Value{"reward_mean": v}}
		}
	}
	charts, warnings := Charts(p, recs)
	assert.Empty(t, warnings)
	var hm *Chart
	for i := range charts {
		if charts[i].Name == "reward_mean_heatmap" {
			hm = &charts[i]
		}
	}
	require.NotNil(t, hm)
	assert.Equal(t, "IQM, 5 seeds", hm.Stat)
	seeds := []float64{1, 2, 1, 2, 100}
	assert.InDelta(t, stats.IQM(seeds), hm.Grid.Z[0][0], 1e-12)
	assert.NotEqual(t, stats.Mean(seeds), hm.Grid.Z[0][0], "not the mean")
	sums := Summarize(p, recs)
	require.Len(t, sums, 2)
	assert.InDelta(t, sums[0].Aggregates[0].IQM.Value, hm.Grid.Z[0][0], 1e-12, "the summary's IQM")
}

// TestChangedInputsRefused: a sweep whose graph file changed is another
// sweep: a directory of the old one is refused, and so is merging the
// two, naming the file as the likely cause.
func TestChangedInputsRefused(t *testing.T) {
	tmp := t.TempDir()
	graph := filepath.Join(tmp, "g.dot")
	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> b; a -> c }"), 0o644))
	source := filepath.Join(tmp, "s.yaml")
	require.NoError(t, os.WriteFile(source, []byte(`task: {shape: file, path: g.dot, work: exp(5m)}
policy: {organization: split}
episodes: 2
sweep:
  command: run
  seeds: 1
  grid: {collective.agents: [2, 3]}
  metrics: [reward_mean]
`), 0o644))
	before := planOf(t, source)
	assert.NotEmpty(t, before.Inputs)
	old := filepath.Join(tmp, "old")
	_, err := Prepare(old, before, false)
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> b; b -> c }"), 0o644))
	after := planOf(t, source)
	assert.Equal(t, before.ScenarioHash, after.ScenarioHash, "the scenario's text is the same")
	assert.NotEqual(t, before.Hash, after.Hash)
	const why = ": a file the scenario reads (a graph of task.path, a policy.file, the replay.traces) changed"
	_, err = Prepare(old, after, false)
	assert.ErrorIs(t, err, ErrOtherSweep)
	assert.ErrorContains(t, err, why)
	_, err = Prepare(filepath.Join(tmp, "new"), after, false)
	require.NoError(t, err)
	_, err = Merge([]string{old, filepath.Join(tmp, "new")})
	assert.ErrorContains(t, err, why)
}

// TestMergeConflictNamesBoth checks the error of a trial whose records
// differ between two directories: it names both (naming only the later
// one blamed it for an edit made in the earlier), and counts one trial in
// the singular.
func TestMergeConflictNamesBoth(t *testing.T) {
	sc := load(t, small)
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	runAll(t, a, sc, 2, All)
	p, _ := prepared(t, b, sc)
	id := p.Trials[0].ID
	data, err := os.ReadFile(RecordPath(a, id))
	require.NoError(t, err)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(data, &rec))
	rec["metrics"].(map[string]any)["reward_mean"] = 12345.0
	data, err = json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(RecordPath(b, id), data, 0o644))

	_, err = Merge([]string{a, b})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 trial has differing results")
	assert.Contains(t, err.Error(), fmt.Sprintf("trial %s (%s) has different results in %s and %s", id, p.Describe(0), a, b))
}

// TestWhatChanged checks the cause that a refusal of another sweep
// names: none for two scenarios, the files read only where they alone
// differ (the scenario's text the same), and the scenario, its overrides,
// the seed or --variant otherwise, though its files differ too.
func TestWhatChanged(t *testing.T) {
	const (
		files = ": a file the scenario reads (a graph of task.path, a policy.file, the replay.traces) changed"
		other = ": the scenario, the --set overrides, the seed or --variant changed"
	)
	a := results.Plan{Scenario: "s", ScenarioHash: "h1", Inputs: "i1"}
	for _, tc := range []struct {
		name string
		b    func(*results.Plan)
		want string
	}{
		{"another scenario", func(p *results.Plan) { p.Scenario = "t" }, ""},
		{"another scenario whose files differ", func(p *results.Plan) { p.Scenario, p.Inputs = "t", "i2" }, ""},
		{"the files", func(p *results.Plan) { p.Inputs = "i2" }, files},
		{"the files, read no more", func(p *results.Plan) { p.Inputs = "" }, files},
		{"the scenario", func(p *results.Plan) { p.ScenarioHash = "h2" }, other},
		{"the scenario and its files", func(p *results.Plan) { p.ScenarioHash, p.Inputs = "h2", "i2" }, other},
		{"the seed", func(p *results.Plan) { p.Seed = 2 }, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := a
			tc.b(&b)
			assert.Equal(t, tc.want, whatChanged(&a, &b))
		})
	}
}

// TestPlanInputsOfEveryTrial: the digest of a plan covers the files of
// every trial, not only the first's: a sweep whose grid reads two graphs
// is another sweep once the second changed.
func TestPlanInputsOfEveryTrial(t *testing.T) {
	tmp := t.TempDir()
	graph := filepath.Join(tmp, "h.dot")
	for _, path := range []string{filepath.Join(tmp, "g.dot"), graph} {
		require.NoError(t, os.WriteFile(path, []byte("digraph { a -> b; a -> c }"), 0o644))
	}
	source := filepath.Join(tmp, "s.yaml")
	require.NoError(t, os.WriteFile(source, []byte(`task: {shape: file, path: g.dot, work: exp(5m)}
policy: {organization: split}
episodes: 2
sweep:
  command: run
  seeds: 1
  grid: {task.path: [g.dot, h.dot]}
  metrics: [reward_mean]
`), 0o644))
	before := planOf(t, source)
	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> c; a -> b }"), 0o644))
	after := planOf(t, source)
	assert.Equal(t, before.ScenarioHash, after.ScenarioHash, "the scenario's text is the same")
	assert.NotEqual(t, before.Inputs, after.Inputs)
	assert.NotEqual(t, before.Hash, after.Hash)
}

// planOf loads the scenario file source as it is now and returns its
// sweep's plan at the scenario's seed.
func planOf(t *testing.T, source string) *results.Plan {
	t.Helper()
	sc, err := scenarios.Load(source, nil)
	require.NoError(t, err)
	p, _, err := NewPlan(sc, sc.Seed, "")
	require.NoError(t, err)
	return p
}
