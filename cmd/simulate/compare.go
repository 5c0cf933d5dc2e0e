package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios/sweep"
	"github.com/swarmsim/swarmsim/stats"
)

var cmdCompare = &command{
	Name:  "compare",
	Args:  "A B",
	Short: "compare two run, train or sweep directories: differences with CIs",
	Long: `
Compare reads two complete directories of the same kind and scenario (run
with different --set values, say, or built by different versions) and
reports, for every variant both hold and every metric, A's figure, B's,
the difference B − A with its 95% bootstrap interval, and the probability
of improvement: the chance that B does better than A.

	run directories    per episode. When both used the same seed and
	                   episodes, episode k of A and of B worked on the same
	                   task draw, so the differences are paired (episode by
	                   episode: the draw's noise cancels); a is A's mean, b
	                   B's, diff the mean of the differences, with the
	                   bootstrap over episodes, and prob_improvement the
	                   fraction of episodes in which B did better.
	                   Otherwise the two are resampled independently.
	train directories  per seed: each seed's mean over its last tenth of
	                   iterations; a and b are IQMs over seeds, diff their
	                   difference with the stratified bootstrap (each
	                   directory's seeds resampled on their own) and
	                   prob_improvement P(a seed of B beats a seed of A).
	sweep directories  as train, at every point both sweeps hold (the same
	                   variant and swept values); the variant column names
	                   the point.

"Better" is higher for rewards, rates, parallelism and speedup, lower for
times, counts and costs (the better column says which). Directories of
different scenarios are refused unless --any-scenario is given. Compare
writes a directory (--out, default out/compare-A-vs-B):

	compare.csv     variant, metric, a, b, diff, diff_lo, diff_hi,
	                prob_improvement, unit, better, n_a, n_b, paired
	charts/         diff_<metric>: each variant's difference B − A with
	                its interval, for the main metrics, as PNG, SVG and
	                PDF with the CSV of each
	manifest.json   both directories' scenarios, written last

docs/statistics.md explains the intervals.`,
	Examples: `
	simulate compare out/lp-train out/lp-train-stdnorm
	simulate compare out/tiny-seed1 out/tiny-agents8 --out results/agents`,
	Setup: func(fs *flag.FlagSet) action {
		o := &compareOptions{}
		fs.StringVar(&o.out, "out", "", "write into directory `DIR` (default: out/compare-A-vs-B)")
		fs.BoolVar(&o.anyScenario, "any-scenario", false, "compare directories of different scenarios")
		fs.BoolVar(&o.force, "force", false, "overwrite a directory that holds a complete comparison")
		fs.BoolVar(&o.charts, "charts", true, "draw the chart; --charts=false writes the table only")
		return o.run
	},
}

type compareOptions struct {
	out         string
	anyScenario bool
	force       bool
	charts      bool
}

// A comparison is one row of compare.csv.
type comparison struct {
	variant, metric string
	a, b            float64
	diff            stats.Interval
	prob            float64
	better          string // "higher" or "lower"
	na, nb          int
	paired          bool
}

// betterOf says which values of metric are better: "higher", "lower", or
// "none" for what is neither good nor bad in itself (an action's
// probability, bookkeeping), for which compare reports P(B > A).
func betterOf(metric string) string {
	switch {
	case strings.HasPrefix(metric, "prob_"), strings.HasPrefix(metric, "actions_"), metric == "episodes",
		metric == "decisions", metric == "entropy", metric == "grad_norm", metric == "lr":
		return "none"
	case rundir.Unit(metric) == "s", strings.Contains(metric, "token"), strings.Contains(metric, "calls"),
		strings.HasPrefix(metric, "messages"), strings.HasPrefix(metric, "message_"), metric == "timed_out",
		metric == "retries", metric == "conflicts", metric == "critical_steps", metric == "stretch":
		return "lower"
	}
	return "higher"
}

// oriented returns the values of a and b oriented so that larger is
// better, for the probability of improvement.
func oriented(metric string, a, b []float64) ([]float64, []float64) {
	if betterOf(metric) == "lower" {
		return negated(a), negated(b)
	}
	return a, b
}

func (o *compareOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 2 {
		return usagef("want two directories, got %d arguments", len(args))
	}
	a, err := rundir.Open(args[0])
	if err != nil {
		return err
	}
	b, err := rundir.Open(args[1])
	if err != nil {
		return err
	}
	if a.Manifest.Kind != b.Manifest.Kind {
		return fmt.Errorf("%s is a %s directory and %s a %s directory: compare two of the same kind", a.Path, a.Manifest.Kind, b.Path, b.Manifest.Kind)
	}
	if a.Manifest.Scenario != b.Manifest.Scenario && !o.anyScenario {
		return fmt.Errorf("%s holds scenario %s and %s scenario %s: compare runs of one scenario, or give --any-scenario", a.Path, a.Manifest.Scenario, b.Path, b.Manifest.Scenario)
	}
	var rows []comparison
	switch a.Manifest.Kind {
	case rundir.KindRun:
		rows, err = compareRuns(a, b)
	case rundir.KindTrain:
		rows, err = compareTrainings(a, b)
	case rundir.KindSweep:
		rows, err = compareSweeps(a, b)
	default:
		err = fmt.Errorf("%s: a %s directory cannot be compared", a.Path, a.Manifest.Kind)
	}
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s and %s have no variant in common", a.Path, b.Path)
	}
	out := o.out
	if out == "" {
		out = filepath.Join("out", fmt.Sprintf("compare-%s-vs-%s", fileName(filepath.Base(a.Path)), fileName(filepath.Base(b.Path))))
	}
	dir, err := rundir.Create(out, o.force)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dir.Abort()
		}
	}()
	if err := dir.Write("compare.csv", compareCSV(rows)); err != nil {
		return err
	}
	if o.charts {
		if err := compareChart(dir, rows); err != nil {
			s.warnf("charts left out: %v", err)
		}
	}
	var variants []string
	for _, r := range rows {
		if !slices.Contains(variants, r.variant) {
			variants = append(variants, r.variant)
		}
	}
	err = dir.Commit(&rundir.Manifest{
		Kind:            rundir.KindCompare,
		Scenario:        a.Manifest.Scenario,
		Description:     fmt.Sprintf("%s (A) against %s (B)", a.Path, b.Path),
		Source:          a.Manifest.Source,
		Hash:            a.Manifest.Hash,
		Seed:            a.Manifest.Seed,
		Variants:        variants,
		SwarmsimVersion: version(),
		GoVersion:       goVersion(),
		Command:         s.argv,
	})
	if err != nil {
		return err
	}
	printComparison(s, rows)
	fmt.Fprintf(s.stdout, "\nwrote %s\n", dir.Path())
	return nil
}

// runMetrics are the columns of episodes.csv that compare reports.
var runMetrics = []string{"acceptable", "finish_time", "reward", "model_calls", "tokens", "agent_time", "messages", "parallelism_mean", "speedup"}

// episodeValues reads the metrics of each variant's episodes, in episode
// order.
func episodeValues(r *rundir.Run) (map[string]map[string][]float64, []string, error) {
	t, err := r.Table("episodes.csv")
	if err != nil {
		return nil, nil, err
	}
	vc, err := t.Col("variant")
	if err != nil {
		return nil, nil, err
	}
	out := map[string]map[string][]float64{}
	var order []string
	for _, m := range runMetrics {
		c, err := t.Col(m)
		if err != nil {
			return nil, nil, err
		}
		for i, row := range t.Rows {
			v := row[vc]
			if out[v] == nil {
				out[v] = map[string][]float64{}
				order = append(order, v)
			}
			var x float64
			if m == "acceptable" {
				ok, err := t.Bool(i, c)
				if err != nil {
					return nil, nil, err
				}
				x = b2f(ok)
			} else if x, err = t.Float(i, c); err != nil {
				return nil, nil, err
			}
			out[v][m] = append(out[v][m], x)
		}
	}
	return out, order, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func compareRuns(a, b *rundir.Run) ([]comparison, error) {
	va, order, err := episodeValues(a)
	if err != nil {
		return nil, err
	}
	vb, _, err := episodeValues(b)
	if err != nil {
		return nil, err
	}
	paired := a.Manifest.Seed == b.Manifest.Seed && a.Manifest.Episodes == b.Manifest.Episodes
	var rows []comparison
	for _, v := range order {
		if vb[v] == nil {
			continue
		}
		for _, m := range runMetrics {
			xa, xb := va[v][m], vb[v][m]
			c := comparison{variant: v, metric: m, a: stats.Mean(slices.Clone(xa)), b: stats.Mean(slices.Clone(xb)),
				na: len(xa), nb: len(xb), paired: paired && len(xa) == len(xb), better: betterOf(m)}
			sa, sb := oriented(m, xa, xb)
			if c.paired {
				c.diff = stats.Default.PairedDiff(xa, xb)
				c.prob = stats.PairedProbImprovement(sa, sb)
			} else {
				c.diff = stats.Default.Diff(xa, xb, stats.Mean)
				c.prob = stats.ProbImprovement(sa, sb)
			}
			rows = append(rows, c)
		}
	}
	return rows, nil
}

func negated(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

// seedComparison compares per-seed values: IQMs, their stratified
// bootstrap difference and P(a seed of B beats a seed of A).
func seedComparison(variant, metric string, xa, xb []float64) comparison {
	xa, xb = stats.Finite(xa), stats.Finite(xb)
	c := comparison{variant: variant, metric: metric, a: stats.IQM(slices.Clone(xa)), b: stats.IQM(slices.Clone(xb)),
		na: len(xa), nb: len(xb), better: betterOf(metric), diff: stats.Default.Diff(xa, xb, stats.IQM)}
	c.prob = stats.ProbImprovement(oriented(metric, xa, xb))
	return c
}

// appendDefined appends c unless a side has no finite value (a metric an
// estimator does not define, such as value_ev without a learned value).
func appendDefined(rows []comparison, c comparison) []comparison {
	if c.na == 0 || c.nb == 0 {
		return rows
	}
	return append(rows, c)
}

func compareTrainings(a, b *rundir.Run) ([]comparison, error) {
	var sv [2]*seedValues
	for i, r := range []*rundir.Run{a, b} {
		t, err := r.Table("iterations.csv")
		if err != nil {
			return nil, err
		}
		if sv[i], err = lastTenths(t); err != nil {
			return nil, err
		}
	}
	var rows []comparison
	for _, v := range sv[0].variants {
		if sv[1].values[v] == nil {
			continue
		}
		for _, m := range sv[0].metrics {
			if xb, ok := sv[1].values[v][m]; ok {
				rows = appendDefined(rows, seedComparison(v, m, sv[0].values[v][m], xb))
			}
		}
	}
	return rows, nil
}

// sweepValues groups a sweep's trials by variant and point: the values of
// each metric over the point's seeds.
func sweepValues(r *rundir.Run) ([]string, []string, map[string]map[string][]float64, error) {
	plan, err := sweep.ReadPlan(r.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := r.Table("trials.csv")
	if err != nil {
		return nil, nil, nil, err
	}
	params := plan.ParamNames()
	first := 3 // trial, variant, seed
	var order []string
	out := map[string]map[string][]float64{}
	for i, row := range t.Rows {
		var at []string
		for k, p := range params {
			at = append(at, p+"="+row[first+k])
		}
		key := row[1]
		if len(at) > 0 {
			key += " @ " + strings.Join(at, " ")
		}
		if out[key] == nil {
			out[key] = map[string][]float64{}
			order = append(order, key)
		}
		for k, m := range plan.Metrics {
			x, err := t.Float(i, first+len(params)+k)
			if err != nil {
				return nil, nil, nil, err
			}
			out[key][m] = append(out[key][m], x)
		}
	}
	return order, plan.Metrics, out, nil
}

func compareSweeps(a, b *rundir.Run) ([]comparison, error) {
	order, metrics, va, err := sweepValues(a)
	if err != nil {
		return nil, err
	}
	_, _, vb, err := sweepValues(b)
	if err != nil {
		return nil, err
	}
	var rows []comparison
	for _, key := range order {
		if vb[key] == nil {
			continue
		}
		for _, m := range metrics {
			if xb, ok := vb[key][m]; ok {
				rows = appendDefined(rows, seedComparison(key, m, va[key][m], xb))
			}
		}
	}
	return rows, nil
}

func compareCSV(rows []comparison) []byte {
	header := []string{"variant", "metric", "a", "b", "diff", "diff_lo", "diff_hi", "prob_improvement", "unit", "better", "n_a", "n_b", "paired"}
	var cells [][]string
	for _, c := range rows {
		cells = append(cells, []string{c.variant, c.metric, num(c.a), num(c.b), num(c.diff.Value), num(c.diff.Lo), num(c.diff.Hi),
			num(c.prob), rundir.Unit(c.metric), c.better, integer(c.na), integer(c.nb), boolean(c.paired)})
	}
	return rundir.CSV(header, cells)
}

// chartedMetrics are the metrics compare draws, when the directories
// hold them: the figures a reader judges a variant by.
var chartedMetrics = []string{
	"acceptable", "success_rate", "reward", "reward_mean", "finish_time", "latency_mean", "latency_p90",
	"agent_time", "agent_time_mean", "parallelism_mean", "messages", "messages_mean",
}

// compareChart draws, for each charted metric, each variant's difference
// B − A with its interval.
func compareChart(dir *rundir.Dir, rows []comparison) error {
	cw, err := newChartWriter(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range chartedMetrics {
		var bars []plots.Bar
		var left []string
		for _, c := range rows {
			if c.metric != m {
				continue
			}
			if bar, ok := ciBar(c.variant, c.diff); ok {
				bars = append(bars, bar)
			} else {
				left = append(left, c.variant)
			}
		}
		if len(bars) == 0 {
			continue
		}
		unit := rundir.Unit(m)
		if unit == "1" {
			unit = ""
		} else {
			unit = " (" + unit + ")"
		}
		spec := plots.Spec{Name: "diff_" + m, Kind: "bars", YLabel: fmt.Sprintf("%s, B - A%s", m, unit), Stat: "difference",
			Interval: bootInterval, Size: "column", Note: leftOut(left, "no values")}
		if err := cw.draw(spec, plots.BarsTable(bars)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := cw.close(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

func printComparison(s *session, rows []comparison) {
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tmetric\tA\tB\tB − A [95% CI]\tP(B better)\t")
	for _, c := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.4g\t%.4g\t%s\t%.2f\t\n", c.variant, c.metric, c.a, c.b, withCIg(c.diff), c.prob)
	}
	tw.Flush()
}

// withCIg formats an interval with four significant digits; "–" for an
// undefined value.
func withCIg(iv stats.Interval) string {
	if math.IsNaN(iv.Value) {
		return "–"
	}
	if math.IsNaN(iv.Lo) {
		return fmt.Sprintf("%.4g", iv.Value)
	}
	return fmt.Sprintf("%.4g [%.4g, %.4g]", iv.Value, iv.Lo, iv.Hi)
}
