package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/models/policy"
)

// trainTiny trains the tiny scenario briefly into a new directory.
func trainTiny(t *testing.T, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "train")
	args := append([]string{"train", testScenario, "--out", out, "--seeds", "2",
		"--set", "train.iterations=3", "--set", "train.batch=2", "--set", "train.group=3"}, extra...)
	mustSimulate(t, args...)
	return out
}

// TestRunOfVariantsAlikeUnderAPolicy: tiny's variants differ only in
// their organization, which --policy replaces: run says their episodes
// are the same, and they are; without --policy it says nothing.
func TestRunOfVariantsAlikeUnderAPolicy(t *testing.T) {
	pol := filepath.Join(trainTiny(t, "--charts=false"), "policies", "split-seed7.json")
	dir := filepath.Join(t.TempDir(), "run")
	_, stderr, code := simulate(t, "run", testScenario, "--policy", pol, "--episodes", "3", "--charts=false", "--out", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "simulate run: variants split and team have the same settings (--policy gives every variant one policy, in place of the policy sections they differ in): their episodes and rows are the same")
	rows := readCSV(t, filepath.Join(dir, "episodes.csv"))
	var split, team [][]string
	for _, r := range rows[1:] {
		if r[0] == "split" {
			split = append(split, r[1:])
		} else {
			team = append(team, r[1:])
		}
	}
	require.Len(t, split, 3)
	assert.Equal(t, split, team)
	_, stderr, code = simulate(t, "run", testScenario, "--episodes", "3", "--charts=false", "--out", filepath.Join(t.TempDir(), "run"))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "same settings")
}

func TestTrainWritesEverything(t *testing.T) {
	out := trainTiny(t)
	m := readManifest(t, out)
	for _, f := range m.Files {
		assert.FileExists(t, filepath.Join(out, f))
	}
	for _, f := range []string{"iterations.csv", "policies/split-seed7.json", "policies/split-seed8.json", "charts/learning_reward.svg", "charts/action_mix_split.png"} {
		assert.Contains(t, m.Files, f)
	}
	assert.Equal(t, 2, m.Seeds)

	rows := readCSV(t, filepath.Join(out, "iterations.csv"))
	assert.Len(t, rows, 1+1*2*3, "header, then variants × seeds × iterations (team trains as split)")
	for _, col := range []string{"variant", "seed", "iteration", "reward_mean", "success_rate", "latency_mean", "latency_p90",
		"parallelism_mean", "messages_mean", "model_calls_mean", "entropy", "prob_work", "prob_delegate", "prob_submit"} {
		assert.Contains(t, rows[0], col)
	}

	// The policy file is one that run evaluates.
	f, err := os.Open(filepath.Join(out, "policies/split-seed7.json"))
	require.NoError(t, err)
	defer f.Close()
	_, err = policy.Load(f, "split-seed7.json")
	require.NoError(t, err)
	runOut := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "3", "--charts=false", "--out", runOut,
		"--policy", filepath.Join(out, "policies/split-seed7.json"))
}

func TestTrainGoldenAndWorkers(t *testing.T) {
	one := trainTiny(t, "--workers", "1", "--charts=false")
	two := trainTiny(t, "--workers", "2", "--charts=false")
	a, err := os.ReadFile(filepath.Join(one, "iterations.csv"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(two, "iterations.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b), "1 and 2 workers give the same table")
	for _, p := range []string{"policies/split-seed7.json", "policies/split-seed8.json", "summary.csv"} {
		pa, _ := os.ReadFile(filepath.Join(one, p))
		pb, _ := os.ReadFile(filepath.Join(two, p))
		assert.Equal(t, string(pa), string(pb), p)
	}
	goldenTable(t, "tiny_iterations.csv.golden", a)
}

// TestTrainBaselines: tiny's variants differ only in their organization,
// so train says so before it starts and trains split once; the terminal
// and summary.csv give a learned row for split and a fixed row (the
// baseline, on the same episodes) for split and for team.
func TestTrainBaselines(t *testing.T) {
	out := filepath.Join(t.TempDir(), "train")
	stdout, stderr, code := simulate(t, "train", testScenario, "--seeds", "2", "--out", out, "--charts=false",
		"--set", "train.iterations=3", "--set", "train.batch=2", "--set", "train.group=3")
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stderr, "simulate train: split and team differ only in their policy section, which training replaces with the policy it learns (train.policy): training split once for them all"), stderr)
	var policies []string
	for _, line := range strings.Split(stdout, "\n")[1:4] {
		policies = append(policies, strings.Join(strings.Fields(line)[:3], " "))
	}
	assert.Equal(t, []string{"split learned 2", "split fixed 2", "team fixed 2"}, policies, stdout)

	rows := readCSV(t, filepath.Join(out, "summary.csv"))
	require.Equal(t, "policy", rows[0][14])
	reward := map[string]float64{}
	for _, r := range rows[1:] {
		if r[1] == "reward_mean" {
			reward[r[0]+" "+r[14]] = parse(t, r[6])
		}
	}
	assert.Len(t, reward, 3)
	assert.NotEqual(t, reward["split fixed"], reward["team fixed"], "two organizations on the same episodes")
}

// TestTrainWithoutBaselines: --baseline=false trains as the default does
// (the same iterations.csv and policies) and leaves out the fixed rows of
// the table and summary.csv, and the note's promise of them.
func TestTrainWithoutBaselines(t *testing.T) {
	args := []string{"train", testScenario, "--seeds", "2", "--charts=false",
		"--set", "train.iterations=3", "--set", "train.batch=2", "--set", "train.group=3"}
	with := filepath.Join(t.TempDir(), "with")
	mustSimulate(t, append(args, "--out", with)...)
	without := filepath.Join(t.TempDir(), "without")
	stdout, stderr, code := simulate(t, append(args, "--out", without, "--baseline=false")...)
	require.Equal(t, exitOK, code, stderr)

	assert.NotContains(t, stderr, "scored as a baseline", "no baseline is scored, none is promised")
	assert.Contains(t, stderr, "training split once for them all; only its rows are written (--baseline=false)")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.GreaterOrEqual(t, len(lines), 3, stdout)
	assert.Equal(t, []string{"split", "learned", "2"}, strings.Fields(lines[1])[:3], stdout)
	assert.Empty(t, strings.TrimSpace(lines[2]), "one row, the learned split's: %s", stdout)
	for _, f := range []string{"iterations.csv", "policies/split-seed7.json", "policies/split-seed8.json"} {
		a, err := os.ReadFile(filepath.Join(with, f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(without, f))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), f)
	}
	// summary.csv: the default's learned rows, and nothing else.
	learned := func(dir string) (rows [][]string, policies map[string]bool) {
		all := readCSV(t, filepath.Join(dir, "summary.csv"))
		require.Equal(t, "policy", all[0][14])
		policies = map[string]bool{}
		for _, r := range all[1:] {
			policies[r[0]+" "+r[14]] = true
			if r[14] == "learned" {
				rows = append(rows, r)
			}
		}
		return rows, policies
	}
	want, _ := learned(with)
	got, policies := learned(without)
	assert.Equal(t, []string{"split learned"}, slices.Sorted(maps.Keys(policies)))
	assert.Equal(t, want, got)
	assert.FileExists(t, filepath.Join(without, "report.html"))
}

func TestTrainBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"train", testScenario, "--seeds", "0"},
		{"train", testScenario, "--smooth", "0"},
		{"train", testScenario, "--smooth", "5", "--charts=false"},
		{"train", testScenario, "--set", "train.advantage=magic"},
		{"train", testScenario, "--set", "reward.penalty=cubic"},
		{"train", "no-such-scenario"},
	} {
		out := filepath.Join(t.TempDir(), "x")
		_, stderr, code := simulate(t, append(args, "--out", out)...)
		assert.NotEqual(t, exitOK, code, "%v", args)
		assert.True(t, strings.HasPrefix(stderr, "simulate train: ") || strings.Contains(stderr, "usage"), stderr)
		assert.NoFileExists(t, filepath.Join(out, "manifest.json"))
	}
	// Seeds that would wrap around past 2⁶⁴−1 to 0.
	out := filepath.Join(t.TempDir(), "x")
	_, stderr, code := simulate(t, "train", testScenario, "--seed", "18446744073709551615", "--seeds", "2", "--out", out)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "simulate train: --seeds 2: 2 seeds from 18446744073709551615 pass the largest seed")
	assert.NoDirExists(t, out)
}

// TestJoinAnd: lists of names as a sentence writes them.
func TestJoinAnd(t *testing.T) {
	assert.Equal(t, "a", joinAnd([]string{"a"}))
	assert.Equal(t, "a and b", joinAnd([]string{"a", "b"}))
	assert.Equal(t, "a, b and c", joinAnd([]string{"a", "b", "c"}))
}

// TestTrainSmooth: --smooth N draws the learning curves as moving
// averages of each seed's values over N iterations, and says so above the
// chart; the tables do not change.
func TestTrainSmooth(t *testing.T) {
	skipUnderRace(t)
	plain := trainTiny(t)
	smooth := trainTiny(t, "--smooth", "2")
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, read(plain, "summary.csv"), read(smooth, "summary.csv"))
	assert.NotEqual(t, read(plain, "charts/learning_reward.csv"), read(smooth, "charts/learning_reward.csv"))
	assert.Contains(t, read(smooth, "charts/charts.json"), `"stat": "IQM, 2 seeds, 2-iteration mean"`)
	assert.NotContains(t, read(plain, "charts/charts.json"), "iteration mean")
}

// TestTrainOneSeedCharts: the charts of a training over one seed say
// "1 seed", as a sweep's do, not "1 seeds".
func TestTrainOneSeedCharts(t *testing.T) {
	skipUnderRace(t)
	dir := trainTiny(t, "--seeds", "1")
	b, err := os.ReadFile(filepath.Join(dir, "charts", "charts.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"stat": "IQM, 1 seed"`)
	assert.Contains(t, string(b), `"stat": "fraction, 1 seed"`)
	assert.NotContains(t, string(b), "1 seeds")
}

// TestTrainResumesAfterAFiguresFix: a figures list that names a chart the
// training did not draw fails the command at its end and leaves the
// checkpoints; the command with the list corrected finishes from them,
// with the tables of a training that never failed. (The list is not part
// of what train.json names: it changes no number.)
func TestTrainResumesAfterAFiguresFix(t *testing.T) {
	root := t.TempDir()
	figs := filepath.Join(root, "figures")
	args := func(out, figures string) []string {
		return []string{"train", testScenario, "--out", out, "--seeds", "1", "--set", "train.iterations=3", "--set", "train.batch=2",
			"--set", "train.group=3", "--figures", figs, "--set", "figures=" + figures}
	}
	out := filepath.Join(root, "fixed")
	_, stderr, code := simulate(t, args(out, "[no_such_chart]")...)
	require.Equal(t, exitFail, code, stderr)
	assert.Contains(t, stderr, `chart "no_such_chart" was not drawn`)
	assert.DirExists(t, filepath.Join(out, train.CheckpointDir))

	_, stderr, code = simulate(t, args(out, "[learning_reward]")...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "resuming "+out)
	assert.FileExists(t, filepath.Join(figs, "tiny_learning_reward.svg"))

	whole := filepath.Join(root, "whole")
	mustSimulate(t, args(whole, "[learning_reward]")...)
	for _, name := range []string{"iterations.csv", "summary.csv", "policies/split-seed7.json"} {
		assert.Equal(t, string(readFile(t, filepath.Join(whole, name))), string(readFile(t, filepath.Join(out, name))), name)
	}
}
