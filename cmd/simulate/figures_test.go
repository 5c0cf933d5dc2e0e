package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
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

// TestFiguresRejectsAChartNotDrawn: a name in figures that is none of the
// charts a run draws is an error at the place that wrote it (the file's
// line and column, or the --set), before anything runs; a chart that a run
// may draw but this one did not (call_latency, without a shared server)
// fails the copy alone, and the run stays.
func TestFiguresRejectsAChartNotDrawn(t *testing.T) {
	file := withFigures(t, "[finish_time, no_such_chart]")
	lines := strings.Split(string(readFile(t, file)), "\n")
	line := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "figures:") })
	require.GreaterOrEqual(t, line, 0)
	inFile := fmt.Sprintf("%s:%d:%d: figures[1]", file, line+1, strings.Index(lines[line], "no_such_chart")+1)
	for _, tc := range []struct {
		args  []string
		place string
	}{
		{[]string{file}, inFile},
		{[]string{testScenario, "--set", "figures=[finish_time, no_such_chart]"}, "--set figures=[finish_time, no_such_chart]: figures[1]"},
	} {
		figs := filepath.Join(t.TempDir(), "figures")
		out := filepath.Join(t.TempDir(), "run")
		_, stderr, code := simulate(t, append(append([]string{"run"}, tc.args...), "--out", out, "--episodes", "2", "--figures", figs)...)
		assert.NotEqual(t, exitOK, code)
		assert.Contains(t, stderr, tc.place+`: chart "no_such_chart" is not a chart that simulate run draws (its charts: finish_time, success_rate, agent_time, call_latency, timeline_`)
		assert.NoDirExists(t, figs, "nothing is copied when a name is wrong")
		assert.NoDirExists(t, out, "nothing ran")
	}
	// A name one edit from a chart is suggested.
	_, stderr, code := simulate(t, "run", testScenario, "--set", "figures=[succes_rate]", "--out", filepath.Join(t.TempDir(), "run"), "--episodes", "2", "--figures", filepath.Join(t.TempDir(), "figures"))
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, stderr, `chart "succes_rate" is not a chart`)
	assert.Contains(t, stderr, `; did you mean "success_rate"?`)

	figs := filepath.Join(t.TempDir(), "figures")
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code = simulate(t, "run", testScenario, "--set", "figures=[call_latency]", "--out", out, "--episodes", "2", "--figures", figs)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, stderr, `--set figures=[call_latency]: figures[0]: chart "call_latency" was not drawn by this run (drawn: agent_time, finish_time, success_rate, timeline_`)
	assert.FileExists(t, filepath.Join(out, "manifest.json"), "the run stays")
	assert.NoDirExists(t, figs)
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

// TestFiguresFolder: a --figures that names a file, a folder below a
// file, or a directory of results, is refused before anything runs: the run's work would be lost
// at the copy, or its figures mixed with the results.
func TestFiguresFolder(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--out", results)
	file := filepath.Join(t.TempDir(), "figs.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct{ figs, want string }{
		{file, "--figures " + file + " is a file: want a folder for the figure files"},
		{results, "--figures " + results + " holds results (manifest.json): want a folder of figures, such as docs/figures"},
		// A folder to make below a file failed at the copy, after the run.
		{filepath.Join(file, "a", "b"), "--figures " + filepath.Join(file, "a", "b") + ": " + file + " is a file, which cannot hold a folder"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		_, stderr, code := simulate(t, "run", testScenario, "--episodes", "2", "--out", out, "--figures", tc.figs)
		assert.Equal(t, exitFail, code)
		assert.Contains(t, stderr, tc.want)
		assert.NoDirExists(t, out, "nothing ran")
	}
}

// TestSetFiguresNeedsFigures: without --figures nothing reads the figures
// list, so a --set of it is refused before anything runs; with --figures
// the same --set is read (the chart it names must have been drawn).
func TestSetFiguresNeedsFigures(t *testing.T) {
	for _, args := range [][]string{
		{"run", testScenario, "--episodes", "2", "--set", "figures=[finish_time]"},
		{"train", testScenario, "--seeds", "1", "--set", "figures[0]=learning"},
		{"sweep", "pressure-sweep", "--set", "figures=[phase]"},
	} {
		t.Run(args[0], func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			_, stderr, code := simulate(t, append(args, "--out", out)...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, "simulate "+args[0]+": --set "+args[len(args)-1]+": the figures list names the charts that --figures copies, and no --figures DIR is given")
			assert.NoDirExists(t, out)
		})
	}
	figs := filepath.Join(t.TempDir(), "figs")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--set", "figures=[finish_time]", "--figures", figs, "--out", filepath.Join(t.TempDir(), "out"))
	assert.FileExists(t, filepath.Join(figs, testScenario+"_finish_time.svg"))
}

// TestFiguresNameTheWork: the error of a figure not drawn names the work
// that drew the others, a sweep's or a training's as well as a run's.
func TestFiguresNameTheWork(t *testing.T) {
	dir, err := rundir.Create(filepath.Join(t.TempDir(), "out"), false)
	require.NoError(t, err)
	defer dir.Abort()
	require.NoError(t, dir.Mkdir(experiment.ChartsDir))
	require.NoError(t, dir.Write(experiment.ChartsDir+"/heatmap.svg", []byte("<svg/>")))
	sc, err := scenarios.Load(testScenario, []string{"figures=[heatmp_x]"})
	require.NoError(t, err)
	for _, what := range []string{"run", "sweep", "training"} {
		_, err := exportFigures(dir, sc, filepath.Join(t.TempDir(), "figs"), what)
		assert.ErrorContains(t, err, `figures[0]: chart "heatmp_x" was not drawn by this `+what+" (drawn: heatmap)")
	}
}
