package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// tableDirs are the fixture directories of testdata/table: a summary of
// each kind, with names that need escaping (split_v2, team & co,
// 50% <b>), a tie for the best value, a missing value, values of 0.0017
// and 30000, and a metric with no better direction.
var tableDirs = []string{"run", "train", "sweep", "compare"}

var tableExts = map[string]string{"latex": "tex", "markdown": "md", "csv": "csv"}

// TestTableGolden prints each fixture directory in each format and
// compares the text with testdata/table/DIR.EXT.golden.
func TestTableGolden(t *testing.T) {
	for _, dir := range tableDirs {
		for format, ext := range tableExts {
			t.Run(dir+"/"+format, func(t *testing.T) {
				out := mustSimulate(t, "table", "--format", format, filepath.Join("testdata", "table", dir))
				golden(t, filepath.Join("table", dir+"."+ext+".golden"), []byte(out))
			})
		}
	}
}

// TestTableBold: the best value of a column is bold by the metric's
// direction, none in a column without a direction, and none where every
// value reads the same (as report.html marks them: report.Best).
func TestTableBold(t *testing.T) {
	md := mustSimulate(t, "table", filepath.Join("testdata", "table", "train"))
	assert.Contains(t, md, "| none | 0.620 [0.581, 0.659] | 30000 [28000, 32000] | 1.20 [1.10, 1.30] |",
		"higher reward: both read 0.620, which singles out nothing; lower latency: high's; entropy: none")
	assert.Contains(t, md, "| high | 0.620 [0.600, 0.640] | **12000** [11000, 13000] | 0.90 [0.80, 1.00] |")
	assert.Contains(t, md, "| variant | mean reward | mean finish time (s) | policy entropy (nats) |", "labels with units")
}

// TestTableMetrics: --metrics keeps and orders the columns, or a
// comparison's rows.
func TestTableMetrics(t *testing.T) {
	out := mustSimulate(t, "table", "--format", "csv", "--metrics", "reward_mean,success_rate", filepath.Join("testdata", "table", "run"))
	lines := strings.Split(out, "\n")
	assert.Equal(t, "variant,mean reward,mean reward lo,mean reward hi,success rate (fraction),success rate (fraction) lo,success rate (fraction) hi", lines[0])
	assert.Equal(t, "split_v2,-0.3125,-0.41,-0.2,0.885,0.8346,0.9218", lines[1])
	out = mustSimulate(t, "table", "--format", "csv", "--metrics", "finish_time", filepath.Join("testdata", "table", "compare"))
	assert.Equal(t, "variant,metric,better,A,A lo,A hi,B,B lo,B hi,B - A,B - A lo,B - A hi,P(B better),P(B better) lo,P(B better) hi\nteam,finish time (s),lower,2841.385279832113,,,2875.1,,,33.7,-103,169,0.501,,\n", out)
}

// TestTableFewerSeeds: a cell over fewer seeds than the caption's (a
// metric undefined for some seeds, such as the finish time of acceptable
// episodes where a seed had none) says over how many, in each format
// with a caption; the CSV, for programs, has a column of each cell's
// seeds beside such a metric's, and only there.
func TestTableFewerSeeds(t *testing.T) {
	dir := sweepWithSeeds(t, "1,team,finish_acceptable_mean,s,7,", "1,team,success_rate,fraction,1,")
	for _, tc := range []struct {
		format, want string
	}{
		{"markdown", "| 1 | team | 0.613 [0.600, 0.630] (1 seed) | 4020 [3900, 4100] (7 seeds) |"},
		{"latex", "1 & team & 0.613 [0.600, 0.630] (1 seed) & 4020 [3900, 4100] (7 seeds) \\\\"},
		{"csv", "1,team,0.6131,0.6,0.63,1,4020,3900,4100,7\n"},
		{"csv", "success rate (fraction) hi,success rate (fraction) seeds,"},
		{"csv", "0,split,0.8845,0.8731,0.8943,10,3600,3500,3700,10\n"},
		{"csv", "1,split,0,0,0.0005,10,,,,\n"},
	} {
		out := mustSimulate(t, "table", "--format", tc.format, dir)
		assert.Contains(t, out, tc.want, tc.format)
		assert.NotContains(t, out, "(10 seeds)", tc.format)
	}
}

// sweepWithSeeds copies the sweep fixture, with the n_seeds of the rows
// that start with each of the given prefixes (which end in the count of
// 10) made the count that each is followed by.
func sweepWithSeeds(t *testing.T, rows ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, f := range []string{"manifest.json", "summary.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", "table", "sweep", f))
		require.NoError(t, err)
		if f == "summary.csv" {
			for _, r := range rows {
				i := strings.LastIndex(strings.TrimSuffix(r, ","), ",")
				require.Contains(t, string(b), r[:i]+",10,")
				b = []byte(strings.Replace(string(b), r[:i]+",10,", r, 1))
			}
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	return dir
}

// TestTableFewerSeedsNotBold: a value over fewer seeds than others of its
// column is not in bold, however good (the one seed on which a split
// finished an acceptable episode), and the caption says why; the best of
// the others is.
func TestTableFewerSeedsNotBold(t *testing.T) {
	dir := sweepWithSeeds(t, "0,split,finish_acceptable_mean,s,1,")
	out := mustSimulate(t, "table", "--format", "csv", dir)
	assert.True(t, strings.HasPrefix(out, "task.coupling,policy.organization,success rate (fraction),success rate (fraction) lo,success rate (fraction) hi,\"finish"), "no seeds column for success, all of whose cells are over 10 seeds: %s", out)
	out = mustSimulate(t, "table", dir)
	assert.Contains(t, out, "| 0 | split | 0.884 [0.873, 0.894] | 3600 [3500, 3700] (1 seed) |")
	assert.Contains(t, out, "| 1 | team | 0.613 [0.600, 0.630] | 4020 [3900, 4100] |")
	assert.Contains(t, out, "| 0 | team | **0.886** [0.875, 0.896] | **3670** [3600, 3720] |")
	assert.Contains(t, out, "; a value over fewer seeds than others of its column not in bold\n")
	out = mustSimulate(t, "table", filepath.Join("testdata", "table", "sweep"))
	assert.NotContains(t, out, "fewer seeds")
}

// TestTableOneSeed: over one seed (or one episode) a cell has no
// bootstrap interval, and the caption says so instead of naming one, in
// the singular.
func TestTableOneSeed(t *testing.T) {
	for _, tc := range []struct {
		kind, want string
	}{
		{"train", "latency-pressure: the one seed's mean over the last tenth of training (no interval over one seed)"},
		{"sweep", "exp-communication (variant exp-communication): the one seed's value (no interval over one seed)"},
		// A run of one episode has a bootstrap interval of nothing to
		// resample; only rates have theirs (Wilson).
		{"run", "organizations_v2: the one episode's value [95% interval: Wilson for rates; none for the others]"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.kind)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for _, f := range []string{"manifest.json", "summary.csv"} {
				b, err := os.ReadFile(filepath.Join("testdata", "table", tc.kind, f))
				require.NoError(t, err)
				text := string(b)
				if f == "manifest.json" {
					text = strings.Replace(strings.Replace(text, `"seeds": 5,`, `"seeds": 1,`, 1), `"seeds": 10,`, `"seeds": 1,`, 1)
					text = strings.Replace(text, `"episodes": 200,`, `"episodes": 1,`, 1)
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644))
			}
			md := mustSimulate(t, "table", dir)
			assert.True(t, strings.HasPrefix(md, markdownEscapes.Replace(tc.want)+"\n"), md)
			tex := mustSimulate(t, "table", "--format", "latex", dir)
			assert.Contains(t, tex, `\caption{`+latexEscapes.Replace(tc.want)+`}`)
		})
	}
}

// TestTableComparisonLarger: a metric with no better side has its
// probability under P(B > A), a column of its own, never under
// P(B better), as on compare's terminal; the column is left out where no
// row shown has such a metric.
func TestTableComparisonLarger(t *testing.T) {
	dir := filepath.Join("testdata", "table", "compare")
	md := mustSimulate(t, "table", dir)
	assert.True(t, strings.HasPrefix(md, "out/a (A) against out/b (B): difference B - A [95% bootstrap interval]; probabilities count ties as a half\n"), md)
	assert.Contains(t, md, "| variant | metric | better | A | B | B - A | P(B better) | P(B \\> A) |", "a backslash escapes every >, as CommonMark reads it, not an entity")
	assert.Contains(t, md, "| team | finish time (s) | lower | 2841 | 2875 | 34 [-103, 169] | 0.50 | – |")
	assert.Contains(t, md, "| team | probability of share (fraction) | none | 0.250 | 0.310 | 0.060 [0.010, 0.110] | – | 0.70 |")
	out := mustSimulate(t, "table", "--format", "csv", "--metrics", "prob_share,success_rate", dir)
	assert.Equal(t, "variant,metric,better,A,A lo,A hi,B,B lo,B hi,B - A,B - A lo,B - A hi,P(B better),P(B better) lo,P(B better) hi,P(B > A),P(B > A) lo,P(B > A) hi\n"+
		"team,probability of share (fraction),none,0.25,,,0.31,,,0.06,0.01,0.11,,,,0.7,,\n"+
		"team,success rate (fraction),higher,0.899,,,0.912,,,0.013,-0.013,0.038,0.506,,,,,\n", out)
	out = mustSimulate(t, "table", "--format", "latex", "--metrics", "success_rate", dir)
	assert.NotContains(t, out, "P(B > A)", "no row shown has a metric without a better side")
}

// TestTableComparisonPrecision: a comparison's A and B are written at
// the decimals of their difference where theirs are coarser, so that two
// values a significant difference apart never read the same (2933 and
// 2929, 3.96 apart, both rounded to 2930).
func TestTableComparisonPrecision(t *testing.T) {
	tab := &paperTable{
		keys: []string{"variant", "metric", "better"},
		cols: []paperCol{{name: "a", asFineAs: "diff"}, {name: "b", asFineAs: "diff"}, {name: "diff"}, {name: "prob_improvement"}},
	}
	nan := math.NaN()
	row := func(a, b, d, lo, hi float64) paperRow {
		return paperRow{keys: []string{"split", "agent_time", "lower"}, metric: "agent_time", cells: []stats.Interval{
			{Value: a, Lo: nan, Hi: nan}, {Value: b, Lo: nan, Hi: nan}, {Value: d, Lo: lo, Hi: hi}, {Value: 1, Lo: nan, Hi: nan}}}
	}
	for _, tc := range []struct {
		name string
		row  paperRow
		want []string // A, B, B - A
	}{
		{"a difference finer than A and B", row(2933.1354, 2929.1705, -3.9648, -4.08, -3.85), []string{"2933.14", "2929.17", "-3.96"}},
		{"a difference as coarse as A and B", row(6239.2, 2841.4, -3397.8, -3531.4, -3262.4), []string{"6240", "2840", "-3400"}},
		{"a difference one decimal finer", row(0.885, 0.899, 0.014, 0.001, 0.029), []string{"0.8850", "0.8990", "0.0140"}},
		{"A finer than the difference", row(0.00312, 0.5, 0.49688, 0.4, 0.6), []string{"0.00312", "0.500", "0.497"}},
		{"no difference", row(12.5, nan, nan, nan, nan), []string{"12.5", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab.rows = []paperRow{tc.row}
			f := tab.format(3)[0]
			assert.Equal(t, tc.want, []string{f[0].value, f[1].value, f[2].value})
		})
	}
}

// TestTableProbabilityDecimals: a comparison's probabilities are written
// at one number of decimals down the column, that of 1 at the table's
// digits and one at least, where significant digits wrote a column of
// 0, 0.0990, 0.507 and 1.00.
func TestTableProbabilityDecimals(t *testing.T) {
	nan := math.NaN()
	tab := &paperTable{
		keys: []string{"variant", "metric", "better"},
		cols: []paperCol{{name: "diff"}, {name: "prob_improvement", probability: true}},
	}
	for _, p := range []float64{0, 0.099, 0.5068, 1} {
		tab.rows = append(tab.rows, paperRow{keys: []string{"team", "success_rate", "higher"}, metric: "success_rate",
			cells: []stats.Interval{{Value: 0.0130, Lo: -0.0130, Hi: 0.0380}, {Value: p, Lo: nan, Hi: nan}}})
	}
	for _, tc := range []struct {
		digits int
		want   []string
	}{
		{3, []string{"0.00", "0.10", "0.51", "1.00"}},
		{4, []string{"0.000", "0.099", "0.507", "1.000"}},
		{1, []string{"0.0", "0.1", "0.5", "1.0"}},
	} {
		var got []string
		for _, r := range tab.format(tc.digits) {
			got = append(got, r[1].value)
		}
		assert.Equal(t, tc.want, got, "digits %d", tc.digits)
	}
}

// TestTableDigits: --digits sets the significant digits of the largest
// of a value and its interval (0.0017 beside 0.0244 keeps the decimals
// of 0.024), never in exponent form; the CSV, read by programs, keeps
// every digit whatever --digits says.
func TestTableDigits(t *testing.T) {
	for _, tc := range []struct {
		format, digits string
		want           string
	}{
		{"markdown", "1", "| team & co | 0.00 [-0.02, 0.02] |"},
		{"markdown", "2", "| team & co | 0.002 [-0.024, 0.022] |"},
		{"markdown", "5", "| team & co | 0.001668 [-0.024400, 0.021700] |"},
		{"csv", "1", "team & co,0.0016681205330949522,-0.0244,0.0217"},
		{"csv", "5", "team & co,0.0016681205330949522,-0.0244,0.0217"},
	} {
		out := mustSimulate(t, "table", "--format", tc.format, "--digits", tc.digits, "--metrics", "reward_mean", filepath.Join("testdata", "table", "run"))
		assert.Contains(t, out, tc.want+"\n", "--format %s --digits %s", tc.format, tc.digits)
	}
	out := mustSimulate(t, "table", "--format", "markdown", "--digits", "2", "--metrics", "latency_mean", filepath.Join("testdata", "table", "train"))
	assert.Contains(t, out, "| none | 30000 [28000, 32000] |", "31999 rounded to two digits")
}

// TestTableBadInput: each bad flag or directory is a clear error naming
// what is wrong and what is allowed, with nothing on stdout.
func TestTableBadInput(t *testing.T) {
	run := filepath.Join("testdata", "table", "run")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown format", []string{"--format", "pdf", run}, exitUsage, "--format pdf: want one of latex, markdown, csv"},
		{"empty format", []string{"--format", "", run}, exitUsage, "--format : want one of latex, markdown, csv"},
		{"format in capitals", []string{"--format", "LaTeX", run}, exitUsage, "--format LaTeX: want one of latex, markdown, csv"},
		{"no digits", []string{"--digits", "0", run}, exitUsage, "--digits 0: want a number of significant digits from 1 to 15"},
		{"empty metrics", []string{"--metrics", "", run}, exitUsage, `--metrics "": want metric names, comma-separated, without empty ones`},
		{"an empty metric", []string{"--metrics", "reward_mean,", run}, exitUsage, "--metrics reward_mean,: want metric names, comma-separated, without empty ones"},
		{"a metric twice", []string{"--metrics", "reward_mean,reward_mean", run}, exitUsage, "--metrics reward_mean,reward_mean: reward_mean is listed twice"},
		{"too many digits", []string{"--digits", "16", run}, exitUsage, "--digits 16: want a number of significant digits from 1 to 15"},
		{"digits not a number", []string{"--digits", "three", run}, exitUsage, `--digits three: want`},
		{"unknown metric", []string{"--metrics", "reward_mean,speed", run}, exitFail, `--metrics reward_mean,speed: ` + filepath.Join(run, "summary.csv") + ` has no metric "speed" (it has success_rate, finish_time_mean, reward_mean, speedup_mean)`},
		{"no directory", nil, exitUsage, "want one directory, got 0 arguments"},
		{"two directories", []string{run, run}, exitUsage, "want one directory, got 2 arguments"},
		{"fit directory", []string{filepath.Join("testdata", "table", "fit")}, exitFail, "is a fit directory, which has no summary to print: want a run, train, sweep or compare directory"},
		// A replay directory has a summary.csv, which table does not
		// print: the error must not say it has none.
		{"replay directory", []string{filepath.Join("testdata", "table", "replay")}, exitFail, "is a replay directory, whose summary.csv (a row per load and statistic) table does not print: want a run, train, sweep or compare directory"},
		{"missing directory", []string{filepath.Join("testdata", "table", "nothing")}, exitFail, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := simulate(t, append([]string{"table"}, tc.args...)...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.want)
			assert.Empty(t, out)
		})
	}
}

// TestTableOfARealRun: the table of a directory simulate wrote (not a
// fixture) reads every metric column of its summary.
func TestTableOfARealRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", testEpisodes, "--charts=false", "--out", dir)
	out := mustSimulate(t, "table", "--format", "markdown", dir)
	sum, err := rundir.ReadTable(filepath.Join(dir, "summary.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4+len(sum.Rows), "caption, blank, head, rule, a row per variant:\n%s", out)
	for i, r := range sum.Rows {
		assert.True(t, strings.HasPrefix(lines[4+i], "| "+r[0]+" |"), lines[4+i])
	}
	assert.Contains(t, lines[2], "| success rate (fraction) |")
	assert.Contains(t, out, "**", "some column has a best value")
}

// TestTableLeavesDifferentRewardsUnmarked: where the variants weigh
// latency differently their rewards are different objectives: no best
// reward is bold, and the caption says why; the other columns keep theirs.
// Where they set the task differently they pose different problems: no
// value is bold.
func TestTableLeavesDifferentRewardsUnmarked(t *testing.T) {
	for _, tc := range []struct {
		name, variants, caption string
		reward, finish          bool // whether the column has a value in bold
	}{
		{"weights", "  - {name: low, set: {reward.latency: 0.1}}\n  - {name: high, set: {reward.latency: 2, collective.agents: 2}}\n",
			"; rewards not marked: the variants set reward.latency differently", false, true},
		{"tasks", "  - {name: low, set: {reward.latency: 0.1}}\n  - {name: high, set: {reward.latency: 2, task.width: 2}}\n",
			"; none in bold: the variants set task.width differently, so they pose different problems", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "weights.yaml")
			require.NoError(t, os.WriteFile(file, []byte("name: weights\nseed: 3\nepisodes: 6\ntask: {shape: fork-join, width: 3, stages: 1, work: exp(5m)}\n"+
				"collective: {agents: 3, time_limit: 2h}\npolicy: {organization: split}\nreward: {penalty: linear}\nvariants:\n"+tc.variants), 0o644))
			dir := filepath.Join(t.TempDir(), "run")
			mustSimulate(t, "run", file, "--charts=false", "--out", dir)
			out := mustSimulate(t, "table", "--format", "markdown", "--metrics", "reward_mean,finish_time_mean", dir)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 6, out)
			assert.Contains(t, lines[0], tc.caption)
			var bold [2]bool
			for _, l := range lines[4:] {
				cells := strings.Split(l, "|")
				bold[0] = bold[0] || strings.Contains(cells[2], "**")
				bold[1] = bold[1] || strings.Contains(cells[3], "**")
			}
			// Where the variants differ in their teams one finishes first;
			// where the tasks differ, nothing is marked.
			assert.Equal(t, [2]bool{tc.reward, tc.finish}, bold, out)
		})
	}
}

// TestTableCaptionOnlyOfKeptColumns: the caption's "rewards not marked"
// is about the table's columns: with --metrics leaving out the reward,
// it says nothing of rewards, and with the reward kept it still does.
func TestTableCaptionOnlyOfKeptColumns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "weights.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: weights\nseed: 3\nepisodes: 6\ntask: {shape: fork-join, width: 3, stages: 1, work: exp(5m)}\n"+
		"collective: {agents: 3, time_limit: 2h}\npolicy: {organization: split}\nreward: {penalty: linear}\nvariants:\n"+
		"  - {name: low, set: {reward.latency: 0.1}}\n  - {name: high, set: {reward.latency: 2, collective.agents: 2}}\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", file, "--charts=false", "--out", dir)
	for _, format := range []string{"markdown", "latex"} {
		out := mustSimulate(t, "table", "--format", format, "--metrics", "finish_time_mean,success_rate", dir)
		assert.NotContains(t, out, "rewards not marked", format)
		out = mustSimulate(t, "table", "--format", format, "--metrics", "finish_time_mean,reward_mean", dir)
		assert.Contains(t, out, "rewards not marked", format)
	}
}

// TestTableOfATraining: a training's summary.csv tells a variant's
// learned row from its fixed row (its baseline) by the policy column
// after metric; the table keeps them apart, each with its own IQM. Without
// baselines every row is learned, and the table has no policy column.
func TestTableOfATraining(t *testing.T) {
	dir := trainTiny(t, "--charts=false")
	out := mustSimulate(t, "table", "--format", "csv", "--metrics", "reward_mean", "--digits", "6", dir)
	sum, err := rundir.ReadTable(filepath.Join(dir, "summary.csv"))
	require.NoError(t, err)
	var want, got []string
	iqm := map[string]float64{}
	for _, r := range sum.Rows {
		if r[1] == "reward_mean" {
			want = append(want, r[0]+" "+r[14])
			iqm[r[0]+" "+r[14]] = parse(t, r[6])
		}
	}
	require.Equal(t, []string{"split learned", "split fixed", "team fixed"}, want)
	require.NotEqual(t, iqm["split learned"], iqm["split fixed"], "the test needs the two rows to differ")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Equal(t, "variant,policy,mean reward,mean reward lo,mean reward hi", lines[0])
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		key := f[0] + " " + f[1]
		got = append(got, key)
		assert.InDelta(t, iqm[key], parse(t, f[2]), 1e-5, key)
	}
	assert.Equal(t, want, got)

	out = mustSimulate(t, "table", "--format", "csv", "--metrics", "reward_mean", trainTiny(t, "--charts=false", "--baseline=false"))
	assert.Equal(t, "variant,mean reward,mean reward lo,mean reward hi", strings.SplitN(out, "\n", 2)[0],
		"no policy column that says learned on every row")
}

// TestTableLatexCompiles compiles each fixture's LaTeX table inside a
// minimal document with booktabs. It is skipped where no pdflatex is
// installed (Debian: apt-get install texlive-latex-base
// texlive-latex-recommended).
func TestTableLatexCompiles(t *testing.T) {
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended): the LaTeX is checked by its golden files only")
	}
	tmp := t.TempDir()
	var doc strings.Builder
	doc.WriteString("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\begin{document}\n")
	for _, dir := range tableDirs {
		tex := mustSimulate(t, "table", "--format", "latex", filepath.Join("testdata", "table", dir))
		require.NoError(t, os.WriteFile(filepath.Join(tmp, dir+".tex"), []byte(tex), 0o644))
		doc.WriteString("\\input{" + dir + ".tex}\n")
	}
	doc.WriteString("\\end{document}\n")
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "doc.tex"), []byte(doc.String()), 0o644))
	cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "pdflatex failed:\n%s", out)
	assert.FileExists(t, filepath.Join(tmp, "doc.pdf"))
}

// FuzzTableParse reads arbitrary CSV as each kind's table: an error or a
// table, never a panic, and every row as wide as the heads.
func FuzzTableParse(f *testing.F) {
	for _, dir := range tableDirs {
		name := "summary.csv"
		if dir == "compare" {
			name = "compare.csv"
		}
		b, err := os.ReadFile(filepath.Join("testdata", "table", dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("variant,metric,iqm,iqm_lo,iqm_hi\n"))
	f.Add([]byte("metric,iqm,iqm_lo,iqm_hi\nx,1,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := rundir.ParseTable("summary.csv", data)
		if err != nil {
			return
		}
		for _, kind := range []rundir.Kind{rundir.KindRun, rundir.KindTrain, rundir.KindCompare} {
			r := &rundir.Run{Path: "d", Manifest: &rundir.Manifest{Kind: kind}}
			var pt *paperTable
			switch kind {
			case rundir.KindRun:
				pt, err = runPaperTable(r, tab)
			case rundir.KindTrain:
				pt, err = tidyPaperTable(r, tab)
			default:
				pt, err = comparePaperTable(r, tab)
			}
			if err != nil {
				continue
			}
			for i, row := range pt.rows {
				if len(row.keys) != len(pt.keys) || len(row.cells) != len(pt.cols) {
					t.Fatalf("%s: row %d has %d keys and %d cells for %d and %d heads", kind, i, len(row.keys), len(row.cells), len(pt.keys), len(pt.cols))
				}
			}
			for _, digits := range []int{1, 3} {
				pt.latex(digits)
				pt.markdown(digits)
				pt.csv()
			}
		}
	})
}

// TestTableShortKeys: a random axis's draws show at 4 significant digits
// in a table for a reader, with more where two of a column's would read
// alike; grid values and names as written; the CSV keeps every digit.
func TestTableShortKeys(t *testing.T) {
	tab := &paperTable{keys: []string{"train.lr", "collective.agents", "variant"}}
	for _, k := range [][]string{
		{"0.17710464117658375", "12", "team_v2"},
		{"0.17712345678901234", "12", "team_v2"},
		{"0.3333333333333333", "123456789", "split"},
	} {
		tab.rows = append(tab.rows, paperRow{keys: k, cells: []stats.Interval{{Value: 1, Lo: math.NaN(), Hi: math.NaN()}}})
	}
	tab.cols = []paperCol{{name: "reward_mean", head: "mean reward"}}
	assert.Equal(t, [][]string{
		{"0.1771", "12", "team_v2"},
		{"0.17712", "12", "team_v2"},
		{"0.33333", "123456789", "split"},
	}, tab.shortKeys())
	assert.Contains(t, string(tab.markdown(3)), "| 0.17712 | 12 | team\\_v2 |")
	assert.Contains(t, string(tab.csv()), "0.17712345678901234,12,team_v2,")
}
