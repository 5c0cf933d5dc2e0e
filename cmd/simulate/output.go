package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/plots"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// goVersion returns the Go release simulate was built with.
func goVersion() string { return runtime.Version() }

// resumable names the identity files of the work that resumes in its
// directory, and what each work is.
var resumable = []struct{ file, what, clear string }{
	{train.IdentityFile, "training", "simulate train --force"},
	{results.PlanFile, "sweep", "simulate sweep --fresh"},
}

// otherWork refuses a directory that holds work that resumes there, other
// than own's (an identity file of resumable, "" for none), finished or
// not: a sweep resumed in a training's directory would write its tables
// over the training's, and a training in a sweep's would leave the sweep
// nothing to resume.
func otherWork(out, own string) error {
	for _, r := range resumable {
		if r.file == own {
			continue
		}
		if _, err := os.Stat(filepath.Join(out, r.file)); err == nil {
			return fmt.Errorf("%s holds a %s (%s), which this command does not replace; choose another directory with --out (%s clears it)", out, r.what, r.file, r.clear)
		}
	}
	return nil
}

// createDir opens out for a command whose work does not resume (run,
// compare, fit, replay), as rundir.Create does, after checkOut's
// refusals.
func createDir(out string, kind rundir.Kind, force bool) (*rundir.Dir, error) {
	complete, err := checkOut(out, kind, force)
	if err != nil {
		return nil, err
	}
	d, err := rundir.Create(out, force)
	if err != nil {
		return nil, err
	}
	if complete {
		if err := setAsidePage(d); err != nil {
			d.Abort()
			return nil, err
		}
	}
	return d, nil
}

// setAsidePage sets the page of the result that d replaces (if it
// replaces one) aside with the result's other files: written after its
// manifest, it is not listed there; a rerun that fails puts it back with
// them, one that commits writes its own.
func setAsidePage(d *rundir.Dir) error {
	if !d.Replacing() {
		return nil
	}
	return d.SetAside(htmlreport.Name)
}

// checkOut returns the error that createDir would return for out, writing
// nothing of its own, so that a command whose work comes before its
// directory (fit, replay) refuses an unusable --out before that work. It
// refuses a path that cannot be a directory (a file); a directory that
// holds a training or a sweep, finished or not: --force would remove its
// tables and leave its identity file and parts, mixing two kinds of work
// in one directory; and, --force or not, the complete results of another
// command (kind is this command's). Without --force it also refuses a
// complete result of this command, and a directory that holds files but
// no complete run (a folder of the user's, or what a killed run left):
// its files of the names the command writes would be replaced. It
// reports whether out holds a complete result. A result that a killed
// forced rerun set aside is put back first, as rundir.Create does.
func checkOut(out string, kind rundir.Kind, force bool) (complete bool, err error) {
	if err := rundir.CheckDir(out); err != nil {
		return false, err
	}
	if err := otherWork(out, ""); err != nil {
		return false, err
	}
	// A result that a killed forced rerun set aside is the directory's
	// result again before anything here looks at it.
	if _, err := rundir.Recover(out); err != nil {
		return false, err
	}
	_, err = os.Stat(filepath.Join(out, rundir.ManifestName))
	complete = err == nil
	if complete {
		// --force replaces a run with a rerun, not another command's
		// results (a comparison's, a fit's) with a run. ReadManifest
		// gives a manifest written before kinds were recorded its kind.
		if m, err := rundir.ReadManifest(out); err == nil && m.Kind != kind {
			return false, fmt.Errorf("%s holds the results of a %s (its %s says so), which this command does not replace; choose another directory with --out", out, m.Kind, rundir.ManifestName)
		}
		if !force {
			return false, fmt.Errorf("%s holds a complete run (%s); use --force to overwrite it, or --out to choose another directory", out, rundir.ManifestName)
		}
	}
	if names := strangers(out); len(names) > 0 && !complete && !force {
		return false, fmt.Errorf("%s holds files but no complete run (no %s): %s; use --force to write into it anyway (files of the names a run writes are replaced), or --out to choose another directory",
			out, rundir.ManifestName, someNames(names))
	}
	return complete, nil
}

// foreignFiles refuses, for work that resumes in out (a training, a
// sweep, a merge), a directory that holds neither that work (its
// identity file own) nor a result of this tool (a manifest, which the
// work's claim judges) but files of the user's, as checkOut refuses one
// for a run: the work would write its tables and folders among them.
// A file (or link) of a name the work writes (writes, patterns of
// filepath.Match) is its own, in the way or left by a killed process; a
// folder with something in it is the user's whatever its name, as the
// work would replace it whole (charts/).
// anyway is the flag that writes there all the same ("" for none).
func foreignFiles(out, own string, writes []string, anyway string, given bool) error {
	for _, f := range []string{own, rundir.ManifestName} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			return nil
		}
	}
	// strangers leaves out empty folders: a folder here holds something.
	names := slices.DeleteFunc(strangers(out), func(name string) bool {
		if name == own || name == rundir.ManifestName {
			// Written since the check above, by another process of the
			// same work (shards that share the directory): the claim
			// judges it.
			return true
		}
		if fi, err := os.Lstat(filepath.Join(out, name)); err == nil && fi.IsDir() {
			return false
		}
		return slices.ContainsFunc(writes, func(p string) bool { ok, _ := filepath.Match(p, name); return ok })
	})
	switch {
	case len(names) == 0 || given:
		return nil
	case anyway == "":
		return fmt.Errorf("%s holds files but no %s: %s; choose another directory with --out", out, own, someNames(names))
	}
	return fmt.Errorf("%s holds files but no %s: %s; use %s to write into it anyway, or --out to choose another directory", out, own, someNames(names), anyway)
}

// The names that a training and a sweep (or merge) write in their
// directories, besides their identity files and the manifest.
var (
	trainWrites = []string{train.CheckpointDir, "iterations.csv", "summary.csv", "policies", "charts", "report.html"}
	sweepWrites = []string{results.TrialsDir, "trials.csv", "summary.csv", "charts", "report.html", "shard-*-of-*"}
)

// someNames lists the first three of names, and how many more there are.
func someNames(names []string) string {
	shown := names[:min(len(names), 3)]
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return strings.Join(shown, ", ") + more
}

// strangers returns the visible entries of the directory out (none when
// it does not exist), for one that holds no manifest: files that no run
// of this tool describes. Hidden ones (.DS_Store, a write's
// temporary file) and empty folders (a replaced run's charts folder,
// emptied by a rerun that stopped) do not count.
func strangers(out string) []string {
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil // missing, it is made; a file, rundir.Create says so
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() {
			if inside, err := os.ReadDir(filepath.Join(out, e.Name())); err == nil && len(inside) == 0 {
				continue
			}
		}
		names = append(names, e.Name())
	}
	return names
}

// commandSuffixes are the suffixes that train and sweep add to a
// scenario's name in their default directories (run adds none).
var commandSuffixes = []string{"-train", "-sweep"}

// defaultOut is the directory of a command without --out:
// out/NAME<suffix>-seedS, where suffix is the command's ("" for run) and
// NAME the scenario's name, followed by -VARIANT for a command run with
// --variant (so that each variant run alone has a directory). A
// scenario's name that already ends with the suffix does not repeat it
// (pressure-sweep's sweep writes out/pressure-sweep-seed1; a variant's
// name never stands for it, as lp and lp --variant train would share
// out/lp-train-seed1), and run adds
// "-run" to a name that ends with another command's suffix, so that a
// directory's name still tells the command: train's and sweep's end with
// their suffix, run's with neither.
func defaultOut(sc *scenarios.Scenario, variant, suffix string, seed uint64) string {
	name := experiment.FileName(sc.Name)
	if variant != "" {
		name += "-" + experiment.FileName(variant)
	}
	switch {
	case variant == "" && suffix != "" && strings.HasSuffix(name, suffix):
		suffix = ""
	case suffix == "" && slices.ContainsFunc(commandSuffixes, func(s string) bool { return strings.HasSuffix(name, s) }):
		suffix = "-run"
	}
	return filepath.Join("out", fmt.Sprintf("%s%s-seed%d", name, suffix, seed))
}

// newManifest returns the manifest of a run of sc: what every kind of
// directory records of the scenario and the build.
func newManifest(s *session, kind rundir.Kind, sc *scenarios.Scenario, seed uint64) *rundir.Manifest {
	return &rundir.Manifest{
		Kind:            kind,
		Scenario:        sc.Name,
		Description:     sc.Description,
		Source:          sc.Source,
		Hash:            sc.Hash,
		Seed:            seed,
		Variants:        variantNames(sc),
		SwarmsimVersion: version(),
		GoVersion:       goVersion(),
		Command:         s.argv,
		Resolved:        string(sc.Resolved),
	}
}

// checkOutFile refuses a path that the flag (--out, --dot) cannot take
// as the file it names: a directory, a path below a file, or (unless
// force) a file that exists, with one sentence that says what to give
// instead (example is a file name to suggest). A command checks it before
// its work, and writeOutFile again.
func checkOutFile(flag, path, example string, force bool) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: this command writes one file; give a file name, such as %s", path, filepath.Join(path, example))
	} else if err == nil && !force {
		return fmt.Errorf("%s exists; use --force to overwrite it, or %s to choose another file", path, flag)
	}
	return rundir.CheckDir(filepath.Dir(path))
}

// writeOutFile writes data to the file path that the flag names,
// atomically, making its missing parent folders as run does for its
// directory, after checkOutFile.
func writeOutFile(flag, path, example string, force bool, data []byte) error {
	if err := checkOutFile(flag, path, example, force); err != nil {
		return err
	}
	return rundir.WriteFile(path, data)
}

// refuseUnread returns an error for the first --set of sets that the
// command never reads: a field scenarios.Unread names for reader (an
// evaluation, training, a trace or a graph), or one in the sweep section
// unless sweep is set. Such a value would change nothing.
func refuseUnread(sets []string, reader string, sweep bool) error {
	for _, s := range sets {
		why := scenarios.Unread(reader, scenarios.SetPath(s))
		if why == "" && !sweep && setSection(s) == "sweep" {
			why = "only simulate sweep reads the sweep section"
		}
		if why == "" && !sweep && reader == scenarios.SweepReplay && setSection(s) == "figures" {
			why = "simulate replay has no --figures, so nothing reads the figures list (a sweep of command replay does)"
		}
		if why != "" {
			return fmt.Errorf("--set %s: %s; remove it", s, why)
		}
	}
	return nil
}

// setSection returns the top-level key that a --set value names: train
// for train.lr=0.1, figures for figures[0]=x.
func setSection(set string) string {
	path := scenarios.SetPath(set)
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

// loadScenario loads a scenario with --set overrides, keeps the variant
// that --variant names if any (scenarios.Scenario.Only), and prints the
// warnings that concern what it keeps (such as a --set that a variant
// overrides) on stderr.
func loadScenario(s *session, nameOrPath string, sets []string, variant string) (*scenarios.Scenario, error) {
	sc, err := scenarios.Load(nameOrPath, sets)
	if err != nil {
		return nil, err
	}
	if variant != "" {
		if err := sc.Only(variant); err != nil {
			return nil, fmt.Errorf("--variant %s: %w", variant, err)
		}
	}
	for _, w := range sc.Warnings {
		s.warnf("%s", w.Msg)
	}
	return sc, nil
}

// sameFile reports whether the paths a and b both exist and name one file
// or directory, however each is spelled.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// drawCharts draws charts into dir/charts, in formats, on workers
// goroutines with a progress bar: a chart that cannot be drawn is left
// out with a warning, which waits until the bar is gone, after the
// warnings given. Without charts it makes no charts directory.
func drawCharts(ctx context.Context, s *session, dir *rundir.Dir, charts []experiment.Chart, warnings []string, formats []string, workers int) (err error) {
	if len(charts) == 0 {
		for _, w := range warnings {
			s.warnf("%s", w)
		}
		return nil
	}
	cw, err := experiment.NewChartWriter(dir, formats)
	if err != nil {
		return err
	}
	cw.LeftOut(warnings...)
	bar := newProgress(s.stderr, "charts", len(charts))
	defer func() {
		bar.finish(err == nil)
		for _, w := range warnings {
			s.warnf("%s", w)
		}
	}()
	left, err := cw.DrawAll(ctx, charts, workers, bar.increment)
	warnings = append(warnings, left...)
	if err != nil {
		return err
	}
	return cw.Close()
}

// saveChart saves p as charts/NAME in formats, with its CSV, and records
// the files: a chart of fit or replay, which keep no index to redraw
// their charts from.
func saveChart(dir *rundir.Dir, name string, p *plot.Plot, size plots.Size, data plots.Table, formats []string) error {
	if err := plots.SaveFormats(p, size, dir.Join("charts/"+name), data, formats); err != nil {
		return err
	}
	dir.Record("charts/"+name+".csv", false)
	for _, f := range formats {
		dir.Record("charts/"+name+"."+f, false)
	}
	return nil
}
