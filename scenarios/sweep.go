package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/swarmsim/swarmsim/models/replay"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// A sweep runs one scenario many times over a set of parameter values: the
// trials. Its section in the file says what each trial does (train, run
// or replay), over which values (a grid, and random draws), for how many seeds,
// and which final metrics to record:
//
//	sweep:
//	  command: train
//	  seeds: 2
//	  grid:
//	    reward.latency: [0, 0.5, 1]
//	    task.coupling: [0, 0.5, 0.9]
//	  random:
//	    train.lr: uniform(0.02, 0.2)
//	  samples: 3
//	  metrics: [reward_mean, success_rate, parallelism_mean]
//
// A run sweep may set each trial beside a reference trial, the single
// agent of Kim et al. 2025, and record metrics relative to it
// (RelativeMetrics): sweep.reference names the grid values of the
// reference, and each trial's reference is the trial of the same variant,
// seed, sample and other values with those values in their place:
//
//	sweep:
//	  command: run
//	  grid:
//	    policy.organization: [sequential, split, team]
//	    collective.agents: [1, 3, 5]
//	  reference: {policy.organization: sequential, collective.agents: 1}
//	  metrics: [success_rate, turns_mean, message_density, error_amplification, coordination_overhead]
//
// The package experiment/sweep runs the trials.

// Commands a sweep's trials may run.
const (
	// SweepTrain trains the shared policy with RLCR (rlcr.Train); the
	// metrics are means over the last tenth of the iterations.
	SweepTrain = "train"
	// SweepRun evaluates the variant (experiment.Evaluate) for the
	// scenario's episodes; the metrics come from experiment.Summarize.
	SweepRun = "run"
	// SweepReplay replays the recorded runs of replay.traces through the
	// variant's deployment (collective.serving or collective.api) under
	// the replay section's load; the metrics are those of the replay's
	// summary (calibrate.ReplaySummary).
	SweepReplay = "replay"
)

// Limits of a sweep.
const (
	maxSweepSeeds   = 1_000_000
	maxSweepSamples = 1_000_000
	// MaxTrials bounds the trials of one sweep (each is a training run
	// or an evaluation of many episodes).
	MaxTrials = 100_000
)

// Sweep is a scenario's sweep section, resolved and checked.
type Sweep struct {
	// Command is what each trial does: SweepTrain or SweepRun.
	Command string
	// Seeds is the number of seeds per point: S, S+1, ..., S+Seeds-1,
	// where S is the seed of the sweep (the scenario's, or one given on
	// the command line).
	Seeds int
	// Grid holds the grid axes in file order; trials cover every
	// combination of their values.
	Grid []GridAxis
	// Random holds the random axes in file order.
	Random []RandomAxis
	// Samples is the number of random draws per grid point; 0 without
	// random axes.
	Samples int
	// Metrics are the final metrics each trial records, in order: names
	// from SweepMetrics(Command).
	Metrics []string
	// Relative are the metrics relative to each trial's reference trial,
	// in order: names from RelativeMetrics(), computed when the tables
	// are written, after Metrics. Empty without Reference.
	Relative []string
	// Reference holds the grid values of the reference trials, in file
	// order: one value of each of some grid axes. Nil without one.
	Reference []Param

	refValues []any // Reference's values, decoded, of their fields' types
}

// GridAxis is one field path of a sweep's grid with its values.
type GridAxis struct {
	// Path is the field path, in canonical form ("reward.latency").
	Path string
	// Values are the values in file order, in canonical text form: the
	// shortest form of numbers, durations as "2m0s", distributions as
	// sim.Dist.String writes them.
	Values []string
	// Numbers are the values as numbers (durations in seconds) when every
	// value is one, for charts; nil otherwise.
	Numbers []float64
	// Unit is "s" when the field is a duration, else "".
	Unit string

	values []any // decoded, of the field's type
	segs   []pathSeg
}

// RandomAxis is one field path of a sweep whose value is drawn at random.
type RandomAxis struct {
	// Path is the field path, in canonical form ("train.lr").
	Path string
	// Dist is the distribution values are drawn from. Draws are rounded
	// for integer fields, read as seconds for durations, and become
	// constants for distribution fields.
	Dist sim.Dist

	segs []pathSeg
}

// Param is the value of one swept field in a trial.
type Param struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Trial is one run of a sweep: a variant at one grid point, with one
// random sample and one seed.
type Trial struct {
	// Index is the trial's number in enumeration order, from 0.
	Index int
	// ID is a stable short identifier: 16 hex digits of the SHA-256 of
	// the trial's variant, seed, sample (when there are random axes) and
	// parameters, sorted by path.
	ID string
	// Variant is the variant with the trial's values: its Spec is the
	// base with the swept values, then the variant's overrides.
	Variant Variant
	// Seed is the trial's seed.
	Seed uint64
	// Sample is the number of the random draw (0 without random axes).
	Sample int
	// Point holds the index of the trial's value on each grid axis.
	Point []int
	// Params holds the trial's swept values: the grid axes, then the
	// random axes, in file order.
	Params []Param
}

// sweepMetrics lists the final metrics each command can record.
var sweepMetrics = map[string][]string{
	SweepTrain: func() []string {
		names := []string{"reward_mean", "success_rate", "latency_mean", "latency_p90", "parallelism_mean",
			"messages_mean", "model_calls_mean", "agent_time_mean", "critical_steps_mean", "entropy"}
		for a := range collective.Action(collective.NumActions) {
			names = append(names, "prob_"+a.String())
		}
		return names
	}(),
	SweepRun: {"success_rate", "finish_mean", "finish_acceptable_mean", "reward_mean", "parallelism_mean",
		"messages_mean", "model_calls_mean", "tokens_mean", "agent_time_mean", "cost_per_acceptable",
		"turns_mean", "message_density", "redundancy_mean", "handoff_misses_mean"},
	SweepReplay: {"replayed_duration", "recorded_duration", "duration_ratio", "within_25pct", "call_latency", "serving_delay"},
}

// relativeInputs lists each relative metric (of run sweeps with a
// reference) with the recorded metrics it is computed from.
var relativeInputs = []struct {
	name   string
	inputs []string
}{
	{"error_amplification", []string{"success_rate"}},
	{"coordination_overhead", []string{"turns_mean"}},
	{"efficiency", []string{"success_rate", "turns_mean"}},
	{"success_gain", []string{"success_rate"}},
}

// RelativeMetrics returns the metrics a run sweep with sweep.reference
// can give each trial relative to its reference trial: Kim et al.'s error
// amplification, coordination overhead and efficiency, and the success
// gain (metric's formulas of the same names).
func RelativeMetrics() []string {
	names := make([]string, len(relativeInputs))
	for i, r := range relativeInputs {
		names[i] = r.name
	}
	return names
}

// defaultSweepMetrics are recorded when a sweep names none.
var defaultSweepMetrics = map[string][]string{
	SweepTrain:  {"reward_mean", "success_rate", "latency_mean", "parallelism_mean"},
	SweepRun:    {"success_rate", "finish_mean", "reward_mean", "parallelism_mean"},
	SweepReplay: {"duration_ratio", "call_latency", "serving_delay", "replayed_duration"},
}

// SweepMetrics returns the metrics that trials of command can record, or
// nil for an unknown command. Train metrics are means over the last tenth
// of the iterations of the rlcr.Iteration fields; run metrics are the
// Summary's means. Package metric has each one's unit, label and reading.
func SweepMetrics(command string) []string { return slices.Clone(sweepMetrics[command]) }

// sweep paths may name fields of these sections only.
func specSection(key string) bool {
	switch key {
	case "task", "collective", "policy", "reward", "train", "replay":
		return true
	}
	return false
}

// fileSweep is the sweep section as written.
type fileSweep struct {
	Command string     `yaml:"command" json:"command"`
	Seeds   int        `yaml:"seeds" json:"seeds,omitempty"`
	Grid    gridList   `yaml:"grid" json:"grid,omitempty"`
	Random  randomList `yaml:"random" json:"random,omitempty"`
	Samples int        `yaml:"samples" json:"samples,omitempty"`
	Metrics []string   `yaml:"metrics" json:"metrics,omitempty"`
	// Reference maps grid axes to the values of the reference trial.
	Reference setList `yaml:"reference" json:"reference,omitempty"`
}

// gridList and randomList are the axes as written, in file order.
type (
	gridList   []setEntry
	randomList []setEntry
)

// checkReplayDraws refuses, in a sweep of command replay, the settings
// of the replay's draws when no trial draws: at replicas
// (collective.serving) a call's time follows from its tokens and the
// batch, so there is no API latency to pair (replay.pairing), and
// without a Poisson load (replay.rate) no arrivals are drawn either, so
// every seed (sweep.seeds) would replay alike.
func (p *parse) checkReplayDraws(sc *Scenario) {
	vis := make([]int, len(sc.Variants))
	for i := range vis {
		vis[i] = i
	}
	hosted, draws, paired := false, false, false
	// The trials were checked before (checkTrials): eachSpec has no error
	// left to return.
	_ = sc.eachSpec(sc.Seed, vis, func(_ int, _ []int, _ int, _ []Param, spec Spec) {
		replicas := !spec.Collective.Serving.IsZero()
		hosted = hosted || !replicas
		draws = draws || !replicas || spec.Replay.Rate > 0
		paired = paired || spec.Replay.Pairing != replay.Rank
	})
	const why = "every trial replays at replicas (collective.serving), which give each call the time its tokens and batch take"
	if paired && !hosted {
		p.report("replay.pairing", why+noPairing, nil)
	}
	if sc.Sweep.Seeds > 1 && !draws {
		p.report("sweep.seeds", fmt.Sprintf("%d seeds would replay alike: %s, and no trial has a Poisson load (replay.rate) to draw arrivals; give 1, or sweep a hosted API or a rate", sc.Sweep.Seeds, why), nil)
	}
}

// noPairing ends the message of a replay.pairing that no replay reads.
const noPairing = ", so there is no API latency to pair; pairing acts only at a hosted API (collective.api, or without it and collective.serving the API that simulate replay fits)"

// checkReplayPairing refuses, in a scenario whose replays are not a
// sweep's trials, a replay.pairing that simulate replay would never read:
// where every variant replays at replicas (collective.serving), as
// checkReplayDraws does for a sweep's trials. Variants cannot set the
// replay section, so the base's pairing is every variant's.
func (p *parse) checkReplayPairing(variants []variantState) {
	if variants[0].Spec.Replay.Pairing == replay.Rank {
		return
	}
	if slices.ContainsFunc(variants, func(v variantState) bool { return v.Spec.Collective.Serving.IsZero() }) {
		return
	}
	p.report("replay.pairing", "every variant replays at replicas (collective.serving), which give each call the time its tokens and batch take"+noPairing, nil)
}

// reportSweep reports a problem of a value of the sweep section that
// depends only on that value and the sweep fields in causes: it is placed
// at the last --set of one of them, else in the file. The fallbacks of
// report (the last --set, when the problem is not among the spec's own
// problems) would blame a --set of another section, such as
// train.iterations, for a misspelt sweep.command.
func (p *parse) reportSweep(path, msg string, causes ...string) {
	if p.shadowed(path) {
		return
	}
	paths := append([]string{path}, causes...)
	o, ok := lastOverride(p.flags, func(o override) bool {
		return slices.ContainsFunc(paths, func(c string) bool { return related(c, o.path) })
	})
	var e *Error
	if ok {
		e = atFlag(o, path, msg)
	} else {
		tok, _ := p.dec.lookupNode(p.root, path)
		e = newError(p.source, p.text, tok, path, "%s", msg)
	}
	if key := e.Error(); !p.seen[key] {
		p.seen[key] = true
		p.errs.add(e)
	}
}

// buildSweep checks the sweep section of fl and resolves it, or returns nil
// when the file has none. Problems go to p.errs.
func (p *parse) buildSweep(fl *file, variants []variantState) *Sweep {
	if !p.hasSweep() {
		return nil
	}
	fs := &fl.Sweep
	sw := &Sweep{Command: fs.Command, Seeds: fs.Seeds, Samples: fs.Samples}
	switch fs.Command {
	case SweepTrain, SweepRun:
	case SweepReplay:
		if len(fl.Replay.Traces) == 0 {
			p.report("sweep.command", "replay needs the recorded runs to replay: set replay.traces (files or directories of OpenTelemetry GenAI spans, relative to the scenario)", nil)
		}
	case "":
		p.reportSweep("sweep.command", "missing (allowed: train, run, replay)")
	default:
		p.reportSweep("sweep.command", fmt.Sprintf("%q is not allowed (allowed: train, run, replay)", fs.Command))
	}
	if fs.Seeds < 1 || fs.Seeds > maxSweepSeeds {
		p.reportSweep("sweep.seeds", fmt.Sprintf("%d is out of range (1 to %d)", fs.Seeds, maxSweepSeeds))
	}
	if allowed := sweepMetrics[fs.Command]; allowed != nil {
		sw.Metrics = slices.Clone(defaultSweepMetrics[fs.Command])
		if len(fs.Metrics) > 0 {
			sw.Metrics = nil
			seen := map[string]int{}
			if fs.Command == SweepRun {
				allowed = append(allowed, RelativeMetrics()...)
			}
			for i, m := range fs.Metrics {
				at := fmt.Sprintf("sweep.metrics[%d]", i)
				if !slices.Contains(allowed, m) {
					msg := fmt.Sprintf("%q is not a metric of %s trials (allowed: %s)%s", m, fs.Command, strings.Join(allowed, ", "), spelling.DidYouMean(m, allowed))
					p.reportSweep(at, msg, "sweep.command")
					continue
				}
				if j, dup := seen[m]; dup {
					p.reportSweep(at, fmt.Sprintf("%q is listed twice (also sweep.metrics[%d])", m, j))
					continue
				}
				seen[m] = i
				if slices.Contains(RelativeMetrics(), m) {
					sw.Relative = append(sw.Relative, m)
				} else {
					sw.Metrics = append(sw.Metrics, m)
				}
			}
		}
	}

	scope := &axisScope{command: fs.Command, variants: variants, base: reflect.ValueOf(&fl.Spec).Elem()}
	for _, e := range fs.Grid {
		if ax, ok := p.gridAxis(fl, scope, e); ok {
			sw.Grid = append(sw.Grid, ax)
			scope.taken = append(scope.taken, ax.Path)
		}
	}
	for _, e := range fs.Random {
		if ax, ok := p.randomAxis(scope, e); ok {
			sw.Random = append(sw.Random, ax)
			scope.taken = append(scope.taken, ax.Path)
		}
	}
	p.sweepReference(fl, scope, sw)
	switch {
	case len(fs.Random) > 0 && fs.Samples == 0:
		p.reportSweep("sweep.samples", fmt.Sprintf("missing (random axes need samples: the number of draws per grid point, 1 to %d)", maxSweepSamples), "sweep.random")
	case len(fs.Random) > 0 && (fs.Samples < 1 || fs.Samples > maxSweepSamples):
		p.reportSweep("sweep.samples", fmt.Sprintf("%d is out of range (1 to %d)", fs.Samples, maxSweepSamples))
	case len(fs.Random) == 0 && fs.Samples != 0:
		p.reportSweep("sweep.samples", "given without random axes (samples are draws of the random axes per grid point)", "sweep.random")
	}
	if p.errs.len() > 0 {
		return nil
	}
	total := float64(len(variants)) * float64(max(1, sw.Samples)) * float64(sw.Seeds)
	for _, ax := range sw.Grid {
		total *= float64(len(ax.Values))
	}
	if total > MaxTrials {
		p.report("sweep", fmt.Sprintf("%.0f trials are too many (at most %d)", total, MaxTrials), nil)
		return nil
	}
	return sw
}

// sweepReference checks sweep.reference of fl against the grid and the
// relative metrics of sw, and sets sw.Reference. Problems go to p.errs.
func (p *parse) sweepReference(fl *file, scope *axisScope, sw *Sweep) {
	fs := &fl.Sweep
	example := "such as {policy.organization: sequential, collective.agents: 1}"
	if len(fs.Reference) == 0 {
		if len(sw.Relative) > 0 {
			p.report("sweep.reference", fmt.Sprintf("missing: the metrics %s are relative to a reference trial; name its grid values, %s",
				strings.Join(sw.Relative, ", "), example), nil)
		}
		return
	}
	if fs.Command != SweepRun {
		p.report("sweep.reference", fmt.Sprintf("given for %s trials: a reference is for run sweeps (command: run)", fs.Command), nil)
		return
	}
	if len(sw.Relative) == 0 {
		p.report("sweep.reference", fmt.Sprintf("given without a relative metric in sweep.metrics, so it would do nothing (add some of %s)",
			strings.Join(RelativeMetrics(), ", ")), nil)
		return
	}
	for _, r := range relativeInputs {
		if !slices.Contains(sw.Relative, r.name) {
			continue
		}
		for _, in := range r.inputs {
			if !slices.Contains(sw.Metrics, in) {
				p.report("sweep.metrics", fmt.Sprintf("%s is computed from %s: list %s too", r.name, strings.Join(r.inputs, " and "), in), nil)
			}
		}
	}
	d := p.valueDecoder("reference")
	seen := map[string]bool{}
	for _, e := range fs.Reference {
		segs, err := parsePath(e.Path)
		if err != nil {
			p.axisError("reference", e.key, "sweep.reference", "%v", err)
			continue
		}
		path := pathString(segs)
		i := slices.IndexFunc(sw.Grid, func(ax GridAxis) bool { return ax.Path == path })
		if i < 0 {
			names := make([]string, len(sw.Grid))
			for k, ax := range sw.Grid {
				names[k] = ax.Path
			}
			p.axisError("reference", e.key, "sweep.reference", "%s is not a grid axis (the reference is a value of each of some grid axes: %s)", path, strings.Join(names, ", "))
			continue
		}
		if seen[path] {
			p.axisError("reference", e.key, "sweep.reference", "%s is given twice", path)
			continue
		}
		seen[path] = true
		ax := &sw.Grid[i]
		fv, err := findField(scope.base, ax.segs, nil)
		if err != nil {
			p.axisError("reference", e.key, "sweep.reference", "%s: %v", path, err)
			continue
		}
		val := reflect.New(fv.Type()).Elem()
		val.Set(fv)
		deepCopy(val)
		before := d.errs.len()
		d.decode(e.Value, val, "sweep.reference."+path, posTok(d.resolve(e.Value)), 0)
		if d.errs.len() > before {
			continue
		}
		text := valueText(val)
		if !slices.Contains(ax.Values, text) {
			p.axisError("reference", e.key, "sweep.reference", "%s: %s is not one of the axis's values (%s), so no trial is the reference", path, text, strings.Join(ax.Values, ", "))
			continue
		}
		sw.Reference = append(sw.Reference, Param{Path: path, Value: text})
		sw.refValues = append(sw.refValues, val.Interface())
	}
	p.errs.merge(&d.errs)
}

// hasSweep reports whether the scenario has a sweep section: in the file,
// or from a --set flag.
func (p *parse) hasSweep() bool {
	_, inFile := p.dec.lookupNode(p.root, "sweep")
	_, fromFlag := lastOverride(p.flags, func(o override) bool { return related(o.path, "sweep") })
	return inFile || fromFlag
}

// axisError reports a problem with an axis of sweep.<section>: at tok in
// the file, or against the --set flag that gave the section.
func (p *parse) axisError(section string, tok *token.Token, path, format string, args ...any) {
	if o, ok := lastOverride(p.flags, func(o override) bool { return related(o.path, "sweep."+section) }); ok {
		p.errs.add(&Error{Source: o.source, Path: path, Msg: fmt.Sprintf(format, args...)})
		return
	}
	p.errs.add(newError(p.source, p.text, tok, path, format, args...))
}

// axisField checks the path of an axis entry of a sweep of command and
// returns the field it names in base.
// axisScope is what the axes of a sweep section are checked against: the
// command, the variants, the base spec, and the paths of the axes so far.
type axisScope struct {
	command  string
	variants []variantState
	base     reflect.Value
	taken    []string
}

func (p *parse) axisField(section string, scope *axisScope, e setEntry) (string, []pathSeg, reflect.Value, bool) {
	command, variants, base, taken := scope.command, scope.variants, scope.base, scope.taken
	at := "sweep." + section
	segs, err := parsePath(e.Path)
	if err != nil {
		p.axisError(section, e.key, at, "%v", err)
		return "", nil, reflect.Value{}, false
	}
	path := pathString(segs)
	if !specSection(segs[0].key) {
		hint := ""
		if len(segs) == 1 {
			hint = missingSection(base.Type(), fieldsOf(base.Type()), "", path, pathGuess)
		}
		p.axisError(section, e.key, at, "%s: a sweep varies the spec: paths under task, collective, policy, reward, train and replay%s", path, hint)
		return "", nil, reflect.Value{}, false
	}
	if why := Unread(command, path); why != "" {
		p.axisError(section, e.key, at, "%s: %s; sweep another field, or change sweep.command", path, why)
		return "", nil, reflect.Value{}, false
	}
	fv, err := findField(base, segs, nil)
	if err != nil {
		p.axisError(section, e.key, at, "%s: %v", path, err)
		return "", nil, reflect.Value{}, false
	}
	for _, q := range taken {
		if related(q, path) {
			p.axisError(section, e.key, at, "%s overlaps the axis %s (each field is swept once)", path, q)
			return "", nil, reflect.Value{}, false
		}
	}
	// A variant's mapping sets only the keys it names (its leaves), so
	// collective: {check: {cost: 0.5}} leaves an axis of collective.agents
	// alone.
	for _, vs := range variants {
		for _, o := range vs.overrides {
			for _, leaf := range o.leaves {
				if related(leaf, path) {
					p.axisError(section, e.key, at, "%s: variant %q sets %s, which would replace every swept value (sweep it, or set it in the variants, not both)", path, vs.Name, leaf)
					return "", nil, reflect.Value{}, false
				}
			}
		}
	}
	p.axes = append(p.axes, axisPlace{section, path, e.key})
	return path, segs, fv, true
}

// valueDecoder returns the decoder for the values of sweep.<section>.
func (p *parse) valueDecoder(section string) *decoder {
	if o, ok := lastOverride(p.flags, func(o override) bool { return related(o.path, "sweep."+section) }); ok {
		d := newDecoder(o.source, nil, p.dec.anchors)
		d.noPos = true
		return d
	}
	return newDecoder(p.source, p.text, p.dec.anchors)
}

func (p *parse) gridAxis(fl *file, scope *axisScope, e setEntry) (GridAxis, bool) {
	path, segs, fv, ok := p.axisField("grid", scope, e)
	if !ok {
		return GridAxis{}, false
	}
	d := p.valueDecoder("grid")
	n := d.resolve(e.Value)
	seq, isSeq := n.(*ast.SequenceNode)
	if !isSeq || len(seq.Values) == 0 {
		what := nodeKind(n)
		if isSeq {
			what = "an empty list"
		}
		p.axisError("grid", e.key, path, "got %s, want a list of values (each %s)", what, describe(fv.Type()))
		return GridAxis{}, false
	}
	ax := GridAxis{Path: path, segs: segs}
	seen := map[string]int{}
	ok = true
	for i, elem := range seq.Values {
		tok := posTok(d.resolve(elem))
		// A mapping value merges into the base's value, as in `set:`.
		val := reflect.New(fv.Type()).Elem()
		val.Set(fv)
		deepCopy(val)
		before := d.errs.len()
		d.decode(elem, val, path, tok, 0)
		if d.errs.len() > before {
			ok = false
			continue
		}
		text := valueText(val)
		if j, dup := seen[text]; dup {
			p.axisError("grid", tok, path, "%s is given twice (items %d and %d of the list); grid values must differ", text, j+1, i+1)
			ok = false
			continue
		}
		seen[text] = i
		spec := cloneSpec(fl.Spec)
		setField(reflect.ValueOf(&spec).Elem(), segs, val)
		for _, pr := range specProblems(&spec) {
			if !p.baseProblems[pr] {
				p.axisError("grid", tok, pr.path, "%s (with the sweep value %s = %s)", pr.msg, path, text)
				ok = false
			}
		}
		ax.values = append(ax.values, val.Interface())
		ax.Values = append(ax.Values, text)
	}
	p.errs.merge(&d.errs)
	if !ok {
		return GridAxis{}, false
	}
	ax.Numbers, ax.Unit = axisNumbers(ax.values)
	return ax, true
}

func (p *parse) randomAxis(scope *axisScope, e setEntry) (RandomAxis, bool) {
	path, segs, fv, ok := p.axisField("random", scope, e)
	if !ok {
		return RandomAxis{}, false
	}
	d := p.valueDecoder("random")
	n := d.resolve(e.Value)
	tok := posTok(n)
	if tok == nil {
		tok = e.key
	}
	text, isScalar := scalarText(n)
	if !isScalar || isNull(n) {
		p.axisError("random", tok, path, "got %s, want %s", nodeKind(n), describe(distType))
		return RandomAxis{}, false
	}
	dist, err := sim.ParseDist(text)
	if err != nil {
		p.axisError("random", tok, path, "%v%s", err, distHint(err))
		return RandomAxis{}, false
	}
	if !drawable(fv.Type()) {
		p.axisError("random", e.key, path, "holds %s; random axes draw numbers (numbers, integers, durations or distributions): sweep it with grid", describe(fv.Type()))
		return RandomAxis{}, false
	}
	place := newError(p.source, p.text, tok, path, "")
	if o, ok := lastOverride(p.flags, func(o override) bool { return related(o.path, "sweep.random") }); ok {
		place = &Error{Source: o.source, Path: path}
	}
	p.randomAt = append(p.randomAt, place)
	return RandomAxis{Path: path, Dist: dist, segs: segs}, true
}

// drawable reports whether a random draw can be stored in a field of type t.
func drawable(t reflect.Type) bool {
	switch {
	case t == timeType, t == distType:
		return true
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// value converts a draw x to a value of the axis's field type t: integers
// are rounded, durations read as seconds, distributions become constants.
func (ax *RandomAxis) value(t reflect.Type, x float64) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	switch {
	case t == timeType:
		ns := math.Round(x * float64(sim.Second))
		if !(ns >= 0 && ns < math.MaxInt64) {
			return v, fmt.Errorf("%s: the draw %v s is out of range for a duration", ax.Path, x)
		}
		v.SetInt(int64(ns))
		return v, nil
	case t == distType:
		d, err := sim.ParseDist(strconv.FormatFloat(x, 'g', -1, 64))
		if err != nil {
			return v, fmt.Errorf("%s: the draw %v: %w", ax.Path, x, err)
		}
		v.Set(reflect.ValueOf(d))
		return v, nil
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		v.SetFloat(x)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r := math.Round(x)
		if r < math.MinInt64 || r >= math.MaxInt64 || v.OverflowInt(int64(r)) {
			return v, fmt.Errorf("%s: the draw %v is out of range", ax.Path, x)
		}
		v.SetInt(int64(r))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		r := math.Round(x)
		if r < 0 || r >= math.MaxUint64 || v.OverflowUint(uint64(r)) {
			return v, fmt.Errorf("%s: the draw %v is out of range", ax.Path, x)
		}
		v.SetUint(uint64(r))
	default:
		return v, fmt.Errorf("%s: cannot store a random draw in %s", ax.Path, t)
	}
	return v, nil
}

// setField stores val at the field segs names in root, a copy that shares
// nothing with val.
func setField(root reflect.Value, segs []pathSeg, val reflect.Value) error {
	fv, err := findField(root, segs, nil)
	if err != nil {
		return err
	}
	fv.Set(val)
	deepCopy(fv)
	return nil
}

// valueText is the canonical text of a value: what trial IDs hash and
// tables show.
func valueText(v reflect.Value) string {
	switch x := encodeValue(v, true).(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		b, err := yaml.MarshalWithOptions(x, yaml.Flow(true))
		if err != nil {
			panic(err) // caught by Parse: encodeValue gives plain values
		}
		return strings.TrimSpace(string(b))
	}
}

// axisNumbers returns the values as numbers when all are (durations in
// seconds, with unit "s"), or nil.
func axisNumbers(values []any) ([]float64, string) {
	out := make([]float64, len(values))
	unit := ""
	for i, x := range values {
		v := reflect.ValueOf(x)
		switch {
		case v.Type() == timeType:
			out[i], unit = sim.Time(v.Int()).Seconds(), "s"
			continue
		case v.Type() == distType:
			f, err := strconv.ParseFloat(x.(sim.Dist).String(), 64)
			if err != nil {
				return nil, ""
			}
			out[i] = f
			continue
		case v.Type().Implements(textMarshalerType):
			return nil, ""
		}
		switch v.Kind() {
		case reflect.Float32, reflect.Float64:
			out[i] = v.Float()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[i] = float64(v.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[i] = float64(v.Uint())
		default:
			return nil, ""
		}
	}
	return out, unit
}

// resolved returns the canonical YAML of the sweep section.
func (sw *Sweep) resolved() yaml.MapSlice {
	ms := yaml.MapSlice{{Key: "command", Value: sw.Command}, {Key: "seeds", Value: sw.Seeds}}
	if len(sw.Grid) > 0 {
		grid := yaml.MapSlice{}
		for _, ax := range sw.Grid {
			vals := make([]any, len(ax.values))
			for i, x := range ax.values {
				vals[i] = encodeValue(reflect.ValueOf(x), true)
			}
			grid = append(grid, yaml.MapItem{Key: ax.Path, Value: vals})
		}
		ms = append(ms, yaml.MapItem{Key: "grid", Value: grid})
	}
	if len(sw.Random) > 0 {
		random := yaml.MapSlice{}
		for _, ax := range sw.Random {
			random = append(random, yaml.MapItem{Key: ax.Path, Value: ax.Dist.String()})
		}
		ms = append(ms, yaml.MapItem{Key: "random", Value: random}, yaml.MapItem{Key: "samples", Value: sw.Samples})
	}
	if len(sw.Reference) > 0 {
		ref := yaml.MapSlice{}
		for i, q := range sw.Reference {
			ref = append(ref, yaml.MapItem{Key: q.Path, Value: encodeValue(reflect.ValueOf(sw.refValues[i]), true)})
		}
		ms = append(ms, yaml.MapItem{Key: "reference", Value: ref})
	}
	metrics := make([]any, 0, len(sw.Metrics)+len(sw.Relative))
	for _, m := range slices.Concat(sw.Metrics, sw.Relative) {
		metrics = append(metrics, m)
	}
	return append(ms, yaml.MapItem{Key: "metrics", Value: metrics})
}

// Points returns the number of grid points: the product of the axes'
// lengths (1 without grid axes).
func (sw *Sweep) Points() int {
	n := 1
	for _, ax := range sw.Grid {
		n *= len(ax.Values)
	}
	return n
}

// CheckSeeds reports an error where n seeds from first, first+1, ...,
// would pass the largest seed, 2⁶⁴−1, and wrap around to 0, so that seed 0
// would stand as a seed after first.
func CheckSeeds(first uint64, n int) error {
	if n > 1 && first > math.MaxUint64-uint64(n-1) {
		return fmt.Errorf("%d seeds from %d pass the largest seed, %d, and would wrap around to 0: give a first seed (--seed) of at most %d", n, first, uint64(math.MaxUint64), uint64(math.MaxUint64)-uint64(n-1))
	}
	return nil
}

// Trials enumerates the trials of sc's sweep with seed as its first seed,
// for every variant, or for the variant named variant when it is not "".
// The order is: variants in file order; then grid points in row-major
// order (the first axis varies slowest); then random samples; then seeds
// S, S+1, ....
//
// Random sample k draws the value of each random axis from the stream
// named by the axis's path of sim.NewStreams(seed).Derive("sweep-sample",
// k): sample k has the same values at every grid point, for every variant
// and seed, and an axis's draws do not change when other axes are added.
//
// Values are applied to the base spec, then the variant's overrides on
// top. Trials returns an error naming the trial's values when a resulting
// spec is invalid.
func (sc *Scenario) Trials(seed uint64, variant string) ([]Trial, error) {
	sw := sc.Sweep
	if sw == nil {
		return nil, fmt.Errorf("scenario %s has no sweep section", sc.Name)
	}
	var vis []int
	for i, v := range sc.Variants {
		if variant == "" || v.Name == variant {
			vis = append(vis, i)
		}
	}
	if len(vis) == 0 {
		return nil, sc.noVariant(variant)
	}
	if err := CheckSeeds(seed, sw.Seeds); err != nil {
		return nil, fmt.Errorf("sweep.seeds: %w", err)
	}
	out := make([]Trial, 0, len(vis)*sw.Points()*max(1, sw.Samples)*sw.Seeds)
	err := sc.eachSpec(seed, vis, func(vi int, point []int, k int, params []Param, spec Spec) {
		for s := range uint64(sw.Seeds) {
			t := Trial{
				Index:   len(out),
				Variant: Variant{Name: sc.Variants[vi].Name, Spec: spec},
				Seed:    seed + s,
				Sample:  k,
				Point:   slices.Clone(point),
				Params:  params,
			}
			if s > 0 {
				t.Variant.Spec = cloneSpec(spec)
			}
			t.ID = TrialID(t.Variant.Name, t.Seed, t.Sample, len(sw.Random) > 0, params)
			out = append(out, t)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkTrials checks the spec of every trial, as Trials does, without
// keeping them.
func (sc *Scenario) checkTrials(seed uint64) error {
	vis := make([]int, len(sc.Variants))
	for i := range vis {
		vis[i] = i
	}
	return sc.eachSpec(seed, vis, func(int, []int, int, []Param, Spec) {})
}

// eachSpec calls fn with the spec of every variant in vis, grid point and
// random sample, in enumeration order (seeds aside), or returns the error
// of the first invalid one.
func (sc *Scenario) eachSpec(seed uint64, vis []int, fn func(vi int, point []int, sample int, params []Param, spec Spec)) error {
	sw := sc.Sweep
	// The random draws of each sample.
	samples := max(1, sw.Samples)
	draws := make([][]reflect.Value, samples)
	if len(sw.Random) > 0 {
		baseSpec := reflect.ValueOf(&sc.Base).Elem()
		for k := range samples {
			streams := sim.NewStreams(seed).Derive("sweep-sample", uint64(k))
			for j := range sw.Random {
				ax := &sw.Random[j]
				fv, err := findField(baseSpec, ax.segs, nil)
				if err != nil {
					return err
				}
				v, err := ax.value(fv.Type(), ax.Dist.Sample(streams.New(ax.Path, 0)))
				if err != nil {
					return fmt.Errorf("random sample %d: %w", k, err)
				}
				draws[k] = append(draws[k], v)
			}
		}
	}
	points := sw.Points()
	point := make([]int, len(sw.Grid))
	for _, vi := range vis {
		for pt := range points {
			// Row-major: the last axis varies fastest.
			rest := pt
			for a := len(sw.Grid) - 1; a >= 0; a-- {
				point[a] = rest % len(sw.Grid[a].values)
				rest /= len(sw.Grid[a].values)
			}
			for k := range samples {
				params := make([]Param, 0, len(sw.Grid)+len(sw.Random))
				for a, ax := range sw.Grid {
					params = append(params, Param{ax.Path, ax.Values[point[a]]})
				}
				for j, ax := range sw.Random {
					params = append(params, Param{ax.Path, valueText(draws[k][j])})
				}
				spec, err := sc.trialSpec(vi, point, draws[k])
				if err != nil {
					trial := describeTrial(sc.Variants[vi].Name, len(sc.Variants) > 1, params)
					if e := sc.atRandomAxis(err, trial); e != nil {
						return e
					}
					return fmt.Errorf("trial %s: %w", trial, err)
				}
				fn(vi, point, k, params, spec)
			}
		}
	}
	return nil
}

// atRandomAxis places the problem err of a trial's spec at the random
// axis that sets its field, or returns nil when no random axis does. A
// draw outside the field's range is the distribution's doing, and which
// draw leaves it depends on the seed, so the error must say where the
// distribution is written whatever the seed that found it.
func (sc *Scenario) atRandomAxis(err error, trial string) *Error {
	var pe problemError
	if !errors.As(err, &pe) {
		return nil
	}
	for j, ax := range sc.Sweep.Random {
		if j < len(sc.randomAt) && related(pe.path, ax.Path) {
			e := *sc.randomAt[j]
			e.Path = pe.path
			e.Msg = fmt.Sprintf("%s (a draw of this random axis, in trial %s; give a distribution whose values the field allows)", pe.msg, trial)
			return &e
		}
	}
	return nil
}

// problemError is the first problem of a trial's spec, as an error.
type problemError problem

func (e problemError) Error() string { return e.path + ": " + e.msg }

func describeTrial(variant string, named bool, params []Param) string {
	parts := make([]string, 0, len(params)+1)
	for _, p := range params {
		parts = append(parts, p.Path+"="+p.Value)
	}
	if named || len(parts) == 0 {
		parts = append(parts, "variant "+variant)
	}
	return strings.Join(parts, ", ")
}

// trialSpec builds the spec of variant vi at a grid point with a sample's
// draws, and checks it.
func (sc *Scenario) trialSpec(vi int, point []int, draws []reflect.Value) (Spec, error) {
	sw := sc.Sweep
	spec := cloneSpec(sc.rawBase)
	root := reflect.ValueOf(&spec).Elem()
	for a, ax := range sw.Grid {
		if err := setField(root, ax.segs, reflect.ValueOf(ax.values[point[a]])); err != nil {
			return Spec{}, err
		}
	}
	for j, ax := range sw.Random {
		if err := setField(root, ax.segs, draws[j]); err != nil {
			return Spec{}, err
		}
	}
	variant := reflect.ValueOf(&sc.rawSpecs[vi]).Elem()
	for _, path := range sc.overrides[vi] {
		segs, err := parsePath(path)
		if err != nil {
			return Spec{}, err
		}
		src, err := findField(variant, segs, nil)
		if err != nil {
			return Spec{}, err
		}
		if err := setField(root, segs, src); err != nil {
			return Spec{}, fmt.Errorf("variant %q: %w", sc.Variants[vi].Name, err)
		}
	}
	probs := specProblems(&spec)
	if len(probs) == 0 && vi < len(sc.kindWritten) {
		probs = kindZeroProblems(&spec, sc.kindWritten[vi])
	}
	if len(probs) > 0 {
		return Spec{}, problemError(probs[0])
	}
	locateSpec(scenarioDir(sc.Source), &spec)
	return spec, nil
}

// TrialID returns the ID of a trial: the first 16 hex digits of the
// SHA-256 of its variant, seed, sample (only when the sweep has random
// axes, whose draws may repeat) and parameters sorted by path. It depends
// on nothing else, so it is the same on every machine and in every run.
func TrialID(variant string, seed uint64, sample int, random bool, params []Param) string {
	lines := make([]string, len(params))
	for i, p := range params {
		lines[i] = fmt.Sprintf("%s=%q\n", p.Path, p.Value)
	}
	slices.Sort(lines)
	h := sha256.New()
	fmt.Fprintf(h, "variant=%q\nseed=%d\n", variant, seed)
	if random {
		fmt.Fprintf(h, "sample=%d\n", sample)
	}
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
