package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
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
		fmt.Fprintf(tw, "%s\t%s\t%.4g\t%.4g\t%s\t%.2f\t\n", c.Variant, c.Metric, c.A, c.B, withCIg(c.Diff), c.Prob)
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
