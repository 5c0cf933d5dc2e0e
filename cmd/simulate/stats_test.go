package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// learningColumns maps each learning curve to the column of
// iterations.csv it aggregates over seeds.
var learningColumns = map[string]string{
	"learning_reward":      "reward_mean",
	"learning_success":     "success_rate",
	"learning_latency":     "latency_mean",
	"learning_parallelism": "parallelism_mean",
	"learning_messages":    "messages_mean",
}

// domainOf returns the values a chart's lines and bands can take.
func domainOf(chart string) (lo, hi float64) {
	switch {
	case chart == "learning_success", strings.HasPrefix(chart, "action_mix_"), strings.HasPrefix(chart, "profile_"):
		return 0, 1
	case chart == "learning_reward":
		return math.Inf(-1), math.Inf(1)
	}
	return 0, math.Inf(1)
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// TestBandsInsideTheirDomain trains with 2, 3, 5 and 20 seeds and checks
// every line chart's CSV: each band holds its line and lies inside the
// metric's domain, and each learning curve's band lies between the
// smallest and the largest seed's value at that iteration (read from
// iterations.csv), which is what "inside the domain by construction"
// means for any metric.
func TestBandsInsideTheirDomain(t *testing.T) {
	skipUnderRace(t)
	for _, seeds := range []int{2, 3, 5, 20} {
		t.Run(fmt.Sprintf("seeds=%d", seeds), func(t *testing.T) {
			out := trainTiny(t, "--seeds", strconv.Itoa(seeds))
			// variant, iteration, column -> the seeds' values
			perSeed := map[string][]float64{}
			iters := readCSV(t, filepath.Join(out, "iterations.csv"))
			for _, r := range iters[1:] {
				for c, name := range iters[0][3:] {
					c += 3 // after variant, seed and iteration
					perSeed[r[0]+"/"+r[2]+"/"+name] = append(perSeed[r[0]+"/"+r[2]+"/"+name], parse(t, r[c]))
				}
			}
			specs, err := plots.ParseSpecs("charts.json", readFile(t, filepath.Join(out, "charts", experiment.ChartIndex)))
			require.NoError(t, err)
			banded := 0
			for _, sp := range specs {
				if sp.Kind != "lines" {
					continue
				}
				lo, hi := domainOf(sp.Name)
				rows := readCSV(t, filepath.Join(out, "charts", sp.Name+".csv"))
				for _, r := range rows[1:] {
					y := parse(t, r[2])
					assert.True(t, lo <= y && y <= hi, "%s %v: line outside [%v, %v]", sp.Name, r, lo, hi)
					if r[3] == "" {
						continue
					}
					banded++
					bl, bh := parse(t, r[3]), parse(t, r[4])
					assert.True(t, lo <= bl && bl <= y && y <= bh && bh <= hi, "%s %v: band outside [%v, %v]", sp.Name, r, lo, hi)
					if col, ok := learningColumns[sp.Name]; ok {
						xs := perSeed[r[0]+"/"+r[1]+"/"+col]
						require.Len(t, xs, seeds)
						mn, mx := minMax(xs)
						assert.True(t, mn <= bl && bh <= mx, "%s %v: band outside the seeds' range [%v, %v]", sp.Name, r, mn, mx)
					}
				}
			}
			assert.Positive(t, banded, "some chart has a band")
			for name := range learningColumns {
				assert.FileExists(t, filepath.Join(out, "charts", name+".svg"), "no learning curve is left out")
			}
		})
	}
}

func minMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// The success chart is drawn at 0% and 100% for any number of episodes:
// the Wilson interval's ends are exact, so no bar has a bound on the
// wrong side of its value (the bug: at n = 30 or 300, 100% gave
// hi = 99.999...% < mean and the chart vanished).
func TestSuccessChartAtTheEnds(t *testing.T) {
	skipUnderRace(t)
	for _, n := range []int{1, 2, 3, 5, 30, 300, 1000} {
		var bars []plots.Bar
		for _, k := range []int{0, n} {
			b, ok := experiment.CIBar(fmt.Sprintf("%d of %d", k, n), stats.Wilson(k, n))
			require.True(t, ok)
			bars = append(bars, b)
		}
		_, err := plots.Bars(plots.Chart{YLabel: "success rate (fraction)"}, bars)
		assert.NoError(t, err, "n = %d", n)
	}
	// End to end at n = 30: in tiny, split never succeeds; with easy
	// parts that need no reconciling, both variants always do.
	for _, tc := range []struct {
		sets []string
		want map[string][3]string // variant -> mean, lo, hi
	}{
		{nil, map[string][3]string{"split": {"0", "0", "0.11351"}}},
		{[]string{"--set", "task.difficulty=0", "--set", "task.coupling=0"},
			map[string][3]string{"split": {"1", "0.88648", "1"}, "team": {"1", "0.88648", "1"}}},
	} {
		out := filepath.Join(t.TempDir(), "run")
		_, stderr, code := simulate(t, append([]string{"run", testScenario, "--episodes", "30", "--out", out}, tc.sets...)...)
		require.Equal(t, exitOK, code, stderr)
		assert.NotContains(t, stderr, "success_rate left out")
		rows := readCSV(t, filepath.Join(out, "charts", "success_rate.csv"))
		require.Len(t, rows, 3, "header and both variants: %v", tc.sets)
		for _, r := range rows[1:] {
			want, ok := tc.want[r[0]]
			if !ok {
				continue
			}
			assert.Equal(t, want[0], r[1], "%v %v", tc.sets, r)
			for i := 1; i < 3; i++ {
				if want[i] == "0" || want[i] == "1" {
					assert.Equal(t, want[i], r[i+1], "%v %v: ends exact", tc.sets, r)
				} else {
					assert.InDelta(t, parse(t, want[i]), parse(t, r[i+1]), 1e-5, "%v %v", tc.sets, r)
				}
			}
		}
	}
}

func TestTrainSummary(t *testing.T) {
	out := trainTiny(t, "--seeds", "3", "--charts=false") // the tables are the test
	rows := readCSV(t, filepath.Join(out, "summary.csv"))
	assert.Equal(t, []string{"variant", "metric", "unit", "n_seeds", "mean", "median", "iqm", "iqm_lo", "iqm_hi"}, rows[0][:9])
	// The success rate's IQM over seeds, computed here from
	// iterations.csv: each seed's last iteration (a tenth of three is one).
	iters := readCSV(t, filepath.Join(out, "iterations.csv"))
	var xs []float64
	for _, r := range iters[1:] {
		if r[0] == "split" && r[2] == "2" {
			xs = append(xs, parse(t, r[5]))
		}
	}
	require.Equal(t, "success_rate", iters[0][5])
	require.Len(t, xs, 3)
	found := false
	for _, r := range rows[1:] {
		if r[0] == "split" && r[1] == "success_rate" && r[14] == "learned" {
			found = true
			assert.Equal(t, "fraction", r[2])
			assert.Equal(t, "3", r[3])
			assert.InDelta(t, stats.IQM(xs), parse(t, r[6]), 1e-12)
			mn, mx := minMax(xs)
			assert.True(t, mn <= parse(t, r[7]) && parse(t, r[8]) <= mx)
		}
		if strings.HasPrefix(r[1], "latency") {
			assert.Equal(t, "s", r[2], "times in seconds")
		}
	}
	assert.True(t, found)
}

// sameCharts checks that d2 holds every chart of dir/charts with the
// same SVG, PDF and CSV bytes (PNG pixels may differ across CPUs).
func sameCharts(t *testing.T, dir, d2 string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "charts"))
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".png" {
			assert.FileExists(t, filepath.Join(d2, e.Name()))
			continue
		}
		assert.Equal(t, string(readFile(t, filepath.Join(dir, "charts", e.Name()))), string(readFile(t, filepath.Join(d2, e.Name()))), e.Name())
	}
}

// TestPlotLeavesNothingHalfDrawn: a table that cannot be drawn fails plot
// before any chart is written, into a new directory or in place.
func TestPlotLeavesNothingHalfDrawn(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--out", run, "--format", "svg")
	index := filepath.Join(run, experiment.ChartsDir, experiment.ChartIndex)
	specs, err := plots.ParseSpecs(index, readFile(t, index))
	require.NoError(t, err)
	require.Greater(t, len(specs), 1)
	bad := filepath.Join(run, experiment.ChartsDir, specs[len(specs)-1].Name+".csv") // the last drawn
	require.NoError(t, os.WriteFile(bad, []byte("a,b\n1,2,3\n"), 0o644))
	svgs := map[string]string{}
	for _, sp := range specs[:len(specs)-1] {
		name := filepath.Join(run, experiment.ChartsDir, sp.Name+".svg")
		svgs[name] = string(readFile(t, name))
	}

	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := simulate(t, "plot", run, "--out", out)
	assert.Equal(t, exitFail, code, "stderr:\n%s", stderr)
	assert.Contains(t, stderr, bad)
	assert.NoDirExists(t, out)

	// In place at another size every chart drawn would change.
	_, stderr, code = simulate(t, "plot", run, "--size", "page")
	assert.Equal(t, exitFail, code, "stderr:\n%s", stderr)
	for name, svg := range svgs {
		assert.True(t, svg == string(readFile(t, name)), "%s was redrawn", name)
	}
}

// TestPlotNamesTheLine: a number edited out of a chart's table is
// refused naming the file and the line the row starts on, counting the
// header and the lines of a quoted field; the error said "row 2", line 3
// of the file or later.
func TestPlotNamesTheLine(t *testing.T) {
	tests := []struct {
		name string
		wrap bool // the first row's first field spans two lines
		line int
	}{
		{"second row", false, 3},
		{"after a field of two lines", true, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			mustSimulate(t, "run", testScenario, "--episodes", "2", "--out", run, "--format", "svg")
			// Lines, scaling, bars and points all read a number from
			// their second column.
			numbers := func(sp plots.Spec, tab *rundir.Table) bool {
				return sp.Kind != "timeline" && sp.Kind != "heatmap" && sp.Kind != "diffmap" && len(tab.Rows) > 1
			}
			bad, table := editChart(t, run, numbers, func(tab *rundir.Table) {
				if tc.wrap {
					tab.Rows[0][0] += "\nwrapped"
				}
				tab.Rows[1][1] = "oops"
			})
			stderr := plotFails(t, run)
			chart := strings.TrimSuffix(filepath.Base(bad), ".csv")
			assert.Contains(t, stderr, fmt.Sprintf("%s:%d: chart %s: column %s: \"oops\" is not a number", bad, tc.line, chart, table.Header[1]))
		})
	}
}

// TestPlotRefusesARepeatedCell: a heat map's table with one cell's row
// given twice, in place of another cell's, is refused naming the file and
// the line of the second; it was drawn with the cell left out as 0.
func TestPlotRefusesARepeatedCell(t *testing.T) {
	sw := filepath.Join(t.TempDir(), "sweep")
	mustSimulate(t, "sweep", sweepScenario, "--set", "sweep.seeds=1", "--out", sw, "--format", "svg")
	heatMap := func(sp plots.Spec, tab *rundir.Table) bool { return sp.Kind == "heatmap" && len(tab.Rows) > 2 }
	bad, table := editChart(t, sw, heatMap, func(tab *rundir.Table) {
		// The third row, on line 4, takes the first row's x and y.
		tab.Rows[2][0], tab.Rows[2][1] = tab.Rows[0][0], tab.Rows[0][1]
	})
	stderr := plotFails(t, sw)
	chart := strings.TrimSuffix(filepath.Base(bad), ".csv")
	assert.Contains(t, stderr, fmt.Sprintf("%s:4: chart %s: x %q, y %q: an earlier row has this cell (want one row per x and y)",
		bad, chart, table.Rows[0][0], table.Rows[0][1]))
}

// editChart rewrites the table of the first chart of dir that pick takes,
// after edit, and returns its path and the table as edited.
func editChart(t *testing.T, dir string, pick func(plots.Spec, *rundir.Table) bool, edit func(*rundir.Table)) (string, *rundir.Table) {
	t.Helper()
	index := filepath.Join(dir, experiment.ChartsDir, experiment.ChartIndex)
	specs, err := plots.ParseSpecs(index, readFile(t, index))
	require.NoError(t, err)
	for _, sp := range specs {
		path := filepath.Join(dir, experiment.ChartsDir, sp.Name+".csv")
		table, err := rundir.ReadTable(path)
		require.NoError(t, err)
		if !pick(sp, table) {
			continue
		}
		edit(table)
		var b bytes.Buffer
		require.NoError(t, plots.Table{Header: table.Header, Rows: table.Rows}.WriteCSV(&b))
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
		return path, table
	}
	t.Fatalf("no chart of %s to edit", dir)
	return "", nil
}

// plotFails runs simulate plot on dir, which must fail and write nothing,
// and returns what it printed on standard error.
func plotFails(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := simulate(t, "plot", dir, "--out", out)
	assert.Equal(t, exitFail, code, "stderr:\n%s", stderr)
	assert.NoDirExists(t, out)
	return stderr
}

// TestPlotWarnsOfOtherFormats: redrawn in place in some formats, a
// directory keeps its charts' files of the others from the earlier
// drawing (at another size, say), which the report links beside the new
// ones; plot says so rather than leave them to be taken for redrawn.
func TestPlotWarnsOfOtherFormats(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--out", run)
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for no warning
	}{
		{"one format in place", []string{"--format", "svg", "--size", "page"},
			"the pdf and png files of the charts in " + filepath.Join(run, "charts") + " are from an earlier drawing (--format svg): redraw with --format svg,pdf,png to replace them"},
		{"every format in place", nil, ""},
		{"elsewhere", []string{"--format", "svg", "--out", filepath.Join(t.TempDir(), "figures")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := simulate(t, append([]string{"plot", run}, tc.args...)...)
			require.Equal(t, exitOK, code, stderr)
			if tc.want == "" {
				assert.NotContains(t, stderr, "warning")
				return
			}
			assert.Contains(t, stderr, "simulate plot: warning: "+tc.want)
		})
	}
}

func TestPlotRedrawsEveryChart(t *testing.T) {
	skipUnderRace(t)
	out := trainTiny(t)
	d2 := filepath.Join(t.TempDir(), "d2")
	stdout := mustSimulate(t, "plot", out, "--out", d2)
	assert.Contains(t, stdout, "drew 19 charts", "8 learning curves, 1 action mix (team trains as split), 2 profiles, 8 final bars")
	sameCharts(t, out, d2)

	// Run directories (bars and timelines) and sweeps (lines and heat
	// maps) too.
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "4", "--out", run)
	sweepDir := filepath.Join(t.TempDir(), "sweep")
	mustSimulate(t, "sweep", sweepScenario, "--out", sweepDir)
	for _, dir := range []string{run, sweepDir} {
		d := filepath.Join(t.TempDir(), "redrawn")
		mustSimulate(t, "plot", dir, "--out", d)
		sameCharts(t, dir, d)
	}

	d3 := filepath.Join(t.TempDir(), "d3")
	mustSimulate(t, "plot", out, "--out", d3, "--size", "page", "--format", "pdf")
	assert.FileExists(t, filepath.Join(d3, "learning_reward.pdf"))
	assert.NoFileExists(t, filepath.Join(d3, "learning_reward.svg"))
	assert.NotEqual(t, readFile(t, filepath.Join(out, "charts", "learning_reward.pdf")), readFile(t, filepath.Join(d3, "learning_reward.pdf")), "another size")

	fit := filepath.Join(t.TempDir(), "fit")
	mustSimulate(t, "fit", "../../calibrate/testdata/multiagent.otlp.json", "--out", fit)
	shards := filepath.Join(t.TempDir(), "shards")
	mustSimulate(t, "sweep", sweepScenario, "--shard", "1/2", "--out", shards)
	shard := filepath.Join(shards, "shard-1-of-2")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", out, "--format", "gif"}, `"gif" is not one of png, svg and pdf`},
		{[]string{"plot", out, "--format", "pdf,svg,pdf"}, "--format pdf,svg,pdf: pdf is listed twice"},
		{[]string{"plot", out, "--size", "poster"}, "want column, page or tall"},
		{[]string{"plot", t.TempDir()}, "not a complete run directory"},
		{[]string{"plot", trainTiny(t, "--charts=false")}, "written with --charts=false"},
		// plot has no --force, and its error says nothing of one.
		{[]string{"plot", out, "--out", out}, "--out " + out + " holds a complete directory (manifest.json), which plot does not write into; choose another --out"},
		{[]string{"plot", out, "--out", filepath.Join(run, "charts")}, "--out " + filepath.Join(run, "charts") + " holds the charts of the complete directory " + run + ", which plot would replace with those of " + out},
		{[]string{"plot", fit}, fit + " is a fit directory, whose CDF charts have no index to redraw them from"},
		{[]string{"plot", shard}, shard + " is one shard's table, drawn without charts: plot the directory 'simulate merge' writes from the shards"},
	} {
		_, stderr, code := simulate(t, tc.args...)
		assert.NotEqual(t, exitOK, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	// A directory's own charts, however spelled, are its to redraw: in
	// place, the same bytes.
	own := filepath.Join(run, "charts", "finish_time.svg")
	before := readFile(t, own)
	mustSimulate(t, "plot", run, "--out", filepath.Join(run, "charts")+"/")
	assert.Equal(t, before, readFile(t, own))
}

func TestCompare(t *testing.T) {
	skipUnderRace(t)
	a := trainTiny(t, "--seeds", "3")
	b := trainTiny(t, "--seeds", "3", "--set", "train.std_norm=true")
	cmp := filepath.Join(t.TempDir(), "cmp")
	stdout := mustSimulate(t, "compare", a, b, "--out", cmp)
	rows := readCSV(t, filepath.Join(cmp, "compare.csv"))
	checkDefaultView(t, stdout, rows)
	assert.Len(t, checkCompareTable(t, mustSimulate(t, "compare", a, b, "--out", cmp, "--force", "--all")), len(rows)-1, "--all shows every row")
	assert.Equal(t, []string{"variant", "metric", "a", "b", "diff", "diff_lo", "diff_hi", "prob_improvement"}, rows[0][:8])
	assert.FileExists(t, filepath.Join(cmp, "charts", "diff_reward_mean.svg"))
	variants := map[string]bool{}
	for _, r := range rows[1:] {
		variants[r[0]] = true
		av, bv, d, lo, hi, p := parse(t, r[2]), parse(t, r[3]), parse(t, r[4]), parse(t, r[5]), parse(t, r[6]), parse(t, r[7])
		assert.InDelta(t, bv-av, d, 1e-9*math.Max(1, math.Abs(d)), "%v", r)
		assert.True(t, lo <= hi, "%v", r)
		assert.True(t, 0 <= p && p <= 1, "%v", r)
		assert.Equal(t, "false", r[12], "seeds of two trainings are not paired")
	}
	assert.Equal(t, map[string]bool{"split": true}, variants, "team trains as split does: once")

	// A run against itself: paired, no difference, even odds.
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "6", "--charts=false", "--out", run)
	self := filepath.Join(t.TempDir(), "self")
	mustSimulate(t, "compare", run, run, "--out", self)
	for _, r := range readCSV(t, filepath.Join(self, "compare.csv"))[1:] {
		assert.Equal(t, "0", r[4], "%v", r)
		assert.Equal(t, "0.5", r[7], "%v", r)
		assert.Equal(t, "true", r[12], "%v", r)
	}

	orgs := filepath.Join(t.TempDir(), "orgs")
	mustSimulate(t, "run", "organizations", "--episodes", "2", "--charts=false", "--out", orgs)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a, run}, "compare two of the same kind"},
		// Said before asking for --any-scenario, which would not help.
		{[]string{"compare", a, orgs}, "compare two of the same kind"},
		{[]string{"compare", a}, "want two directories"},
		// --force would replace an input with the comparison.
		{[]string{"compare", run, run, "--out", run, "--force"}, "--out " + run + " is the directory " + run + ", which compare reads"},
		{[]string{"compare", run, run, "--out", run + "/", "--force"}, "--out " + run + "/ is the directory " + run + ", which compare reads"},
	} {
		_, stderr, code := simulate(t, tc.args...)
		assert.NotEqual(t, exitOK, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want)
		assert.Equal(t, rundir.KindRun, readManifest(t, run).Kind, "%v leaves the run", tc.args)
		assert.FileExists(t, filepath.Join(run, "episodes.csv"), "%v leaves the run", tc.args)
	}
	other := filepath.Join(t.TempDir(), "other")
	mustSimulate(t, "run", "organizations", "--episodes", "2", "--charts=false", "--out", other)
	_, stderr, code := simulate(t, "compare", run, other)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, stderr, "give --any-scenario")
	mustSimulate(t, "compare", run, other, "--any-scenario", "--out", filepath.Join(t.TempDir(), "any"))
}

// Two sweeps of one scenario (the second with a lower cost weight)
// compare point by point, and their summaries hold IQMs over seeds.
func TestCompareSweeps(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	mustSimulate(t, "sweep", sweepScenario, "--charts=false", "--out", a)
	mustSimulate(t, "sweep", sweepScenario, "--charts=false", "--set", "reward.cost=0.25", "--out", b)

	sum := readCSV(t, filepath.Join(a, "summary.csv"))
	assert.Equal(t, []string{"variant", "reward.latency", "task.coupling", "train.lr", "metric", "unit", "n_seeds", "mean", "median", "iqm", "iqm_lo", "iqm_hi"}, sum[0][:12])
	assert.Len(t, sum, 1+6*5, "6 points × 5 metrics")
	for _, r := range sum[1:] {
		assert.Equal(t, "2", r[6], "%v", r)
		lo, iqm, hi := parse(t, r[10]), parse(t, r[9]), parse(t, r[11])
		assert.True(t, lo <= iqm && iqm <= hi, "%v", r)
	}

	cmp := filepath.Join(t.TempDir(), "cmp")
	_, stderr, code := simulate(t, "compare", a, b, "--out", cmp, "--format", "svg")
	require.Equal(t, exitOK, code, stderr)
	// The points' long labels take a larger chart than a column, not a
	// warning that the charts were left out.
	assert.Empty(t, stderr)
	for _, m := range []string{"reward_mean", "success_rate", "parallelism_mean"} {
		assert.FileExists(t, filepath.Join(cmp, "charts", "diff_"+m+".svg"))
	}
	rows := readCSV(t, filepath.Join(cmp, "compare.csv"))
	// Every point matches: the random axis (train.lr) draws the same
	// values in both, from the same seed.
	require.Len(t, rows, 1+6*5, "6 points × 5 metrics")
	for _, r := range rows[1:] {
		assert.Contains(t, r[0], "default @ reward.latency=")
		assert.Equal(t, "2", r[10], "two seeds in A: %v", r)
	}

	// A shard's own table, and a table cut at a row's end, are refused.
	shards := filepath.Join(t.TempDir(), "shards")
	mustSimulate(t, "sweep", sweepScenario, "--charts=false", "--shard", "0/2", "--out", shards)
	shard := filepath.Join(shards, "shard-0-of-2")
	trials := filepath.Join(b, "trials.csv")
	table := readFile(t, trials)
	require.NoError(t, os.WriteFile(trials, table[:bytes.LastIndexByte(table[:len(table)-1], '\n')+1], 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a, shard}, shard + " is one shard's table, without the sweep's sweep.json: compare the directory 'simulate merge' writes from the shards"},
		{[]string{"compare", a, b}, trials + ": 11 trials, and the manifest lists 12 trial records: the file was cut short or edited"},
	} {
		// Under the test's own directory, not the default out/ of the
		// working directory, should the comparison not fail.
		_, stderr, code := simulate(t, append(tc.args, "--out", filepath.Join(t.TempDir(), "cmp"))...)
		assert.Equal(t, exitFail, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}

// skipUnderRace skips a test of charts and statistics under the race
// detector, which makes its trainings and its 300 DPI PNGs some
// fifteen times slower: the test has no concurrency of its own (the
// commands' workers, the charts drawn side by side included, are
// race-tested by TestTrainWritesEverything, TestRunWritesAllFiles and
// TestSweepDeterministicAcrossWorkersAndShards), and the plain pass of CI
// runs it in full.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("chart and statistics logic without concurrency of its own; run without -race")
	}
}
