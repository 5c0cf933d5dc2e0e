package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"slices"
	"sync"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdRun = &command{
	Name:  "run",
	Args:  "SCENARIO",
	Short: "evaluate a scenario's variants and write a run directory",
	Long: `
Run evaluates every variant of SCENARIO (an embedded scenario's name, or a
YAML file) over the same episodes: episode k of every variant works on the
same task draw with the same random streams, so that differences between
variants come from their decisions alone. Episodes run on a pool of
workers; the results do not depend on how many. --variant V runs variant
V alone: its rows are those of a run of every variant, but for the
optional columns (hand-offs, shared servers and tools, a token budget,
stalls), which follow the variants run.

Run prints a table of the variants (the mean reward, with its 95%
bootstrap interval, where a variant's reward section is not the default
one, which pays 1 for an acceptable result and repeats the success rate;
the success rate with its 95% Wilson interval; then means with their 95%
bootstrap intervals: finish ok (s), the finish time of the acceptable
episodes only, model calls, tokens, parallelism, messages; where calls
went to a shared server or an API, the call latency, serving wait and
server utilisation, where tools were called, the tool wait; with a
handoff section, hand-off misses and duplicates) and writes a directory:

	manifest.json   what was run: the scenario as resolved, its hash, the
	                seed, the episodes, the versions, the command line and
	                the files below
	episodes.csv    one row per variant and episode: variant, episode,
	                finish_time, acceptable, timed_out, reward,
	                model_calls, prompt_tokens, output_tokens, tokens,
	                agent_time, messages, message_tokens, message_bytes,
	                spawned, attempts, checks, retries, conflicts,
	                subagent_tasks, subagent_done, spawn_finish_rate
	                (completed / assigned subagent subtasks; NaN if
	                none), parallelism_mean, parallelism_peak,
	                critical_steps, critical_path, serial_work, speedup,
	                stretch, comm_changed_outcome, actions_<action> (the
	                decisions of each action); with a shared server, an
	                API or tools also served_calls, call_latency,
	                serving_wait, serving_queue_mean,
	                server_utilisation, batch_mean, output_rate,
	                tool_calls and tool_wait; with a handoff section
	                (collective.handoff) also handoff_misses (delegated
	                parts misunderstood) and duplicates (duplicate
	                delegations); under a token budget
	                (collective.token_budget) also budget_used (tokens
	                drawn from it) and budget_exhausted (a call would
	                have overdrawn it); where an episode stalled (stopped
	                with nothing left to happen before a submission:
	                finish_time is the stop, the reward scores the time
	                limit) also stalled; when the scenario's sweep names a
	                reference (sweep.reference) also turns (model
	                calls), message_density (messages per turn) and
	                redundancy (the share of delegated work that
	                repeated another agent's)
	summary.csv     one row per variant: n, acceptable, success_rate with
	                its Wilson interval (success_lo, success_hi), then
	                <metric>_mean, <metric>_lo, <metric>_hi (95%
	                percentile bootstrap over episodes) for finish_time,
	                finish_time_acceptable, reward, model_calls, tokens,
	                agent_time, messages, message_bytes, parallelism,
	                parallelism_peak, critical_steps and speedup (and
	                call_latency, serving_wait, server_utilisation,
	                output_rate and tool_wait with a shared server or
	                tools; handoff_misses and duplicates with a handoff
	                section; budget_used and budget_exhausted under a
	                token budget, budget_exhausted being a rate with a
	                Wilson interval, as success_rate is; stalled, a rate
	                too, where an episode stalled), then
	                comm_changed_outcome and cost_per_acceptable
	charts/         comparison bars with 95% intervals (finish time of
	                acceptable episodes, success rate, agent time, and the
	                time per call at a shared server) and a
	                timeline of episode 0 of each variant, as PNG, SVG and
	                PDF (those --format names), each with the CSV of its
	                data, and charts.json for 'simulate plot'
	report.html     every table and chart of the directory on one page,
	                to open in a browser ('simulate report' writes it
	                again)

Virtual times are in seconds and rates are fractions, in the tables and
the charts alike.
Tables write floats in their shortest exact form, so the same scenario and
seed give byte-identical tables on any machine, and the same command line
a byte-identical manifest: it records the command line (--workers and --out
included) and no time stamps or host names.

Every file is written atomically and the manifest last: a directory with a
manifest.json is complete. A run that fails or is interrupted removes the
files it wrote. Run refuses a directory that holds a manifest.json, or
other files without one (a folder of yours, or what a killed run left),
unless --force is given, and one that holds a training or a sweep
(train.json, sweep.json) even then. With --force the old run stays whole,
set aside in DIR/.swarmsim-previous, until the new one is complete: a rerun that
fails or is interrupted puts it back as it was, and the next command
writing to DIR puts back one that a kill left aside.

A progress bar is drawn on standard error when it is a terminal;
otherwise (a log file, a batch job) a plain progress line is printed
there at most every 30 seconds.`,
	Examples: `
	simulate run tiny
	simulate run tiny --seed 7 --episodes 200 --out results/tiny7
	simulate run my-scenario.yaml --set collective.agents=8 --workers 4
	simulate run latency-pressure --policy out/latency-pressure-train-seed1/policies/high-seed1.json`,
	Setup: func(fs *flag.FlagSet) action {
		o := &runOptions{}
		o.outputOptions.flags(fs, outputUsage{
			seed:    "the master seed `S` (default: the scenario's seed)",
			out:     "write the run into directory `DIR` (default: out/SCENARIO-seedS, out/SCENARIO-run-seedS where SCENARIO ends in -train or -sweep;\nwith --variant V, SCENARIO-V)",
			set:     "override a scenario value, as `path=value` (such as collective.agents=8);\nmay be repeated",
			variant: "run only variant `V` of the scenario (the default directory names it)",
			workers: "run episodes and draw charts on `W` workers (default: the number\nof CPUs); results do not depend on it",
		})
		fs.Var(&o.episodes, "episodes", "run `N` episodes per variant (default: the scenario's episodes)")
		fs.BoolVar(&o.force, "force", false, "overwrite a directory that holds a complete run (never another\ncommand's results), or write into one that holds other files")
		o.policy.flags(fs)
		return o.run
	},
}

type runOptions struct {
	outputOptions
	policy   policyFlag
	episodes countFlag
	force    bool
}

func (o *runOptions) run(ctx context.Context, s *session, args []string) (err error) {
	// The scenario's errors name the --set that --policy stands for.
	defer func() { err = o.policy.restate(err) }()
	if len(args) != 1 {
		return usagef("want one scenario, got %s", count(len(args), "argument", "arguments"))
	}
	if err := o.check(stand{"--episodes", "episodes", o.episodes > 0}, o.policy.stand()); err != nil {
		return err
	}
	if o.episodes > scenarios.MaxEpisodes {
		return usagef("--episodes %d is out of range (1 to %d, as a scenario's episodes)", o.episodes, scenarios.MaxEpisodes)
	}
	// Checked before loading: a section the command never reads is the
	// problem, whatever the scenario makes of the value (a sweep.* given
	// to a scenario without a sweep is not an incomplete sweep).
	if err := refuseUnread(o.sets, scenarios.SweepRun, false); err != nil {
		return err
	}
	sc, err := loadScenario(s, args[0], append(o.sets[:len(o.sets):len(o.sets)], o.policy.sets()...), o.variant)
	if err != nil {
		return err
	}
	if err := sc.RunInert(); err != nil {
		return err
	}
	if err := checkFigureNames(sc, o.figures, "run", experiment.RunChartNames(sc)); err != nil {
		return err
	}
	for _, names := range sc.Identical() {
		why := ""
		if o.policy.file != "" {
			why = " (--policy gives every variant one policy, in place of the policy sections they differ in)"
		}
		s.infof("variants %s have the same settings%s: their episodes and rows are the same", joinAnd(names), why)
	}
	episodes := sc.Episodes
	if o.episodes > 0 {
		episodes = int(o.episodes)
	}
	workers := o.workerCount()
	ctx, done, err := o.limits.start(ctx, sc, variantWorkloads(sc, false), min(workers, len(sc.Variants)*episodes))
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	seed := o.seedOf(sc)
	dir, err := createDir(o.dir(sc, "", seed), rundir.KindRun, o.force)
	if err != nil {
		return err
	}
	committed := false // a complete run stays, whatever fails after it
	defer func() {
		if err != nil && !committed {
			dir.Abort()
		}
	}()

	rows, err := evaluate(ctx, s, sc, experiment.EvalOptions{Episodes: episodes, Seed: &seed, Workers: workers, MaxEvents: o.limits.events(), Trace: o.charts})
	if err != nil {
		return err
	}
	sums := experiment.Summarize(rows)
	cols := experiment.Columns{Handoff: experiment.UsesHandoff(experiment.VariantSpecs(sc)...), Scaling: experiment.UsesReference(sc)}
	if err := experiment.WriteTables(dir, rows, sums, cols); err != nil {
		return err
	}
	if o.charts {
		if err := drawCharts(ctx, s, dir, experiment.RunCharts(sc, rows, sums), nil, o.format.formats(), workers); err != nil {
			return err
		}
	}
	m := newManifest(s, rundir.KindRun, sc, seed)
	m.Episodes = episodes
	if err = dir.Commit(m); err != nil {
		return err
	}
	committed = true
	see := s.writeReport(dir.Path())
	printSummary(s.stdout, sc, rows, sums)
	fmt.Fprintf(s.stdout, "\nwrote %s\n%s", quotePath(dir.Path()), see)
	// Last, after the run is kept: a figure it did not draw (call_latency
	// of a run without a shared server) is the copy's error alone.
	return copyFigures(s, dir, sc, o.figures, "run")
}

// evaluate runs every variant of sc for episodes episodes and returns the
// rows ordered by variant (in scenario order) and episode.
func evaluate(ctx context.Context, s *session, sc *scenarios.Scenario, opt experiment.EvalOptions) ([]experiment.Row, error) {
	bar := newProgress(s.stderr, "episodes", len(sc.Variants)*opt.Episodes)
	var (
		mu   sync.Mutex // emit may be called from several workers
		rows []experiment.Row
	)
	err := experiment.Evaluate(ctx, sc, opt, func(r experiment.Row) error {
		mu.Lock()
		rows = append(rows, r)
		mu.Unlock()
		bar.increment()
		return ctx.Err()
	})
	bar.finish(err == nil)
	if err != nil {
		return nil, err
	}
	order := map[string]int{}
	for i, v := range sc.Variants {
		order[v.Name] = i
	}
	slices.SortFunc(rows, func(a, b experiment.Row) int {
		return cmp.Or(cmp.Compare(order[a.Variant], order[b.Variant]), cmp.Compare(a.Episode, b.Episode))
	})
	return rows, nil
}

func variantNames(sc *scenarios.Scenario) []string {
	names := make([]string, len(sc.Variants))
	for i, v := range sc.Variants {
		names[i] = v.Name
	}
	return names
}
