package experiment

import (
	"context"
	"errors"
	"fmt"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// Row is the outcome of one episode of one variant.
type Row struct {
	Variant string
	Episode int
	Metrics collective.Metrics
	// CommChanged reports whether losing what every shared finding
	// carries (the same episode replayed with collective.Options.Silent,
	// under the same random streams, decisions, masks and costs) changes
	// whether the result is acceptable.
	CommChanged bool
	// Reward is the episode's collective reward under the variant's
	// reward section, scored as a group of one (a group-relative penalty
	// is then 0).
	Reward float64
	// Trace is the episode's trace, kept for episode 0 with
	// EvalOptions.Trace; nil otherwise.
	Trace *collective.Trace
}

// EvalOptions adjust an evaluation.
type EvalOptions struct {
	// Episodes per variant; 0 means the scenario's.
	Episodes int
	// Seed replaces the scenario's master seed when not nil.
	Seed *uint64
	// Workers is the number of episodes simulated at once; 0 or 1 means
	// one. The rows, and every number in them, do not depend on it.
	Workers int
	// MaxEvents bounds each episode's events (collective.Options.MaxEvents);
	// 0 means the default.
	MaxEvents uint64
	// Trace keeps the trace of episode 0 of every variant in its row, to
	// draw its timeline. A trace changes no number of the episode.
	Trace bool
}

// Evaluate runs every variant of sc for the given number of episodes and
// passes each row to emit: variant by variant in file order, episodes
// 0 to N-1 within each. It stops at the first error from the model or from
// emit, and when ctx is done (returning ctx.Err()), also inside a long
// episode.
//
// Common random numbers: episode k of every variant draws its task graph
// from the stream ("task", 0) of sim.NewStreams(seed).Derive("episode", k),
// and runs with those episode streams. Variants that share a task family
// therefore work on the same graphs, under the same draws for outcomes,
// checks and conflicts; a variant that changes the family draws its own
// graphs from the same stream.
//
// CommChanged replays the episode with what findings carry lost
// (collective.Options.Silent). The replay is skipped, and CommChanged is
// false, when the episode shared no finding (no Share action): the replay
// would be the same episode.
func Evaluate(ctx context.Context, sc *scenarios.Scenario, opt EvalOptions, emit func(Row) error) error {
	if sc == nil || len(sc.Variants) == 0 {
		return errors.New("experiment: Evaluate: no scenario or no variants")
	}
	n := sc.Episodes
	if opt.Episodes > 0 {
		n = opt.Episodes
	} else if opt.Episodes < 0 {
		return fmt.Errorf("experiment: Evaluate: %d episodes (want 0 for the scenario's, or more)", opt.Episodes)
	}
	seed := sc.Seed
	if opt.Seed != nil {
		seed = *opt.Seed
	}
	root := sim.NewStreams(seed)
	workers := max(1, opt.Workers)
	for _, v := range sc.Variants {
		pol, err := v.Policy()
		if err != nil {
			return err
		}
		vr := &variantRun{root: root, variant: v, policy: pol, opt: opt}
		run := func(k int) (Row, error) {
			row, err := vr.episode(ctx, k)
			if err != nil {
				return Row{}, fmt.Errorf("%s: variant %q, episode %d: %w", sc.Name, v.Name, k, err)
			}
			return row, nil
		}
		if err := evalVariant(ctx, n, workers, run, emit); err != nil {
			return err
		}
	}
	return nil
}

// A variantRun is the evaluation of one variant: the master streams, the
// variant with its policy, and the options.
type variantRun struct {
	root    sim.Streams
	variant scenarios.Variant
	policy  collective.Policy
	opt     EvalOptions
}

// episode simulates episode k of the variant.
func (vr *variantRun) episode(ctx context.Context, k int) (Row, error) {
	v, pol := &vr.variant, vr.policy
	opts := collective.Options{Context: ctx, MaxEvents: vr.opt.MaxEvents, Trace: vr.opt.Trace && k == 0}
	streams, g, err := drawEpisode(nil, vr.root, v, k)
	if err != nil {
		return Row{}, err
	}
	cfg := v.Spec.Collective
	res, err := collective.Run(g, cfg, pol, streams, opts)
	if err != nil {
		return Row{}, err
	}
	row := Row{Variant: v.Name, Episode: k, Metrics: res.Metrics, Trace: res.Trace}
	reward := []float64{0}
	v.Spec.Reward.Group(&cfg, 0, []collective.Metrics{res.Metrics}, reward)
	row.Reward = reward[0]
	if res.Actions[collective.Share] > 0 {
		opts.Silent, opts.Trace = true, false
		silent, err := collective.Run(g, cfg, pol, streams, opts)
		if err != nil {
			// The second run shows nowhere but in comm_changed_outcome:
			// its error must say what it is, apart from the first.
			return Row{}, fmt.Errorf("the episode's hidden second run (the same episode without what the findings carry, which says whether they changed the outcome: comm_changed_outcome; losing them can take more events) failed where the first did not: %w", err)
		}
		row.CommChanged = silent.Acceptable != res.Acceptable
	}
	return row, nil
}

// DrawEpisode returns the random streams and the task graph of episode k
// of variant v under the master seed, as Evaluate draws them.
func DrawEpisode(v *scenarios.Variant, seed uint64, k int) (sim.Streams, *task.Graph, error) {
	return drawEpisode(nil, sim.NewStreams(seed), v, k)
}

// DrawEpisodeInto is DrawEpisode into d's memory: the same streams and
// graph, the graph valid until d's next Draw. A caller that draws many
// episodes one after another (an environment's rows) allocates no graph
// for each.
func DrawEpisodeInto(d *task.Drawer, v *scenarios.Variant, seed uint64, k int) (sim.Streams, *task.Graph, error) {
	return drawEpisode(d, sim.NewStreams(seed), v, k)
}

// drawEpisode draws episode k of v from the master streams root, into
// d's memory, or into a new graph if d is nil.
func drawEpisode(d *task.Drawer, root sim.Streams, v *scenarios.Variant, k int) (sim.Streams, *task.Graph, error) {
	streams := root.Derive("episode", uint64(k))
	r := streams.New("task", 0)
	if d == nil {
		g, err := v.Spec.Task.Draw(r)
		return streams, g, err
	}
	g, err := d.Draw(&v.Spec.Task, r)
	return streams, g, err
}

// evalVariant runs episodes 0..n-1 on the given number of workers and
// emits their rows in order. The pool takes episodes in blocks, so that at
// most a block of rows waits for emission. An episode's failure does not
// stop the others of its block: the error returned is that of the first
// episode that failed, whichever failed first in time.
func evalVariant(ctx context.Context, n, workers int, run func(int) (Row, error), emit func(Row) error) error {
	block := 4 * workers
	rows := make([]Row, block)
	errs := make([]error, block)
	for start := 0; start < n; start += block {
		end := min(n, start+block)
		if err := pool.Run(ctx, end-start, workers, func(_ context.Context, _, i int) error {
			rows[i], errs[i] = run(start + i)
			return nil
		}); err != nil {
			return err
		}
		for i := range end - start {
			if errs[i] != nil {
				return errs[i]
			}
			if err := emit(rows[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
