package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/models/rlcr"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
	"github.com/swarmsim/swarmsim/stats"
)

var cmdCompare = &command{
	Name:  "compare",
	Args:  "A B | DIR --variants A,B",
	Short: "compare two directories, or two variants of a run: differences with CIs",
	Long: `
Compare reads two complete directories of the same kind and scenario (run
with different --set values, say, or built by different versions) and
reports, for every variant both hold (a sweep's: every variant at every
point) and every metric, A's figure, B's, the difference B − A with its
95% bootstrap interval, and the probability of improvement: the chance
that B does better than A. What only one of them holds is named in a
warning and left out. A and B whose figures are all equal (the same
settings and seeds run twice) are warned of too: their differences
measure nothing.

	run directories    per episode. When both used the same seed and
	                   episodes, episode k of A and of B worked on the same
	                   task draw, so the differences are paired (episode by
	                   episode: the draw's noise cancels); a is A's mean, b
	                   B's, diff the mean of the differences, with the
	                   bootstrap over episodes, and prob_improvement the
	                   fraction of episodes in which B did better, ties
	                   counting a half (two runs that succeed in the
	                   same episodes have 0.5). Otherwise the two are
	                   resampled independently.
	train directories  per seed: each seed's mean over its last tenth of
	                   iterations; a and b are IQMs over seeds, diff their
	                   difference with the stratified bootstrap (each
	                   directory's seeds resampled on their own) and
	                   prob_improvement P(a seed of B beats a seed of A),
	                   ties counting a half.
	sweep directories  as train, at every point both sweeps hold (the same
	                   variant and swept values); the variant column names
	                   the point.

With --variants A,B compare reads one run directory and compares its
variant A with its variant B, paired episode by episode: episode k of
every variant of a run worked on the same task draw under the same random
streams. The variant column then reads "A vs B".

"Better" is higher for rewards, rates, parallelism and speedup, lower for
times, counts and costs, and none for what is neither good nor bad in
itself (settings, action probabilities, bookkeeping); docs/statistics.md
lists every metric's direction. The better column says which; it is none
for a reward that A and B score differently (two variants, or two
directories, whose reward sections differ), as such rewards measure two
objectives. Where it is none, prob_improvement is
P(B > A), the chance that B is larger.

The table on the terminal names A and B, then shows for every variant its
main metrics (reward, success, finish time or latency, parallelism, agent
time, model calls, critical steps, messages), each with its direction in
the better column and its probability in one of two columns: P(B better)
where better is higher or lower, P(B > A) where it is none (a column
printed only when such a row is). A row is constant where every episode
or seed of A and B has one value (a setting such as lr, a count that
never moved); constant rows and the other metrics are left out, with a
line counting them; --all shows every row. Directories of different
scenarios are refused unless --any-scenario is given. Compare writes a
directory (--out, default out/compare-A-vs-B, or out/compare-DIR-A-vs-B
with --variants):

	compare.csv     variant, metric, a, b, diff, diff_lo, diff_hi,
	                prob_improvement, unit, better, n_a, n_b, paired:
	                every row
	charts/         diff_<metric>: each variant's difference B − A with
	                its interval, for success, reward, finish time (and
	                a training's latency_p90), agent time, parallelism
	                and messages where the directories hold them, as PNG,
	                SVG and PDF (those --format names) with the CSV of each; the y axis names the
	                metric, its unit and A and B, and 0 is marked
	report.html     every table and chart of the directory on one page,
	                to open in a browser ('simulate report' writes it
	                again)
	manifest.json   the scenarios compared, written last

docs/statistics.md explains the intervals.`,
	Examples: `
	simulate run tiny && simulate run tiny --set collective.agents=2 --out out/tiny-agents2
	simulate compare out/tiny-seed7 out/tiny-agents2 --out results/agents
	simulate compare out/organizations-seed1 --variants sequential,team --all`,
	Setup: func(fs *flag.FlagSet) action {
		o := &compareOptions{}
		fs.StringVar(&o.out, "out", "", "write into directory `DIR` (default: out/compare-A-vs-B)")
		fs.BoolVar(&o.anyScenario, "any-scenario", false, "compare directories of different scenarios")
		fs.BoolVar(&o.force, "force", false, "overwrite a complete comparison at --out (never A or B, which compare reads;\nnever another command's results), or write into one that holds other files")
		fs.BoolVar(&o.charts, "charts", true, "draw the chart; --charts=false writes the table only")
		addFormatFlag(fs, &o.format, formatNeedsSVG)
		fs.BoolVar(&o.all, "all", false, "show every row on the terminal: the other metrics and the constant rows too")
		fs.Func("variants", "compare variants `A,B` of one run directory, paired episode by episode", func(v string) error {
			if v == "" {
				return errors.New("want two variants of the run, as A,B")
			}
			o.variants = v
			return nil
		})
		return o.run
	},
}

type compareOptions struct {
	out         string
	anyScenario bool
	force       bool
	charts      bool
	format      formatsFlag
	all         bool
	variants    string
}

// A comparison is what compare read and what it found.
type comparison struct {
	rows []results.Comparison
	// inputs are the directories read; the first gives the manifest its
	// scenario.
	inputs []*rundir.Run
	// a and b name A and B in the charts, and sideA and sideB on the
	// terminal.
	a, b         string
	sideA, sideB string
	description  string
	// out is the default directory.
	out string
	// notes are warnings for the terminal: what the comparison left out.
	notes []string
}

func (o *compareOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if err := checkFormats(o.format, o.charts, ""); err != nil {
		return err
	}
	compare := o.directories
	if o.variants != "" {
		compare = o.runVariants
	}
	c, err := compare(args)
	if err != nil {
		return err
	}
	for _, n := range c.notes {
		s.warnf("%s", n)
	}
	out := o.out
	if out == "" {
		out = c.out
	}
	for _, in := range c.inputs {
		if sameFile(out, in.Path) {
			return fmt.Errorf("--out %s is the directory %s, which compare reads: --force would replace it with the comparison; choose another --out", out, in.Path)
		}
	}
	dir, err := createDir(out, rundir.KindCompare, o.force)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dir.Abort()
		}
	}()
	if err := dir.Write("compare.csv", results.Table(c.rows)); err != nil {
		return err
	}
	if o.charts {
		if err := compareCharts(dir, c, o.format.formats()); err != nil {
			s.warnf("charts left out: %v", err)
		}
	}
	first := c.inputs[0].Manifest
	err = dir.Commit(&rundir.Manifest{
		Kind:            rundir.KindCompare,
		Scenario:        first.Scenario,
		Description:     c.description,
		Source:          first.Source,
		Hash:            first.Hash,
		Seed:            first.Seed,
		Variants:        variantsOf(c.rows),
		SwarmsimVersion: version(),
		GoVersion:       goVersion(),
		Command:         s.argv,
	})
	if err != nil {
		return err
	}
	see := s.writeReport(dir.Path())
	fmt.Fprintf(s.stdout, "A = %s\nB = %s\n\n", c.sideA, c.sideB)
	printComparison(s.stdout, c.rows, o.all)
	fmt.Fprintf(s.stdout, "\nwrote %s\n%s", quotePath(dir.Path()), see)
	return nil
}

// directories compares the directories A and B of args.
func (o *compareOptions) directories(args []string) (*comparison, error) {
	if len(args) != 2 {
		return nil, usagef("want two directories, got %s", count(len(args), "argument", "arguments"))
	}
	a, err := rundir.Open(args[0])
	if err != nil {
		return nil, err
	}
	b, err := rundir.Open(args[1])
	if err != nil {
		return nil, err
	}
	// A kind that differs cannot be compared whatever the scenarios: said
	// first, not after asking for --any-scenario.
	if err := results.SameKind(a, b); err != nil {
		return nil, err
	}
	if a.Manifest.Scenario != b.Manifest.Scenario && !o.anyScenario {
		return nil, fmt.Errorf("%s holds scenario %s and %s scenario %s: compare runs of one scenario, or give --any-scenario", a.Path, a.Manifest.Scenario, b.Path, b.Manifest.Scenario)
	}
	rows, err := results.Compare(a, b)
	if err != nil {
		return nil, err
	}
	onlyA, onlyB, err := results.Unmatched(a, b)
	if err != nil {
		return nil, err
	}
	what := "variant"
	if a.Manifest.Kind == rundir.KindSweep {
		what = "point" // a variant at a point of the sweep
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s and %s have no %s in common: A holds %s, B %s", a.Path, b.Path, what, someNames(onlyA), someNames(onlyB))
	}
	// What one side alone holds is left out of the comparison: said, not
	// dropped without a word.
	var notes []string
	for _, side := range []struct {
		name string
		only []string
	}{{a.Path, onlyA}, {b.Path, onlyB}} {
		if len(side.only) > 0 {
			notes = append(notes, fmt.Sprintf("left out, as only %s holds them: %s (%s)", side.name, count(len(side.only), what, what+"s"), someNames(side.only)))
		}
	}
	if sameFigures(rows) {
		notes = append(notes, "every figure of A equals B's: the same settings and seeds run twice? The differences are 0, and their intervals measure nothing")
	}
	// The directories' names, unless they are one name in two places.
	nameA, nameB := distinctWords(filepath.Base(a.Path), filepath.Base(b.Path))
	if nameA == nameB {
		nameA, nameB = a.Path, b.Path
	}
	description := fmt.Sprintf("%s (A) against %s (B)", a.Path, b.Path)
	// Rewards of two objectives differ without either being better.
	if apart := rewardsApart(a.Manifest, b.Manifest); len(apart) > 0 {
		for i := range rows {
			// A sweep's rows are its variants' points, "VARIANT @ PARAMS".
			variant, _, _ := strings.Cut(rows[i].Variant, " @ ")
			if slices.Contains(apart, variant) && htmlreport.RewardColumn(rows[i].Metric) {
				rows[i].Better = metric.None
			}
		}
		description += "; the reward of " + joinAnd(apart) + " is neither better nor worse, as A and B score it differently (their reward sections or time limits differ)"
	}
	return &comparison{
		rows: rows, inputs: []*rundir.Run{a, b},
		a: nameA, b: nameB, sideA: a.Path, sideB: b.Path,
		description: description,
		out:         filepath.Join("out", fmt.Sprintf("compare-%s-vs-%s", experiment.FileName(filepath.Base(a.Path)), experiment.FileName(filepath.Base(b.Path)))),
		notes:       notes,
	}, nil
}

// sameFigures reports whether every row's A and B are one number (NaN
// alike) over as many episodes or seeds: two directories of the same
// results, or one given twice under two names.
func sameFigures(rows []results.Comparison) bool {
	for _, r := range rows {
		if r.NA != r.NB || !(r.A == r.B || math.IsNaN(r.A) && math.IsNaN(r.B)) {
			return false
		}
	}
	return true
}

// rewardsApart returns the variants of both a and b whose rewards are
// scored differently in the two scenarios as run: another reward section
// (another --set reward.latency) or time limit (report.RewardsDiffer);
// none where either has no resolved scenario this version reads.
func rewardsApart(a, b *rundir.Manifest) []string {
	type scoring struct {
		reward rlcr.Reward
		limit  sim.Time
	}
	rewards := func(m *rundir.Manifest) map[string]scoring {
		if m.Resolved == "" {
			return nil
		}
		sc, err := scenarios.Parse([]byte(m.Resolved), m.Scenario, nil)
		if err != nil {
			return nil
		}
		out := map[string]scoring{}
		for _, v := range sc.Variants {
			out[v.Name] = scoring{v.Spec.Reward, v.Spec.Collective.TimeLimit}
		}
		return out
	}
	ra, rb := rewards(a), rewards(b)
	var apart []string
	for _, v := range a.Variants {
		x, okA := ra[v]
		y, okB := rb[v]
		if okA && okB && !reflect.DeepEqual(x, y) {
			apart = append(apart, v)
		}
	}
	return apart
}

// runVariants compares the two variants that --variants names of the run
// directory of args.
func (o *compareOptions) runVariants(args []string) (*comparison, error) {
	if len(args) != 1 {
		return nil, usagef("--variants compares two variants of one run directory: want one directory, got %s", count(len(args), "argument", "arguments"))
	}
	if o.anyScenario {
		return nil, usagef("--any-scenario is for two directories; --variants reads one run directory, of one scenario")
	}
	names := strings.Split(o.variants, ",")
	if len(names) != 2 || names[0] == "" || names[1] == "" {
		return nil, usagef("--variants %s: want two variants of the run, as A,B (such as team,single)", o.variants)
	}
	r, err := rundir.Open(args[0])
	if err != nil {
		return nil, err
	}
	rows, err := results.CompareVariants(r, names[0], names[1])
	if err != nil {
		return nil, fmt.Errorf("--variants %s: %w", o.variants, err)
	}
	description := fmt.Sprintf("variant %s (A) against variant %s (B) of %s", names[0], names[1], r.Path)
	// Rewards of two objectives differ without either being better.
	differ, err := htmlreport.RewardsDiffer(&rundir.Manifest{Resolved: r.Manifest.Resolved, Variants: names})
	if err != nil {
		return nil, err
	}
	if differ != "" {
		for i := range rows {
			if htmlreport.RewardColumn(rows[i].Metric) {
				rows[i].Better = metric.None
			}
		}
		description += "; the reward is neither better nor worse, as " + differ
	}
	return &comparison{
		rows: rows, inputs: []*rundir.Run{r},
		a: names[0], b: names[1],
		sideA:       fmt.Sprintf("variant %s of %s", names[0], r.Path),
		sideB:       fmt.Sprintf("variant %s of %s, paired episode by episode", names[1], r.Path),
		description: description,
		out: filepath.Join("out", fmt.Sprintf("compare-%s-%s-vs-%s", experiment.FileName(filepath.Base(r.Path)),
			experiment.FileName(names[0]), experiment.FileName(names[1]))),
	}, nil
}

// distinctWords returns a and b without the words (parts between '-')
// that both begin with and both end with, so that a chart's axis names
// what differs, short enough for a column: latency-pressure-train-seed1
// and latency-pressure-train-seed7 are seed1 and seed7. A name that
// would be left empty stays whole.
func distinctWords(a, b string) (string, string) {
	wa, wb := strings.Split(a, "-"), strings.Split(b, "-")
	lead := 0
	for lead < min(len(wa), len(wb)) && wa[lead] == wb[lead] {
		lead++
	}
	trail := 0
	for trail < min(len(wa), len(wb))-lead && wa[len(wa)-1-trail] == wb[len(wb)-1-trail] {
		trail++
	}
	da, db := wa[lead:len(wa)-trail], wb[lead:len(wb)-trail]
	if len(da) == 0 || len(db) == 0 {
		return a, b
	}
	return strings.Join(da, "-"), strings.Join(db, "-")
}

// compareCharts draws the charts of the comparison into dir/charts, in
// formats; the error joins those of the charts it could not draw.
func compareCharts(dir *rundir.Dir, c *comparison, formats []string) error {
	cw, err := experiment.NewChartWriter(dir, formats)
	if err != nil {
		return err
	}
	var errs []error
	for _, ch := range experiment.CompareCharts(c.rows, c.a, c.b, c.inputs[0].Manifest.Kind != rundir.KindRun) {
		if err := ch.Draw(cw); err != nil {
			errs = append(errs, err)
		}
	}
	if err := cw.Close(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// Heads of the probability columns of compare's table: the probability
// of improvement where a metric has a direction, and where it has none
// the chance that B is larger, which is no improvement.
const (
	headBetter = "P(B better)"
	headLarger = "P(B > A)"
)

// printComparison prints the rows as a table: per variant the main
// metrics first (metric.Main), each with its direction and its
// probability under headBetter or, for a metric without a direction,
// under headLarger (a column printed only where such a row is). Unless
// all is set it leaves out the constant rows and the other metrics, and
// says how many it left out.
func printComparison(w io.Writer, rows []results.Comparison, all bool) {
	shown, constant, other := pickRows(rows, all)
	larger := slices.ContainsFunc(shown, func(c results.Comparison) bool { return c.Better == metric.None })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\tmetric\tbetter\tA\tB\tB − A [95%% CI]\t%s\t", headBetter)
	if larger {
		fmt.Fprintf(tw, "%s\t", headLarger)
	}
	fmt.Fprintln(tw)
	for _, c := range shown {
		a, b := stats.Interval{Value: c.A, Lo: math.NaN(), Hi: math.NaN()}, stats.Interval{Value: c.B, Lo: math.NaN(), Hi: math.NaN()}
		prob := fmt.Sprintf("%.2f", c.Prob)
		better, gt := prob, ""
		if c.Better == metric.None {
			better, gt = "", prob
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t", c.Variant, c.Metric, c.Better, withCISig(a), withCISig(b), withCISig(c.Diff), better)
		if larger {
			fmt.Fprintf(tw, "%s\t", gt)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	var hidden []string
	if constant > 0 {
		hidden = append(hidden, count(constant, "constant row", "constant rows")+" (one value in every episode or seed of A and B)")
	}
	if other > 0 {
		hidden = append(hidden, count(other, "row of other metrics", "rows of other metrics"))
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "not shown: %s; --all shows them\n", strings.Join(hidden, ", "))
	}
}

// pickRows returns the rows that compare's table shows, variant by
// variant (in the order of rows) with the main metrics first, and how many
// constant rows and rows of other metrics it leaves out: every row when
// all is set, else the main metrics that are not constant.
func pickRows(rows []results.Comparison, all bool) (shown []results.Comparison, constant, other int) {
	for _, c := range rows {
		_, main := metric.Main(c.Metric)
		switch {
		case all:
			shown = append(shown, c)
		case c.Constant:
			constant++
		case !main:
			other++
		default:
			shown = append(shown, c)
		}
	}
	variants := variantsOf(shown)
	// Other metrics after the main ones, in the order of rows.
	place := func(c results.Comparison) int {
		if i, ok := metric.Main(c.Metric); ok {
			return i
		}
		return math.MaxInt
	}
	slices.SortStableFunc(shown, func(x, y results.Comparison) int {
		return cmp.Or(cmp.Compare(slices.Index(variants, x.Variant), slices.Index(variants, y.Variant)), cmp.Compare(place(x), place(y)))
	})
	return shown, constant, other
}

// sigDigits are the significant digits of the largest number in a cell
// of withCISig: enough to tell intervals apart, few enough to read.
const sigDigits = 3

// withCISig formats an interval as "value [lo, hi]" in one format for the
// whole cell, so that a bound never reads in another notation than its
// value: plain decimals, as many as give the largest of the three
// sigDigits significant digits, or scientific notation for all three
// where that largest is below 1e-3 or from 1e9 on, which no one reads as a
// plain number, where an exact zero is "0" (0.00e+00 reads as a number
// that rounded to zero). A zero, or a plain decimal that rounds to zero,
// has no sign. "–" for an undefined value, the value alone without an
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
		switch {
		case verb == 'f':
			cells[i] = numtext.Fixed(x, prec)
		case x == 0:
			cells[i] = "0"
		default:
			cells[i] = strconv.FormatFloat(x, byte(verb), prec, 64)
		}
	}
	if len(cells) == 1 {
		return cells[0]
	}
	return fmt.Sprintf("%s [%s, %s]", cells[0], cells[1], cells[2])
}

// variantsOf returns the variants of the rows, in the order they first
// appear.
func variantsOf(rows []results.Comparison) []string {
	var variants []string
	for _, r := range rows {
		if !slices.Contains(variants, r.Variant) {
			variants = append(variants, r.Variant)
		}
	}
	return variants
}
