package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"

	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

var cmdTrain = &command{
	Name:  "train",
	Args:  "SCENARIO",
	Short: "train a shared policy for every variant with RLCR",
	Long: `
Train learns one shared policy for each variant of SCENARIO with the RLCR
update (docs/rlcr.md): every iteration runs groups of rollouts in which
every agent decides with the same parameters, scores each rollout with the
variant's collective reward, gives every decision the rollout's flat
collective advantage (or the advantage the scenario's train section
chooses), and takes an Adam step. The scenario's train section holds the
hyperparameters, its reward section the reward and latency penalty.

Each variant is trained for K seeds (S, S+1, ..., S+K-1); training runs
are spread over a pool of workers, and the results do not depend on how
many. --variant V trains variant V alone: its rows and policies are those
of a training of every variant, but for the optional columns (hand-offs),
which follow the variant, and for a variant that differs from an earlier
one only in its policy section, which a training of every variant trains
once under the earlier one's name (below) and --variant under its own.

Train prints each variant's figures over the last tenth of training
(reward, success, latency, parallelism and messages, and with a handoff
section hand-off misses and duplicates) and writes a directory:

	manifest.json     what was run, as for 'simulate run', with the seeds
	iterations.csv    one row per variant, seed and iteration: episodes,
	                  reward_mean, success_rate, latency_mean, latency_p90,
	                  parallelism_mean, messages_mean, model_calls_mean,
	                  agent_time_mean, spawn_finish_rate (subagent
	                  subtasks completed / assigned; NaN if none),
	                  critical_steps_mean, decisions (all the
	                  iteration's), decisions_acceptable and
	                  decisions_failed (the mean per acceptable and per
	                  failed rollout; NaN if none), entropy,
	                  prob_<action>
	                  (the mean probability of each action over the
	                  iteration's decisions), grad_norm, lr, replays
	                  (per-agent: counterfactual episodes run),
	                  policy_steps and value_steps (the Adam steps taken),
	                  value_ev (ppo-gae: the explained variance of the
	                  returns by the value; NaN for other estimators);
	                  with a handoff section (collective.handoff) also
	                  handoff_misses_mean and duplicates_mean (per
	                  episode)
	summary.csv       one row per variant and metric of iterations.csv,
	                  over the seeds' last tenths of training (a seed's
	                  mean over those of its iterations with a value):
	                  variant,
	                  metric, unit, n_seeds, mean, median, iqm, iqm_lo,
	                  iqm_hi, mean_lo, mean_hi, median_lo, median_hi,
	                  interval (95% percentile bootstrap over seeds),
	                  policy (learned); then the variant's baseline rows
	                  (policy fixed): its own policy section scored on
	                  the episodes of the same last tenths, reward_mean
	                  to critical_steps_mean (none with --baseline=false)
	policies/         the final policy of each variant and seed, as JSON;
	                  'simulate run --policy FILE' evaluates one
	charts/           learning curves (reward, success, latency,
	                  parallelism, messages) with one curve per variant
	                  trained, named with the settings the variants vary
	                  (such as "low: reward.latency 0.25"), the IQM over
	                  seeds with its 95% bootstrap band, outlined; with
	                  --smooth N each seed's values are a moving average
	                  over the last N iterations first (the note says
	                  so; default 1, none); each
	                  variant's action mix; performance profiles of the
	                  final reward and success (the fraction of seeds
	                  above each threshold); when the variants train
	                  several team sizes (collective.agents), the final
	                  reward and the iterations to a target reward
	                  against team size, one curve per estimator
	                  (scaling_*, docs/experiments.md, exp-credit); as
	                  PNG, SVG and PDF (those --format names) with the
	                  CSV of each, and charts.json for 'simulate plot'
	report.html       every table and chart of the directory on one page,
	                  to open in a browser ('simulate report' writes it
	                  again)
	train.json        what the training is, so that the same command
	                  resumes it (below)

The table printed shows the IQM over seeds with its 95% interval, a
learned row per variant trained and a fixed row per variant: the
baseline, the variant's own policy section (the organization or policy
file that run evaluates) on the same tasks, rollouts and random streams
as the learned policy's last tenth of training (common random numbers),
so that a learned policy that does worse than a fixed organization shows.
--baseline=false leaves the fixed rows out of the table and summary.csv
and skips their episodes (the last tenth of each variant's iterations,
about a tenth more episodes than training runs).
Training does not read the policy section: it learns the policy
train.policy names, so variants that differ only there would train
identical copies; train says so before it starts and trains the first of
them once, and each of them still gets its baseline row (with
--baseline=false only the first gets a row, its learned one).
Virtual times are in seconds and rates are fractions, in the tables and
the charts alike; docs/statistics.md explains the intervals. Writes are
atomic and the manifest comes last, as for run.

Training resumes. Every job (variant and seed) leaves a checkpoint in
DIR/checkpoints after its iterations (the policy, the optimiser's state,
the iteration), at most four a second: a kill loses of each job the
iterations it finished within a quarter of a second of its last
checkpoint (and the time to write one) and the one in progress.
DIR/train.json names the training (the resolved scenario's hash, and a
digest of the files it reads: task.path's graphs, policy.file, so that a
training whose graph file was edited is refused, not resumed on the
new one). Run the same command again after
Ctrl-C, a crash or a kill, and each job continues where its checkpoint
left it; the tables are byte-identical to those of a training that never
stopped. Ctrl-C, and a failure after a checkpoint, print how many
iterations the checkpoints keep and the command to run. The same holds after a figures list that named a chart
the training did not draw: with the list corrected, the command finishes
from the checkpoints (train.json leaves the list out, as it changes no
number). A complete directory keeps no checkpoints; --force discards them
and starts over. A directory without train.json that holds files of other
names than a training writes (a folder of yours) is refused without
--force. A directory that a training still running writes to is
refused, with or without --force, where its file system can lock a
directory (not NFS, nor Lustre mounted without flock: there nothing
stops a second training). A forced training over a complete one keeps
the old one whole, set aside in DIR/.swarmsim-previous, until the new one is complete: one that
fails or is interrupted puts the old one back as it was and keeps nothing
of its own. A training that stops before its first checkpoint leaves no
directory behind.`,
	Examples: `
	simulate train latency-pressure
	simulate train latency-pressure --seeds 5 --workers 2 --out results/lp
	simulate train my.yaml --set train.advantage=per-agent --set reward.penalty=quadratic`,
	Setup: func(fs *flag.FlagSet) action {
		o := &trainOptions{seeds: 3, smooth: 1}
		o.outputOptions.flags(fs, outputUsage{
			seed:    "the first seed `S` (default: the scenario's seed)",
			out:     "write into directory `DIR` (default: out/SCENARIO-train-seedS, S the first seed; a SCENARIO that ends in -train adds none;\nwith --variant V, SCENARIO-V)",
			set:     "override a scenario value, as `path=value` (such as train.iterations=50);\nmay be repeated",
			variant: "train only variant `V` of the scenario (the default directory names it)",
			workers: "train and draw charts on `W` workers (default: the number\nof CPUs); results do not depend on it",
		})
		fs.Var(intFlag{&o.seeds}, "seeds", "train each variant for `K` seeds")
		fs.Var(intFlag{&o.smooth}, "smooth", "draw the learning curves as moving averages over `N` iterations\n(each seed's, before the IQM; 1 for none)")
		fs.BoolVar(&o.baseline, "baseline", true, "score each variant's own policy section on the episodes of the last tenth\nof training (the fixed rows); --baseline=false skips them")
		fs.BoolVar(&o.force, "force", false, "overwrite a directory that holds a complete run, or discard\nthe checkpoints of an unfinished one")
		return o.run
	},
}

type trainOptions struct {
	outputOptions
	seeds    int
	smooth   int
	force    bool
	baseline bool
}

func (o *trainOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 1 {
		return usagef("want one scenario, got %s", count(len(args), "argument", "arguments"))
	}
	if err := o.check(); err != nil {
		return err
	}
	if o.seeds < 1 {
		return usagef("--seeds %d: want 1 or more", o.seeds)
	}
	if o.smooth < 1 {
		return usagef("--smooth %d: want 1 (no smoothing) or more iterations", o.smooth)
	}
	if o.smooth > 1 && !o.charts {
		return usagef("--smooth %d with --charts=false: it smooths only the charts, which are not drawn", o.smooth)
	}
	// Checked before loading: a section the command never reads is the
	// problem, whatever the scenario makes of the value (a sweep.* given
	// to a scenario without a sweep is not an incomplete sweep).
	if err := refuseUnread(o.sets, scenarios.SweepTrain, false); err != nil {
		return err
	}
	sc, err := loadScenario(s, args[0], o.sets, o.variant)
	if err != nil {
		return err
	}
	workers := o.workerCount()
	// Each job (variant and seed) trains on one worker.
	ctx, done, err := o.limits.start(ctx, sc, variantWorkloads(sc, true), min(workers, len(sc.Variants)*o.seeds))
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	seed := o.seedOf(sc)
	if err := scenarios.CheckSeeds(seed, o.seeds); err != nil {
		return usagef("--seeds %d: %v", o.seeds, err)
	}
	out := o.dir(sc, "-train", seed)
	if err := otherWork(out, train.IdentityFile); err != nil {
		return err
	}
	if err := foreignFiles(out, train.IdentityFile, trainWrites, "--force", o.force); err != nil {
		return err
	}
	dir, err := train.OpenDir(out, sc, seed, o.seeds, o.variant, o.force)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dir.Abort() // keeps the checkpoints: the same command resumes
		}
	}()
	if err := setAsidePage(dir); err != nil {
		return err
	}

	jobs, total := train.Jobs(sc, seed, o.seeds)
	for _, g := range train.Alike(sc.Variants) {
		names := make([]string, len(g))
		for i, k := range g {
			names[i] = sc.Variants[k].Name
		}
		scored := "; only its rows are written (--baseline=false)"
		if o.baseline {
			scored = "; each variant's own policy is scored as a baseline"
		}
		s.infof("%s differ only in their policy section, which training replaces with the policy it learns (train.policy): training %s once for them all%s",
			joinAnd(names), names[0], scored)
	}
	resumed, err := train.Resume(dir, jobs)
	if err != nil {
		return err
	}
	if resumed > 0 {
		s.infof("resuming %s: %d of %d iterations done", dir.Path(), resumed, total)
	}
	bar := newProgress(s.stderr, "iterations", total)
	for _, j := range jobs {
		bar.add(len(j.Rows))
	}
	// After an interrupt or a failure, at any step from here on (the
	// training, the baselines, the tables, the charts), say what the
	// checkpoints keep and how to resume: the jobs ran on have moved on,
	// so a rerun's fresh jobs are counted.
	defer func() {
		if err == nil {
			return
		}
		fresh, _ := train.Jobs(sc, seed, o.seeds)
		exe, _ := os.Executable()
		argv := append(invocation(exe), s.argv[1:]...)
		if hint := resumeHint(dir, fresh, total, argv, ctx.Err() != nil, errors.Is(err, sim.ErrEventLimit)); hint != "" {
			s.infof("%s", hint)
		}
	}()
	// Run before the hint and dir.Abort above (which removes train.json
	// from a directory without checkpoints): a stop writes the checkpoints
	// held, so that every finished job resumes where it ended.
	saves := train.StartCheckpoints(dir)
	defer func() {
		switch cerr := saves.Close(); {
		case err == nil:
			err = cerr
		case cerr != nil && !errors.Is(err, cerr):
			// A failed write stops the training with that very error,
			// which is reported already.
			s.warnf("%v", cerr)
		}
	}()
	err = train.Run(ctx, saves, jobs, train.Options{Workers: workers, MaxEvents: o.limits.events(), Iteration: bar.increment})
	bar.finish(err == nil)
	if err != nil {
		return err
	}

	// The baselines: each variant's own policy section on the episodes
	// the learned policy is scored on. They keep no checkpoint: a rerun
	// finds the training done and scores them again.
	var baselines []*train.Job
	if o.baseline {
		bar = newProgress(s.stderr, "baseline iterations", train.BaselineIterations(sc, o.seeds))
		baselines, err = train.Baselines(ctx, sc, seed, o.seeds, train.Options{Workers: workers, MaxEvents: o.limits.events(), Iteration: bar.increment})
		bar.finish(err == nil)
		if err != nil {
			return err
		}
	}
	sv, fixed, err := train.WriteTables(dir, jobs, baselines)
	if err != nil {
		return err
	}
	if o.charts {
		warnings, err := train.LearningCurves(ctx, dir, jobs, sv, train.CurveOptions{Smooth: o.smooth, Formats: o.format.formats(), Workers: workers})
		for _, w := range warnings {
			s.warnf("%s", w)
		}
		if err != nil {
			return err
		}
	}
	if err := copyFigures(s, dir, sc, o.figures, "training"); err != nil {
		return err
	}
	m := newManifest(s, rundir.KindTrain, sc, seed)
	m.Seeds = o.seeds
	if err = dir.Commit(m); err != nil {
		return err
	}
	// The result is complete: its checkpoints are no longer needed.
	saves.Discard()
	if err := os.RemoveAll(dir.Join(train.CheckpointDir)); err != nil {
		s.warnf("%v", err)
	}
	see := s.writeReport(dir.Path())
	printTraining(s, sv, fixed, experiment.UsesHandoff(experiment.VariantSpecs(sc)...))
	fmt.Fprintf(s.stdout, "\nwrote %s\n%s", quotePath(dir.Path()), see)
	return nil
}

// reads (its head from the table of metrics) and its decimals.
type screenColumn struct {
	metric string
	prec   int
}

// printTraining prints each variant's figures over the last tenth of
// training: the IQM over seeds with its 95% bootstrap interval; with
// handoff set also the hand-off columns of iterations.csv. Each variant's
// learned row (if it was trained) is followed by its baseline row, if
// fixed is not nil: its own policy section on the same episodes (fixed),
// whose columns are those of the rollouts.
func printTraining(s *session, learned, fixed *results.SeedValues, handoff bool) {
	cols := []screenColumn{{"reward_mean", 2}, {"success_rate", 2}, {"latency_mean", 0}, {"parallelism_mean", 2}, {"messages_mean", 1}}
	if handoff {
		for _, name := range train.HandoffColumnNames() {
			cols = append(cols, screenColumn{name, 2})
		}
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "variant\tpolicy\tseeds\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", metric.Of(c.metric).Head)
	}
	fmt.Fprintln(tw, "(IQM [95% CI] over seeds, last tenth of training)")
	row := func(sv *results.SeedValues, v, policy string) {
		if sv == nil || !slices.Contains(sv.Variants, v) {
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t", v, policy, len(sv.Seeds[v]))
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", withCI(stats.Default.CI(sv.Values[v][c.metric], stats.IQM), c.prec))
		}
		fmt.Fprintln(tw)
	}
	for _, v := range results.TrainVariants(learned, fixed) {
		row(learned, v, "learned")
		row(fixed, v, "fixed")
	}
	tw.Flush()
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// resumeHint says, after a training stopped by an interrupt or a
// failure, how many iterations the checkpoints in dir keep and how to
// resume them. It counts the checkpoints, not the iterations that
// finished: a job checkpoints at most every quarter second, so the last
// iterations before a stop, or all of a short training's, may be lost.
// jobs are the training's jobs as a rerun makes them, before any resumed.
// A forced training that replaces a complete one keeps no checkpoints:
// the one it replaces is put back (dir.Abort), and a forced rerun would
// start over anyway. After a failure (interrupted false) with nothing
// kept it says nothing: the error says what to fix, and the same command
// starts again. An episode over its event bound fails again unless the
// bound is raised (eventLimit), so that hint names --max-events.
func resumeHint(dir *rundir.Dir, jobs []*train.Job, total int, argv []string, interrupted, eventLimit bool) string {
	if dir.Replacing() {
		return fmt.Sprintf("%s still holds the training this one was to replace, and nothing of this one is kept; to train again, run: %s", dir.Path(), shellJoin(argv))
	}
	kept, err := train.Resume(dir, jobs)
	switch {
	case err != nil:
		return err.Error() // it names the checkpoint and the way out
	case kept == 0 && !interrupted:
		return ""
	case kept == 0:
		return "no iteration was checkpointed, so nothing is kept; to start again, run: " + shellJoin(argv)
	}
	how := "to resume, run: "
	switch {
	case eventLimit:
		how = "to resume, run it again with a higher --max-events: "
	case !interrupted:
		how = "to resume after fixing the error below, run: "
	}
	return fmt.Sprintf("%d of %d iterations are kept in %s; %s%s", kept, total, dir.Join(train.CheckpointDir), how, shellJoin(withoutForce(argv)))
}

// invocation returns the words that run this program again, for a hint
// that names a command to copy: "simulate", or, for a binary that `go run`
// built (exe in a go-build folder, which is gone once it exits), the
// README's "go run ./cmd/simulate".
func invocation(exe string) []string {
	exe = filepath.ToSlash(exe)
	if path.Base(path.Dir(exe)) == "exe" && slices.ContainsFunc(strings.Split(exe, "/"), goBuildDir.MatchString) {
		return []string{"go", "run", "./cmd/simulate"}
	}
	return []string{"simulate"}
}

// goBuildDir is the name of the temporary folder that the go command
// builds in (go-build and a number).
var goBuildDir = regexp.MustCompile(`^go-build[0-9]+$`)

// withoutForce returns argv without its --force flag, in any of the forms
// the flag package reads (-force, --force, --force=true): --force
// discards the checkpoints of an unfinished training, so a hint that kept
// it would start over rather than resume.
func withoutForce(argv []string) []string {
	return slices.DeleteFunc(slices.Clone(argv), func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		return strings.HasPrefix(a, "-") && name == "force"
	})
}

// shellJoin writes argv as a POSIX shell would read it back: each word
// that holds anything but letters, digits and -_./=,:@%+ in single
// quotes.
func shellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		plain := a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./=,:@%+", r))
		}) < 0
		if plain {
			words[i] = a
		} else {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// quotePath writes a path in a message as shellJoin would type it: quoted
// where it holds a space or another character a shell would split or
// expand, so that "wrote out dir/scenario.yaml" does not read as two
// words and the path pastes whole into a shell.
func quotePath(path string) string { return shellJoin([]string{path}) }
