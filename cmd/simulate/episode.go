package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// drawOptions choose one episode of a scenario: the flags that graph and
// trace share.
type drawOptions struct {
	seed    seedFlag
	sets    setsFlag
	variant string
	episode int
}

func (o *drawOptions) flags(fs *flag.FlagSet) {
	fs.Var(&o.seed, "seed", "the master seed `S` (default: the scenario's seed)")
	fs.Var(&o.sets, "set", "override a scenario value, as `path=value`; may be repeated")
	fs.StringVar(&o.variant, "variant", "", "the variant `NAME` (default: the scenario's first variant)")
	fs.Var(intFlag{&o.episode}, "episode", "the episode `K`, counting from 0 as in episodes.csv")
}

// given reports whether any of the flags was set.
func (o *drawOptions) given() bool {
	return o.seed.set || len(o.sets) > 0 || o.variant != "" || o.episode != 0
}

// An episode is one episode of one variant of a scenario, ready to run.
type episode struct {
	sc      *scenarios.Scenario
	variant *scenarios.Variant
	seed    uint64
	k       int
	graph   *task.Graph
	streams sim.Streams
	// maxEvents bounds the episode's events; 0 means the default.
	maxEvents uint64
}

// load loads the scenario nameOrPath, with extra (what other flags stand
// for, such as --policy) after the --set overrides, and draws the chosen
// episode.
func (o *drawOptions) load(s *session, nameOrPath string, extra []string) (*episode, error) {
	if o.episode < 0 {
		return nil, usagef("--episode %d: want 0 or more", o.episode)
	}
	if err := refuseReplaced(o.sets, o.seed.stand()); err != nil {
		return nil, err
	}
	sc, err := loadScenario(s, nameOrPath, append(o.sets[:len(o.sets):len(o.sets)], extra...), o.variant)
	if err != nil {
		return nil, err
	}
	// The files first: drawing reads a graph file, and its error would
	// not name the field that refers to it.
	if err := sc.CheckFiles(); err != nil {
		return nil, err
	}
	v := &sc.Variants[0]
	seed := sc.Seed
	if o.seed.set {
		seed = o.seed.v
	}
	ep := &episode{sc: sc, variant: v, seed: seed}
	return ep, ep.draw(o.episode)
}

// draw makes the episode episode k of its variant under its seed.
func (ep *episode) draw(k int) error {
	streams, g, err := experiment.DrawEpisode(ep.variant, ep.seed, k)
	if err != nil {
		return fmt.Errorf("%s: variant %s, episode %d: %w", ep.sc.Source, ep.variant.Name, k, err)
	}
	ep.streams, ep.graph, ep.k = streams, g, k
	return nil
}

// run runs the episode, keeping its trace when trace is set.
func (ep *episode) run(ctx context.Context, trace bool) (*collective.Result, error) {
	pol, err := ep.variant.Policy()
	if err != nil {
		return nil, err
	}
	return collective.Run(ep.graph, ep.variant.Spec.Collective, pol, ep.streams, collective.Options{Trace: trace, Context: ctx, MaxEvents: ep.maxEvents})
}

// title names the episode: "tiny, variant team, episode 0, seed 1".
func (ep *episode) title() string {
	return fmt.Sprintf("%s, variant %s, episode %d, seed %d", ep.sc.Name, ep.variant.Name, ep.k, ep.seed)
}
