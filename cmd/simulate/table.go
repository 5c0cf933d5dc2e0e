package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/metric"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

var cmdTable = &command{
	Name:  "table",
	Args:  "DIR",
	Short: "print a directory's summary as a LaTeX, Markdown or CSV table for a paper",
	Long: `
Table prints the summary of a complete run, train or sweep directory, or
the comparison of a compare directory, as a table ready to paste into a
paper, reading only its tables (nothing is run):

	run directory      one row per variant, one column per metric: the
	                   mean over episodes [95% interval] from summary.csv
	train directory    one row per variant and policy (learned, and fixed:
	                   the variant's own policy section on the same
	                   episodes): the IQM over seeds of each metric's
	                   last tenth [95% bootstrap interval]
	sweep directory    one row per variant and swept point: the IQM over
	                   seeds [95% bootstrap interval]; in both, a cell
	                   over fewer seeds than the table's others (a metric
	                   undefined for some; a point whose trials a shard or
	                   a partial merge lacks) says over how many, "(2 seeds)"
	compare directory  one row per variant and metric: A, B, the
	                   difference B - A [95% interval] and the probability
	                   that B is better, or for a metric with no better
	                   side P(B > A), in a column of its own

Each cell is a value and its interval, "0.891 [0.862, 0.953]", all three at
the decimals that give the largest of them --digits significant digits (a
difference of 102 [-4269, 1898] is 100 [-4270, 1900] with three); a
comparison's A and B at least at the decimals of their difference, so
that they never read the same where it does not, and its probabilities
at the decimals of 1.00 (with three; one at least) down the column. In each column of a
summary the best value is in bold, by the metric's direction (higher
for rewards and rates, lower for times and counts), among the values over
the most seeds of the column: one over fewer, such as a finish time that
one seed of ten measured, is not in bold, however good, and the caption
says so. A column whose metric is neither has none in bold, nor has one
whose values all read the same, nor has a
comparison, nor has a reward
where the variants set the reward section or the time limit differently
or the sweep varies them (latency-pressure's weights): the caption says
so, as the rewards then measure different objectives. Where the variants
set the task section differently (exp-credit's widths) nothing is in
bold, as they pose different problems, and the caption says so. Column
heads are the metric's label with its unit, from the table of metrics
(package metric, metric/table.go).
A random axis's draws show at 4 significant digits (more where two would
read alike) in LaTeX and Markdown; the CSV keeps every digit.

	--format latex     a table environment with a booktabs tabular
	                   (\toprule, \midrule, \bottomrule; needs
	                   \usepackage{booktabs}) and its caption, with
	                   LaTeX's special characters escaped
	--format markdown  a caption line and a GitHub-flavoured table
	--format csv       for programs: value, lo and hi in columns of their own,
	                   every digit kept (--digits does not apply), no bold;
	                   where a cell of a column is over fewer seeds than the
	                   most, a column "HEAD seeds" beside it with each cell's
	                   count`,
	Examples: `
	simulate table out/latency-pressure-train-seed1 --format latex > table.tex
	simulate table out/tiny-seed7 --metrics success_rate,finish_time_mean
	simulate table out/compare-a-vs-b --format markdown --digits 2`,
	Setup: func(fs *flag.FlagSet) action {
		o := &tableOptions{}
		fs.StringVar(&o.format, "format", "markdown", "print the table as `F`: "+strings.Join(tableFormats, ", "))
		o.digits = 3
		fs.Var(intFlag{&o.digits}, "digits", "write values with `N` significant digits, 1 to 15 (LaTeX and Markdown; the CSV keeps every digit)")
		fs.Func("metrics", "keep only the metrics `LIST`, comma-separated, in that order (default: every\nmetric the directory's table holds); the names are the directory's, so they\ndiffer by kind (finish_time_mean in a run's summary, latency_mean in a\ntraining's), and an unknown one is refused with the list of those it has", func(v string) error {
			names := strings.Split(v, ",")
			for i, n := range names {
				switch {
				case n == "":
					return errors.New("want metric names, comma-separated, without empty ones")
				case slices.Contains(names[:i], n):
					return fmt.Errorf("%s is listed twice", n)
				}
			}
			o.metrics = names
			return nil
		})
		return o.run
	},
}

// tableFormats are the values of --format.
var tableFormats = []string{"latex", "markdown", "csv"}

type tableOptions struct {
	format  string
	metrics []string
	digits  int
}

func (o *tableOptions) run(_ context.Context, s *session, args []string) error {
	if len(args) != 1 {
		return usagef("want one directory, got %s", count(len(args), "argument", "arguments"))
	}
	if !slices.Contains(tableFormats, o.format) {
		return usagef("--format %s: want one of %s", o.format, strings.Join(tableFormats, ", "))
	}
	if o.digits < 1 || o.digits > 15 {
		return usagef("--digits %d: want a number of significant digits from 1 to 15", o.digits)
	}
	r, err := rundir.Open(args[0])
	if err != nil {
		return err
	}
	t, err := readPaperTable(r)
	if err != nil {
		return err
	}
	if o.metrics != nil {
		if err := t.keep(o.metrics); err != nil {
			return fmt.Errorf("--metrics %s: %w", strings.Join(o.metrics, ","), err)
		}
	}
	// After keep: the caption says why a column is not marked only
	// where the table has one (a "rewards not marked" under a table of
	// finish times would send the reader looking for them).
	if err := t.unmark(r.Manifest); err != nil {
		return err
	}
	t.dropEmptyOptional()
	t.noteFewerSeeds()
	var out []byte
	switch o.format {
	case "latex":
		out = t.latex(o.digits)
	case "markdown":
		out = t.markdown(o.digits)
	default:
		out = t.csv()
	}
	_, err = s.stdout.Write(out)
	return err
}

// A paperTable is a directory's summary as rows of keys (a variant, the
// swept values) and cells (a value with its interval) under metric
// columns.
type paperTable struct {
	// subject and cells make the caption, "subject: cells": what was
	// run, and what the cells are.
	subject, cells string
	// source is the file the table was read from, for errors.
	source string
	// keys are the heads of the key columns.
	keys []string
	cols []paperCol
	rows []paperRow
	// most is the most seeds a cell of the table is over, which the
	// caption names: a cell over fewer says so.
	most int
}

// caption says what was run and what the cells are.
func (t *paperTable) caption() string { return t.subject + ": " + t.cells }

// A paperCol is a column of cells: its metric's name (what --metrics
// selects), its head, and which way its values are better (None: none
// in bold).
type paperCol struct {
	name, head string
	better     metric.Better
	// asFineAs names the column whose precision this column's cells
	// keep at least, row by row: a comparison's A and B that of the
	// difference, so that values a difference apart never read the
	// same.
	asFineAs string
	// optional columns are left out where no row has a value in them.
	optional bool
	// probability columns are written at the decimals that 1 has at the
	// table's digits (one at least), every row alike: at significant
	// digits a column read 0, 0.0990, 0.507 and 1.00.
	probability bool
}

type paperRow struct {
	keys []string
	// metric names the row's metric in a comparison, whose rows are
	// metrics; "" in a summary.
	metric string
	cells  []stats.Interval // NaN Value: no value; NaN Lo, Hi: no interval
	// seeds holds, beside each cell, the number of seeds it is over (0
	// where it has no value); nil where the table does not say (a run's
	// means are over episodes).
	seeds []int
}

// keep keeps the columns named, in that order, or (for a comparison,
// whose rows are metrics) the rows.
func (t *paperTable) keep(names []string) error {
	var have []string
	for _, c := range t.cols {
		have = append(have, c.name)
	}
	rowsByMetric := len(t.rows) > 0 && t.rows[0].metric != ""
	if rowsByMetric {
		have = have[:0]
		for _, r := range t.rows {
			if !slices.Contains(have, r.metric) {
				have = append(have, r.metric)
			}
		}
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return fmt.Errorf("%s has no metric %q (it has %s)%s", t.source, n, strings.Join(have, ", "), spelling.DidYouMean(n, have))
		}
	}
	if rowsByMetric {
		var rows []paperRow
		for _, n := range names {
			for _, r := range t.rows {
				if r.metric == n {
					rows = append(rows, r)
				}
			}
		}
		t.rows = rows
		return nil
	}
	cols := make([]paperCol, len(names))
	rows := make([]paperRow, len(t.rows))
	for i := range rows {
		rows[i] = paperRow{keys: t.rows[i].keys, cells: make([]stats.Interval, len(names))}
		if t.rows[i].seeds != nil {
			rows[i].seeds = make([]int, len(names))
		}
	}
	for j, n := range names {
		k := slices.IndexFunc(t.cols, func(c paperCol) bool { return c.name == n })
		cols[j] = t.cols[k]
		for i := range rows {
			rows[i].cells[j] = t.rows[i].cells[k]
			if rows[i].seeds != nil {
				rows[i].seeds[j] = t.rows[i].seeds[k]
			}
		}
	}
	t.cols, t.rows = cols, rows
	return nil
}

// dropEmptyOptional leaves out the optional columns in which no row has
// a value.
func (t *paperTable) dropEmptyOptional() {
	for j := len(t.cols) - 1; j >= 0; j-- {
		if !t.cols[j].optional || slices.ContainsFunc(t.rows, func(r paperRow) bool { return !math.IsNaN(r.cells[j].Value) }) {
			continue
		}
		t.cols = slices.Delete(t.cols, j, j+1)
		for i := range t.rows {
			t.rows[i].cells = slices.Delete(t.rows[i].cells, j, j+1)
		}
	}
}

// readPaperTable reads the summary of a run, train or sweep directory, or
// the comparison of a compare directory.
func readPaperTable(r *rundir.Run) (*paperTable, error) {
	switch r.Manifest.Kind {
	case rundir.KindRun:
		tab, err := r.Table("summary.csv")
		if err != nil {
			return nil, err
		}
		return runPaperTable(r, tab)
	case rundir.KindTrain, rundir.KindSweep:
		tab, err := r.Table("summary.csv")
		if err != nil {
			return nil, err
		}
		return tidyPaperTable(r, tab)
	case rundir.KindCompare:
		tab, err := r.Table("compare.csv")
		if err != nil {
			return nil, err
		}
		return comparePaperTable(r, tab)
	case rundir.KindReplay:
		// It has a summary, of another shape: saying it has none would
		// send the reader looking for a file that is there.
		return nil, fmt.Errorf("%s is a replay directory, whose summary.csv (a row per load and statistic) table does not print: want a run, train, sweep or compare directory", r.Path)
	}
	return nil, fmt.Errorf("%s is a %s directory, which has no summary to print: want a run, train, sweep or compare directory", r.Path, r.Manifest.Kind)
}

// unmark leaves the columns of t unmarked that report.Unmarked names
// (every one where its variants pose different problems, else its rewards
// where its rows score them differently), saying why in the caption: the
// best would compare problems, or objectives.
func (t *paperTable) unmark(m *rundir.Manifest) error {
	unmarkedCol, tasks, differ, err := htmlreport.Unmarked(m)
	if err != nil {
		return err
	}
	unmarked := false
	for j := range t.cols {
		if unmarkedCol(t.cols[j].name) && t.cols[j].better != metric.None {
			t.cols[j].better, unmarked = metric.None, true
		}
	}
	switch {
	case unmarked && tasks != "":
		t.cells += "; none in bold: " + tasks + ", so they pose different problems"
	case unmarked:
		t.cells += "; rewards not marked: " + differ
	}
	return nil
}

// metricOf returns the entry of metric name (report's reading of which
// column is which metric), or for a name the table of metrics lacks (a
// directory another version wrote) the name as its label and no
// direction, so that no value of it is in bold.
func metricOf(name string) metric.Metric {
	if m, ok := htmlreport.MetricOf(name); ok {
		return m
	}
	return metric.Metric{Name: name, Label: name, Better: metric.None}
}

// runPaperTable reads a run's summary.csv: a row per variant, each
// metric a column of means followed by its _lo and _hi columns
// (finish_time_mean, finish_time_lo, finish_time_hi; success_rate,
// success_lo, success_hi). Columns without an interval are counts (n,
// acceptable) or ratios beside the means, left out.
func runPaperTable(r *rundir.Run, tab *rundir.Table) (*paperTable, error) {
	t := &paperTable{
		subject: r.Manifest.Scenario,
		cells:   fmt.Sprintf("mean over %d episodes [95%% interval: bootstrap; Wilson for rates]", r.Manifest.Episodes),
		source:  tab.Path,
		keys:    []string{"variant"},
	}
	switch r.Manifest.Episodes {
	case 0:
		t.cells = "mean over episodes [95% interval: bootstrap; Wilson for rates]"
	case 1:
		// One episode leaves the bootstrap nothing to resample.
		t.cells = "the one episode's value [95% interval: Wilson for rates; none for the others]"
	}
	variant, err := tab.Col("variant")
	if err != nil {
		return nil, err
	}
	groups := htmlreport.Groups(tab.Header)
	for _, g := range groups {
		m := metricOf(g.Name)
		t.cols = append(t.cols, paperCol{name: g.Name, head: m.Label, better: m.Better})
	}
	for i := range tab.Rows {
		row := paperRow{keys: []string{tab.Rows[i][variant]}}
		for _, g := range groups {
			iv, err := htmlreport.Interval(tab, i, g.Val, g.Lo, g.Hi)
			if err != nil {
				return nil, err
			}
			row.cells = append(row.cells, iv)
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}

// seedsPresent says over how many seeds the rows of tab are, from their
// n_seeds, for a sweep whose tables lack missing of its trials (a
// shard's, a partial merge's): what, "1 to 3 seeds, of 3" (or, where
// whole points are missing and the others are complete, "3 seeds"), the
// note "trials are missing" (or "12 trials are missing"), and the most
// seeds a row is over.
func seedsPresent(tab *rundir.Table, want, missing int) (what, note string, most int, err error) {
	plural := func(n int) string {
		if n == 1 {
			return "1 seed"
		}
		return fmt.Sprintf("%d seeds", n)
	}
	c, err := tab.Col("n_seeds")
	lo, hi := want, want
	if err == nil && len(tab.Rows) > 0 {
		lo, hi = math.MaxInt, 0
		for i := range tab.Rows {
			n, err := tab.Count(i, c)
			if err != nil {
				return "", "", 0, err
			}
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	if lo == want && hi == want {
		return plural(want), count(missing, "trial is", "trials are") + " missing", hi, nil
	}
	what = plural(hi)
	if lo != hi {
		what = fmt.Sprintf("%d to %d seeds", lo, hi)
	}
	return fmt.Sprintf("%s, of %d", what, want), "trials are missing", hi, nil
}

// tidyPaperTable reads the summary.csv of a train or sweep directory: a
// row per variant (and swept point, and a training's learned or fixed
// policy) and metric, the key columns those of rundir.Table.Keys, the IQM
// in iqm, iqm_lo and iqm_hi.
func tidyPaperTable(r *rundir.Run, tab *rundir.Table) (*paperTable, error) {
	seeds := fmt.Sprintf("%d seeds", r.Manifest.Seeds)
	// A cell over fewer seeds than the most a row is over says so: a
	// metric undefined for some seeds (no acceptable episode, no failed
	// rollout) has fewer, and so has a point some of whose trials a
	// shard or a partial merge lacks, which the caption alone would hide
	// (and would mark best on one seed without a word).
	most, missing := r.Manifest.Seeds, 0
	var note string
	if r.Manifest.Kind == rundir.KindSweep {
		var err error
		if missing, err = results.MissingTrials(r); err != nil {
			return nil, err
		}
		if missing > 0 {
			if seeds, note, most, err = seedsPresent(tab, r.Manifest.Seeds, missing); err != nil {
				return nil, err
			}
		}
	}
	nSeeds, err := tab.Col("n_seeds")
	if err != nil {
		nSeeds = -1 // a table without the count: nothing to say
	}
	t := &paperTable{
		subject: r.Manifest.Scenario,
		cells:   fmt.Sprintf("IQM over %s [95%% bootstrap interval]", seeds),
		source:  tab.Path,
		most:    most,
	}
	if r.Manifest.Kind == rundir.KindTrain {
		t.cells = fmt.Sprintf("IQM over %s of the last tenth of training [95%% bootstrap interval]", seeds)
	}
	// One seed has a value and no interval, which a caption naming an
	// IQM and a bootstrap interval would promise.
	if most == 1 {
		t.cells = "the one seed's value (no interval over one seed)"
		if r.Manifest.Kind == rundir.KindTrain {
			t.cells = "the one seed's mean over the last tenth of training (no interval over one seed)"
		}
		if missing > 0 && r.Manifest.Seeds > 1 {
			note = seeds + ": " + note // "1 seed, of 2: trials are missing"
		}
	}
	if note != "" {
		t.cells += "; " + note
	}
	var col [4]int // metric, iqm, iqm_lo, iqm_hi
	for k, name := range []string{"metric", "iqm", "iqm_lo", "iqm_hi"} {
		c, err := tab.Col(name)
		if err != nil {
			return nil, err
		}
		col[k] = c
	}
	keyCols, err := tab.Keys()
	if err != nil {
		return nil, err
	}
	t.keys = rundir.Key(tab.Header, keyCols)
	at := map[string]int{} // row key -> row
	for i, rec := range tab.Rows {
		m := rec[col[0]]
		j := slices.IndexFunc(t.cols, func(c paperCol) bool { return c.name == m })
		if j < 0 {
			j = len(t.cols)
			mm := metricOf(m)
			t.cols = append(t.cols, paperCol{name: m, head: mm.Label, better: mm.Better})
			for k := range t.rows {
				t.rows[k].cells = append(t.rows[k].cells, stats.Interval{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()})
				t.rows[k].seeds = append(t.rows[k].seeds, 0)
			}
		}
		keys := rundir.Key(rec, keyCols)
		key := strings.Join(keys, "\x00")
		k, ok := at[key]
		if !ok {
			k = len(t.rows)
			at[key] = k
			row := paperRow{keys: keys, cells: make([]stats.Interval, len(t.cols)), seeds: make([]int, len(t.cols))}
			for c := range row.cells {
				row.cells[c] = stats.Interval{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			}
			t.rows = append(t.rows, row)
		}
		iv, err := htmlreport.Interval(tab, i, col[1], col[2], col[3])
		if err != nil {
			return nil, err
		}
		t.rows[k].cells[j] = iv
		if nSeeds >= 0 && !math.IsNaN(iv.Value) {
			if t.rows[k].seeds[j], err = tab.Count(i, nSeeds); err != nil {
				return nil, err
			}
		}
	}
	// A sweep of one variant: its name goes into the caption, not into
	// a column that says it on every row.
	if len(t.keys) > 1 && len(t.rows) > 0 && !slices.ContainsFunc(t.rows, func(r paperRow) bool { return r.keys[0] != t.rows[0].keys[0] }) {
		t.subject += fmt.Sprintf(" (%s %s)", t.keys[0], t.rows[0].keys[0])
		t.keys = t.keys[1:]
		for i := range t.rows {
			t.rows[i].keys = t.rows[i].keys[1:]
		}
	}
	return t, nil
}

// comparePaperTable reads a compare directory's compare.csv: a row per
// variant and metric, with A's value, B's, the difference and the
// probability of improvement: P(B better), or for a metric with no
// better side P(B > A), in a column of its own (as on compare's terminal)
// that is left out where no such row is. No column is a metric, so none
// is in bold.
func comparePaperTable(r *rundir.Run, tab *rundir.Table) (*paperTable, error) {
	t := &paperTable{
		subject: r.Manifest.Description,
		cells:   "difference B - A [95% bootstrap interval]; probabilities count ties as a half",
		source:  tab.Path,
		keys:    []string{"variant", "metric", "better"},
		cols: []paperCol{
			{name: "a", head: "A", better: metric.None, asFineAs: "diff"},
			{name: "b", head: "B", better: metric.None, asFineAs: "diff"},
			{name: "diff", head: "B - A", better: metric.None},
			{name: "prob_improvement", head: headBetter, better: metric.None, probability: true},
			{name: "prob_larger", head: headLarger, better: metric.None, optional: true, probability: true},
		},
	}
	var col [7]int
	for k, name := range []string{"variant", "metric", "a", "b", "diff", "diff_lo", "diff_hi"} {
		c, err := tab.Col(name)
		if err != nil {
			return nil, err
		}
		col[k] = c
	}
	prob, err := tab.Col("prob_improvement")
	if err != nil {
		return nil, err
	}
	for i, rec := range tab.Rows {
		// The metric's label with its unit reads better than its name.
		m := metricOf(rec[col[1]])
		m.Better = htmlreport.RowBetter(tab, i, col[1])
		row := paperRow{keys: []string{rec[col[0]], m.Label, string(m.Better)}, metric: rec[col[1]]}
		for _, c := range [][3]int{{col[2], -1, -1}, {col[3], -1, -1}, {col[4], col[5], col[6]}, {prob, -1, -1}} {
			iv, err := htmlreport.Interval(tab, i, c[0], c[1], c[2])
			if err != nil {
				return nil, err
			}
			row.cells = append(row.cells, iv)
		}
		none := stats.Interval{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		if m.Better == metric.None {
			// Neither side is better: the probability is P(B > A).
			row.cells = append(row.cells[:3], none, row.cells[3])
		} else {
			row.cells = append(row.cells, none)
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}

// formatted is a cell written at the table's precision: its value, and
// its interval's ends when it has one; value is "" when there is none.
type formatted struct {
	value, lo, hi string
	bold          bool
	// seeds is the number of seeds of a cell over fewer than the most
	// a cell of the table is over, else 0.
	seeds int
}

// format writes each cell with digits significant digits of its largest
// number (formatCell), or finer where its column is to be as fine as
// another, and marks the best value of each column with a direction
// (every cell that reads as the best, ties included).
func (t *paperTable) format(digits int) [][]formatted {
	out := make([][]formatted, len(t.rows))
	for i, r := range t.rows {
		out[i] = make([]formatted, len(r.cells))
		for j, iv := range r.cells {
			p := cellPrecision(iv, digits)
			if t.cols[j].probability {
				p = min(cellPrecision(stats.Interval{Value: 1, Lo: math.NaN(), Hi: math.NaN()}, digits), -1)
			}
			if k := slices.IndexFunc(t.cols, func(c paperCol) bool { return c.name == t.cols[j].asFineAs }); k >= 0 && t.cols[j].asFineAs != "" {
				if q := r.cells[k]; !math.IsNaN(q.Value) && !math.IsInf(q.Value, 0) {
					p = min(p, cellPrecision(q, digits))
				}
			}
			out[i][j] = writeCell(iv, p)
			if r.seeds != nil && out[i][j].value != "" && r.seeds[j] < t.most {
				out[i][j].seeds = r.seeds[j]
			}
		}
	}
	for j, c := range t.cols {
		vals, seeds := t.column(j)
		// A value reads as the best when it is written as the best would
		// be in its cell, at the precision its interval sets.
		shown := func(i int, v float64) string {
			iv := t.rows[i].cells[j]
			return formatCell(stats.Interval{Value: v, Lo: iv.Lo, Hi: iv.Hi}, digits).value
		}
		for _, i := range htmlreport.Best(vals, seeds, c.better, shown) {
			out[i][j].bold = true
		}
	}
	return out
}

// column returns the values of column j and the seeds each is over, nil
// where the table does not say.
func (t *paperTable) column(j int) (vals []float64, seeds []int) {
	vals = make([]float64, len(t.rows))
	for i, r := range t.rows {
		vals[i] = r.cells[j].Value
		if r.seeds != nil {
			seeds = append(seeds, r.seeds[j])
		}
	}
	return vals, seeds
}

// noteFewerSeeds says in the caption where a value of a column with a
// direction is no candidate for the bold, as over fewer seeds than others
// of its column (report.Candidates), which its note "(1 seed)" alone
// would leave the reader to infer.
func (t *paperTable) noteFewerSeeds() {
	for j, c := range t.cols {
		if c.better == metric.None {
			continue
		}
		if _, fewer := htmlreport.Candidates(t.column(j)); fewer {
			t.cells += "; a value over fewer seeds than others of its column not in bold"
			return
		}
	}
}

// formatCell writes iv with digits significant digits of its largest
// magnitude, in plain decimals (never an exponent: 30000, 0.000120), the
// interval's ends at the same decimals; digits beyond them are rounded
// off, in the integer part too (31999 with two digits is 32000).
func formatCell(iv stats.Interval, digits int) formatted {
	return writeCell(iv, cellPrecision(iv, digits))
}

// cellPrecision returns the power of ten of the last digit formatCell
// writes of iv: -2 for two decimals, 1 for a number rounded to tens.
func cellPrecision(iv stats.Interval, digits int) int {
	largest := 0.0
	for _, x := range cellNumbers(iv) {
		largest = max(largest, math.Abs(x))
	}
	if largest == 0 {
		return 0
	}
	return int(math.Floor(math.Log10(largest))) + 1 - digits
}

// cellNumbers returns iv's value, and its interval's ends where it has
// an interval.
func cellNumbers(iv stats.Interval) []float64 {
	if math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) || math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) {
		return []float64{iv.Value}
	}
	return []float64{iv.Value, iv.Lo, iv.Hi}
}

// writeCell writes iv with its last digit at the power of ten p (see
// cellPrecision), in plain decimals.
func writeCell(iv stats.Interval, p int) formatted {
	if math.IsNaN(iv.Value) || math.IsInf(iv.Value, 0) {
		return formatted{}
	}
	decimals, unit := max(0, -p), 0.0 // unit: what the integer part is rounded to
	if p > 0 {
		unit = math.Pow10(p)
	}
	w := func(x float64) string {
		if unit > 0 {
			x = math.Round(x/unit) * unit
		}
		return numtext.Fixed(x, decimals)
	}
	f := formatted{value: w(iv.Value)}
	if nums := cellNumbers(iv); len(nums) == 3 {
		f.lo, f.hi = w(nums[1]), w(nums[2])
	}
	return f
}

// A tableSyntax says how one format writes text, numbers and bold.
type tableSyntax struct {
	text, number func(string) string
	bold         func(string) string
	missing      string
}

// cell writes f in syntax x: "value [lo, hi]", the value in bold when it
// is the column's best, followed by "(2 seeds)" when it is over fewer
// seeds than the caption says.
func (x tableSyntax) cell(f formatted) string {
	if f.value == "" {
		return x.missing
	}
	v := x.number(f.value)
	if f.bold {
		v = x.bold(v)
	}
	if f.lo != "" {
		v = fmt.Sprintf("%s [%s, %s]", v, x.number(f.lo), x.number(f.hi))
	}
	if f.seeds > 0 {
		v += " (" + count(f.seeds, "seed", "seeds") + ")"
	}
	return v
}

// heads returns the key and column heads of t.
func (t *paperTable) heads() []string {
	var h []string
	h = append(h, t.keys...)
	for _, c := range t.cols {
		h = append(h, c.head)
	}
	return h
}

// lines returns the head and the rows of t as cells written in syntax x.
func (t *paperTable) lines(x tableSyntax, digits int) (head []string, rows [][]string) {
	for _, h := range t.heads() {
		head = append(head, x.text(h))
	}
	cells := t.format(digits)
	for i, keys := range t.shortKeys() {
		var line []string
		for _, k := range keys {
			line = append(line, x.text(k))
		}
		for _, f := range cells[i] {
			line = append(line, x.cell(f))
		}
		rows = append(rows, line)
	}
	return head, rows
}

// shortKeys returns the rows' keys with their long numbers (a random
// axis's draws, 0.17710464117658375) as shortRows shows them: a paper's
// table shows the point; the CSV keeps every digit.
func (t *paperTable) shortKeys() [][]string {
	keys := make([][]string, len(t.rows))
	for i, r := range t.rows {
		keys[i] = r.keys
	}
	return shortRows(keys)
}

var latexEscapes = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	`<`, `\textless{}`, `>`, `\textgreater{}`, `|`, `\textbar{}`,
)

// latex writes t as a table environment around a booktabs tabular: keys
// left-aligned, cells right-aligned, the caption above.
func (t *paperTable) latex(digits int) []byte {
	x := tableSyntax{
		text:    latexEscapes.Replace,
		number:  func(s string) string { return strings.Replace(s, "-", "$-$", 1) },
		bold:    func(s string) string { return `\textbf{` + s + `}` },
		missing: "--",
	}
	head, rows := t.lines(x, digits)
	var b bytes.Buffer
	b.WriteString("% simulate table: needs \\usepackage{booktabs}\n")
	b.WriteString("\\begin{table}\n\\centering\n")
	fmt.Fprintf(&b, "\\caption{%s}\n", latexEscapes.Replace(t.caption()))
	fmt.Fprintf(&b, "\\begin{tabular}{%s%s}\n", strings.Repeat("l", len(t.keys)), strings.Repeat("r", len(t.cols)))
	b.WriteString("\\toprule\n")
	fmt.Fprintf(&b, "%s \\\\\n", strings.Join(head, " & "))
	b.WriteString("\\midrule\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s \\\\\n", strings.Join(r, " & "))
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return b.Bytes()
}

// markdownEscapes escape with a backslash, as CommonMark reads it, the
// characters that would format, "<" and ">" too (a "<b>" would open an
// HTML tag): not with entities (&lt;), which the table's source would
// show as they are.
var markdownEscapes = strings.NewReplacer(
	`\`, `\\`, `|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`", `<`, `\<`, `>`, `\>`,
)

// markdown writes t as a caption line and a GitHub-flavoured table, keys
// left-aligned, cells right-aligned.
func (t *paperTable) markdown(digits int) []byte {
	x := tableSyntax{
		text:    markdownEscapes.Replace,
		number:  func(s string) string { return s },
		bold:    func(s string) string { return "**" + s + "**" },
		missing: "–",
	}
	head, rows := t.lines(x, digits)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\n", markdownEscapes.Replace(t.caption()))
	fmt.Fprintf(&b, "| %s |\n|", strings.Join(head, " | "))
	for i := range head {
		if i < len(t.keys) {
			b.WriteString(" :-- |")
		} else {
			b.WriteString(" --: |")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
	}
	return b.Bytes()
}

// csv writes t for a program to read: each cell's value, lo and hi in
// columns of their own ("HEAD", "HEAD lo", "HEAD hi"), every digit kept
// (rounding is for a reader, and --digits does not apply), empty where
// there is none; and where a cell of a column is over fewer seeds than
// the most, a column "HEAD seeds" beside it with the seeds of each cell,
// which a reader of the other formats has in a note, "(1 seed)".
func (t *paperTable) csv() []byte {
	head := slices.Clone(t.keys)
	counted := make([]bool, len(t.cols))
	for j, c := range t.cols {
		head = append(head, c.head, c.head+" lo", c.head+" hi")
		vals, seeds := t.column(j)
		for i, n := range seeds {
			counted[j] = counted[j] || (!math.IsNaN(vals[i]) && n < t.most)
		}
		if counted[j] {
			head = append(head, c.head+" seeds")
		}
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return numtext.Shortest(v)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(head)
	for _, r := range t.rows {
		line := slices.Clone(r.keys)
		for j, iv := range r.cells {
			line = append(line, num(iv.Value), num(iv.Lo), num(iv.Hi))
			if counted[j] {
				n := ""
				if !math.IsNaN(iv.Value) {
					n = strconv.Itoa(r.seeds[j])
				}
				line = append(line, n)
			}
		}
		w.Write(line)
	}
	w.Flush()
	return b.Bytes()
}
