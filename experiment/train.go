package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
	"math"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
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
many. Train prints each variant's figures over the last tenth of training
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
	                  over the seeds' last tenths of training: variant,
	                  metric, unit, n_seeds, mean, median, iqm, iqm_lo,
	                  iqm_hi, mean_lo, mean_hi, median_lo, median_hi,
	                  interval (95% percentile bootstrap over seeds)
	policies/         the final policy of each variant and seed, as JSON;
	                  'simulate run --policy FILE' evaluates one
	charts/           learning curves (reward, success, latency,
	                  parallelism, messages) with one curve per variant,
	                  the IQM over seeds with its 95% bootstrap band; each
	                  variant's action mix; performance profiles of the
	                  final reward and success (the fraction of seeds
	                  above each threshold); when the variants train
	                  several team sizes (collective.agents), the final
	                  reward and the iterations to a target reward
	                  against team size, one curve per estimator
	                  (scaling_*, docs/experiments.md, exp-credit); as
	                  PNG, SVG and PDF with the CSV of each, and
	                  charts.json for 'simulate plot'

The table printed shows the IQM over seeds with its 95% interval.
Training does not read the policy section (the organization or policy
file that run evaluates): it learns the policy train.policy names, so
variants that differ only there train alike, and train says which.
Virtual times are in seconds and rates are fractions, in the tables and
the charts alike; docs/statistics.md explains the intervals. Writes are
atomic and the manifest comes last, as for run.

Training resumes. Every job (variant and seed) leaves a checkpoint in
DIR/checkpoints after its iterations (the policy, the optimiser's state,
the iteration; at most four a second), and DIR/train.json names the
training. Run the same command again after Ctrl-C, a crash or a kill, and
each job continues where its checkpoint left it; the tables are
byte-identical to those of a training that never stopped. A complete
directory keeps no checkpoints; --force discards them and starts over.`,
	Examples: `
	simulate train latency-pressure
	simulate train latency-pressure --seeds 5 --workers 2 --out results/lp
	simulate train my.yaml --set train.advantage=per-agent --set reward.penalty=quadratic`,
	Setup: func(fs *flag.FlagSet) action {
		o := &trainOptions{seeds: 3}
		fs.Var(&o.seed, "seed", "the first seed `S` (default: the scenario's seed)")
		fs.Var(intFlag{&o.seeds}, "seeds", "train each variant for `K` seeds")
		fs.StringVar(&o.out, "out", "", "write into directory `DIR` (default: out/SCENARIO-train-seedS)")
		fs.Var(&o.sets, "set", "override a scenario value, as `path=value` (such as train.iterations=50);\nmay be repeated")
		fs.Var(&o.workers, "workers", "train on `W` workers (default: the number of CPUs);\nresults do not depend on it")
		fs.BoolVar(&o.force, "force", false, "overwrite a directory that holds a complete run, or discard\nthe checkpoints of an unfinished one")
		fs.BoolVar(&o.charts, "charts", true, "draw the charts; --charts=false writes the tables only")
		o.limits.flags(fs)
		addFiguresFlag(fs, &o.figures)
		return o.run
	},
}

type trainOptions struct {
	limits  limitOptions
	figures string
	seed    seedFlag
	seeds   int
	out     string
	sets    stringsFlag
	workers countFlag
	force   bool
	charts  bool
}

// trainJob is one training run: a variant and a seed.
type trainJob struct {
	variant *scenarios.Variant
	seed    uint64
	rows    []rlcr.Iteration
	policy  policy.Softmax
	// from is the checkpoint the job resumes from; nil for a fresh start.
	from *rlcr.Checkpoint
	// saved is when the job last wrote its checkpoint.
	saved time.Time
}

func (o *trainOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 1 {
		return usagef("want one scenario, got %s", count(len(args), "argument", "arguments"))
	}
	if err := checkFigures(o.figures, o.charts, o.sets); err != nil {
		return err
	}
	if err := refuseReplaced(o.sets, o.seed.stand()); err != nil {
		return err
	}
	if o.seeds < 1 {
		return usagef("--seeds %d: want 1 or more", o.seeds)
	}
	sc, err := loadScenario(s, args[0], o.sets)
	if err != nil {
		return err
	}
	if err := refuseUnread(o.sets, scenarios.SweepTrain, false); err != nil {
		return err
	}
	workers := int(o.workers)
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Each job (variant and seed) trains on one worker.
	ctx, done, err := o.limits.start(ctx, sc, variantWorkloads(sc, true), min(workers, len(sc.Variants)*o.seeds))
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	seed := sc.Seed
	if o.seed.set {
		seed = o.seed.v
	}
	out := o.out
	if out == "" {
		out = defaultOut(sc, "-train", seed)
	}
	dir, err := openTrainDir(out, newTrainIdentity(sc, seed, o.seeds), o.force)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dir.Abort() // keeps the checkpoints: the same command resumes
		}
	}()

	var jobs []*trainJob
	total := 0
	for i := range sc.Variants {
		for k := range uint64(o.seeds) {
			jobs = append(jobs, &trainJob{variant: &sc.Variants[i], seed: seed + k})
			total += sc.Variants[i].Spec.Train.Iterations
		}
	}
	resumed := 0
	for _, j := range jobs {
		cp, err := loadCheckpoint(dir, j)
		if err != nil {
			return err
		}
		if cp != nil {
			j.from, j.rows = &cp.Learner, cp.Rows
			resumed += len(cp.Rows)
		}
	}
	if resumed > 0 {
		s.infof("resuming %s: %d of %d iterations done", dir.Path(), resumed, total)
	}
	if err := trainAll(ctx, s, dir, jobs, workers, total, o.limits.events()); err != nil {
		if ctx.Err() != nil && dir != nil {
			s.infof("the finished iterations are kept in %s; run the same command again to continue", dir.Join(checkpointDir))
		}
		return err
	}

	iters := iterationsCSV(jobs)
	if err := dir.Write("iterations.csv", iters); err != nil {
		return err
	}
	table, err := rundir.ParseTable(dir.Join("iterations.csv"), iters)
	if err != nil {
		return err
	}
	sv, err := results.LastTenths(table)
	if err != nil {
		return err
	}
	if err := dir.Write("summary.csv", results.TrainSummary(sv)); err != nil {
		return err
	}
	if err := dir.Mkdir("policies"); err != nil {
		return err
	}
	for _, j := range jobs {
		var buf bytes.Buffer
		if err := policy.Save(&buf, j.policy); err != nil {
			return err
		}
		if err := dir.Write(policyFile(j), buf.Bytes()); err != nil {
			return err
		}
	}
	if o.charts {
		if err := writeLearningCurves(ctx, s, dir, sc, jobs, sv); err != nil {
			return err
		}
	}
	if err := copyFigures(s, dir, sc, o.figures); err != nil {
		return err
	}
	m := newManifest(s, rundir.KindTrain, sc, seed)
	m.Seeds = o.seeds
	if err = dir.Commit(m); err != nil {
		return err
	}
	// The result is complete: its checkpoints are no longer needed.
	if err := os.RemoveAll(dir.Join(checkpointDir)); err != nil {
		s.warnf("%v", err)
	}
	printTraining(s, sv, sc.Variants, usesHandoff(variantSpecs(sc)...))
	fmt.Fprintf(s.stdout, "\nwrote %s\n", dir.Path())
	return nil
}

func policyFile(j *trainJob) string {
	return fmt.Sprintf("policies/%s-seed%d.json", fileName(j.variant.Name), j.seed)
}

// trainAll runs the jobs on a pool of workers, each job on one goroutine:
// a job's result depends only on its variant and seed.
func trainAll(ctx context.Context, s *session, dir *rundir.Dir, jobs []*trainJob, workers, total int, maxEvents uint64) error {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	bar := newProgress(s.stderr, "iterations", total)
	for _, j := range jobs {
		bar.add(len(j.rows))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				prob := j.variant.Problem()
				prob.MaxEvents = maxEvents
				// The first checkpoint too waits for checkpointEvery of
				// work: a job shorter than that writes only its last one.
				j.saved = time.Now()
				j.policy, errs[i] = rlcr.Resume(ctx, prob, j.variant.Spec.Train, j.seed, 1, j.from, func(it rlcr.Iteration) error {
					j.rows = append(j.rows, it)
					bar.increment()
					return nil
				}, func(cp *rlcr.Checkpoint) error {
					// Each write is synced: a few per second at most
					// keep the disk out of the training's time.
					if cp.Done < j.variant.Spec.Train.Iterations && time.Since(j.saved) < checkpointEvery {
						return nil
					}
					j.saved = time.Now()
					return saveCheckpoint(dir, j, cp)
				})
				if errs[i] != nil {
					errs[i] = fmt.Errorf("variant %q, seed %d: %w", j.variant.Name, j.seed, errs[i])
					cancel()
				}
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	// A failed job cancels the others: report its error, not the
	// cancellations it caused in jobs before it.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	bar.finish(first == nil)
	if first != nil {
		return first
	}
	return ctx.Err()
}

// An iterationColumn is a column of iterations.csv: a stable name and how
// to read it from an iteration.
type iterationColumn struct {
	name  string
	value func(*rlcr.Iteration) float64
}

// iterationColumns are the columns of iterations.csv after variant, seed
// and iteration.
var iterationColumns = func() []iterationColumn {
	cols := []iterationColumn{
		{"episodes", func(r *rlcr.Iteration) float64 { return float64(r.Episodes) }},
		{"reward_mean", func(r *rlcr.Iteration) float64 { return r.RewardMean }},
		{"success_rate", func(r *rlcr.Iteration) float64 { return r.SuccessRate }},
		{"latency_mean", func(r *rlcr.Iteration) float64 { return r.LatencyMean }},
		{"latency_p90", func(r *rlcr.Iteration) float64 { return r.LatencyP90 }},
		{"parallelism_mean", func(r *rlcr.Iteration) float64 { return r.ParallelismMean }},
		{"messages_mean", func(r *rlcr.Iteration) float64 { return r.MessagesMean }},
		{"model_calls_mean", func(r *rlcr.Iteration) float64 { return r.ModelCallsMean }},
		{"agent_time_mean", func(r *rlcr.Iteration) float64 { return r.AgentTimeMean }},
		{"spawn_finish_rate", func(r *rlcr.Iteration) float64 { return r.SpawnFinishRate }},
		{"critical_steps_mean", func(r *rlcr.Iteration) float64 { return r.CriticalStepsMean }},
		{"decisions", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) }},
		{"decisions_acceptable", func(r *rlcr.Iteration) float64 { return r.DecisionsAcceptable }},
		{"decisions_failed", func(r *rlcr.Iteration) float64 { return r.DecisionsFailed }},
		{"entropy", func(r *rlcr.Iteration) float64 { return r.Entropy }},
	}
	for a := range collective.Action(collective.NumActions) {
		cols = append(cols, iterationColumn{"prob_" + a.String(), func(r *rlcr.Iteration) float64 { return r.ActionProbs[a] }})
	}
	return append(cols, []iterationColumn{
		{"grad_norm", func(r *rlcr.Iteration) float64 { return r.GradNorm }},
		{"lr", func(r *rlcr.Iteration) float64 { return r.LR }},
		{"replays", func(r *rlcr.Iteration) float64 { return float64(r.Replays) }},
		{"policy_steps", func(r *rlcr.Iteration) float64 { return float64(r.PolicySteps) }},
		{"value_steps", func(r *rlcr.Iteration) float64 { return float64(r.ValueSteps) }},
		{"value_ev", func(r *rlcr.Iteration) float64 { return r.ValueEV }},
	}...)
}()

// handoffIterationColumns follow in the iterations of scenarios with a
// handoff section (see usesHandoff).
var handoffIterationColumns = []iterationColumn{
	{"handoff_misses_mean", func(r *rlcr.Iteration) float64 { return r.HandoffMissesMean }},
	{"duplicates_mean", func(r *rlcr.Iteration) float64 { return r.DuplicatesMean }},
}

func iterationsCSV(jobs []*trainJob) []byte {
	cols := iterationColumns
	specs := make([]*scenarios.Spec, len(jobs))
	for i, j := range jobs {
		specs[i] = &j.variant.Spec
	}
	if usesHandoff(specs...) {
		cols = append(cols[:len(cols):len(cols)], handoffIterationColumns...)
	}
	header := []string{"variant", "seed", "iteration"}
	for _, c := range cols {
		header = append(header, c.name)
	}
	var rows [][]string
	for _, j := range jobs {
		for i := range j.rows {
			r := &j.rows[i]
			row := []string{j.variant.Name, strconv.FormatUint(j.seed, 10), strconv.Itoa(r.Iteration)}
			for _, c := range cols {
				row = append(row, num(c.value(r)))
			}
			rows = append(rows, row)
		}
	}
	return rundir.CSV(header, rows)
}

// A screenColumn is a column of a table on the terminal: the metric it
// reads, its head and its decimals.
type screenColumn struct {
	metric, head string
	prec         int
}

// printTraining prints each variant's figures over the last tenth of
// training: the IQM over seeds with its 95% bootstrap interval; with
// handoff set also the hand-off columns of iterations.csv. It notes the
// variants that train alike.
func printTraining(s *session, sv *results.SeedValues, variants []scenarios.Variant, handoff bool) {
	cols := []screenColumn{
		{"reward_mean", "reward", 2},
		{"success_rate", "success", 2},
		{"latency_mean", "latency (s)", 0},
		{"parallelism_mean", "parallelism", 2},
		{"messages_mean", "messages", 1},
	}
	if handoff {
		for _, c := range handoffIterationColumns {
			cols = append(cols, screenColumn{c.name, screenName(c.name), 2})
		}
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "variant\tseeds\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.head)
	}
	fmt.Fprintln(tw, "(IQM [95% CI] over seeds, last tenth of training)")
	for _, v := range sv.Variants {
		fmt.Fprintf(tw, "%s\t%d\t", v, len(sv.Seeds[v]))
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", withCI(stats.Default.CI(sv.Values[v][c.metric], stats.IQM), c.prec))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, names := range trainAlike(variants) {
		fmt.Fprintf(s.stdout, "%s differ only in their policy section, which training replaces with the policy it learns\n(train.policy): they train alike.\n", joinAnd(names))
	}
}

// trainAlike returns the groups of two or more variants that differ only
// in their policy section, which training does not read.
func trainAlike(variants []scenarios.Variant) [][]string {
	var groups [][]string
	taken := make([]bool, len(variants))
	for i := range variants {
		if taken[i] {
			continue
		}
		group := []string{variants[i].Name}
		for j := i + 1; j < len(variants); j++ {
			a, b := variants[i].Spec, variants[j].Spec
			a.Policy, b.Policy = scenarios.PolicySpec{}, scenarios.PolicySpec{}
			if !taken[j] && reflect.DeepEqual(a, b) {
				taken[j] = true
				group = append(group, variants[j].Name)
			}
		}
		if len(group) > 1 {
			groups = append(groups, group)
		}
	}
	return groups
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// writeLearningCurves draws one chart per metric with a curve per variant
// (the IQM over seeds with its 95% bootstrap band), each variant's action
// mix, and performance profiles of the final reward and success.
func writeLearningCurves(ctx context.Context, s *session, dir *rundir.Dir, sc *scenarios.Scenario, jobs []*trainJob, sv *results.SeedValues) error {
	cw, err := newChartWriter(dir)
	if err != nil {
		return err
	}
	seeds := len(jobs) / len(sc.Variants)
	// The number of resamples is in docs/statistics.md: the note must fit
	// a column.
	stat := fmt.Sprintf("IQM, %d seeds", seeds)
	interval := "95% bootstrap CI"
	// curve returns the IQM over seeds at every iteration, with the band
	// when band is set and there are seeds to resample.
	curve := func(name string, jobsOf []*trainJob, value func(*rlcr.Iteration) float64, band bool) (plots.Series, bool) {
		n := len(jobsOf[0].rows)
		sr := plots.Series{Name: name, X: make([]float64, n), Y: make([]float64, n)}
		band = band && len(jobsOf) > 1
		if band {
			sr.Lo, sr.Hi = make([]float64, n), make([]float64, n)
		}
		xs := make([]float64, len(jobsOf))
		for i := range n {
			for k, j := range jobsOf {
				xs[k] = value(&j.rows[i])
			}
			sr.X[i] = float64(i)
			if !band {
				sr.Y[i] = stats.IQM(xs)
			} else {
				iv := stats.Default.CI(xs, stats.IQM)
				sr.Y[i], sr.Lo[i], sr.Hi[i] = iv.Value, iv.Lo, iv.Hi
			}
			if !finite(sr.Y[i]) || (band && !(finite(sr.Lo[i]) && finite(sr.Hi[i]))) {
				return sr, false
			}
		}
		return sr, true
	}
	byVariant := func(v *scenarios.Variant) []*trainJob {
		var out []*trainJob
		for _, j := range jobs {
			if j.variant == v {
				out = append(out, j)
			}
		}
		return out
	}
	var warnings []string
	draw := func(spec plots.Spec, series []plots.Series) {
		spec.Kind = "lines"
		if spec.Size == "" {
			spec.Size = "column"
		}
		if err := cw.draw(spec, plots.LinesTable(series)); err != nil {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", spec.Name, err))
		}
	}
	for _, m := range []struct {
		name, ylabel string
		value        func(*rlcr.Iteration) float64
	}{
		{"learning_reward", "mean reward", func(r *rlcr.Iteration) float64 { return r.RewardMean }},
		{"learning_success", "success rate (fraction)", func(r *rlcr.Iteration) float64 { return r.SuccessRate }},
		{"learning_latency", "mean finish time (s)", func(r *rlcr.Iteration) float64 { return r.LatencyMean }},
		{"learning_parallelism", "mean parallelism (busy agents)", func(r *rlcr.Iteration) float64 { return r.ParallelismMean }},
		{"learning_messages", "messages per episode", func(r *rlcr.Iteration) float64 { return r.MessagesMean }},
		{"learning_decisions", "decisions per episode", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) / float64(r.Episodes) }},
		{"learning_critical_steps", "critical steps per episode", func(r *rlcr.Iteration) float64 { return r.CriticalStepsMean }},
		{"learning_agent_time", "agent time per episode (s)", func(r *rlcr.Iteration) float64 { return r.AgentTimeMean }},
	} {
		var series []plots.Series
		var left []string
		for i := range sc.Variants {
			if sr, ok := curve(sc.Variants[i].Name, byVariant(&sc.Variants[i]), m.value, true); ok {
				series = append(series, sr)
			} else {
				left = append(left, sc.Variants[i].Name)
			}
		}
		draw(plots.Spec{Name: m.name, XLabel: "training iteration", YLabel: m.ylabel, Stat: stat, Interval: interval,
			Note: leftOut(left, "undefined values")}, series)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for i := range sc.Variants {
		v := &sc.Variants[i]
		var series []plots.Series
		var rare []string
		for a := range collective.Action(collective.NumActions) {
			// Bands over seven crossing curves would hide them.
			sr, ok := curve(a.String(), byVariant(v), func(r *rlcr.Iteration) float64 { return r.ActionProbs[a] }, false)
			if ok && maxOf(sr.Y) > 0.01 {
				series = append(series, sr)
			} else {
				rare = append(rare, a.String())
			}
		}
		// A page wide: seven curves, and a title with notes.
		draw(plots.Spec{Name: "action_mix_" + fileName(v.Name), Title: "action mix of " + v.Name,
			XLabel: "training iteration", YLabel: "action probability (fraction)", Stat: stat,
			Note: leftOut(rare, "never above 0.01"), Size: "page"}, series)
	}
	for _, m := range []struct{ metric, label string }{
		{"reward_mean", "final mean reward"},
		{"success_rate", "final success rate (fraction)"},
	} {
		series := profiles(sv, m.metric)
		draw(plots.Spec{Name: "profile_" + strings.TrimSuffix(m.metric, "_mean"), XLabel: m.label + " threshold",
			YLabel: "fraction of seeds above", Stat: fmt.Sprintf("fraction, %d seeds", seeds), Interval: interval}, series)
	}
	specs, series := scalingCharts(sc.Variants, jobs, stat, interval)
	for i := range specs {
		if err := cw.draw(specs[i], plots.LinesTable(series[i])); err != nil {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", specs[i].Name, err))
		}
	}
	warnings = append(warnings, finalBars(cw, sv, stat, interval)...)
	for _, w := range warnings {
		s.warnf("%s", w)
	}
	return cw.close()
}

// finalMetrics are the columns that final_<name> charts compare across
// variants, with their axis labels.
var finalMetrics = []struct{ name, metric, ylabel string }{
	{"reward", "reward_mean", "final mean reward"},
	{"success", "success_rate", "final success rate (fraction)"},
	{"latency", "latency_mean", "final mean finish time (s)"},
	{"parallelism", "parallelism_mean", "final parallelism (busy agents)"},
	{"agent_time", "agent_time_mean", "final agent time per episode (s)"},
	{"decisions", "decisions", "final decisions per iteration"},
	{"critical_steps", "critical_steps_mean", "final critical steps per episode"},
	{"spawn_finish_rate", "spawn_finish_rate", "final spawn finish rate (fraction)"},
}

// finalBars draws, for each of finalMetrics, one bar per variant: the IQM
// over seeds (those with a value) of the last tenth of training with its
// bootstrap interval.
// It returns the charts it left out, as warnings.
func finalBars(cw *chartWriter, sv *results.SeedValues, stat, interval string) []string {
	var warnings []string
	for _, m := range finalMetrics {
		var bars []plots.Bar
		var left []string
		for _, v := range sv.Variants {
			// A seed whose rollouts assigned no subagent has no spawn
			// finish rate: the IQM is over the seeds that have one.
			if b, ok := ciBar(v, stats.Default.CI(stats.Finite(sv.Values[v][m.metric]), stats.IQM)); ok {
				bars = append(bars, b)
			} else {
				left = append(left, v)
			}
		}
		name := "final_" + m.name
		if len(bars) == 0 {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: no variant has a value", name))
			continue
		}
		spec := plots.Spec{Name: name, Kind: "bars", YLabel: m.ylabel, Stat: stat, Interval: interval, Size: "column",
			Note: leftOut(left, "undefined values")}
		if err := cw.draw(spec, plots.BarsTable(bars)); err != nil {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", name, err))
		}
	}
	return warnings
}

// profilePoints is the number of thresholds of a performance profile.
const profilePoints = 41

// profiles returns the performance profile of each variant for metric
// (the fraction of seeds whose last-tenth value exceeds each threshold,
// with its bootstrap band), over thresholds spanning every variant's
// values.
func profiles(sv *results.SeedValues, metric string) []plots.Series {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range sv.Variants {
		for _, x := range stats.Finite(sv.Values[v][metric]) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if lo > hi {
		return nil
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	taus := make([]float64, profilePoints)
	for i := range taus {
		taus[i] = lo + (hi-lo)*float64(i)/float64(profilePoints-1)
	}
	var out []plots.Series
	for _, v := range sv.Variants {
		ivs := stats.Default.Profile(sv.Values[v][metric], taus)
		sr := plots.Series{Name: v, X: taus, Y: make([]float64, len(taus))}
		if len(sv.Values[v][metric]) > 1 {
			sr.Lo, sr.Hi = make([]float64, len(taus)), make([]float64, len(taus))
		}
		for i, iv := range ivs {
			sr.Y[i] = iv.Value
			if sr.Lo != nil {
				sr.Lo[i], sr.Hi[i] = iv.Lo, iv.Hi
			}
		}
		out = append(out, sr)
	}
	return out
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
