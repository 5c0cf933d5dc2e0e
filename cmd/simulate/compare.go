package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
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
		fs.BoolVar(&o.force, "force", false, "overwrite a complete directory at --out (never A or B, which compare reads)")
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

func (o *compareOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 2 {
		return usagef("want two directories, got %s", count(len(args), "argument", "arguments"))
	}
	a, err := rundir.Open(args[0])
	if err != nil {
		return err
	}
	b, err := rundir.Open(args[1])
	if err != nil {
		return err
	}
	if a.Manifest.Scenario != b.Manifest.Scenario && !o.anyScenario {
		return fmt.Errorf("%s holds scenario %s and %s scenario %s: compare runs of one scenario, or give --any-scenario", a.Path, a.Manifest.Scenario, b.Path, b.Manifest.Scenario)
	}
	rows, err := results.Compare(a, b)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s and %s have no variant in common", a.Path, b.Path)
	}
	out := o.out
	if out == "" {
		out = filepath.Join("out", fmt.Sprintf("compare-%s-vs-%s", experiment.FileName(filepath.Base(a.Path)), experiment.FileName(filepath.Base(b.Path))))
	}
	for _, in := range []*rundir.Run{a, b} {
		if sameFile(out, in.Path) {
			return fmt.Errorf("--out %s is the directory %s, which compare reads: --force would replace it with the comparison; choose another --out", out, in.Path)
		}
	}
	dir, err := createDir(out, o.force)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dir.Abort()
		}
	}()
	if err := dir.Write("compare.csv", results.Table(rows)); err != nil {
		return err
	}
	if o.charts {
		if err := compareCharts(dir, rows); err != nil {
			s.warnf("charts left out: %v", err)
		}
	}
	var variants []string
	for _, r := range rows {
		if !slices.Contains(variants, r.Variant) {
			variants = append(variants, r.Variant)
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
	s.writeReport(dir.Path())
	printComparison(s, rows)
	fmt.Fprintf(s.stdout, "\nwrote %s\n", dir.Path())
	return nil
}

// compareCharts draws the charts of the comparison rows into dir/charts;
// the error joins those of the charts it could not draw.
func compareCharts(dir *rundir.Dir, rows []results.Comparison) error {
	cw, err := experiment.NewChartWriter(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range experiment.CompareCharts(rows) {
		if err := c.Draw(cw); err != nil {
			errs = append(errs, err)
		}
	}
	if err := cw.Close(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

func printComparison(s *session, rows []results.Comparison) {
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tmetric\tA\tB\tB − A [95% CI]\tP(B better)\t")
	for _, c := range rows {
		a, b := stats.Interval{Value: c.A, Lo: math.NaN(), Hi: math.NaN()}, stats.Interval{Value: c.B, Lo: math.NaN(), Hi: math.NaN()}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2f\t\n", c.Variant, c.Metric, withCISig(a), withCISig(b), withCISig(c.Diff), c.Prob)
	}
	tw.Flush()
}

// sigDigits are the significant digits of the largest number in a cell
// of withCISig: enough to tell intervals apart, few enough to read.
const sigDigits = 3

// withCISig formats an interval as "value [lo, hi]" in one format for the
// whole cell, so that a bound never reads in another notation than its
// value: plain decimals, as many as give the largest of the three
// sigDigits significant digits, or scientific notation for all three
// where that largest is below 1e-3 or from 1e9 on, which no one reads as a
// plain number. "–" for an undefined value, the value alone without an
// interval.
func withCISig(iv stats.Interval) string {
	nums := []float64{iv.Value}
	if !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) {
		nums = append(nums, iv.Lo, iv.Hi)
	}
	if math.IsNaN(iv.Value) {
		return "–"
	}
	var largest float64
	for _, x := range nums {
		largest = max(largest, math.Abs(x))
	}
	verb, prec := 'f', 0
	switch {
	case largest == 0:
	case largest < 1e-3 || largest >= 1e9:
		verb, prec = 'e', sigDigits-1
	default:
		prec = max(0, sigDigits-1-int(math.Floor(math.Log10(largest))))
	}
	cells := make([]string, len(nums))
	for i, x := range nums {
		cells[i] = strconv.FormatFloat(x, byte(verb), prec, 64)
	}
	if len(cells) == 1 {
		return cells[0]
	}
	return fmt.Sprintf("%s [%s, %s]", cells[0], cells[1], cells[2])
}
