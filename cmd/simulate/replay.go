package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdReplay = &command{
	Name:  "replay",
	Args:  "[FILE|DIR...]",
	Short: "replay recorded agent runs through a simulated deployment",
	Long: `
Replay reads agent traces as 'simulate fit' does (OpenTelemetry GenAI
spans from each FILE and the .json and .jsonl files below each DIR; a DIR
that simulate wrote stands for its spans.jsonl, as an earlier replay
with --spans writes it) and replays each recorded run's call graph on the simulator: every agent's
model calls, tool calls and sub-agents, each starting when the steps of
its agent that had ended before it in the recording have ended in the
replay, after the framework time recorded between them. Tool calls keep
their recorded durations and model calls their recorded tokens; a model
call's time comes from the deployment: by default the hosted API per
model that 'simulate fit' fits from the same traces, or the
collective.serving (replicas with batching) or collective.api (rate and
concurrency limits) of --scenario, changed with --set. A variant named
as fit names a model serves that model's calls, the first variant the
others; nothing else of the scenario is read but its seed (as --seed).
At a hosted API a call's time to first token is paired by rank with the
recorded call's (--pairing rank): the k-th fastest of a model's n calls
takes the API's (k-1/2)/n quantile.

The load is the scenario's replay section (replay.sessions, replay.rate
or replay.speedup, replay.runs; see docs/calibration.md), or one of the
flags that stand for them: --sessions N (closed loop: N sessions, each
starting a run when its last one ends; 1 replays runs one at a time, the
default), --rate R (runs arriving at a Poisson rate of R a second) or
--speedup X (runs starting at their recorded start times, X times
faster). Each flag takes a comma-separated list, replayed load by load
into one directory; 'simulate sweep' sweeps the replay section with
other settings (sweep.command replay). The traces are the arguments, or
replay.traces of --scenario.

It writes to --out: replay.csv (one row per replayed run and load: the
recorded and replayed durations, time in model calls, in tool calls and
at the servers beyond a call's time alone (the serving delay), calls), summary.csv
(per load: IQMs of the durations, the median ratio replayed/recorded,
the share of runs within 25%, mean call latency and serving delay, with
95% intervals), charts (replayed against recorded durations with the
line y = x; with several loads, latency against the load) and, with
--spans, spans.jsonl: the replayed runs as OTLP/JSON GenAI spans, as
'simulate trace --format otlp' writes episodes; then, as every command
that writes a directory, manifest.json (what was replayed, written last)
and report.html (every table and chart on one page). Spans that cannot be
placed are counted on stderr as by fit. See docs/calibration.md.

The first example reads ../shared/data: real input files kept beside
the checkout, not in it (README.md).`,
	Examples: `
	simulate replay ../shared/data/agent-traces/any-agent --out replayed
	simulate replay traces/ --set collective.serving.replicas=1 --sessions 1,4,16,64 --out sweep
	simulate replay traces/ --scenario deploy.yaml --rate 0.5,1,2 --runs 500 --out open-loop
	simulate replay --scenario docs/examples/replay-load.yaml --set replay.sessions=16 --out sixteen`,
	Setup: func(fs *flag.FlagSet) action {
		o := &replayOptions{}
		fs.StringVar(&o.out, "out", "", "write the results to `DIR` (required)")
		fs.BoolVar(&o.force, "force", false, "overwrite a complete replay at --out (never another command's\nresults), or write into one that holds other files")
		fs.StringVar(&o.scenario, "scenario", "", "take the deployment from `SCENARIO` (default: the one fit fits from the traces)")
		fs.Var(&o.sets, "set", "override a scenario `PATH=VALUE` under collective.serving, collective.api or replay, or its\nseed (repeatable)")
		fs.StringVar(&o.sessions, "sessions", "", "closed loop of `N[,N...]` sessions (default 1: one run at a time)")
		fs.StringVar(&o.rates, "rate", "", "open loop: runs arriving at a Poisson rate of `R[,R...]` a second")
		fs.StringVar(&o.speedups, "speedup", "", "open loop: runs starting at their recorded times, `X[,X...]` times faster")
		fs.Var(intFlag{&o.runs}, "runs", "replay `N` runs per load (1 to "+strconv.Itoa(replay.MaxRuns)+"), the recorded ones in turn (default:\nreplay.runs, else each once, once per session: at most "+strconv.Itoa(replay.MaxRuns)+" in all)")
		fs.StringVar(&o.pairing, "pairing", "", "how a hosted API's latencies pair with the recorded ones: `rank` or independent (default: replay.pairing, else rank; an error at replicas, which have none)")
		fs.Var(&o.seed, "seed", "the seed of the replay's draws: a hosted API's latencies, --rate's arrivals (default: the scenario's)")
		fs.BoolVar(&o.spans, "spans", false, "write the replayed runs as OTLP/JSON GenAI spans to spans.jsonl")
		fs.BoolVar(&o.charts, "charts", true, "draw charts")
		addFormatFlag(fs, &o.format, formatNeedsSVG)
		return o.run
	},
}

type replayOptions struct {
	out, scenario, sessions, rates, speedups, pairing string
	sets                                              setsFlag
	seed                                              seedFlag
	runs                                              int
	force, spans, charts                              bool
	format                                            formatsFlag
}

// replayLoad is one load of the command line, named as replay.csv's
// load column names it.
type replayLoad struct {
	name  string
	value float64 // the sessions, rate or speed-up
	load  replay.Load
}

// stands returns the flags given that stand for settings of the
// scenario, which a --set of those settings would then change nothing
// of: --seed, --pairing, --runs, and a load's flag, which replaces the
// replay section's load whichever kind it is.
func (o *replayOptions) stands() []stand {
	out := []stand{o.seed.stand(), {"--pairing", "replay.pairing", o.pairing != ""}, {"--runs", "replay.runs", o.runs != 0}}
	for _, f := range []struct{ flag, value string }{{"--sessions", o.sessions}, {"--rate", o.rates}, {"--speedup", o.speedups}} {
		for _, path := range []string{"replay.sessions", "replay.rate", "replay.speedup"} {
			out = append(out, stand{f.flag, path, f.value != ""})
		}
	}
	return out
}

// loads returns the loads that --sessions, --rate and --speedup ask for,
// from the lightest: the order of their rows and of a chart's axis; nil
// when none is given. runs is the runs of each load.
func (o *replayOptions) loads(runs int) ([]replayLoad, error) {
	out, err := o.parseLoads(runs)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b replayLoad) int { return cmp.Compare(a.value, b.value) })
	for i := 1; i < len(out); i++ {
		if out[i].value == out[i-1].value {
			return nil, usagef("load %s is given twice", out[i].name)
		}
	}
	return out, nil
}

func (o *replayOptions) parseLoads(runs int) ([]replayLoad, error) {
	given := 0
	for _, f := range []string{o.sessions, o.rates, o.speedups} {
		if f != "" {
			given++
		}
	}
	if given > 1 {
		return nil, usagef("give one of --sessions, --rate and --speedup: a replay has one kind of load")
	}
	var out []replayLoad
	switch {
	case o.rates != "":
		err := eachNumber("--rate", o.rates, func(s string, v float64) {
			out = append(out, replayLoad{"rate=" + s, v, replay.Load{Mode: replay.Poisson, Rate: v, Runs: runs}})
		})
		return out, err
	case o.speedups != "":
		if runs != 0 {
			return nil, usagef("--runs or replay.runs with --speedup: each recorded run starts once, at its recorded time")
		}
		err := eachNumber("--speedup", o.speedups, func(s string, v float64) {
			out = append(out, replayLoad{"speedup=" + s, v, replay.Load{Mode: replay.Recorded, Speedup: v}})
		})
		return out, err
	}
	sessions := o.sessions
	if sessions == "" {
		return nil, nil
	}
	for _, s := range strings.Split(sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > replay.MaxSessions {
			return nil, usagef("--sessions %s: %q is not a whole number of sessions from 1 to %d", sessions, s, replay.MaxSessions)
		}
		out = append(out, replayLoad{"sessions=" + strconv.Itoa(n), float64(n), replay.Load{Mode: replay.Closed, Sessions: n, Runs: runs}})
	}
	return out, nil
}

// eachNumber calls f with each positive number of the comma-separated
// list v of flag.
func eachNumber(flag, v string, f func(string, float64)) error {
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 1) {
			return usagef("%s %s: %q is not a positive number", flag, v, s)
		}
		f(s, x)
	}
	return nil
}

func (o *replayOptions) run(ctx context.Context, s *session, args []string) error {
	if o.out == "" {
		return usagef("--out DIR is required")
	}
	if err := checkFormats(o.format, o.charts, ""); err != nil {
		return err
	}
	if o.runs < 0 || o.runs > replay.MaxRuns {
		return usagef("--runs %d: want 1 to %d (or 0 for each run once)", o.runs, replay.MaxRuns)
	}
	if err := refuseUnread(o.sets, scenarios.SweepReplay, false); err != nil {
		return err
	}
	if err := refuseReplaced(o.sets, o.stands()...); err != nil {
		return err
	}
	var sc *scenarios.Scenario
	if o.scenario != "" {
		var err error
		if sc, err = loadScenario(s, o.scenario, o.sets, ""); err != nil {
			return err
		}
		switch traces := sc.Base.Replay.Traces; {
		case len(args) > 0 && len(traces) > 0:
			return usagef("traces given twice: as arguments and as replay.traces of %s; give them once", sc.Source)
		case len(args) == 0:
			if err := sc.CheckTraces(); err != nil {
				return err
			}
			args = traces
		}
	}
	if len(args) == 0 {
		return usagef("want at least one trace file or directory (or a --scenario with replay.traces)")
	}
	// The flags' loads are checked before the traces are read; the
	// scenario's runs count only when --runs is not given.
	runs := o.runs
	if runs == 0 && sc != nil {
		runs = sc.Base.Replay.Runs
	}
	loads, err := o.loads(runs)
	if err != nil {
		return err
	}
	// --out is refused before the traces are read, fitted and replayed,
	// which may take a while; createDir checks it again when the replay
	// is done.
	if _, err := checkOut(o.out, rundir.KindReplay, o.force); err != nil {
		return err
	}
	tr, err := calibrate.Load(args)
	if err != nil {
		return err
	}
	fmt.Fprint(s.stderr, tr.Report)
	if n := len(tr.Runs) - len(tr.Replay); n > 0 {
		fmt.Fprintf(s.stderr, "%d runs whose root span has no end (not replayed: nothing to compare them with)\n", n)
	}
	if len(tr.Replay) == 0 {
		return fmt.Errorf("no run of %s has an end: nothing to replay", strings.Join(args, ", "))
	}
	f, err := calibrate.FitAll(tr)
	if err != nil {
		return err
	}
	if sc == nil {
		if sc, err = o.fittedScenario(f, args); err != nil {
			return err
		}
		// Tool calls keep their recorded durations: only the models
		// without an API of their own change the replay.
		fmt.Fprint(s.stderr, f.ModelNotes())
		if len(sc.Base.Replay.Traces) > 0 {
			return usagef("--set replay.traces with traces as arguments: give them once")
		}
	}
	set := &sc.Base.Replay
	if loads == nil {
		l := set.Load()
		if o.runs != 0 {
			if l.Mode == replay.Recorded {
				return usagef("--runs with replay.speedup: each recorded run starts once, at its recorded time")
			}
			l.Runs = o.runs
		}
		loads = []replayLoad{{name: l.String(), load: l}}
	}
	// The sessions' runs are known only now, from the traces: refused
	// here, they would hold every result in memory before the replay
	// wrote anything.
	for _, l := range loads {
		if err := l.load.CheckRuns(len(tr.Replay)); err != nil {
			if o.sessions != "" {
				return usagef("--sessions %s: %s: %v; give --runs N (1 to %d), the runs of each load", o.sessions, l.name, err, replay.MaxRuns)
			}
			return fmt.Errorf("replay.sessions of %s: %w; set replay.runs, or give --runs N (1 to %d)", sc.Source, err, replay.MaxRuns)
		}
	}
	pairing := set.Pairing
	if o.pairing != "" {
		if err := pairing.UnmarshalText([]byte(o.pairing)); err != nil {
			return usagef("--pairing %s: want rank or independent", o.pairing)
		}
	}
	dep, err := replay.Deploy(servers(sc), f.Variants())
	if err != nil {
		return fmt.Errorf("%s: %w", sc.Source, err)
	}
	if err := o.checkDraws(sc, dep, loads); err != nil {
		return err
	}
	seed := sc.Seed
	if o.seed.set {
		seed = o.seed.v
	}
	var done []calibrate.Replayed
	for _, l := range loads {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := replay.Replay(tr.Replay, replay.Config{Deployment: dep, Load: l.load, Pairing: pairing, Seed: seed, Spans: o.spans})
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		done = append(done, calibrate.Replayed{Load: l.name, Results: res})
	}
	summary := calibrate.ReplaySummary(tr.Replay, done)
	dir, err := createDir(o.out, rundir.KindReplay, o.force)
	if err != nil {
		return err
	}
	if err := o.write(dir, tr, done, summary); err != nil {
		dir.Abort()
		return err
	}
	if err := dir.Commit(newManifest(s, rundir.KindReplay, sc, seed)); err != nil {
		dir.Abort()
		return err
	}
	see := s.writeReport(dir.Path())
	printReplay(s, summary)
	fmt.Fprintf(s.stdout, "wrote %s\n%s", quotePath(dir.Join("replay.csv")), see)
	return nil
}

// checkDraws refuses a pairing or a seed that would change nothing: at
// replicas a call's time follows from its tokens and the batch, so there
// is no API latency to pair, and only a Poisson load draws anything.
func (o *replayOptions) checkDraws(sc *scenarios.Scenario, dep replay.Deployment, loads []replayLoad) error {
	if len(dep.APIs) > 0 {
		return nil
	}
	const why = "a replay at replicas (collective.serving) gives each call the time its tokens and batch take"
	const noPairing = "so there is no API latency to pair; pairing acts only at a hosted API (collective.api)"
	const noSeed = "and a closed loop or recorded start times draw no arrivals, so the seed changes nothing; it acts at a hosted API (collective.api) or with --rate"
	// A --set of replay.pairing or of seed is refused as its flag is,
	// whatever its value: the flags are shorthands for them. A scenario
	// file's seed is not: every scenario has one.
	setOf := func(path string) (string, bool) {
		i := slices.IndexFunc(o.sets, func(set string) bool { return scenarios.SetPath(set) == path })
		if i < 0 {
			return "", false
		}
		return o.sets[i], true
	}
	draws := slices.ContainsFunc(loads, func(l replayLoad) bool { return l.load.Mode == replay.Poisson })
	if o.pairing != "" {
		return usagef("--pairing %s: %s, %s", o.pairing, why, noPairing)
	}
	if set, ok := setOf("replay.pairing"); ok {
		return usagef("--set %s: %s, %s", set, why, noPairing)
	}
	// A scenario's own replay.pairing there is refused as it loads, at
	// its line (scenarios' checkReplayPairing).
	if draws {
		return nil
	}
	if o.seed.set {
		return usagef("--seed %d: %s, %s", o.seed.v, why, noSeed)
	}
	if set, ok := setOf("seed"); ok {
		return usagef("--set %s: %s, %s", set, why, noSeed)
	}
	return nil
}

// fittedScenario returns the scenario fit writes from the traces with
// the --set overrides (without its hosted APIs when they set
// collective.serving).
func (o *replayOptions) fittedScenario(f *calibrate.Fit, args []string) (*scenarios.Scenario, error) {
	write := f.Scenario
	if slices.ContainsFunc(o.sets, func(set string) bool { return strings.HasPrefix(scenarios.SetPath(set), "collective.serving.") }) {
		// Replicas replace the fitted APIs: a scenario has one or the other.
		write = f.SelfHostedScenario
	}
	yaml, err := write("fitted", args)
	if err != nil {
		return nil, err
	}
	sc, err := scenarios.Parse(yaml, "the fitted scenario", o.sets)
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// servers returns the servers of each of sc's variants.
func servers(sc *scenarios.Scenario) []replay.Server {
	out := make([]replay.Server, len(sc.Variants))
	for i, v := range sc.Variants {
		out[i] = v.Server()
	}
	return out
}

// write writes the replay's tables, charts and spans into dir.
func (o *replayOptions) write(dir *rundir.Dir, tr *calibrate.Traces, done []calibrate.Replayed, summary []calibrate.ReplayStat) error {
	h, rows := calibrate.ReplayRows(tr.Replay, done)
	if err := dir.Write("replay.csv", rundir.CSV(h, rows)); err != nil {
		return err
	}
	h, rows = calibrate.ReplaySummaryRows(summary)
	if err := dir.Write("summary.csv", rundir.CSV(h, rows)); err != nil {
		return err
	}
	if o.spans {
		if err := dir.Write(calibrate.SpansName, replaySpans(tr, done)); err != nil {
			return err
		}
	}
	if !o.charts {
		return nil
	}
	if err := dir.Mkdir("charts"); err != nil {
		return err
	}
	return replayCharts(dir, done, summary, o.format.formats())
}

// replaySpans returns every replayed run as an OTLP/JSON document, one a
// line, numbered across the loads.
func replaySpans(tr *calibrate.Traces, done []calibrate.Replayed) []byte {
	acceptable := map[string]bool{}
	for _, r := range tr.Runs {
		acceptable[r.ID] = !r.HasOutcome || r.Acceptable
	}
	var b bytes.Buffer
	id := uint64(0)
	for _, l := range done {
		for i := range l.Results {
			r := &l.Results[i]
			run := &tr.Replay[r.Run]
			// Writing to a buffer cannot fail.
			_ = calibrate.WriteReplayOTLP(&b, r, id, calibrate.FirstModel(run), acceptable[run.ID])
			id++
		}
	}
	return b.Bytes()
}

// replayCharts draws replayed against recorded durations, a series per
// load (at most plots.MaxSeries, the first ones), and with several
// loads the mean call latency and serving delay against the load.
func replayCharts(dir *rundir.Dir, done []calibrate.Replayed, summary []calibrate.ReplayStat, formats []string) error {
	var points []plots.Series
	for _, l := range done[:min(len(done), plots.MaxSeries)] {
		s := plots.Series{Name: l.Load}
		for i := range l.Results {
			s.X = append(s.X, l.Results[i].Recorded.Seconds())
			s.Y = append(s.Y, l.Results[i].Replayed().Seconds())
		}
		points = append(points, s)
	}
	if len(points) == 1 {
		points[0].Name = ""
	}
	chart := plots.Chart{XLabel: "recorded run duration (s)", YLabel: "replayed run duration (s)", Size: plots.Page}
	p, err := plots.Scatter(chart, points, true)
	if err != nil {
		return fmt.Errorf("chart replayed_vs_recorded: %w", err)
	}
	// Runs last seconds to minutes: on log axes each is seen, and a
	// ratio is a distance from the line wherever it lies.
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if a.Min > 0 {
			a.Scale, a.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		}
	}
	if err := saveChart(dir, "replayed_vs_recorded", p, chart.Size, plots.LinesTable(points), formats); err != nil {
		return fmt.Errorf("chart replayed_vs_recorded: %w", err)
	}
	if len(done) < 2 {
		return nil
	}
	x, label := loadAxis(done)
	var series []plots.Series
	for _, m := range []struct{ metric, name string }{{"call_latency", "time per model call"}, {"serving_delay", "serving delay per run"}} {
		s := plots.Series{Name: m.name}
		for _, st := range summary {
			if st.Metric == m.metric {
				s.Y, s.Lo, s.Hi = append(s.Y, st.Value), append(s.Lo, orValue(st.Lo, st.Value)), append(s.Hi, orValue(st.Hi, st.Value))
			}
		}
		s.X = x
		series = append(series, s)
	}
	lat := plots.Chart{XLabel: label, YLabel: "seconds", Size: plots.Page}
	p, err = plots.Scaling(lat, series)
	if err != nil {
		return fmt.Errorf("chart latency_vs_load: %w", err)
	}
	if err := saveChart(dir, "latency_vs_load", p, lat.Size, plots.LinesTable(series), formats); err != nil {
		return fmt.Errorf("chart latency_vs_load: %w", err)
	}
	return nil
}

// orValue returns v, or value where v is NaN (an interval of one run).
func orValue(v, value float64) float64 {
	if math.IsNaN(v) {
		return value
	}
	return v
}

// loadAxis returns the loads' values (sessions, rate or speed-up) and the
// axis that names them.
func loadAxis(done []calibrate.Replayed) ([]float64, string) {
	var x []float64
	label := ""
	for _, l := range done {
		kind, v, _ := strings.Cut(l.Load, "=")
		f, _ := strconv.ParseFloat(v, 64)
		x = append(x, f)
		label = map[string]string{"sessions": "concurrent sessions", "rate": "arrival rate (runs/s)", "speedup": "speed-up over the recorded arrivals"}[kind]
	}
	return x, label
}

// printReplay writes the summary on the terminal: per load, the median
// ratio, the share within 25%, the call latency and the serving delay.
func printReplay(s *session, summary []calibrate.ReplayStat) {
	for _, st := range summary {
		switch st.Metric {
		case "duration_ratio", "within_25pct", "call_latency", "serving_delay":
			iv := "" // a single run has no interval over runs
			if !math.IsNaN(st.Lo) && !math.IsNaN(st.Hi) {
				iv = fmt.Sprintf(" [%.4g, %.4g]", st.Lo, st.Hi)
			}
			over := count(st.Runs, "run", "runs")
			if st.N != st.Runs {
				over = count(st.N, "replay", "replays") + " of " + over
			}
			fmt.Fprintf(s.stdout, "%-14s %-18s %-8s %.4g%s (%s)\n", st.Load, st.Metric, st.Statistic, st.Value, iv, over)
		}
	}
}
