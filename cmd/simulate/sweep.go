package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/sweep"
	"github.com/swarmsim/swarmsim/models/policy"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

var cmdSweep = &command{
	Name:  "sweep",
	Args:  "SCENARIO",
	Short: "run a scenario's sweep: many trials, in parallel, resumable, sharded",
	Long: `
Sweep runs the trials of SCENARIO's sweep section: every grid point (in
row-major order, the first axis slowest) times every random sample times
every seed (S, S+1, ...), for each variant. Each trial applies its values
to the base, as --set would, then the variant's overrides, and either
trains the policy with RLCR (command: train; the metrics are means over
the last tenth of the iterations), evaluates the variant for the
scenario's episodes (command: run), or replays the recorded runs of
replay.traces through the variant's deployment under the replay
section's load (command: replay; the metrics are the replay's summary,
see 'simulate help replay'). A trial's ID is a hash of its
parameters, variant and seed; random sample k draws the same values at
every grid point.

	sweep:
	  command: train
	  seeds: 2
	  grid:
	    reward.latency: [0, 0.5, 1]
	    task.coupling: [0, 0.5, 0.9]
	  random:
	    train.lr: uniform(0.02, 0.2)
	  samples: 3
	  metrics: [reward_mean, success_rate, latency_mean, parallelism_mean]

Sweep prints a row per variant and point: its seeds, then each metric's
IQM over them with its 95% interval, followed by the seeds it is over
where the metric is undefined for some ("2600 (1 seed)").

Trials run on a pool of workers and write into a directory:

	sweep.json        the sweep: the scenario as resolved, its hash, the
	                  seed, and every trial with its ID and parameters
	trials/<id>.json  one file per finished trial (parameters and metrics),
	                  written atomically when the trial is done
	trials/<id>/      with --trial-dirs: the trial's policy.json and
	                  iterations.csv (train) or episodes.csv (run), for
	                  the trials this run runs (not those done before)
	trials.csv        at the end, one row per trial in enumeration order:
	                  trial, variant, seed, the swept paths, the metrics
	                  (times in virtual seconds); with sweep.reference,
	                  the metrics relative to each trial's reference
	                  trial follow (error_amplification,
	                  coordination_overhead, efficiency, success_gain;
	                  NaN where the reference has no record yet)
	summary.csv       one row per variant, point and metric: variant, the
	                  swept paths, metric, unit, n_seeds, mean, median,
	                  iqm, iqm_lo, iqm_hi, mean_lo, mean_hi, median_lo,
	                  median_hi (95% percentile bootstrap over seeds)
	charts/           each metric against each grid axis (IQM over seeds
	                  with a 95% bootstrap band; one curve per value of the
	                  other axis when there are two), a heat map over the
	                  first two axes, and phase_parallelism (parallelism
	                  over reward.latency and task.coupling) when both are
	                  swept, as PNG, SVG and PDF (those --format names)
	                  with the CSV of each, and charts.json for
	                  'simulate plot'
	report.html       every table and chart of the directory on one page,
	                  to open in a browser ('simulate report' writes it
	                  again)
	manifest.json     as for 'simulate run', written last

Resume: running the same command on the same directory skips the trials
whose file exists and runs the rest, so an interrupted sweep (even one
killed with SIGKILL) completes without running a trial twice. A
directory holding a different sweep (another scenario, --set, seed or
--variant) is refused unless --fresh is given, which clears it first
(not with a shard, whose directory the other shards may share), and so
is one without sweep.json that holds files of other names than a sweep
writes (a folder of yours).
--workers, --max-events and --max-memory are not part of a sweep: a
sweep stopped by an episode's event bound resumes with a higher
--max-events.

Shards: trial j (in enumeration order) belongs to shard j mod n. The
shard comes from --shard i/n, else from SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT (minus SLURM_ARRAY_TASK_MIN: submit with
--array=0-(n-1)), else from JOB_COMPLETION_INDEX with --shards n (a
Kubernetes Indexed Job). Shards may share one directory: a shard writes
its own trials' table into shard-<i>-of-<n>/, and 'simulate merge' joins
the trials of all shards into the table, charts and manifest a single
run would have written; a shard draws no charts, so it refuses --figures
and --format (give merge its --format). docs/cluster.md has SLURM and
Kubernetes examples. Results never depend on the workers, the shards or
interruptions: trials.csv is the same, byte for byte.

A progress bar with an ETA is drawn on standard error when it is a
terminal, and a plain progress line at most every 30 seconds when it is
not (a SLURM log). Unless GOGC is set, simulate runs the garbage collector at
GOGC=400: trials keep little memory live, and collecting less often makes
sweeps about 1.5 times faster.`,
	Examples: `
	simulate sweep pressure-sweep
	simulate sweep pressure-sweep --workers 8 --out results/pressure
	simulate sweep my.yaml --set sweep.seeds=5 --set train.iterations=100
	simulate sweep my.yaml --shard 3/16 --out $SCRATCH/my-sweep
	simulate merge $SCRATCH/my-sweep --out results/my-sweep`,
	Setup: func(fs *flag.FlagSet) action {
		o := &sweepOptions{}
		o.outputOptions.flags(fs, outputUsage{
			seed:    "the first seed `S` of every point (default: the scenario's seed)",
			out:     "write into directory `DIR` (default: out/SCENARIO-sweep-seedS, S the first seed; a SCENARIO that ends in -sweep adds none;\nwith --variant V, SCENARIO-V)",
			set:     "override a scenario value, as `path=value` (such as sweep.seeds=3);\nmay be repeated",
			variant: "run only the trials of variant `V` (the default directory names it)",
			workers: "run `W` trials at once, and draw as many charts (default: the\nnumber of CPUs); results do not depend on it",
		})
		fs.Func("shard", "run only shard `i/n`: the trials j with j mod n = i", func(v string) error {
			// A blank value (a script's unset variable) would read as no
			// --shard, the whole sweep in every task.
			if strings.TrimSpace(v) == "" {
				return errors.New("want i/n, such as 0/4 (shard i, from 0, of n)")
			}
			o.shard = v
			return nil
		})
		fs.Var(&o.shards, "shards", "the number of shards `N`, with JOB_COMPLETION_INDEX\n(Kubernetes) or a SLURM array without SLURM_ARRAY_TASK_COUNT")
		fs.BoolVar(&o.fresh, "fresh", false, "clear a directory that holds another sweep (or this one) and start over;\nrefused with a shard")
		fs.BoolVar(&o.trialDirs, "trial-dirs", false, "also write each trial's policy or episodes into trials/<id>/")
		return o.run
	},
}

type sweepOptions struct {
	outputOptions
	shard     string
	shards    countFlag
	fresh     bool
	trialDirs bool
}

func (o *sweepOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 1 {
		return usagef("want one scenario, got %s", count(len(args), "argument", "arguments"))
	}
	if err := o.check(); err != nil {
		return err
	}
	shard, _, err := sweep.ResolveShard(o.shard, int(o.shards), os.LookupEnv)
	if err != nil {
		if o.shard != "" {
			// With --shard the environment is not read, so the flags
			// alone are wrong: a bad --shard, or a --shards that
			// disagrees with it.
			return usagef("%v", err)
		}
		return err
	}
	if shard.Sharded() && o.figures != "" {
		// Else ignored: a shard writes its own tables only.
		return usagef("--figures %s with shard %s: a shard draws no charts; merge the shards into the sweep's directory, then run the sweep there without a shard (its trials are done) with --figures", o.figures, shard)
	}
	if shard.Sharded() && o.format.set {
		// Else ignored, as --figures would be: merge draws the charts.
		return usagef("--format %s with shard %s: a shard draws no charts; give --format to 'simulate merge', which draws them", o.format.String(), shard)
	}
	if shard.Sharded() && o.fresh {
		// Shards may share a directory: clearing it would delete the
		// trials the other shards have done, or are doing.
		return usagef("--fresh with shard %s: it would clear the trials of the other shards that share the directory; remove the directory once before the shards start, then run them without --fresh", shard)
	}
	sc, err := loadScenario(s, args[0], o.sets, o.variant)
	if err != nil {
		return err
	}
	if sc.Sweep == nil {
		return fmt.Errorf("scenario %s has no sweep section: add one (see 'simulate help sweep'), or give one with --set, such as --set 'sweep={command: run, grid: {collective.agents: [2, 4, 8]}}'", sc.Name)
	}
	if err := refuseUnread(o.sets, sc.Sweep.Command, true); err != nil {
		return err
	}
	if sc.Sweep.Command == scenarios.SweepReplay {
		if err := sc.CheckTraces(); err != nil {
			return err
		}
	}
	seed := o.seedOf(sc)
	plan, trials, err := sweep.NewPlan(sc, seed, o.variant)
	if err != nil {
		return err
	}
	var work []workload
	for j := range trials {
		if shard.Owns(j) {
			w := variantWorkload(&trials[j].Variant, sc.Sweep.Command == scenarios.SweepTrain)
			w.name = fmt.Sprintf("trial %s (%s)", trials[j].ID, plan.Describe(j))
			work = append(work, w)
		}
	}
	workers := o.workerCount()
	ctx, done, err := o.limits.start(ctx, sc, work, min(workers, len(work)))
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	out := o.dir(sc, "-sweep", seed)
	if err := otherWork(out, results.PlanFile); err != nil {
		return err
	}
	anyway := "--fresh"
	if shard.Sharded() {
		anyway = "" // refused with a shard
	}
	if err := foreignFiles(out, results.PlanFile, sweepWrites, anyway, o.fresh); err != nil {
		return err
	}
	dir, err := sweep.Prepare(out, plan, o.fresh)
	if err != nil {
		if shard.Sharded() && errors.Is(err, rundir.ErrOtherWork) {
			return fmt.Errorf("%w (but not with a shard, which refuses --fresh: remove the directory once before the shards start)", err)
		}
		return err
	}
	st, err := sweep.Check(out, plan, shard)
	if err != nil {
		return err
	}
	for _, iv := range st.Invalid {
		s.warnf("%s: running the trial again", iv)
	}

	bar := newProgress(s.stderr, "trials", len(st.Pending))
	opt := sweep.Options{Workers: workers, MaxEvents: o.limits.events(), Finished: func(*scenarios.Trial) { bar.increment() }}
	if o.trialDirs {
		opt.Output = func(t *scenarios.Trial, oc *sweep.Outcome) error { return writeTrialDir(out, sc, t, oc) }
		if done := len(st.Shard) - len(st.Pending); done > 0 {
			// A trial's directory is written as it runs, from what a
			// record does not keep.
			s.warnf("--trial-dirs: the %s done before are not run again, so they get no trials/<id>/ (--fresh runs every trial again)", count(done, "trial", "trials"))
		}
	}
	err = sweep.Execute(ctx, &sweep.Work{Dir: out, Plan: plan, Scenario: sc, Trials: trials}, st.Pending, opt)
	bar.finish(err == nil)
	if err != nil {
		if after, cerr := sweep.Check(out, plan, shard); cerr == nil {
			// --fresh would clear the trials just kept.
			again := "run the same command again to resume"
			switch limit := errors.Is(err, sim.ErrEventLimit); {
			case limit && o.fresh:
				again = "run it again with a higher --max-events and without --fresh to resume"
			case limit:
				again = "run it again with a higher --max-events to resume"
			case o.fresh:
				again = "run the same command without --fresh to resume"
			}
			fmt.Fprintf(s.stderr, "%s: %d of %d trials done; %s\n", s.name, after.Done(), len(after.Shard), again)
		}
		return err
	}

	recs, bad, err := sweep.ReadRecords(out, plan)
	if err != nil {
		return err
	}
	mine := map[string]*sweep.Record{}
	for _, j := range st.Shard {
		id := plan.Trials[j].ID
		r, ok := recs[id]
		if !ok {
			for _, iv := range bad {
				s.warnf("%s", iv)
			}
			return fmt.Errorf("trial %s (%s) has no valid file in %s after running: was the directory changed meanwhile?", id, plan.Describe(j), out)
		}
		mine[id] = r
	}
	ran := len(st.Pending)
	if shard.Sharded() {
		sub := fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count)
		// A shard's table is rewritten whenever the shard runs.
		sdir, err := createShardDir(ctx, filepath.Join(out, sub))
		if err != nil {
			return err
		}
		if err := setAsidePage(sdir); err != nil {
			sdir.Abort()
			return err
		}
		if err := writeSweepOutputs(ctx, s, sdir, sweepOutputs{source: sc.Source, plan: plan, recs: mine}); err != nil {
			sdir.Abort() // puts back the shard's table of an earlier run, if any
			return err
		}
		see := s.writeReport(sdir.Path())
		fmt.Fprintf(s.stdout, "shard %s: %d trials, %d run now, %d done before\n", shard, len(st.Shard), ran, len(st.Shard)-ran)
		// The merge takes the sweep's directory, not the shard's.
		fmt.Fprintf(s.stdout, "\nwrote %s (merge the shards with: simulate merge %s --out DIR)\n%s", quotePath(filepath.Join(out, sub)), quotePath(out), see)
		return nil
	}
	if err := recordSweepFiles(dir, plan, mine); err != nil {
		return err
	}
	if err := writeSweepOutputs(ctx, s, dir, sweepOutputs{source: sc.Source, plan: plan, recs: mine, charts: o.charts, formats: o.format.formats(), workers: workers}); err != nil {
		// The tables and charts written so far go; the records, parts
		// that the same command resumes from, stay.
		dir.Abort()
		return err
	}
	see := s.writeReport(dir.Path())
	if err := printSweepSummary(s.stdout, plan, mine); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "\n%d trials, %d run now, %d done before\nwrote %s\n%s", len(st.Shard), ran, len(st.Shard)-ran, quotePath(out), see)
	return copyFigures(s, dir, sc, o.figures, "sweep")
}

// shardWait bounds how long a shard waits for another process that
// writes the same shard's table.
const shardWait = 5 * time.Minute

// createShardDir prepares a shard's own directory. Another process may be
// writing the same table there (the same shard started twice, both
// finishing at once): its bytes are the same, so this one waits for it to
// end rather than fail after all its trials are done.
func createShardDir(ctx context.Context, path string) (*rundir.Dir, error) {
	deadline := time.Now().Add(shardWait)
	for {
		d, err := rundir.Create(path, true)
		if !errors.Is(err, rundir.ErrBusy) || time.Now().After(deadline) {
			return d, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// writeTrialDir writes the own outputs of trial t of sc's sweep into
// trials/<id>/.
func writeTrialDir(out string, sc *scenarios.Scenario, t *scenarios.Trial, oc *sweep.Outcome) error {
	d := sweep.TrialDir(out, t.ID)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	if oc.Policy != nil {
		var buf bytes.Buffer
		if err := policy.Save(&buf, oc.Policy); err != nil {
			return err
		}
		if err := rundir.WriteFile(filepath.Join(d, "policy.json"), buf.Bytes()); err != nil {
			return err
		}
		return rundir.WriteFile(filepath.Join(d, "iterations.csv"), sweep.IterationsCSV(oc.Iterations))
	}
	if oc.Replayed != nil {
		h, rows := calibrate.ReplayRows(oc.Runs, oc.Replayed)
		return rundir.WriteFile(filepath.Join(d, "replay.csv"), rundir.CSV(h, rows))
	}
	b, err := experiment.EpisodesTable(oc.Rows, experiment.Columns{Handoff: experiment.UsesHandoff(&t.Variant.Spec), Scaling: experiment.UsesReference(sc)})
	if err != nil {
		return err
	}
	return rundir.WriteFile(filepath.Join(d, "episodes.csv"), b)
}

// recordSweepFiles lists sweep.json, the trial files of recs and the files
// of their trial directories in dir's manifest.
func recordSweepFiles(dir *rundir.Dir, plan *results.Plan, recs map[string]*sweep.Record) error {
	dir.Record(results.PlanFile, true)
	for _, t := range plan.Trials {
		if _, ok := recs[t.ID]; !ok {
			continue
		}
		dir.Record(path.Join(results.TrialsDir, t.ID+".json"), true)
		sub := sweep.TrialDir(dir.Path(), t.ID)
		entries, err := os.ReadDir(sub)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			if name := e.Name(); e.Type().IsRegular() && name[0] != '.' {
				dir.Record(path.Join(results.TrialsDir, t.ID, name), true)
			}
		}
	}
	return nil
}

// sweepOutputs are what a sweep's tables, charts and manifest are written
// from: the scenario's source ("" for a merge), the plan and its records,
// and whether to draw the charts.
type sweepOutputs struct {
	source string
	plan   *results.Plan
	recs   map[string]*sweep.Record
	charts bool
	// formats are the charts' image formats.
	formats []string
	// workers draw the charts; 0 means the number of CPUs.
	workers int
}

// writeSweepOutputs writes trials.csv of the records, the charts (if
// wanted) and the manifest into dir.
func writeSweepOutputs(ctx context.Context, s *session, dir *rundir.Dir, out sweepOutputs) error {
	plan, recs, err := sweep.WithRelative(out.plan, out.recs)
	if err != nil {
		return err
	}
	// Written again over a complete result (a sweep run again, a merge
	// into its own output), the old manifest goes first, so that the
	// directory is never complete with tables it does not describe, then
	// its page (written after it); the old charts go too: these trials,
	// or --charts=false, may not draw them again.
	for _, name := range []string{rundir.ManifestName, htmlreport.Name} {
		if err := dir.Remove(name); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(dir.Join(experiment.ChartsDir)); err != nil {
		return err
	}
	if err := dir.Write("trials.csv", sweep.Table(plan, recs)); err != nil {
		return err
	}
	if err := dir.Write("summary.csv", sweep.SummaryTable(plan, sweep.Summarize(plan, recs))); err != nil {
		return err
	}
	if out.charts {
		if err := writeSweepCharts(ctx, s, dir, plan, recs, out.formats, out.workers); err != nil {
			return err
		}
	}
	return dir.Commit(&rundir.Manifest{
		Kind:            rundir.KindSweep,
		Scenario:        plan.Scenario,
		Description:     plan.Description,
		Source:          out.source,
		Hash:            plan.ScenarioHash,
		Seed:            plan.Seed,
		Episodes:        plan.Episodes,
		Seeds:           plan.Seeds,
		MissingTrials:   len(plan.Trials) - len(out.recs),
		Variants:        plan.Variants,
		SwarmsimVersion: version(),
		GoVersion:       goVersion(),
		Command:         s.argv,
		Resolved:        plan.Resolved,
	})
}

// writeSweepCharts draws the charts of sweep.Charts into dir/charts. A
// chart that cannot be drawn is left out with a warning.
func writeSweepCharts(ctx context.Context, s *session, dir *rundir.Dir, plan *results.Plan, recs map[string]*sweep.Record, formats []string, workers int) error {
	charts, warnings := sweep.Charts(plan, recs)
	draw := make([]experiment.Chart, len(charts))
	for i := range charts {
		draw[i] = experiment.Chart{Name: charts[i].Name, Draw: charts[i].Draw}
	}
	return drawCharts(ctx, s, dir, draw, warnings, formats, workers)
}

// maxSummaryRows bounds the table printed at the end of a sweep.
const maxSummaryRows = 40

// shortNumber is a parameter's value as a table for a reader shows it: a
// random axis's draw (a fraction of more than 8 characters, as a grid's
// values are rarely written) to digits significant digits, anything else
// (a whole number, such as a token budget) as written. summary.csv keeps
// the value whole.
func shortNumber(v string, digits int) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || len(strings.TrimPrefix(v, "-")) <= 8 || f == math.Trunc(f) {
		return v
	}
	return strconv.FormatFloat(f, 'g', digits, 64)
}

// shortRows returns rows of parameters (or a table's keys) with each
// column as shortColumn shows it.
func shortRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
	}
	if len(rows) == 0 {
		return out
	}
	col := make([]string, len(rows))
	for c := range rows[0] {
		for i, r := range rows {
			col[i] = r[c]
		}
		for i, v := range shortColumn(col) {
			out[i][c] = v
		}
	}
	return out
}

// shortColumn returns a column's values as shortNumber shows them at 4
// significant digits, or at as many more as keep two different values
// apart: rows that read alike would hide that they are different points.
func shortColumn(vals []string) []string {
	out := make([]string, len(vals))
	// 17 significant digits tell any two float64 apart.
	for digits := 4; digits <= 17; digits++ {
		of := map[string]string{} // shown -> value
		apart := true
		for i, v := range vals {
			shown := shortNumber(v, digits)
			if w, ok := of[shown]; ok && w != v {
				apart = false
				break
			}
			of[shown], out[i] = v, shown
		}
		if apart {
			break
		}
	}
	return out
}

// printSweepSummary prints the IQM over seeds of each metric per variant
// and point, with its 95% bootstrap interval, and the seeds it is over
// where they are fewer than the point's.
func printSweepSummary(w io.Writer, plan *results.Plan, recs map[string]*sweep.Record) error {
	plan, recs, err := sweep.WithRelative(plan, recs)
	if err != nil {
		return err
	}
	sums := sweep.Summarize(plan, recs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	multi := len(plan.Variants) > 1
	if multi {
		fmt.Fprint(tw, "variant\t")
	}
	for _, p := range plan.ParamNames() {
		fmt.Fprintf(tw, "%s\t", p)
	}
	fmt.Fprint(tw, "seeds\t")
	for _, m := range plan.Metrics {
		fmt.Fprintf(tw, "%s\t", m)
	}
	fmt.Fprintln(tw, "(IQM [95% CI] over seeds)")
	params := make([][]string, len(sums))
	for i, ps := range sums {
		params[i] = ps.Params
	}
	shown := shortRows(params)
	for i, ps := range sums {
		if i == maxSummaryRows {
			fmt.Fprintf(tw, "... %d more rows: see summary.csv\n", len(sums)-i)
			break
		}
		if multi {
			fmt.Fprintf(tw, "%s\t", ps.Variant)
		}
		for _, v := range shown[i] {
			fmt.Fprintf(tw, "%s\t", v)
		}
		fmt.Fprintf(tw, "%d\t", ps.N)
		for _, a := range ps.Aggregates {
			cell := withCISig(a.IQM)
			if a.N > 0 && a.N < ps.N {
				// The seeds column counts the point's trials; a value that
				// some of them left undefined rests on fewer.
				cell += " (" + count(a.N, "seed", "seeds") + ")"
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
