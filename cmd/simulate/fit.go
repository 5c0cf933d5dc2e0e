package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdFit = &command{
	Name:  "fit",
	Args:  "FILE|DIR...",
	Short: "fit a scenario to recorded OpenTelemetry GenAI traces",
	Long: `
Fit reads agent traces, OpenTelemetry spans under the GenAI semantic
conventions in OTLP/JSON (what the Collector's file exporter writes) or the
OpenTelemetry Python SDK's span JSON, from each FILE and every .json or
.jsonl file below each DIR, but for directories that simulate wrote (with
a manifest.json, such as an earlier --out). A DIR that simulate wrote
stands for its spans.jsonl, the runs that 'simulate replay --spans'
replayed: its other files are not traces. Each root invoke_agent span is
a run. A file reached twice (named twice, or below two of the arguments)
is an error, since its runs would count twice. A fit needs at least two
runs, as the calls per run and the run duration are distributions over
runs; 'simulate replay' replays even one.

It writes to --out: calls.csv (one row per model call), tools.csv (one
row per tool call), runs.csv (one row per run), delegations.csv (who
delegated to whom), fit.csv (every distribution tried per quantity, its
parameters, KS distance and BIC, the one chosen and why), CDF charts of
observed against fitted latencies per model and per tool, and
scenario.yaml, a scenario that reproduces the traced workflow, with
comments saying what each value was fitted from. The scenario is
validated before anything is written. Spans without an end, attributes or
token counts are counted and reported on stderr. See docs/calibration.md.

The first example reads ../shared/data: real input files kept beside
the checkout, not in it (README.md).`,
	Examples: `
	simulate fit ../shared/data/agent-traces/any-agent --out fitted
	simulate fit traces.jsonl --out fitted --name my-workflow`,
	Setup: func(fs *flag.FlagSet) action {
		o := &fitOptions{}
		fs.StringVar(&o.out, "out", "", "write the results to `DIR` (required)")
		fs.StringVar(&o.name, "name", "fitted", "the scenario's `NAME`")
		fs.BoolVar(&o.force, "force", false, "overwrite a complete fit at --out (never another command's\nresults), or write into one that holds other files")
		addFormatFlag(fs, &o.format, formatNeedsSVG)
		return o.run
	},
}

type fitOptions struct {
	out, name string
	force     bool
	format    formatsFlag
}

func (o *fitOptions) run(ctx context.Context, s *session, args []string) error {
	if len(args) == 0 {
		return usagef("want at least one trace file or directory")
	}
	if o.out == "" {
		return usagef("--out DIR is required")
	}
	if err := checkFormats(o.format, true, ""); err != nil {
		return err
	}
	if err := scenarios.CheckName(o.name); err != nil {
		return usagef("--name: %v", err)
	}
	// --out is refused before the traces are read and fitted, which may
	// take a while; createDir checks it again when the fit is done.
	if _, err := checkOut(o.out, rundir.KindFit, o.force); err != nil {
		return err
	}
	tr, err := calibrate.Load(args)
	if err != nil {
		return err
	}
	fmt.Fprint(s.stderr, tr.Report)
	if err := tr.CheckRuns(args); err != nil {
		return err
	}
	f, err := calibrate.FitAll(tr)
	if err != nil {
		return err
	}
	fmt.Fprint(s.stderr, f.Notes())
	yaml, err := f.Scenario(o.name, args)
	if err != nil {
		return err
	}
	sc, err := scenarios.Parse(yaml, "scenario.yaml", nil)
	if err != nil {
		return fmt.Errorf("the fitted scenario does not validate (a bug; please report it): %w\n%s", err, yaml)
	}
	dir, err := createDir(o.out, rundir.KindFit, o.force)
	if err != nil {
		return err
	}
	if err := writeFit(dir, tr, f, yaml, o.format.formats()); err != nil {
		dir.Abort()
		return err
	}
	m := newManifest(s, rundir.KindFit, sc, sc.Seed)
	if err := dir.Commit(m); err != nil {
		dir.Abort()
		return err
	}
	see := s.writeReport(dir.Path())
	fmt.Fprintf(s.stdout, "%d runs, %d model calls, %d tool calls; median run %.3g s\n", len(tr.Runs), len(tr.Calls), len(tr.Tools), f.MedianDuration)
	for _, m := range f.Models {
		d := m.Latency.Best()
		fmt.Fprintf(s.stdout, "  %s: %d calls, latency %s (KS %.3g)\n", m.Model, m.N, d.Family, d.KS)
	}
	fmt.Fprintf(s.stdout, "wrote %s\n%s", quotePath(dir.Join("scenario.yaml")), see)
	return nil
}

func writeFit(dir *rundir.Dir, tr *calibrate.Traces, f *calibrate.Fit, yaml []byte, formats []string) error {
	for _, t := range []struct {
		name string
		rows func() ([]string, [][]string)
	}{
		{"calls.csv", tr.CallRows}, {"tools.csv", tr.ToolRows}, {"runs.csv", tr.RunRows},
		{"delegations.csv", tr.DelegationRows}, {"fit.csv", f.Rows},
	} {
		h, rows := t.rows()
		if err := dir.Write(t.name, rundir.CSV(h, rows)); err != nil {
			return err
		}
	}
	if err := dir.Mkdir("charts"); err != nil {
		return err
	}
	for _, c := range f.Curves(tr) {
		if err := writeCDF(dir, c, formats); err != nil {
			return fmt.Errorf("chart %s: %w", c.Name, err)
		}
	}
	return dir.Write("scenario.yaml", yaml)
}

// writeCDF draws the observed latencies of c against each fit, on a log
// axis from the smallest to the largest observation.
func writeCDF(dir *rundir.Dir, c calibrate.Curve, formats []string) error {
	obs, err := plots.ECDF("observed", c.Sample)
	if err != nil {
		return err
	}
	lo, hi := slices.Min(c.Sample), slices.Max(c.Sample)
	if hi <= lo {
		hi = lo * 2
	}
	const points = 60
	series := []plots.Series{obs}
	for _, d := range c.Fits {
		s := plots.Series{Name: string(d.Family)}
		for i := range points {
			x := lo * math.Pow(hi/lo, float64(i)/(points-1))
			s.X = append(s.X, x)
			s.Y = append(s.Y, d.CDF(x))
		}
		series = append(series, s)
	}
	chart := plots.Chart{XLabel: c.XLabel, YLabel: "P(latency <= x)", Size: plots.Page}
	p, err := plots.CDF(chart, series[0], series[1:], true)
	if err != nil {
		return err
	}
	return saveChart(dir, c.Name, p, chart.Size, plots.LinesTable(series), formats)
}
