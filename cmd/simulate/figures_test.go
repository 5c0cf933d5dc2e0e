package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/rundir"
)

// withFigures writes a copy of the test scenario that lists figures.
func withFigures(t *testing.T, list string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "library", testScenario+".yaml"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "fig.yaml")
	require.NoError(t, os.WriteFile(path, append(b, []byte("\nfigures: "+list+"\n")...), 0o644))
	return path
}

func TestFiguresCopiesTheListedCharts(t *testing.T) {
	skipUnderRace(t)
	figs := filepath.Join(t.TempDir(), "figures")
	out := filepath.Join(t.TempDir(), "train")
	mustSimulate(t, "train", withFigures(t, "[learning_reward, final_parallelism]"), "--out", out, "--seeds", "2",
		"--set", "train.iterations=3", "--set", "train.batch=2", "--set", "train.group=3", "--figures", figs)
	entries, err := os.ReadDir(figs)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	name := testScenario // the scenario's name field, not the file's
	assert.ElementsMatch(t, []string{
		name + "_learning_reward.svg", name + "_learning_reward.png", name + "_learning_reward.csv",
		name + "_final_parallelism.svg", name + "_final_parallelism.png", name + "_final_parallelism.csv",
	}, names)
	a, err := os.ReadFile(filepath.Join(out, "charts", "learning_reward.csv"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(figs, name+"_learning_reward.csv"))
	require.NoError(t, err)
	assert.Equal(t, a, b, "the copy is the run's chart")
}

func TestFiguresRejectsAChartNotDrawn(t *testing.T) {
	figs := filepath.Join(t.TempDir(), "figures")
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := simulate(t, "run", withFigures(t, "[finish_time, no_such_chart]"), "--out", out, "--episodes", "2", "--figures", figs)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, stderr, `figures[1]: chart "no_such_chart" was not drawn`)
	assert.Contains(t, stderr, "finish_time", "the error lists what was drawn")
	assert.NoDirExists(t, figs, "nothing is copied when a name is wrong")
	assert.NoFileExists(t, filepath.Join(out, rundir.ManifestName), "the run is not left looking complete")
}

// TestFiguresNeedCharts: --figures with --charts=false is refused before
// anything runs or is written.
func TestFiguresNeedCharts(t *testing.T) {
	for _, args := range [][]string{
		{"run", testScenario, "--episodes", "2"},
		{"train", testScenario, "--seeds", "1"},
		{"sweep", "pressure-sweep"},
	} {
		t.Run(args[0], func(t *testing.T) {
			out, figs := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "figs")
			_, stderr, code := simulate(t, append(args, "--out", out, "--charts=false", "--figures", figs)...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, "simulate "+args[0]+": --figures "+figs+" copies charts, and --charts=false draws none")
			assert.NoDirExists(t, out)
			assert.NoDirExists(t, figs)
		})
	}
}
