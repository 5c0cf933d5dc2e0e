package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"text/tabwriter"

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
and writes a directory:

	manifest.json     what was run, as for 'simulate run', with the seeds
	iterations.csv    one row per variant, seed and iteration: episodes,
	                  reward_mean, success_rate, latency_mean, latency_p90,
	                  parallelism_mean, messages_mean, model_calls_mean,
	                  agent_time_mean, decisions, entropy, prob_<action>
	                  (the mean probability of each action over the
	                  iteration's decisions), grad_norm, lr
	policies/         the final policy of each variant and seed, as JSON;
	                  'simulate run --policy FILE' evaluates one
	charts/           learning curves (reward, success, latency,
	                  parallelism, messages) with one curve per variant,
	                  the mean over seeds with a 95% confidence band, and
	                  each variant's action mix, as PNG, SVG and PDF with
	                  the CSV of each

Latencies and agent time are in virtual seconds in the table and minutes
in the charts. Writes are atomic and the manifest comes last, as for run.`,
	Examples: `
	simulate train latency-pressure
	simulate train latency-pressure --seeds 5 --workers 2 --out results/lp
	simulate train my.yaml --set train.advantage=per-agent --set reward.penalty=quadratic`,
	Setup: func(fs *flag.FlagSet) action {
		o := &trainOptions{}
		fs.Var(&o.seed, "seed", "the first seed `S` (default: the scenario's seed)")
		fs.IntVar(&o.seeds, "seeds", 3, "train each variant for `K` seeds")
		fs.StringVar(&o.out, "out", "", "write into directory `DIR` (default: out/SCENARIO-train-seedS)")
		fs.Var(&o.sets, "set", "override a scenario value, as `path=value` (such as train.iterations=50);\nmay be repeated")
		fs.IntVar(&o.workers, "workers", 0, "train on `W` workers (default: the number of CPUs);\nresults do not depend on it")
		fs.BoolVar(&o.force, "force", false, "overwrite a directory that holds a complete run")
		fs.BoolVar(&o.charts, "charts", true, "draw the charts; --charts=false writes the tables only")
		addFiguresFlag(fs, &o.figures)
		return o.run
	},
}

type trainOptions struct {
	figures string
	seed    seedFlag
	seeds   int
	out     string
	sets    stringsFlag
	workers int
	force   bool
	charts  bool
}

// trainJob is one training run: a variant and a seed.
type trainJob struct {
	variant *scenarios.Variant
	seed    uint64
	rows    []rlcr.Iteration
	policy  policy.Softmax
}

func (o *trainOptions) run(ctx context.Context, s *session, args []string) (err error) {
	if len(args) != 1 {
		return usagef("want one scenario, got %d arguments", len(args))
	}
	if o.seeds < 1 {
		return usagef("--seeds %d: want 1 or more", o.seeds)
	}
	if o.workers < 0 {
		return usagef("--workers %d: want 1 or more", o.workers)
	}
	sc, err := scenarios.Load(args[0], o.sets)
	if err != nil {
		return err
	}
	seed, dir, err := startRun(sc, o.seed, o.out, "-train", o.force)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dir.abort()
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
	if err := trainAll(ctx, s, jobs, o.workers, total); err != nil {
		return err
	}

	if err := dir.write("iterations.csv", iterationsCSV(jobs)); err != nil {
		return err
	}
	if err := dir.subdir("policies"); err != nil {
		return err
	}
	for _, j := range jobs {
		var buf bytes.Buffer
		if err := policy.Save(&buf, j.policy); err != nil {
			return err
		}
		if err := dir.write(policyFile(j), buf.Bytes()); err != nil {
			return err
		}
	}
	if o.charts {
		if err := writeLearningCurves(ctx, s, dir, sc, jobs); err != nil {
			return err
		}
	}
	if err := copyFigures(s, dir, sc, o.figures); err != nil {
		return err
	}
	err = dir.commit(&manifest{
		Scenario:        sc.Name,
		Description:     sc.Description,
		Source:          sc.Source,
		Hash:            sc.Hash,
		Seed:            seed,
		Seeds:           o.seeds,
		Variants:        variantNames(sc),
		SwarmsimVersion: version(),
		GoVersion:       goVersion(),
		Command:         s.argv,
		Resolved:        string(sc.Resolved),
	})
	if err != nil {
		return err
	}
	printTraining(s, sc, jobs)
	fmt.Fprintf(s.stdout, "\nwrote %s\n", dir.path)
	return nil
}

func policyFile(j *trainJob) string {
	return fmt.Sprintf("policies/%s-seed%d.json", fileName(j.variant.Name), j.seed)
}

// trainAll runs the jobs on a pool of workers, each job on one goroutine:
// a job's result depends only on its variant and seed.
func trainAll(ctx context.Context, s *session, jobs []*trainJob, workers, total int) error {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	bar := newProgress(s.stderr, "iterations", total)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				j.policy, errs[i] = rlcr.Train(ctx, j.variant.Problem(), j.variant.Spec.Train, j.seed, 1, func(it rlcr.Iteration) error {
					j.rows = append(j.rows, it)
					bar.increment()
					return nil
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
	for _, err := range errs {
		if err != nil {
			bar.finish(false)
			return err
		}
	}
	bar.finish(true)
	return ctx.Err()
}

// iterationColumns are the columns of iterations.csv after variant, seed
// and iteration.
var iterationColumns = func() []struct {
	name  string
	value func(*rlcr.Iteration) float64
} {
	cols := []struct {
		name  string
		value func(*rlcr.Iteration) float64
	}{
		{"episodes", func(r *rlcr.Iteration) float64 { return float64(r.Episodes) }},
		{"reward_mean", func(r *rlcr.Iteration) float64 { return r.RewardMean }},
		{"success_rate", func(r *rlcr.Iteration) float64 { return r.SuccessRate }},
		{"latency_mean", func(r *rlcr.Iteration) float64 { return r.LatencyMean }},
		{"latency_p90", func(r *rlcr.Iteration) float64 { return r.LatencyP90 }},
		{"parallelism_mean", func(r *rlcr.Iteration) float64 { return r.ParallelismMean }},
		{"messages_mean", func(r *rlcr.Iteration) float64 { return r.MessagesMean }},
		{"model_calls_mean", func(r *rlcr.Iteration) float64 { return r.ModelCallsMean }},
		{"agent_time_mean", func(r *rlcr.Iteration) float64 { return r.AgentTimeMean }},
		{"critical_steps_mean", func(r *rlcr.Iteration) float64 { return r.CriticalStepsMean }},
		{"decisions", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) }},
		{"decisions_acceptable", func(r *rlcr.Iteration) float64 { return r.DecisionsAcceptable }},
		{"decisions_failed", func(r *rlcr.Iteration) float64 { return r.DecisionsFailed }},
		{"entropy", func(r *rlcr.Iteration) float64 { return r.Entropy }},
	}
	for a := range collective.Action(collective.NumActions) {
		cols = append(cols, struct {
			name  string
			value func(*rlcr.Iteration) float64
		}{"prob_" + a.String(), func(r *rlcr.Iteration) float64 { return r.ActionProbs[a] }})
	}
	return append(cols, []struct {
		name  string
		value func(*rlcr.Iteration) float64
	}{
		{"grad_norm", func(r *rlcr.Iteration) float64 { return r.GradNorm }},
		{"lr", func(r *rlcr.Iteration) float64 { return r.LR }},
	}...)
}()

func iterationsCSV(jobs []*trainJob) []byte {
	header := []string{"variant", "seed", "iteration"}
	for _, c := range iterationColumns {
		header = append(header, c.name)
	}
	var rows [][]string
	for _, j := range jobs {
		for i := range j.rows {
			r := &j.rows[i]
			row := []string{j.variant.Name, strconv.FormatUint(j.seed, 10), strconv.Itoa(r.Iteration)}
			for _, c := range iterationColumns {
				row = append(row, num(c.value(r)))
			}
			rows = append(rows, row)
		}
	}
	b, err := csvBytes(header, rows)
	if err != nil {
		panic(err) // csv of strings into memory cannot fail
	}
	return b
}

// lastTenth returns the mean of value over the last tenth of a job's
// iterations (at least one).
func lastTenth(j *trainJob, value func(*rlcr.Iteration) float64) float64 {
	n := max(1, len(j.rows)/10)
	sum := 0.0
	for i := len(j.rows) - n; i < len(j.rows); i++ {
		sum += value(&j.rows[i])
	}
	return sum / float64(n)
}

// printTraining prints each variant's last-tenth figures, as mean ± CI
// half-width over seeds.
func printTraining(s *session, sc *scenarios.Scenario, jobs []*trainJob) {
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tseeds\treward\tsuccess\tlatency (min)\tparallelism\tmessages\t(last tenth of training)")
	for i := range sc.Variants {
		v := &sc.Variants[i]
		stat := func(value func(*rlcr.Iteration) float64, k float64) string {
			var xs []float64
			for _, j := range jobs {
				if j.variant == v {
					xs = append(xs, lastTenth(j, value)*k)
				}
			}
			return plusMinus(scenarios.MeanCI(xs), 2)
		}
		n := 0
		for _, j := range jobs {
			if j.variant == v {
				n++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", v.Name, n,
			stat(func(r *rlcr.Iteration) float64 { return r.RewardMean }, 1),
			stat(func(r *rlcr.Iteration) float64 { return r.SuccessRate }, 1),
			stat(func(r *rlcr.Iteration) float64 { return r.LatencyMean }, 1.0/60),
			stat(func(r *rlcr.Iteration) float64 { return r.ParallelismMean }, 1),
			stat(func(r *rlcr.Iteration) float64 { return r.MessagesMean }, 1))
	}
	tw.Flush()
}

// writeLearningCurves draws one chart per metric with a curve per variant
// (mean over seeds, 95% band), and the action mix of each variant.
func writeLearningCurves(ctx context.Context, s *session, dir *runDir, sc *scenarios.Scenario, jobs []*trainJob) error {
	if err := dir.subdir(chartsDir); err != nil {
		return err
	}
	curve := func(name string, jobsOf []*trainJob, value func(*rlcr.Iteration) float64) (plots.Series, bool) {
		n := len(jobsOf[0].rows)
		sr := plots.Series{Name: name, X: make([]float64, n), Y: make([]float64, n)}
		if len(jobsOf) > 1 {
			sr.Lo, sr.Hi = make([]float64, n), make([]float64, n)
		}
		xs := make([]float64, len(jobsOf))
		for i := range n {
			for k, j := range jobsOf {
				xs[k] = value(&j.rows[i])
			}
			iv := scenarios.MeanCI(xs)
			sr.X[i], sr.Y[i] = float64(i), iv.Value
			if sr.Lo != nil {
				sr.Lo[i], sr.Hi[i] = iv.Lo, iv.Hi
			}
			if !finite(iv.Value) || (sr.Lo != nil && !(finite(iv.Lo) && finite(iv.Hi))) {
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
	draw := func(name, ylabel string, series []plots.Series) {
		p, err := plots.Lines(plots.Chart{XLabel: "training iteration", YLabel: ylabel, Size: plots.Column}, series)
		if err == nil {
			err = save(dir, name, p, plots.Column, plots.LinesTable(series))
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", name, err))
		}
	}
	for _, m := range []struct {
		name, ylabel string
		value        func(*rlcr.Iteration) float64
	}{
		{"learning_reward", "mean reward", func(r *rlcr.Iteration) float64 { return r.RewardMean }},
		{"learning_success", "success rate", func(r *rlcr.Iteration) float64 { return r.SuccessRate }},
		{"learning_latency", "mean finish time (min)", func(r *rlcr.Iteration) float64 { return r.LatencyMean / 60 }},
		{"learning_parallelism", "mean parallelism (busy agents)", func(r *rlcr.Iteration) float64 { return r.ParallelismMean }},
		{"learning_messages", "messages per episode", func(r *rlcr.Iteration) float64 { return r.MessagesMean }},
		{"learning_decisions", "decisions per episode", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) / float64(r.Episodes) }},
		{"learning_critical_steps", "critical steps per episode", func(r *rlcr.Iteration) float64 { return r.CriticalStepsMean }},
		{"learning_agent_time", "agent time per episode (min)", func(r *rlcr.Iteration) float64 { return r.AgentTimeMean / 60 }},
	} {
		var series []plots.Series
		for i := range sc.Variants {
			if sr, ok := curve(sc.Variants[i].Name, byVariant(&sc.Variants[i]), m.value); ok {
				series = append(series, sr)
			}
		}
		draw(m.name, m.ylabel, series)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for i := range sc.Variants {
		v := &sc.Variants[i]
		var series []plots.Series
		for a := range collective.Action(collective.NumActions) {
			sr, ok := curve(a.String(), byVariant(v), func(r *rlcr.Iteration) float64 { return r.ActionProbs[a] })
			if ok && maxOf(sr.Y) > 0.01 {
				sr.Lo, sr.Hi = nil, nil // bands over seven crossing curves hide them
				series = append(series, sr)
			}
		}
		draw("action_mix_"+fileName(v.Name), "mean action probability", series)
	}
	warnings = append(warnings, writeFinalBars(dir, sc, jobs)...)
	for _, w := range warnings {
		s.warnf("%s", w)
	}
	return nil
}

// finalMetrics are the metrics that final_<name> charts compare across
// variants, over the last tenth of training.
var finalMetrics = []struct {
	name, ylabel string
	value        func(*rlcr.Iteration) float64
	signed       bool // may be negative
}{
	{"reward", "mean reward", func(r *rlcr.Iteration) float64 { return r.RewardMean }, true},
	{"success", "success rate", func(r *rlcr.Iteration) float64 { return r.SuccessRate }, false},
	{"latency", "mean finish time (min)", func(r *rlcr.Iteration) float64 { return r.LatencyMean / 60 }, false},
	{"parallelism", "mean parallelism (busy agents)", func(r *rlcr.Iteration) float64 { return r.ParallelismMean }, false},
	{"agent_time", "agent time per episode (min)", func(r *rlcr.Iteration) float64 { return r.AgentTimeMean / 60 }, false},
	{"decisions", "decisions per episode", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) / float64(r.Episodes) }, false},
}

// writeFinalBars draws, for each of finalMetrics, one bar per variant: the
// mean over seeds of the last tenth of training, with its 95% interval. It
// returns the charts it left out, as warnings.
func writeFinalBars(dir *runDir, sc *scenarios.Scenario, jobs []*trainJob) []string {
	var warnings []string
	for _, m := range finalMetrics {
		var bars []plots.Bar
		for i := range sc.Variants {
			var xs []float64
			for _, j := range jobs {
				if j.variant == &sc.Variants[i] {
					xs = append(xs, lastTenth(j, m.value))
				}
			}
			iv := scenarios.MeanCI(xs)
			if b, ok := ciBar(sc.Variants[i].Name, iv); ok {
				if m.signed && finite(iv.Lo) && finite(iv.Hi) {
					b.Lo, b.Hi = iv.Lo, iv.Hi // rewards may be negative
				}
				bars = append(bars, b)
			}
		}
		name := "final_" + m.name
		if len(bars) == 0 {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: no variant has a value", name))
			continue
		}
		p, err := plots.Bars(plots.Chart{YLabel: m.ylabel + ", last tenth", Size: plots.Column}, bars)
		if err == nil {
			err = save(dir, name, p, plots.Column, plots.BarsTable(bars))
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("chart %s left out: %v", name, err))
		}
	}
	return warnings
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
