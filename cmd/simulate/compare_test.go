package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// TestWithCISig checks that a cell of the sweep, train-comparison and
// compare tables uses one format for its value and bounds: plain decimals
// for numbers a person reads as plain, scientific only for the truly tiny
// or huge, never the two mixed (issue 26, item 7).
func TestWithCISig(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		iv   stats.Interval
		want string
	}{
		{stats.Interval{Value: 8494, Lo: 4107, Hi: 10287}, "8494 [4107, 10287]"},
		{stats.Interval{Value: 757310, Lo: 522883, Hi: 1015221}, "757310 [522883, 1015221]"},
		{stats.Interval{Value: 0.17, Lo: 0.12, Hi: 0.2}, "0.170 [0.120, 0.200]"},
		{stats.Interval{Value: 8.6, Lo: -120.25, Hi: 130}, "9 [-120, 130]"},
		{stats.Interval{Value: 0, Lo: 0, Hi: 0}, "0 [0, 0]"},
		{stats.Interval{Value: 3e-5, Lo: 1e-5, Hi: 5e-5}, "3.00e-05 [1.00e-05, 5.00e-05]"},
		{stats.Interval{Value: 0, Lo: 0, Hi: 5e-4}, "0 [0, 5.00e-04]"},
		{stats.Interval{Value: 0.1, Lo: 0, Hi: 0.2}, "0.100 [0.000, 0.200]"},
		{stats.Interval{Value: 0, Lo: math.Copysign(0, -1), Hi: 3e-4}, "0 [0, 3.00e-04]"},
		{stats.Interval{Value: 2e12, Lo: 1.5e12, Hi: 2.5e12}, "2.00e+12 [1.50e+12, 2.50e+12]"},
		// No zero has a sign, exact or rounded: "-0" reads as a small
		// negative number, which it is not.
		{stats.Interval{Value: math.Copysign(0, -1), Lo: math.Copysign(0, -1), Hi: math.Copysign(0, -1)}, "0 [0, 0]"},
		{stats.Interval{Value: -0.0004, Lo: -0.2, Hi: 0.19}, "0.000 [-0.200, 0.190]"},
		{stats.Interval{Value: 42.5, Lo: nan, Hi: nan}, "42.5"},
		{stats.Interval{Value: nan}, "–"},
		// A value or bound that rounds to zero reads 0, never -0.000.
		{stats.Interval{Value: -0.0004, Lo: -0.451, Hi: 0.449}, "0.000 [-0.451, 0.449]"},
		{stats.Interval{Value: -0.004, Lo: -72.5, Hi: 69.25}, "0.0 [-72.5, 69.2]"},
		{stats.Interval{Value: 3.5, Lo: -0.002, Hi: 7.25}, "3.50 [0.00, 7.25]"},
		{stats.Interval{Value: -0.3, Lo: nan, Hi: nan}, "-0.300"},
	} {
		if got := withCISig(tc.iv); got != tc.want {
			t.Errorf("withCISig(%v, %v, %v) = %q, want %q", tc.iv.Value, tc.iv.Lo, tc.iv.Hi, got, tc.want)
		}
	}
}

// TestWithCI checks the fixed-decimals cells of the run and training
// tables: a value or bound that rounds to zero at those decimals reads 0,
// never -0.00, which a reader takes for a negative number.
func TestWithCI(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		iv   stats.Interval
		prec int
		want string
	}{
		{stats.Interval{Value: 0.25, Lo: 0.125, Hi: 0.375}, 2, "0.25 [0.12, 0.38]"},
		{stats.Interval{Value: -0.001, Lo: -0.02, Hi: 0.01}, 2, "0.00 [-0.02, 0.01]"},
		{stats.Interval{Value: -0.4, Lo: -0.4, Hi: 0.2}, 0, "0 [0, 0]"},
		{stats.Interval{Value: -0.001, Lo: nan, Hi: nan}, 2, "0.00"},
		{stats.Interval{Value: -1.5, Lo: nan, Hi: nan}, 1, "-1.5"},
		{stats.Interval{Value: nan}, 2, "–"},
	} {
		if got := withCI(tc.iv, tc.prec); got != tc.want {
			t.Errorf("withCI(%v, %v, %v; %d) = %q, want %q", tc.iv.Value, tc.iv.Lo, tc.iv.Hi, tc.prec, got, tc.want)
		}
	}
}

// compareTable is compare's table on the terminal, read back: a map of
// each column's head to its cell, per row.
func compareTable(t *testing.T, stdout string) []map[string]string {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "variant  ") })
	require.GreaterOrEqual(t, start, 0, "no table:\n%s", stdout)
	// tabwriter pads in runes; a cell starts where its head does.
	header := []rune(lines[start])
	heads := []string{"variant", "metric", "better", "A", "B", "B − A [95% CI]", headBetter, headLarger}
	cols := []int{0} // variant
	for _, h := range heads[1:] {
		i := strings.Index(string(header), "  "+h+"  ")
		if i < 0 {
			cols = append(cols, -1) // P(B > A) may be left out
			continue
		}
		cols = append(cols, utf8.RuneCountInString(string(header)[:i])+2)
	}
	var rows []map[string]string
	for _, l := range lines[start+1:] {
		if l == "" || strings.HasPrefix(l, "not shown: ") {
			break
		}
		line := []rune(l)
		row := map[string]string{}
		for k, h := range heads {
			if cols[k] < 0 {
				continue
			}
			end := len(line)
			for _, c := range cols[k+1:] {
				if c >= 0 {
					end = min(c, len(line))
					break
				}
			}
			row[h] = strings.TrimSpace(string(line[min(cols[k], len(line)):end]))
		}
		rows = append(rows, row)
	}
	return rows
}

// checkCompareTable checks compare's table on the terminal: every row's
// direction is the metric's in the table of metrics, and its probability
// stands under the head that says what it is, P(B better) where the
// metric has a direction and P(B > A) where it has none (issue 26, item
// 1). It returns the rows.
func checkCompareTable(t *testing.T, stdout string) []map[string]string {
	t.Helper()
	rows := compareTable(t, stdout)
	require.NotEmpty(t, rows, stdout)
	for _, r := range rows {
		m := metric.Of(r["metric"])
		assert.Equal(t, string(m.Better), r["better"], "direction of %s", r["metric"])
		want, other := headBetter, headLarger
		if m.Better == metric.None {
			want, other = other, want
		}
		p, err := strconv.ParseFloat(r[want], 64)
		if assert.NoError(t, err, "%s: %s: %q", r["metric"], want, r[want]) {
			assert.True(t, 0 <= p && p <= 1, "%s: %s %v", r["metric"], want, p)
		}
		assert.Empty(t, r[other], "%s (better %s) has no %s", r["metric"], m.Better, other)
	}
	return rows
}

// checkDefaultView checks compare's table in its default view against
// compare.csv's rows (with their header): only main metrics, no constant
// row, and a line that counts the rows left out, which with the rows
// shown make every row of the file.
func checkDefaultView(t *testing.T, stdout string, csv [][]string) {
	t.Helper()
	shown := checkCompareTable(t, stdout)
	for _, r := range shown {
		_, main := metric.Main(r["metric"])
		assert.True(t, main, "%s is no main metric", r["metric"])
		assert.NotEqual(t, "0 [0, 0]", r["B − A [95% CI]"], "a constant row: %v", r)
	}
	left := 0
	if _, line, ok := strings.Cut(stdout, "\nnot shown: "); ok {
		line, _, _ = strings.Cut(line, "\n")
		counts := regexp.MustCompile(`(\d+) (constant rows?|rows? of other metrics)`).FindAllStringSubmatch(line, -1)
		require.NotEmpty(t, counts, line)
		for _, c := range counts {
			n, err := strconv.Atoi(c[1])
			require.NoError(t, err)
			assert.Positive(t, n, "a count of 0 is not printed: %s", line)
			left += n
		}
	}
	assert.Equal(t, len(csv)-1, len(shown)+left, "rows shown and left out:\n%s", stdout)
}

// TestCompareVariants compares two variants of one run directory, paired
// episode by episode (issue 26, item 3), into a directory like that of
// two directories; names that are not two of the run's variants are
// errors that name the flag and list the variants.
func TestCompareVariants(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", testEpisodes, "--charts=false", "--out", run)
	out := filepath.Join(t.TempDir(), "variants")
	stdout := mustSimulate(t, "compare", run, "--variants", "team,split", "--out", out, "--format", "svg")
	assert.Contains(t, stdout, "A = variant team of "+run+"\nB = variant split of "+run+", paired episode by episode\n")
	rows := readCSV(t, filepath.Join(out, "compare.csv"))
	checkDefaultView(t, stdout, rows)
	require.Len(t, rows, 1+10, "the ten metrics of a run")
	for _, r := range rows[1:] {
		assert.Equal(t, "team vs split", r[0], "%v", r)
		assert.Equal(t, []string{testEpisodes, testEpisodes, "true"}, r[10:13], "n_a, n_b, paired: %v", r)
	}
	assert.FileExists(t, filepath.Join(out, "charts", "diff_reward.svg"))
	m := readManifest(t, out)
	assert.Equal(t, rundir.KindCompare, m.Kind)
	assert.Equal(t, "variant team (A) against variant split (B) of "+run, m.Description)

	// The same figures as the two variants' rows of episodes.csv, paired
	// by hand: the mean finish time of each and the mean of the
	// differences.
	eps := readCSV(t, filepath.Join(run, "episodes.csv"))
	var team, split []float64
	for _, r := range eps[1:] {
		x := parse(t, r[2]) // finish_time
		if r[0] == "team" {
			team = append(team, x)
		} else {
			split = append(split, x)
		}
	}
	require.Len(t, team, len(split))
	var diff float64
	for i := range team {
		diff += (split[i] - team[i]) / float64(len(team))
	}
	for _, r := range rows[1:] {
		if r[1] == "finish_time" {
			assert.InDelta(t, stats.Mean(team), parse(t, r[2]), 1e-9)
			assert.InDelta(t, stats.Mean(split), parse(t, r[3]), 1e-9)
			assert.InDelta(t, diff, parse(t, r[4]), 1e-9)
		}
	}

	train := trainTiny(t, "--charts=false")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", run, "--variants", "team,singel"}, "--variants team,singel: " + run + ` has no variant "singel" (its variants: split, team)`},
		{[]string{"compare", run, "--variants", "team"}, "--variants team: want two variants of the run, as A,B"},
		{[]string{"compare", run, "--variants", ""}, `--variants "": want two variants of the run, as A,B`},
		{[]string{"compare", run, "--variants", ",team"}, "--variants ,team: want two variants"},
		{[]string{"compare", run, "--variants", "team,split,team"}, "--variants team,split,team: want two variants"},
		{[]string{"compare", run, "--variants", "team,team"}, "--variants team,team: variant team is named twice"},
		{[]string{"compare", run, run, "--variants", "team,split"}, "--variants compares two variants of one run directory: want one directory, got 2 arguments"},
		{[]string{"compare", train, "--variants", "team,split"}, "--variants team,split: " + train + " is a train directory"},
		{[]string{"compare", run, "--variants", "team,split", "--any-scenario"}, "--any-scenario is for two directories"},
		{[]string{"compare", run, "--variants", "team,split", "--out", run, "--force"}, "--out " + run + " is the directory " + run + ", which compare reads"},
	} {
		_, stderr, code := simulate(t, append(tc.args, "--charts=false")...)
		assert.NotEqual(t, exitOK, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	assert.FileExists(t, filepath.Join(run, "episodes.csv"), "the run is left as it was")
	for _, r := range rows[1:] {
		if r[1] == "reward" {
			assert.Equal(t, "higher", r[9], "team and split score one reward")
		}
	}

	// Variants that weigh latency differently score two objectives: their
	// rewards differ, and neither is better.
	weights := filepath.Join(t.TempDir(), "weights.yaml")
	require.NoError(t, os.WriteFile(weights, []byte("name: weights\nseed: 3\nepisodes: 6\ntask: {shape: fork-join, width: 3, stages: 1, work: exp(5m)}\n"+
		"collective: {agents: 3, time_limit: 2h}\npolicy: {organization: split}\nreward: {penalty: linear}\n"+
		"variants:\n  - {name: low, set: {reward.latency: 0.1}}\n  - {name: high, set: {reward.latency: 2}}\n"), 0o644))
	run = filepath.Join(t.TempDir(), "weights")
	mustSimulate(t, "run", weights, "--charts=false", "--out", run)
	out = filepath.Join(t.TempDir(), "variants")
	mustSimulate(t, "compare", run, "--variants", "low,high", "--charts=false", "--out", out)
	for _, r := range readCSV(t, filepath.Join(out, "compare.csv"))[1:] {
		switch r[1] {
		case "reward":
			assert.Equal(t, "none", r[9], "the reward of two objectives: %v", r)
			require.Less(t, parse(t, r[6]), 0.0, "the test needs high's reward to be lower: %v", r)
		case "finish_time":
			assert.Equal(t, "lower", r[9])
		}
	}
	assert.Equal(t, "variant low (A) against variant high (B) of "+run+"; the reward is neither better nor worse, as the variants set reward.latency differently", readManifest(t, out).Description)
	table := mustSimulate(t, "table", "--format", "markdown", out)
	assert.Regexp(t, `\| low vs high \| reward \| none \| [^|]+ \| [^|]+ \| [^|]+ \| – \| \S+ \|`, table, "P(B > A), not P(B better)")
}

// TestCompareDirectoriesOfTwoObjectives: two runs whose reward sections
// differ (another latency weight) score two objectives: their rewards
// differ without either being better, and the description says so; two
// runs of one reward section compare rewards as usual.
func TestCompareDirectoriesOfTwoObjectives(t *testing.T) {
	runOf := func(latency string) string {
		dir := filepath.Join(t.TempDir(), "w"+latency)
		mustSimulate(t, "run", testScenario, "--episodes", testEpisodes, "--charts=false", "--out", dir,
			"--set", "reward.penalty=linear", "--set", "reward.latency="+latency)
		return dir
	}
	a, b, c := runOf("0.5"), runOf("2"), runOf("0.5")
	for _, tc := range []struct {
		b, better, note string
	}{
		{b, "none", "; the reward of split and team is neither better nor worse, as A and B score it differently (their reward sections or time limits differ)"},
		{c, "higher", ""},
	} {
		out := filepath.Join(t.TempDir(), "cmp")
		mustSimulate(t, "compare", a, tc.b, "--charts=false", "--out", out)
		n := 0
		for _, r := range readCSV(t, filepath.Join(out, "compare.csv"))[1:] {
			if r[1] == "reward" {
				assert.Equal(t, tc.better, r[9], "%v", r)
				n++
			}
		}
		assert.Equal(t, 2, n, "a reward row per variant")
		assert.Equal(t, a+" (A) against "+tc.b+" (B)"+tc.note, readManifest(t, out).Description)
	}

	// A sweep's rows are its variants' points.
	sweepOf := func(latency string) string {
		dir := filepath.Join(t.TempDir(), "s"+latency)
		mustSimulate(t, "sweep", testScenario, "--variant", "team", "--charts=false", "--out", dir, "--set", "episodes=2",
			"--set", "sweep={command: run, grid: {collective.agents: [2, 3]}}", "--set", "reward.penalty=linear", "--set", "reward.latency="+latency)
		return dir
	}
	out := filepath.Join(t.TempDir(), "cmp")
	mustSimulate(t, "compare", sweepOf("0.5"), sweepOf("2"), "--charts=false", "--out", out)
	n := 0
	for _, r := range readCSV(t, filepath.Join(out, "compare.csv"))[1:] {
		if r[1] == "reward_mean" {
			assert.Equal(t, "none", r[9], "%v", r)
			n++
		}
	}
	assert.Equal(t, 2, n, "a reward row per point")
}

// TestCompareSaysWhatIsLeftOut: the variants or points that one directory
// alone holds are named on the terminal, and two directories with none in
// common are refused naming what each holds.
func TestCompareSaysWhatIsLeftOut(t *testing.T) {
	runOf := func(variant string) string {
		dir := filepath.Join(t.TempDir(), "r"+variant)
		args := []string{"run", testScenario, "--episodes", testEpisodes, "--charts=false", "--out", dir}
		if variant != "" {
			args = append(args, "--variant", variant)
		}
		mustSimulate(t, args...)
		return dir
	}
	both, team := runOf(""), runOf("team")
	_, stderr, code := simulate(t, "compare", both, team, "--charts=false", "--out", filepath.Join(t.TempDir(), "cmp"))
	require.Equal(t, 0, code, stderr)
	// The team of both is the same episodes as the team alone.
	assert.Equal(t, "simulate compare: warning: left out, as only "+both+" holds them: 1 variant (split)\n"+
		"simulate compare: warning: every figure of A equals B's: the same settings and seeds run twice? The differences are 0, and their intervals measure nothing\n", stderr)
	other := filepath.Join(t.TempDir(), "seed2")
	mustSimulate(t, "run", testScenario, "--episodes", testEpisodes, "--charts=false", "--seed", "2", "--out", other)
	_, stderr, code = simulate(t, "compare", both, other, "--charts=false", "--out", filepath.Join(t.TempDir(), "cmp"))
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "other seeds, other figures")

	sweepOf := func(agents string) string {
		dir := filepath.Join(t.TempDir(), "s"+agents)
		mustSimulate(t, "sweep", testScenario, "--variant", "team", "--charts=false", "--out", dir, "--set", "episodes=2",
			"--set", "sweep={command: run, grid: {collective.agents: ["+agents+"]}}")
		return dir
	}
	a, b := sweepOf("2, 3"), sweepOf("3, 4")
	_, stderr, code = simulate(t, "compare", a, b, "--charts=false", "--out", filepath.Join(t.TempDir(), "cmp"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "simulate compare: warning: left out, as only "+a+" holds them: 1 point (team @ collective.agents=2)\n"+
		"simulate compare: warning: left out, as only "+b+" holds them: 1 point (team @ collective.agents=4)\n"+
		"simulate compare: warning: every figure of A equals B's: the same settings and seeds run twice? The differences are 0, and their intervals measure nothing\n", stderr)
	_, stderr, code = simulate(t, "compare", a, sweepOf("5"), "--charts=false", "--out", filepath.Join(t.TempDir(), "cmp"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "have no point in common: A holds team @ collective.agents=2, team @ collective.agents=3, B team @ collective.agents=5")
}

// TestDistinctWords: the charts name A and B by what differs in their
// directories' names, whole where nothing or everything would be left.
func TestDistinctWords(t *testing.T) {
	for _, tc := range []struct{ a, b, wantA, wantB string }{
		{"latency-pressure-train-seed1", "latency-pressure-train-seed7", "seed1", "seed7"},
		{"lp-train", "lp-train-stdnorm", "lp-train", "lp-train-stdnorm"},
		{"tiny-seed1", "tiny-agents8", "seed1", "agents8"},
		{"a-x-b", "a-y-z-b", "x", "y-z"},
		{"t1", "t2", "t1", "t2"},
		{"run", "run", "run", "run"},
		{"x-run", "y-run", "x", "y"},
	} {
		a, b := distinctWords(tc.a, tc.b)
		assert.Equal(t, []string{tc.wantA, tc.wantB}, []string{a, b}, "%s, %s", tc.a, tc.b)
	}
}

// TestCompareExamplesDiffer runs the runs that compare's help example
// chains and compares them: a --set that the example's scenario never
// exercises (more agents than tiny's three parts) would teach the reader
// compare through a comparison it warns measures nothing.
func TestCompareExamplesDiffer(t *testing.T) {
	var pairs [][]string
	for line := range strings.SplitSeq(cmdCompare.Examples, "\n") {
		if runs := strings.Split(strings.TrimSpace(line), " && "); len(runs) == 2 && strings.HasPrefix(runs[0], "simulate run ") {
			pairs = append(pairs, runs)
		}
	}
	require.NotEmpty(t, pairs, "compare's examples run two directories to compare")
	for _, runs := range pairs {
		t.Run(runs[1], func(t *testing.T) {
			var dirs []string
			for i, cmd := range runs {
				args := strings.Fields(strings.TrimPrefix(cmd, "simulate "))
				if j := slices.Index(args, "--out"); j >= 0 {
					args = slices.Delete(args, j, j+2)
				}
				dir := filepath.Join(t.TempDir(), "r"+strconv.Itoa(i))
				mustSimulate(t, append(args, "--episodes", testEpisodes, "--charts=false", "--out", dir)...)
				dirs = append(dirs, dir)
			}
			_, stderr, code := simulate(t, "compare", dirs[0], dirs[1], "--charts=false", "--out", filepath.Join(t.TempDir(), "cmp"))
			require.Equal(t, exitOK, code, stderr)
			require.NotContains(t, stderr, "every figure of A equals B's", "the example's --set changes nothing in %s", runs[1])
		})
	}
}
