package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/sweep"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
)

// The sweep tests run simulate as separate processes, as a cluster would:
// several at once on one directory, killed with SIGKILL and resumed.

// sweepScenario is a small sweep: 2 × 3 grid points, 1 random sample and
// 2 seeds, 12 short training runs.
var sweepScenario = filepath.Join("testdata", "sweep.yaml")

const sweepTrials = 12

var simBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if simBin.dir != "" {
		os.RemoveAll(simBin.dir)
	}
	os.Exit(code)
}

// binary builds simulate once for all tests and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	simBin.once.Do(func() {
		simBin.dir, simBin.err = os.MkdirTemp("", "simulate-test-")
		if simBin.err != nil {
			return
		}
		simBin.path = filepath.Join(simBin.dir, "simulate")
		out, err := exec.Command("go", "build", "-o", simBin.path, ".").CombinedOutput()
		if err != nil {
			simBin.err = errors.New(err.Error() + "\n" + string(out))
		}
	})
	require.NoError(t, simBin.err, "building simulate")
	return simBin.path
}

// shardEnv are the variables that choose a shard; the tests set them
// explicitly.
var shardEnv = []string{sweep.EnvSlurmID, sweep.EnvSlurmCount, sweep.EnvSlurmMin, sweep.EnvSlurmStep, sweep.EnvSlurmMax, sweep.EnvK8sIndex}

// simCommand returns the command that runs simulate with args, in an
// environment without shard variables plus env.
func simCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary(t), args...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(shardEnv, name) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// exe runs simulate as a process and returns its output and exit status.
func exe(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := simCommand(t, env, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		require.NoError(t, err)
	}
	return o.String(), e.String(), code
}

func mustExe(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, errOut, code := exe(t, env, args...)
	require.Equal(t, 0, code, "simulate %s\nstderr:\n%s", strings.Join(args, " "), errOut)
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

var trialFileRE = regexp.MustCompile(`^[0-9a-f]{16}\.json$`)

// trialFiles lists the trial records in dir.
func trialFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, results.TrialsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if trialFileRE.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// csvRows returns the data rows of a CSV file.
func csvRows(t *testing.T, path string) [][]string {
	t.Helper()
	recs := readCSV(t, path)
	require.NotEmpty(t, recs)
	return recs[1:]
}

func TestSweepDeterministicAcrossWorkersAndShards(t *testing.T) {
	tmp := t.TempDir()
	single := filepath.Join(tmp, "single")
	out := mustExe(t, nil, "sweep", sweepScenario, "--workers", "1", "--out", single)
	assert.Contains(t, out, "12 trials, 12 run now, 0 done before")
	want := readFile(t, filepath.Join(single, "trials.csv"))
	rows := csvRows(t, filepath.Join(single, "trials.csv"))
	require.Len(t, rows, sweepTrials)
	assert.Equal(t, "trial,variant,seed,reward.latency,task.coupling,train.lr,reward_mean,success_rate,latency_mean,parallelism_mean,prob_share\n",
		string(want[:bytes.IndexByte(want, '\n')+1]))
	assert.Len(t, trialFiles(t, single), sweepTrials)
	m := readManifest(t, single)
	assert.Equal(t, "test-sweep", m.Scenario)
	for _, f := range []string{"sweep.json", "trials.csv", "charts/phase_parallelism.png", "charts/phase_parallelism.csv",
		"charts/parallelism_mean_vs_reward_latency.svg", "charts/reward_mean_heatmap.pdf"} {
		assert.Contains(t, m.Files, f)
	}
	for _, f := range m.Files {
		_, err := os.Stat(filepath.Join(single, filepath.FromSlash(f)))
		assert.NoError(t, err, "manifest lists %s", f)
	}

	t.Run("workers", func(t *testing.T) {
		dir := filepath.Join(tmp, "workers2")
		mustExe(t, nil, "sweep", sweepScenario, "--workers", "2", "--charts=false", "--out", dir)
		assert.Equal(t, string(want), string(readFile(t, filepath.Join(dir, "trials.csv"))))
		assert.Equal(t, string(readFile(t, filepath.Join(single, "sweep.json"))), string(readFile(t, filepath.Join(dir, "sweep.json"))))
	})

	t.Run("shards-in-one-directory", func(t *testing.T) {
		dir := filepath.Join(tmp, "shared")
		// Both shards at once, sharing the directory.
		var cmds []*exec.Cmd
		for i := range 2 {
			cmd := simCommand(t, nil, "sweep", sweepScenario, "--workers", "1", "--shard", strconv.Itoa(i)+"/2", "--out", dir)
			require.NoError(t, cmd.Start())
			cmds = append(cmds, cmd)
		}
		for _, cmd := range cmds {
			require.NoError(t, cmd.Wait())
		}
		for i := range 2 {
			part := csvRows(t, filepath.Join(dir, "shard-"+strconv.Itoa(i)+"-of-2", "trials.csv"))
			assert.Len(t, part, sweepTrials/2, "a shard's table holds its own trials")
			for k, row := range part {
				assert.Equal(t, rows[2*k+i], row, "shard %d holds trials j with j mod 2 = %d", i, i)
			}
		}
		_, err := os.Stat(filepath.Join(dir, "trials.csv"))
		assert.ErrorIs(t, err, os.ErrNotExist, "shards write no whole-sweep table")
		merged := filepath.Join(tmp, "merged")
		out := mustExe(t, nil, "merge", dir, "--out", merged, "--charts=false")
		assert.Contains(t, out, "merged 12 of 12 trials")
		assert.Equal(t, string(want), string(readFile(t, filepath.Join(merged, "trials.csv"))))
		assert.Equal(t, string(readFile(t, filepath.Join(single, "sweep.json"))), string(readFile(t, filepath.Join(merged, "sweep.json"))))
		assert.Len(t, trialFiles(t, merged), sweepTrials, "merge copies the trial files")
		// In place, as a dependent cluster job would.
		mustExe(t, nil, "merge", dir, "--out", dir, "--charts=false")
		assert.Equal(t, string(want), string(readFile(t, filepath.Join(dir, "trials.csv"))))
	})

	t.Run("slurm-array", func(t *testing.T) {
		// An array submitted as --array=5-6: indices minus the minimum.
		var dirs []string
		for i := range 2 {
			dir := filepath.Join(tmp, "slurm", strconv.Itoa(i))
			env := []string{sweep.EnvSlurmID + "=" + strconv.Itoa(5+i), sweep.EnvSlurmMin + "=5", sweep.EnvSlurmCount + "=2"}
			out := mustExe(t, env, "sweep", sweepScenario, "--out", dir)
			assert.Contains(t, out, "shard "+strconv.Itoa(i)+"/2: 6 trials")
			dirs = append(dirs, dir)
		}
		merged := filepath.Join(tmp, "slurm-merged")
		out := mustExe(t, nil, append(append([]string{"merge"}, dirs...), "--out", merged)...)
		assert.Contains(t, out, "merged 12 of 12 trials from 2 directories")
		assert.Equal(t, string(want), string(readFile(t, filepath.Join(merged, "trials.csv"))))
		_, err := os.Stat(filepath.Join(merged, "charts", "phase_parallelism.png"))
		assert.NoError(t, err, "merge draws the charts")
		// Merging a directory with itself counts identical duplicates.
		out = mustExe(t, nil, "merge", merged, merged, "--out", merged, "--charts=false")
		assert.Contains(t, out, "12 identical duplicates")
		assert.NoDirExists(t, filepath.Join(merged, "charts"), "--charts=false leaves none of the charts merged before")
	})

	t.Run("kubernetes-indexed-job", func(t *testing.T) {
		dir := filepath.Join(tmp, "k8s")
		for i := range 3 {
			mustExe(t, []string{sweep.EnvK8sIndex + "=" + strconv.Itoa(i)}, "sweep", sweepScenario, "--shards", "3", "--out", dir)
		}
		_, errOut, code := exe(t, []string{sweep.EnvK8sIndex + "=0"}, "sweep", sweepScenario, "--out", dir)
		assert.Equal(t, exitFail, code)
		assert.Contains(t, errOut, "--shards N")
		mustExe(t, nil, "merge", dir, "--out", dir, "--charts=false")
		assert.Equal(t, string(want), string(readFile(t, filepath.Join(dir, "trials.csv"))))
	})
}

// TestSweepResumeAfterKill kills a sweep with SIGKILL once a few trials
// are done, resumes it, and checks that the finished trials were not run
// again and that the table is the uninterrupted one.
func TestSweepResumeAfterKill(t *testing.T) {
	tmp := t.TempDir()
	// Longer trials and more of them, so that the kill comes midway.
	slow := []string{"--set", "train.iterations=300", "--set", "sweep.seeds=4", "--charts=false"}
	const total = 2 * sweepTrials
	ref := filepath.Join(tmp, "ref")
	mustExe(t, nil, append([]string{"sweep", sweepScenario, "--workers", "2", "--out", ref}, slow...)...)

	dir := filepath.Join(tmp, "killed")
	cmd := simCommand(t, nil, append([]string{"sweep", sweepScenario, "--workers", "1", "--out", dir}, slow...)...)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for len(trialFiles(t, dir)) < 3 {
		select {
		case err := <-exited:
			t.Fatalf("the sweep ended (%v) before it could be killed: make its trials longer", err)
		default:
		}
		require.True(t, time.Now().Before(deadline), "no trial finished within a minute")
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-exited
	done := trialFiles(t, dir)
	require.Less(t, len(done), total, "killed midway")
	_, err := os.Stat(filepath.Join(dir, "trials.csv"))
	require.ErrorIs(t, err, os.ErrNotExist, "a killed sweep has no table")
	inodes := map[string]uint64{}
	for _, f := range done {
		st, err := os.Stat(filepath.Join(dir, results.TrialsDir, f))
		require.NoError(t, err)
		inodes[f] = st.Sys().(*syscall.Stat_t).Ino
	}

	out := mustExe(t, nil, append([]string{"sweep", sweepScenario, "--workers", "2", "--out", dir}, slow...)...)
	assert.Contains(t, out, strconv.Itoa(total)+" trials, "+strconv.Itoa(total-len(done))+" run now, "+strconv.Itoa(len(done))+" done before")
	assert.Len(t, trialFiles(t, dir), total)
	for f, ino := range inodes {
		st, err := os.Stat(filepath.Join(dir, results.TrialsDir, f))
		require.NoError(t, err)
		assert.Equal(t, ino, st.Sys().(*syscall.Stat_t).Ino, "%s was written again", f)
	}
	assert.Equal(t, string(readFile(t, filepath.Join(ref, "trials.csv"))), string(readFile(t, filepath.Join(dir, "trials.csv"))))

	// Once more: nothing left to run.
	out = mustExe(t, nil, append([]string{"sweep", sweepScenario, "--out", dir}, slow...)...)
	assert.Contains(t, out, "0 run now, "+strconv.Itoa(total)+" done before")

	// A damaged trial file is run again.
	victim := filepath.Join(dir, results.TrialsDir, done[0])
	require.NoError(t, os.WriteFile(victim, []byte(`{"format": "swarmsim-sweep-trial/1", "id": `), 0o644))
	out, errOut, code := exe(t, nil, append([]string{"sweep", sweepScenario, "--out", dir}, slow...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "running the trial again")
	assert.Contains(t, out, "1 run now")
	assert.Equal(t, string(readFile(t, filepath.Join(ref, "trials.csv"))), string(readFile(t, filepath.Join(dir, "trials.csv"))))
}

// TestSweepShardStartedTwice: a shard started twice (a task requeued while
// it still runs) writes the same table; the later of the two to write it
// waits for the other rather than fail after all its trials are done.
func TestSweepShardStartedTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	args := []string{"sweep", sweepScenario, "--set", "sweep.seeds=1", "--shard", "1/2", "--out", dir}
	mustExe(t, nil, args...)
	table := filepath.Join(dir, "shard-1-of-2", "trials.csv")
	want := readFile(t, table)

	// This process plays the other one: it holds the shard's directory
	// as a process does while it writes the table there.
	other, err := rundir.Create(filepath.Join(dir, "shard-1-of-2"), true)
	require.NoError(t, err)
	cmd := simCommand(t, nil, args...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		other.Abort()
		t.Fatalf("the shard ended (%v) while another process wrote its table:\n%s", err, errOut.String())
	case <-time.After(2 * time.Second):
	}
	other.Abort()
	require.NoError(t, <-exited, "%s", errOut.String())
	assert.Equal(t, string(want), string(readFile(t, table)))
}

func TestSweepRefusesOtherSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	mustExe(t, nil, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", dir)
	old := readFile(t, filepath.Join(dir, "sweep.json"))

	for _, args := range [][]string{
		{"sweep", "tiny", "--set", "sweep={command: run, grid: {collective.agents: [1, 2]}}"},
		{"sweep", sweepScenario, "--set", "sweep.seeds=2"},
		{"sweep", sweepScenario, "--set", "sweep.seeds=1", "--seed", "9"},
	} {
		_, errOut, code := exe(t, nil, append(args, "--charts=false", "--out", dir)...)
		assert.Equal(t, exitFail, code, "%v", args)
		assert.Contains(t, errOut, "holds other work: the sweep of scenario")
		assert.Contains(t, errOut, "--fresh")
		assert.Equal(t, string(old), string(readFile(t, filepath.Join(dir, "sweep.json"))), "a refused sweep changes nothing")
	}
	out := mustExe(t, nil, "sweep", "tiny", "--set", "sweep={command: run, grid: {collective.agents: [1, 2]}}", "--fresh", "--charts=false", "--out", dir)
	assert.Contains(t, out, "4 trials, 4 run now, 0 done before", "tiny has two variants")
	assert.Len(t, trialFiles(t, dir), 4, "--fresh cleared the old trials")
	assert.Len(t, csvRows(t, filepath.Join(dir, "trials.csv")), 4)

	// A run directory is not a sweep directory.
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--out", run)
	_, errOut, code := exe(t, nil, "sweep", sweepScenario, "--fresh", "--out", run)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "holds a complete run without sweep.json")
}

func TestMergeReportsMissing(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "half")
	mustExe(t, nil, "sweep", sweepScenario, "--shard", "0/2", "--out", dir)
	var plan results.Plan
	require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(dir, "sweep.json")), &plan))
	require.Len(t, plan.Trials, sweepTrials)

	out := filepath.Join(tmp, "merged")
	_, errOut, code := exe(t, nil, "merge", dir, "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "6 of 12 trials are missing")
	for j, tr := range plan.Trials {
		line := "missing trial " + tr.ID + ": reward.latency=" + tr.Params[0].Value + ", task.coupling=" + tr.Params[1].Value
		if j%2 == 1 {
			assert.Contains(t, errOut, line)
		} else {
			assert.NotContains(t, errOut, tr.ID)
		}
	}
	_, err := os.Stat(filepath.Join(out, "trials.csv"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	_, errOut, code = exe(t, nil, "merge", dir, "--out", out, "--partial", "--charts=false")
	require.Equal(t, 0, code, errOut)
	assert.Len(t, csvRows(t, filepath.Join(out, "trials.csv")), sweepTrials/2)
	// The paper table says over how many seeds its cells are: not the
	// scenario's, which the missing trials would have given.
	caption := strings.SplitN(mustSimulate(t, "table", out), "\n", 2)[0]
	assert.Contains(t, caption, "the one seed's value (no interval over one seed); 1 seed, of 2: trials are missing")
	m, err := rundir.ReadManifest(out)
	require.NoError(t, err)
	assert.Equal(t, sweepTrials/2, m.MissingTrials)
	// A manifest written before it counted the missing trials: the table
	// counts them from the plan and the records.
	old := filepath.Join(tmp, "old")
	require.NoError(t, os.CopyFS(old, os.DirFS(out)))
	raw := readFile(t, filepath.Join(old, rundir.ManifestName))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	delete(doc, "missing_trials")
	raw, err = json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(old, rundir.ManifestName), raw, 0o644))
	caption = strings.SplitN(mustSimulate(t, "table", old), "\n", 2)[0]
	assert.Contains(t, caption, "the one seed's value (no interval over one seed); 1 seed, of 2: trials are missing")
	shard, err := rundir.ReadManifest(filepath.Join(dir, "shard-0-of-2"))
	require.NoError(t, err)
	assert.NotEmpty(t, shard.Source)
	assert.Equal(t, shard.Source, m.Source, "the merge records the scenario source its shards do")
	page := string(readFile(t, filepath.Join(out, "report.html")))
	assert.Contains(t, page, fmt.Sprintf("%d: the tables and charts hold the sweep&#39;s other trials", sweepTrials/2))
	assert.Contains(t, page, "the interquartile mean (IQM) over 1 seed [")

	// With both shards but one trial, that trial's point is over fewer
	// seeds than the others, and its cells say so.
	mustExe(t, nil, "sweep", sweepScenario, "--shard", "1/2", "--out", dir)
	require.NoError(t, os.Remove(filepath.Join(dir, results.TrialsDir, plan.Trials[1].ID+".json")))
	most := filepath.Join(tmp, "most")
	mustExe(t, nil, "merge", dir, "--out", most, "--partial", "--charts=false")
	lines := strings.Split(mustSimulate(t, "table", most), "\n")
	assert.Contains(t, lines[0], "IQM over 1 to 2 seeds, of 2 [95% bootstrap interval]; trials are missing")
	point := "| " + plan.Trials[1].Params[0].Value + " | " + plan.Trials[1].Params[1].Value + " |"
	marked := 0
	for _, line := range lines[1:] {
		if strings.HasPrefix(line, point) {
			assert.Contains(t, line, "(1 seed)", "the point of the missing trial")
			marked++
		} else {
			assert.NotContains(t, line, "seed", "a point with both its seeds")
		}
	}
	assert.Equal(t, 1, marked, "one row is the point of the missing trial")

	// One seed a point, one trial missing: no interval is promised, and
	// the count is in the singular.
	one := filepath.Join(tmp, "one")
	mustExe(t, nil, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", one)
	onePlan := readFile(t, filepath.Join(one, "sweep.json"))
	var p1 results.Plan
	require.NoError(t, json.Unmarshal(onePlan, &p1))
	require.NoError(t, os.Remove(filepath.Join(one, results.TrialsDir, p1.Trials[0].ID+".json")))
	oneMerged := filepath.Join(tmp, "one-merged")
	mustExe(t, nil, "merge", one, "--out", oneMerged, "--partial", "--charts=false")
	assert.Contains(t, strings.SplitN(mustSimulate(t, "table", oneMerged), "\n", 2)[0], "the one seed's value (no interval over one seed); 1 trial is missing")

	// A complete sweep's cells have fewer seeds only where a metric is
	// undefined for some (no acceptable episode): no trial is missing.
	full := filepath.Join(tmp, "full")
	mustExe(t, nil, "sweep", sweepScenario, "--charts=false", "--out", full)
	summary := filepath.Join(full, "summary.csv")
	rows := readCSV(t, summary)
	col := slices.Index(rows[0], "n_seeds")
	require.GreaterOrEqual(t, col, 0)
	rows[1][col] = "1"
	require.NoError(t, os.WriteFile(summary, rundir.CSV(rows[0], rows[1:]), 0o644))
	caption = strings.SplitN(mustSimulate(t, "table", full), "\n", 2)[0]
	assert.Contains(t, caption, "IQM over 2 seeds [95% bootstrap interval]")

	// The same trial with another result is an error.
	other := filepath.Join(tmp, "other")
	require.NoError(t, os.MkdirAll(filepath.Join(other, results.TrialsDir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "sweep.json"), readFile(t, filepath.Join(dir, "sweep.json")), 0o644))
	id := plan.Trials[0].ID
	rec := readFile(t, filepath.Join(dir, results.TrialsDir, id+".json"))
	var r map[string]any
	require.NoError(t, json.Unmarshal(rec, &r))
	r["metrics"].(map[string]any)["reward_mean"] = 12345.0
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(other, results.TrialsDir, id+".json"), b, 0o644))
	_, errOut, code = exe(t, nil, "merge", dir, other, "--out", filepath.Join(tmp, "conflict"), "--partial")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "trial "+id)
	assert.Contains(t, errOut, "different results")

	// Directories of different sweeps are not merged.
	alien := filepath.Join(tmp, "alien")
	mustExe(t, nil, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", alien)
	_, errOut, code = exe(t, nil, "merge", dir, alien, "--out", filepath.Join(tmp, "mixed"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "another sweep")
	assert.Contains(t, errOut, "): the scenario, the --set overrides, the seed or --variant changed", "one scenario: the likely causes")
}

func TestSweepBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep", "tiny"}, exitFail, "has no sweep section"},
		{[]string{"sweep", sweepScenario, "--shard", "2/2"}, exitUsage, "shard 2 is out of range (0 to 1 for 2 shards)"},
		{[]string{"sweep", sweepScenario, "--shard", "x"}, exitUsage, "want i/n"},
		// A script's unset variable must not run the whole sweep.
		{[]string{"sweep", sweepScenario, "--shard", ""}, exitUsage, `--shard "": want i/n`},
		{[]string{"sweep", sweepScenario, "--shards", "4"}, exitFail, "needs the shard's index"},
		// --shard and --shards are two ways to give the count: a call
		// whose two disagree is wrong however the environment is set.
		{[]string{"sweep", sweepScenario, "--shard", "0/2", "--shards", "3"}, exitUsage, `--shard "0/2" and --shards 3 disagree on the number of shards`},
		{[]string{"sweep", sweepScenario, "--variant", "nope"}, exitFail, `no variant "nope"`},
		{[]string{"sweep", sweepScenario, "--set", "sweep.metrics=[reward_mean, finish_mean]"}, exitFail, `"finish_mean" is not a metric of train trials`},
		// A shard draws no charts: --figures would copy nothing.
		{[]string{"sweep", sweepScenario, "--shard", "0/2", "--figures", "figs"}, exitUsage, "--figures figs with shard 0/2: a shard draws no charts"},
		// So --format would choose nothing: merge's chooses the formats.
		{[]string{"sweep", sweepScenario, "--shard", "1/2", "--format", "svg"}, exitUsage, "--format svg with shard 1/2: a shard draws no charts; give --format to 'simulate merge', which draws them"},
		// Shards may share a directory: --fresh would clear the others'.
		{[]string{"sweep", sweepScenario, "--shard", "1/2", "--fresh"}, exitUsage, "--fresh with shard 1/2: it would clear the trials of the other shards"},
		{[]string{"merge", "--out", "x"}, exitUsage, "at least one sweep directory"},
		{[]string{"merge", "x"}, exitUsage, "--out DIR is required"},
	} {
		out := filepath.Join(t.TempDir(), "o")
		_, errOut, code := simulate(t, append(tc.args, "--out", out)...)
		if tc.args[0] == "merge" {
			_, errOut, code = simulate(t, tc.args...)
		}
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
		assert.NoDirExists(t, out, "%v writes nothing", tc.args)
	}
}

func TestSweepTrialDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "train")
	_, errOut, code := simulate(t, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--trial-dirs", "--charts=false", "--out", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "--trial-dirs", "every trial runs now")
	files := trialFiles(t, dir)
	require.Len(t, files, sweepTrials/2)
	// Run again, the trials are done: none gets a directory, and the
	// command says so rather than leave the flag silently unheeded.
	_, errOut, code = simulate(t, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--trial-dirs", "--charts=false", "--out", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, fmt.Sprintf("--trial-dirs: the %d trials done before are not run again", sweepTrials/2))
	m := readManifest(t, dir)
	for _, f := range files {
		id := strings.TrimSuffix(f, ".json")
		for _, name := range []string{"policy.json", "iterations.csv"} {
			_, err := os.Stat(filepath.Join(dir, results.TrialsDir, id, name))
			assert.NoError(t, err)
			assert.Contains(t, m.Files, "trials/"+id+"/"+name)
		}
		assert.Contains(t, m.Files, "trials/"+f)
	}
	iters := readCSV(t, filepath.Join(dir, results.TrialsDir, strings.TrimSuffix(files[0], ".json"), "iterations.csv"))
	assert.Len(t, iters, 1+8, "a header and one row per iteration")

	// A policy file is what 'simulate run --policy' takes.
	pol := filepath.Join(dir, results.TrialsDir, strings.TrimSuffix(files[0], ".json"), "policy.json")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--policy", pol, "--out", filepath.Join(t.TempDir(), "r"))

	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "sweep", "tiny", "--set", "sweep={command: run, grid: {collective.agents: [1, 2]}}", "--variant", "team", "--trial-dirs", "--charts=false", "--out", run)
	files = trialFiles(t, run)
	require.Len(t, files, 2)
	rows := readCSV(t, filepath.Join(run, results.TrialsDir, strings.TrimSuffix(files[0], ".json"), "episodes.csv"))
	assert.Len(t, rows, 1+5, "tiny's five episodes")
	table := readCSV(t, filepath.Join(run, "trials.csv"))
	assert.Equal(t, []string{"trial", "variant", "seed", "collective.agents", "success_rate", "finish_mean", "reward_mean", "parallelism_mean"}, table[0])
	assert.Equal(t, "team", table[1][1])
}

// TestSweepSummaryTable: the table printed at the end of a sweep has a
// variant column only when the sweep has several variants, and shows at
// most maxSummaryRows rows, then says how many more summary.csv holds.
// TestShortNumber: a random draw shows to 4 significant digits; a grid's
// values, as written, are shown whole, so that two of them never read the
// same.
func TestShortNumber(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0.13895140005657622", "0.139"}, {"1234.5678901", "1235"}, {"-0.000123456789", "-0.0001235"},
		{"12345", "12345"}, {"0.12341", "0.12341"}, {"0.12342", "0.12342"}, {"20000", "20000"},
		{"exp(5m)", "exp(5m)"}, {"team", "team"}, {"123456789abc", "123456789abc"},
		// A whole number is a grid's value, however long.
		{"100000000", "100000000"}, {"-123456789", "-123456789"},
		// The sign is not one of the 8 characters.
		{"-0.123456", "-0.123456"}, {"-0.1234567", "-0.1235"},
	} {
		assert.Equal(t, tc.want, shortNumber(tc.in, 4), tc.in)
	}
	// A column's draws that would read alike at 4 digits get more.
	assert.Equal(t, []string{"0.50001", "0.50004", "0.5", "0.50001"},
		shortColumn([]string{"0.50001234", "0.50004321", "0.5", "0.50001234"}))
	assert.Equal(t, []string{"0.1771", "0.9"}, shortColumn([]string{"0.17710464117658375", "0.9"}))
}

func TestSweepSummaryTable(t *testing.T) {
	agents := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = strconv.Itoa(i + 1)
		}
		return "sweep={command: run, grid: {collective.agents: [" + strings.Join(vals, ", ") + "]}}"
	}
	for _, tc := range []struct {
		name  string
		args  []string
		first string // the header's first column
		rows  int
		more  string // the line after the rows, "" for none
	}{
		{"one variant", []string{"--set", agents(2), "--variant", "team"}, "collective.agents", 2, ""},
		{"two variants", []string{"--set", agents(2)}, "variant", 4, ""},
		{"past the limit", []string{"--set", agents(21)}, "variant", maxSummaryRows, "... 2 more rows: see summary.csv"},
		// A random axis's draws show to 4 significant digits.
		{"a random axis", []string{"--set", "sweep={command: run, random: {task.difficulty: \"uniform(0.1, 0.3)\"}, samples: 2}", "--variant", "team"}, "task.difficulty", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"sweep", "tiny", "--set", "episodes=1", "--charts=false", "--out", filepath.Join(t.TempDir(), "s")}, tc.args...)
			table, _, _ := strings.Cut(mustSimulate(t, args...), "\n\n")
			lines := strings.Split(table, "\n")
			assert.Equal(t, tc.first, strings.Fields(lines[0])[0])
			rows := lines[1:]
			if tc.more != "" {
				assert.Equal(t, tc.more, rows[len(rows)-1])
				rows = rows[:len(rows)-1]
			}
			assert.Len(t, rows, tc.rows)
			for _, r := range rows {
				assert.NotContains(t, r, "more rows")
				if tc.first == "task.difficulty" {
					assert.Regexp(t, `^0\.\d{1,4} `, r, "a draw to 4 digits")
				}
			}
		})
	}
}

// TestMergeFresh: merging into a directory of another sweep is refused with
// the flag the message names, --fresh clears it first, and --fresh onto
// one of the inputs, which would clear the trials merged, is refused.
// TestMergeThatFailsLeavesNoTables: a merge whose outputs fail to write
// (here summary.csv, where a folder stands) removes the tables it wrote
// and leaves the directory without a manifest or a page, which would
// describe the old tables; the records stay, and the same merge, once
// the folder is gone, writes the tables it would have.
func TestMergeThatFailsLeavesNoTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	mustExe(t, nil, "sweep", sweepScenario, "--out", dir)
	want := readFile(t, filepath.Join(dir, "trials.csv"))
	require.NoError(t, os.Remove(filepath.Join(dir, "summary.csv")))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "summary.csv", "x"), 0o755))
	_, errOut, code := exe(t, nil, "merge", dir, "--out", dir)
	require.Equal(t, exitFail, code, errOut)
	for _, name := range []string{"trials.csv", rundir.ManifestName, "report.html", "charts"} {
		assert.NoFileExists(t, filepath.Join(dir, name))
		assert.NoDirExists(t, filepath.Join(dir, name))
	}
	recs, err := filepath.Glob(filepath.Join(dir, results.TrialsDir, "*.json"))
	require.NoError(t, err)
	assert.Len(t, recs, sweepTrials, "the records stay")

	require.NoError(t, os.RemoveAll(filepath.Join(dir, "summary.csv")))
	mustExe(t, nil, "merge", dir, "--out", dir)
	assert.Equal(t, string(want), string(readFile(t, filepath.Join(dir, "trials.csv"))))
}

func TestMergeFresh(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "all")
	mustExe(t, nil, "sweep", sweepScenario, "--charts=false", "--out", dir)
	other := filepath.Join(tmp, "other")
	mustExe(t, nil, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", other)

	_, errOut, code := exe(t, nil, "merge", dir, "--charts=false", "--out", other)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "use --fresh to discard it")
	mustExe(t, nil, "merge", dir, "--charts=false", "--fresh", "--out", other)
	assert.Equal(t, string(readFile(t, filepath.Join(dir, "trials.csv"))), string(readFile(t, filepath.Join(other, "trials.csv"))))

	_, errOut, code = exe(t, nil, "merge", dir, "--fresh", "--out", dir+"/.")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "one of the inputs")
	assert.Len(t, trialFiles(t, dir), sweepTrials, "the trials are where they were")
}

// TestSweepShardNamesTheMerge: a shard ends with the merge command to run,
// which takes the sweep's directory, quoted as a shell reads it back.
func TestSweepShardNamesTheMerge(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my sweep")
	got := mustSimulate(t, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--shard", "0/2", "--charts=false", "--out", dir)
	assert.Contains(t, got, "(merge the shards with: simulate merge '"+dir+"' --out DIR)")
}

// TestCreateShardDirWaits: while another process holds a shard's
// directory, createShardDir waits (here until its context ends) rather
// than fail, however slow the machine; once the other is done, it goes on.
func TestCreateShardDirWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shard-0-of-2")
	first, err := rundir.Create(path, false)
	require.NoError(t, err)
	require.NoError(t, first.Write("trials.csv", []byte("x\n")))
	require.NoError(t, first.Commit(&rundir.Manifest{Kind: rundir.KindSweep}))
	// The other process rewrites the table, holding the one it replaces.
	other, err := rundir.Create(path, true)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = createShardDir(ctx, path)
	require.ErrorIs(t, err, context.DeadlineExceeded, "waits while the other holds it")
	other.Abort()
	d, err := createShardDir(context.Background(), path)
	require.NoError(t, err)
	d.Abort()
}

// TestShardRefusalsNameNoFresh: a shard refuses --fresh, so its refusals
// of a directory offer another way out.
func TestShardRefusalsNameNoFresh(t *testing.T) {
	mine := filepath.Join(t.TempDir(), "mine")
	require.NoError(t, os.MkdirAll(mine, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine\n"), 0o644))
	_, errOut, code := exe(t, nil, "sweep", sweepScenario, "--shard", "0/2", "--out", mine)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, mine+" holds files but no sweep.json: notes.txt; choose another directory with --out")
	assert.NotContains(t, errOut, "--fresh")

	other := filepath.Join(t.TempDir(), "other")
	mustExe(t, nil, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--charts=false", "--out", other)
	_, errOut, code = exe(t, nil, "sweep", sweepScenario, "--shard", "0/2", "--out", other)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "(but not with a shard, which refuses --fresh: remove the directory once before the shards start)")
}

// TestSweepTableSaysFewerSeeds: the terminal's sweep table names the
// seeds of a cell over fewer of them than its row's seeds column (a
// metric undefined for some, such as the finish time of acceptable
// episodes where a seed had none), as 'simulate table' does: the column
// alone would claim every seed for one seed's value.
func TestSweepTableSaysFewerSeeds(t *testing.T) {
	out := mustSimulate(t, "sweep", testScenario, "--variant", "split", "--charts=false", "--out", filepath.Join(t.TempDir(), "s"),
		"--set", "episodes=1", "--set", "sweep={command: run, seeds: 4, grid: {task.coupling: [0.4, 0.5, 0.7]}, metrics: [success_rate, finish_acceptable_mean]}")
	lines := strings.Split(out, "\n")
	for _, tc := range []struct {
		coupling string
		want     []string // the row's cells after the coupling
	}{
		{"0.4", []string{"4", "0.50 [0.00, 1.00]", "1691 [781, 2600] (2 seeds)"}},
		{"0.5", []string{"4", "0.00 [0.00, 1.00]", "2600 (1 seed)"}},
		{"0.7", []string{"4", "0 [0, 0]", "–"}}, // no seed at all: nothing to name
	} {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, tc.coupling+" ") })
		require.GreaterOrEqual(t, i, 0, "no row of coupling %s in\n%s", tc.coupling, out)
		var cells []string
		for c := range strings.SplitSeq(lines[i], "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		require.Equal(t, append([]string{tc.coupling}, tc.want...), cells, "row %q", lines[i])
	}
}
