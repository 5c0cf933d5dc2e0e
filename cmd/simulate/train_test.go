package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/scenarios"
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

func TestTrainWritesEverything(t *testing.T) {
	out := trainTiny(t)
	m := readManifest(t, out)
	for _, f := range m.Files {
		assert.FileExists(t, filepath.Join(out, f))
	}
	for _, f := range []string{"iterations.csv", "policies/split-seed7.json", "policies/team-seed8.json", "charts/learning_reward.svg", "charts/action_mix_team.png"} {
		assert.Contains(t, m.Files, f)
	}
	assert.Equal(t, 2, m.Seeds)

	rows := readCSV(t, filepath.Join(out, "iterations.csv"))
	assert.Len(t, rows, 1+2*2*3, "header, then variants × seeds × iterations")
	for _, col := range []string{"variant", "seed", "iteration", "reward_mean", "success_rate", "latency_mean", "latency_p90",
		"parallelism_mean", "messages_mean", "model_calls_mean", "entropy", "prob_work", "prob_delegate", "prob_submit"} {
		assert.Contains(t, rows[0], col)
	}

	// The policy file is one that run evaluates.
	f, err := os.Open(filepath.Join(out, "policies/team-seed7.json"))
	require.NoError(t, err)
	defer f.Close()
	_, err = policy.Load(f, "team-seed7.json")
	require.NoError(t, err)
	runOut := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "3", "--charts=false", "--out", runOut,
		"--policy", filepath.Join(out, "policies/team-seed7.json"))
}

func TestTrainGoldenAndWorkers(t *testing.T) {
	one := trainTiny(t, "--workers", "1", "--charts=false")
	two := trainTiny(t, "--workers", "2", "--charts=false")
	a, err := os.ReadFile(filepath.Join(one, "iterations.csv"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(two, "iterations.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b), "1 and 2 workers give the same table")
	for _, p := range []string{"policies/split-seed7.json", "policies/team-seed8.json"} {
		pa, _ := os.ReadFile(filepath.Join(one, p))
		pb, _ := os.ReadFile(filepath.Join(two, p))
		assert.Equal(t, string(pa), string(pb), p)
	}
	goldenTable(t, "tiny_iterations.csv.golden", a)
}

func TestTrainBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"train", testScenario, "--seeds", "0"},
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
}

// TestTrainAlike: the variants that differ only in their policy section
// are the ones training cannot tell apart.
func TestTrainAlike(t *testing.T) {
	const head = "task: {shape: fork-join, width: 4, stages: 1, work: 5m}\ncollective: {agents: 4}\npolicy: {organization: split}\nvariants:\n"
	tests := []struct {
		name, scenario string
		src            string
		want           [][]string
	}{
		{"tiny", testScenario, "", [][]string{{"split", "team"}}},
		{"organizations", "organizations", "", [][]string{{"sequential", "independent", "team"}}},
		{"latency pressure", "latency-pressure", "", nil},
		{"two groups and one apart", "", head + "  - {name: a}\n  - {name: b, set: {collective.agents: 8}}\n  - {name: c, set: {policy.organization: team}}\n  - {name: d, set: {collective.agents: 8, policy.organization: sequential}}\n  - {name: e, set: {train.lr: 0.2}}\n",
			[][]string{{"a", "c"}, {"b", "d"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sc *scenarios.Scenario
			var err error
			if tt.src != "" {
				sc, err = scenarios.Parse([]byte(tt.src), "x.yaml", nil)
			} else {
				sc, err = scenarios.Load(tt.scenario, nil)
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, trainAlike(sc.Variants))
		})
	}
	assert.Equal(t, "a", joinAnd([]string{"a"}))
	assert.Equal(t, "a and b", joinAnd([]string{"a", "b"}))
	assert.Equal(t, "a, b and c", joinAnd([]string{"a", "b", "c"}))
}
