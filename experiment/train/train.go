package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
)

// A Job is one training run: a variant and a seed. Run fills in its
// iterations and final policy.
type Job struct {
	Variant *scenarios.Variant
	Seed    uint64
	Rows    []rlcr.Iteration
	Policy  policy.Softmax
	// from is the checkpoint the job resumes from; nil for a fresh start.
	from *rlcr.Checkpoint
	// saved is when the job last wrote its checkpoint.
	saved time.Time
}

// Jobs returns the jobs of training the variants of sc for seeds seeds
// from seed, variant by variant, and their iterations in all. Of variants
// that differ only in their policy section (Alike) only the first is
// trained: the others would train identical copies.
func Jobs(sc *scenarios.Scenario, seed uint64, seeds int) (jobs []*Job, total int) {
	skip := map[int]bool{}
	for _, g := range Alike(sc.Variants) {
		for _, i := range g[1:] {
			skip[i] = true
		}
	}
	for i := range sc.Variants {
		if skip[i] {
			continue
		}
		for k := range uint64(seeds) {
			jobs = append(jobs, &Job{Variant: &sc.Variants[i], Seed: seed + k})
			total += sc.Variants[i].Spec.Train.Iterations
		}
	}
	return jobs, total
}

// WriteTables writes the tables of the finished jobs into dir:
// iterations.csv, summary.csv (the seeds' last tenths of training, and
// the baselines' figures on the same episodes, results.TrainSummary) and
// each job's final policy; it returns the seeds' values that summary.csv
// holds, learned and fixed.
func WriteTables(dir *rundir.Dir, jobs, baselines []*Job) (learned, fixed *results.SeedValues, _ error) {
	// The summary reads the cells written, as it would from the file.
	table := iterationsTable(jobs)
	table.Path = dir.Join("iterations.csv")
	if err := dir.Write("iterations.csv", rundir.CSV(table.Header, table.Rows)); err != nil {
		return nil, nil, err
	}
	learned, err := results.LastTenths(table)
	if err != nil {
		return nil, nil, err
	}
	fixed = baselineValues(baselines)
	if err := dir.Write("summary.csv", results.TrainSummary(learned, fixed)); err != nil {
		return nil, nil, err
	}
	if err := dir.Mkdir("policies"); err != nil {
		return nil, nil, err
	}
	for _, j := range jobs {
		var buf bytes.Buffer
		if err := policy.Save(&buf, j.Policy); err != nil {
			return nil, nil, err
		}
		if err := dir.Write(policyFile(j), buf.Bytes()); err != nil {
			return nil, nil, err
		}
	}
	return learned, fixed, nil
}

// policyFile is the name of job j's final policy in a train directory.
func policyFile(j *Job) string {
	return fmt.Sprintf("policies/%s-seed%d.json", experiment.FileName(j.Variant.Name), j.Seed)
}

// Options adjust Run.
type Options struct {
	// Workers is the number of jobs trained at once; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Workers int
	// MaxEvents bounds each episode's events; 0 means the default.
	MaxEvents uint64
	// Iteration, if not nil, is called after each iteration, from the
	// goroutine that ran it.
	Iteration func()
}

// Run runs the jobs on a pool of workers, each job on one goroutine
// (a job's result depends only on its variant and seed), continuing each
// from the checkpoint Resume found. Each job hands saves a checkpoint
// after an iteration at most every checkpointEvery, and after its last,
// which saves holds until checkpointEvery has passed since the job's one
// before (see Checkpoints): the caller Discards saves once the result is
// complete, or Closes it, which writes what it holds. A failed job cancels
// the others, and its error is the one returned.
func Run(ctx context.Context, saves *Checkpoints, jobs []*Job, opt Options) error {
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return pool.Run(ctx, len(jobs), workers, func(ctx context.Context, _, i int) error {
		j := jobs[i]
		prob := j.Variant.Problem()
		prob.MaxEvents = opt.MaxEvents
		// The first checkpoint too waits for checkpointEvery of work: a
		// job shorter than that writes only its last one.
		j.saved = time.Now()
		j.Rows = slices.Grow(j.Rows, max(0, j.Variant.Spec.Train.Iterations-len(j.Rows))) // appended to by Emit
		var err error
		j.Policy, err = rlcr.Train(ctx, rlcr.Run{
			Problem: prob, Config: j.Variant.Spec.Train, Seed: j.Seed, Workers: 1, From: j.from,
			Emit: func(it rlcr.Iteration) error {
				j.Rows = append(j.Rows, it)
				if opt.Iteration != nil {
					opt.Iteration()
				}
				return nil
			},
			Save: func(done int, checkpoint func() *rlcr.Checkpoint) error {
				// Each write is synced: a few per second at most keep the
				// disk out of the training's time.
				due := j.saved.Add(saves.every)
				if time.Now().Before(due) {
					if done < j.Variant.Spec.Train.Iterations {
						return nil
					}
					return saves.put(j, checkpoint(), due) // the last: held
				}
				j.saved = time.Now()
				return saves.put(j, checkpoint(), time.Time{})
			},
		})
		if err != nil {
			return fmt.Errorf("variant %q, seed %d: %w", j.Variant.Name, j.Seed, err)
		}
		return nil
	})
}

// Trained returns the variants the jobs train, in the jobs' order.
func Trained(jobs []*Job) []*scenarios.Variant {
	var out []*scenarios.Variant
	for _, j := range jobs {
		if !slices.Contains(out, j.Variant) {
			out = append(out, j.Variant)
		}
	}
	return out
}

// iterationsTable returns the cells of iterations.csv: the jobs' iterations.
func iterationsTable(jobs []*Job) *rundir.Table {
	cols := iterationColumns
	specs := make([]*scenarios.Spec, len(jobs))
	for i, j := range jobs {
		specs[i] = &j.Variant.Spec
	}
	if experiment.UsesHandoff(specs...) {
		cols = append(cols[:len(cols):len(cols)], handoffIterationColumns...)
	}
	header := []string{"variant", "seed", "iteration"}
	for _, c := range cols {
		header = append(header, c.name)
	}
	n := 0
	for _, j := range jobs {
		n += len(j.Rows)
	}
	// Made at their size: grown as they come, the rows were a sixth of a
	// short training's allocations.
	rows := make([][]string, 0, n)
	var line []byte
	ends := make([]int, len(cols))
	for _, j := range jobs {
		seed := strconv.FormatUint(j.Seed, 10)
		for i := range j.Rows {
			r := &j.Rows[i]
			// A row's numbers are formatted into one string that its cells
			// share: one allocation a row, where one a cell was most of a
			// training's.
			line = strconv.AppendInt(line[:0], int64(r.Iteration), 10)
			iteration := len(line)
			for k, c := range cols {
				line = numtext.AppendShortest(line, c.value(r))
				ends[k] = len(line)
			}
			text := string(line)
			row := make([]string, 0, len(header))
			row = append(row, j.Variant.Name, seed, text[:iteration])
			start := iteration
			for _, end := range ends {
				row = append(row, text[start:end])
				start = end
			}
			rows = append(rows, row)
		}
	}
	return &rundir.Table{Header: header, Rows: rows}
}

// CurveOptions adjust LearningCurves.
type CurveOptions struct {
	// Smooth is the window of a trailing moving average over iterations
	// that each seed's values take before the IQM over seeds: the curve
	// at iteration i is over iterations i-Smooth+1 to i (fewer at the
	// start). 0 or 1 draws the values as they are; the charts' notes say
	// which.
	Smooth int
	// Formats are the image formats of plots.Formats each chart is drawn
	// in; nil means all of them.
	Formats []string
	// Workers is the number of charts drawn at once; 0 means GOMAXPROCS.
	// The charts do not depend on it.
	Workers int
}

// LearningCurves draws into dir/charts one chart per metric with a curve
// per variant (the IQM over seeds with its 95% bootstrap band; each
// curve named with what the variants vary), each variant's action mix,
// performance profiles of the final reward and success, the scaling
// charts and the final bars. It returns the charts it left out, as
// warnings.
func LearningCurves(ctx context.Context, dir *rundir.Dir, jobs []*Job, sv *results.SeedValues, opt CurveOptions) ([]string, error) {
	cw, err := experiment.NewChartWriter(dir, opt.Formats)
	if err != nil {
		return nil, err
	}
	trained := Trained(jobs)
	seeds := len(jobs) / len(trained)
	// The number of resamples is in docs/statistics.md: the note must fit
	// a column.
	over := seedsText(seeds, seeds)
	stat := "IQM, " + over
	interval := "95% bootstrap CI"
	curveStat := stat
	if opt.Smooth > 1 {
		curveStat += fmt.Sprintf(", %d-iteration mean", opt.Smooth)
	}
	// curve returns the IQM over seeds at every iteration, with the band
	// when band is set and there are seeds to resample.
	curve := func(name string, jobsOf []*Job, value func(*rlcr.Iteration) float64, band bool) (plots.Series, bool) {
		n := len(jobsOf[0].Rows)
		sr := plots.Series{Name: name, X: make([]float64, n), Y: make([]float64, n)}
		band = band && len(jobsOf) > 1
		if band {
			sr.Lo, sr.Hi = make([]float64, n), make([]float64, n)
		}
		seedValues := make([][]float64, len(jobsOf))
		for k, j := range jobsOf {
			seedValues[k] = make([]float64, n)
			for i := range n {
				seedValues[k][i] = value(&j.Rows[i])
			}
			seedValues[k] = movingAverage(seedValues[k], opt.Smooth)
		}
		xs := make([]float64, len(jobsOf))
		for i := range n {
			for k := range jobsOf {
				xs[k] = seedValues[k][i]
			}
			sr.X[i] = float64(i)
			if !band {
				sr.Y[i] = stats.IQM(xs)
			} else {
				iv := stats.Default.CI(xs, stats.IQM)
				sr.Y[i], sr.Lo[i], sr.Hi[i] = iv.Value, iv.Lo, iv.Hi
			}
			if !experiment.Finite(sr.Y[i]) || (band && !(experiment.Finite(sr.Lo[i]) && experiment.Finite(sr.Hi[i]))) {
				return sr, false
			}
		}
		return sr, true
	}
	byVariant := func(v *scenarios.Variant) []*Job {
		var out []*Job
		for _, j := range jobs {
			if j.Variant == v {
				out = append(out, j)
			}
		}
		return out
	}
	// Each chart is worked out and drawn when its turn comes, on one of
	// the workers.
	var charts []experiment.Chart
	lines := func(name string, build func() (plots.Spec, []plots.Series)) {
		charts = append(charts, experiment.Chart{Name: name, Draw: func(cw *experiment.ChartWriter) error {
			spec, series := build()
			spec.Name, spec.Kind = name, "lines"
			if spec.Size == "" {
				spec.Size = "column"
			}
			return cw.Draw(spec, plots.LinesTable(series))
		}})
	}
	// A learningCurve is a chart of one value of the iterations.
	type learningCurve struct {
		name, ylabel string
		value        func(*rlcr.Iteration) float64
	}
	// learned is the chart of the iterations.csv column col, labelled as
	// the metric table labels it.
	learned := func(chart, col string) learningCurve {
		return learningCurve{chart, metric.Of(col).Label, IterationValue(col)}
	}
	names := legendNames(trained)
	for _, m := range []learningCurve{
		learned("learning_reward", "reward_mean"),
		learned("learning_success", "success_rate"),
		learned("learning_latency", "latency_mean"),
		learned("learning_parallelism", "parallelism_mean"),
		learned("learning_messages", "messages_mean"),
		{"learning_decisions", "decisions per episode", func(r *rlcr.Iteration) float64 { return float64(r.Decisions) / float64(r.Episodes) }},
		learned("learning_critical_steps", "critical_steps_mean"),
		learned("learning_agent_time", "agent_time_mean"),
	} {
		lines(m.name, func() (plots.Spec, []plots.Series) {
			var series []plots.Series
			var left []string
			for _, v := range trained {
				if sr, ok := curve(names[v], byVariant(v), m.value, true); ok {
					series = append(series, sr)
				} else {
					left = append(left, v.Name)
				}
			}
			return plots.Spec{XLabel: "training iteration", YLabel: m.ylabel, Stat: curveStat, Interval: interval,
				Note: experiment.LeftOut(left, "undefined values")}, series
		})
	}
	for _, v := range trained {
		name := "action_mix_" + experiment.FileName(v.Name)
		lines(name, func() (plots.Spec, []plots.Series) {
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
			return plots.Spec{Title: "action mix of " + v.Name,
				XLabel: "training iteration", YLabel: "action probability (fraction)", Stat: curveStat,
				Note: experiment.LeftOut(rare, "never above 0.01"), Size: "page"}, series
		})
	}
	for _, m := range []string{"reward_mean", "success_rate"} {
		name := "profile_" + strings.TrimSuffix(m, "_mean")
		lines(name, func() (plots.Spec, []plots.Series) {
			return plots.Spec{XLabel: "final " + metric.Of(m).Label + " threshold",
				YLabel: "fraction of seeds above", Stat: "fraction, " + over, Interval: interval}, profiles(sv, m)
		})
	}
	specs, series := scalingCharts(trained, jobs, stat, interval)
	for i := range specs {
		charts = append(charts, experiment.Chart{Name: specs[i].Name, Draw: func(cw *experiment.ChartWriter) error {
			return cw.Draw(specs[i], plots.LinesTable(series[i]))
		}})
	}
	charts = append(charts, finalBars(sv, interval)...)
	warnings, err := cw.DrawAll(ctx, charts, opt.Workers, nil)
	if err != nil {
		return warnings, err
	}
	return warnings, cw.Close()
}

// finalMetrics are the columns that final_<name> charts compare across
// variants. The axis is "final" and the metric's label, or ylabel where
// set: the parallelism chart has always said "final parallelism".
var finalMetrics = []struct{ name, metric, ylabel string }{
	{"reward", "reward_mean", ""},
	{"success", "success_rate", ""},
	{"latency", "latency_mean", ""},
	{"parallelism", "parallelism_mean", "final parallelism (busy agents)"},
	{"agent_time", "agent_time_mean", ""},
	{"decisions", "decisions", ""},
	{"critical_steps", "critical_steps_mean", ""},
	{"spawn_finish_rate", "spawn_finish_rate", ""},
}

// seedsText says over how many seeds values are, from lo to hi: "1
// seed", "10 seeds", "7 to 10 seeds".
func seedsText(lo, hi int) string {
	switch {
	case lo != hi:
		return fmt.Sprintf("%d to %d seeds", lo, hi)
	case hi == 1:
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", hi)
}

// finalBars returns, for each of finalMetrics, the chart of one bar per
// variant: the IQM over seeds (those with a value) of the last tenth of
// training with its bootstrap interval, the chart's statistic saying over
// how many seeds the bars are ("IQM, 7 to 10 seeds" where a variant's
// metric is undefined for three seeds).
func finalBars(sv *results.SeedValues, interval string) []experiment.Chart {
	var charts []experiment.Chart
	for _, m := range finalMetrics {
		name := "final_" + m.name
		charts = append(charts, experiment.Chart{Name: name, Draw: func(cw *experiment.ChartWriter) error {
			var bars []plots.Bar
			var left []string
			fewest, most := math.MaxInt, 0
			for _, v := range sv.Variants {
				// A seed whose rollouts assigned no subagent has no spawn
				// finish rate: the IQM is over the seeds that have one.
				xs := stats.Finite(sv.Values[v][m.metric])
				if b, ok := experiment.CIBar(v, stats.Default.CI(xs, stats.IQM)); ok {
					bars = append(bars, b)
					fewest, most = min(fewest, len(xs)), max(most, len(xs))
				} else {
					left = append(left, v)
				}
			}
			if len(bars) == 0 {
				return errors.New("no variant has a value")
			}
			ylabel := m.ylabel
			if ylabel == "" {
				ylabel = "final " + metric.Of(m.metric).Label
			}
			spec := plots.Spec{Name: name, Kind: "bars", YLabel: ylabel, Stat: "IQM, " + seedsText(fewest, most), Interval: interval, Size: "column",
				Note: experiment.LeftOut(left, "undefined values")}
			return cw.Draw(spec, plots.BarsTable("iqm", bars))
		}})
	}
	return charts
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

// movingAverage returns the trailing moving average of xs over window
// values (fewer at the start): xs itself for a window of 0 or 1. Each
// window is summed afresh, so that a NaN spoils only the windows that
// hold it.
func movingAverage(xs []float64, window int) []float64 {
	if window <= 1 {
		return xs
	}
	out := make([]float64, len(xs))
	for i := range xs {
		w := xs[max(0, i-window+1) : i+1]
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		out[i] = sum / float64(len(w))
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
