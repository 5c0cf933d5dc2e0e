package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/swarmsim/swarmsim/results"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
)

var cmdPlot = &command{
	Name:  "plot",
	Args:  "DIR",
	Short: "redraw the charts of a run, train, sweep or compare directory from its tables",
	Long: `
Plot draws every chart of DIR again, from the chart tables the run wrote
(charts/NAME.csv) and the index of how each was drawn (charts/charts.json:
its kind, labels and size), without running anything: the same charts the
run drew, or the same at another size or in other formats, after a change
of style or to make figures for a paper. DIR must be complete (hold a
manifest.json) and have been written with charts: a run, train, sweep
(or merged sweep) or compare directory; a fit directory's charts and a
shard's table have no index to redraw from.

The charts and their CSVs go into --out (default: DIR/charts, replacing
the old ones), with the index; files of the formats not drawn stay as
they were, and plot warns of them. A complete directory, or the charts
of another one, is refused as --out.`,
	Examples: `
	simulate plot out/latency-pressure-train-seed1 --out figures
	simulate plot out/tiny-seed7 --size page --format pdf --out figures/tiny`,
	Setup: func(fs *flag.FlagSet) action {
		o := &plotOptions{}
		fs.StringVar(&o.out, "out", "", "write the charts into directory `D` (default: DIR/charts)")
		fs.StringVar(&o.size, "size", "", "draw every chart at size `S`, column (3.5 in), page (7 in)\nor tall (7 x 9 in) (default: each chart's own)")
		addFormatFlag(fs, &o.format, "")
		return o.run
	},
}

type plotOptions struct {
	out, size string
	format    formatsFlag
}

func (o *plotOptions) run(ctx context.Context, s *session, args []string) error {
	if len(args) != 1 {
		return usagef("want one directory, got %s", count(len(args), "argument", "arguments"))
	}
	if _, ok := plots.Sizes[o.size]; o.size != "" && !ok {
		return usagef("--size %s: want %s", o.size, plots.SizeNames())
	}
	formats := o.format.formats()
	r, err := rundir.Open(args[0])
	if err != nil {
		return err
	}
	index := path.Join(experiment.ChartsDir, experiment.ChartIndex)
	if r.Manifest.Kind == rundir.KindFit {
		return fmt.Errorf("%s is a fit directory, whose CDF charts have no index to redraw them from; run simulate fit again to draw them", r.Path)
	}
	if r.Manifest.Kind == rundir.KindSweep && !r.Manifest.Has(results.PlanFile) {
		return fmt.Errorf("%s is one shard's table, drawn without charts: plot the directory 'simulate merge' writes from the shards", r.Path)
	}
	if !r.Manifest.Has(index) {
		return fmt.Errorf("%s has no %s: it was written with --charts=false or by an older simulate; run it again to draw its charts", r.Path, index)
	}
	data, err := os.ReadFile(r.Join(index))
	if err != nil {
		return err
	}
	specs, err := plots.ParseSpecs(r.Join(index), data)
	if err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = r.Join(experiment.ChartsDir)
	}
	// The charts directory is not a run directory: it has no manifest, and
	// redrawing into it again is expected. A complete directory is not
	// for plot to write into, and plot has no --force.
	if _, err := os.Stat(filepath.Join(out, rundir.ManifestName)); err == nil {
		return fmt.Errorf("--out %s holds a complete directory (%s), which plot does not write into; choose another --out", out, rundir.ManifestName)
	}
	// Another directory's charts are its own: its manifest lists them.
	if owner := filepath.Dir(filepath.Clean(out)); filepath.Base(filepath.Clean(out)) == experiment.ChartsDir && !sameFile(owner, r.Path) {
		if _, err := os.Stat(filepath.Join(owner, rundir.ManifestName)); err == nil {
			return fmt.Errorf("--out %s holds the charts of the complete directory %s, which plot would replace with those of %s; choose another --out", out, owner, r.Path)
		}
	}
	// Every table is read and every chart drawn before any file is
	// written, so that a bad table or a chart that does not fit its size
	// leaves nothing half redrawn.
	tables := make([]plots.Table, len(specs))
	drawn := make([]*plot.Plot, len(specs))
	for i := range specs {
		t, err := r.Table(path.Join(experiment.ChartsDir, specs[i].Name+".csv"))
		if err != nil {
			return err
		}
		tables[i] = plots.Table{Header: t.Header, Rows: t.Rows}
		if o.size != "" {
			specs[i].Size = o.size
		}
		if drawn[i], err = plots.Draw(&specs[i], tables[i]); err != nil {
			return tableError(t, specs[i].Name, err)
		}
	}
	dir, err := rundir.Create(out, false)
	if err != nil {
		return err
	}
	cw := experiment.NewFormatsWriter(dir, formats)
	for i := range specs {
		if err := cw.Save(specs[i], drawn[i], tables[i]); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := cw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "drew %d charts of %s\nwrote %s\n", len(specs), r.Path, quotePath(filepath.Clean(out)))
	// Files of the formats not drawn stay as an earlier drawing left
	// them, at another size or in another style, and a report links them
	// beside the new ones: say so, rather than let them pass for redrawn.
	var left []string
	for _, f := range plots.Formats {
		if slices.Contains(formats, f) {
			continue
		}
		if slices.ContainsFunc(specs, func(sp plots.Spec) bool {
			_, err := os.Stat(filepath.Join(out, sp.Name+"."+f))
			return err == nil
		}) {
			left = append(left, f)
		}
	}
	if left != nil {
		s.warnf("the %s files of the charts in %s are from an earlier drawing (--format %s): redraw with --format %s to replace them",
			strings.Join(left, " and "), filepath.Clean(out), o.format.String(), strings.Join(plots.Formats, ","))
	}
	return nil
}

// tableError names the file of a chart's table that could not be drawn,
// and the line of the row at fault: "row 1" was line 2 of the file, or
// later where a quoted field spans lines.
func tableError(t *rundir.Table, chart string, err error) error {
	var row *plots.RowError
	if !errors.As(err, &row) {
		return fmt.Errorf("%s: %w", t.Path, err)
	}
	what := row.Err
	if row.Column != "" {
		what = fmt.Errorf("column %s: %w", row.Column, row.Err)
	}
	return fmt.Errorf("%s:%d: chart %s: %w", t.Path, t.Line(row.Row), chart, what)
}
