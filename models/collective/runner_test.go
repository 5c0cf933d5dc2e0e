package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/sim"
)

// TestRunnerMatchesRun runs a mixed series of episodes (shapes, sizes,
// organizations, a sampling policy, traces) on one Runner and checks each
// result against a fresh Run: nothing of one episode leaks into the next.
func TestRunnerMatchesRun(t *testing.T) {
	var r collective.Runner
	pols := []collective.Policy{org(t, "team"), org(t, "independent"), policy.NewLinear(), org(t, "split"), org(t, "sequential")}
	n := 0
	for seed := range uint64(3) {
		for fi, fam := range families {
			g := draw(t, fam, seed)
			for pi, pol := range pols {
				cfg := collective.Defaults()
				cfg.Agents = 2 + (fi+pi)%5
				cfg.Comm.Topology = []collective.Topology{collective.PointToPoint, collective.Broadcast, collective.Blackboard}[n%3]
				cfg.Reconcile.Mode = []collective.ConflictMode{collective.ConflictFail, collective.ConflictRework}[n%2]
				opts := collective.Options{Record: n%2 == 0, Trace: n%3 == 0}
				want, err := collective.Run(g, cfg, pol, sim.NewStreams(seed), opts)
				require.NoError(t, err)
				got, err := r.Run(g, cfg, pol, sim.NewStreams(seed), opts)
				require.NoError(t, err)
				require.Equal(t, want, got, "episode %d: family %d, policy %d, seed %d", n, fi, pi, seed)
				n++
			}
		}
	}
}

// TestRunnerAllocatesNothing checks that a Runner in steady state runs a
// recorded episode of a sampling policy without allocating, and that a
// Stepper steps one without allocating, also with Others deciding for the
// helpers: none per decision, none per episode.
func TestRunnerAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	g := draw(t, families[1], 1)
	cfg := collective.Defaults()
	cfg.Agents = 6
	pol := policy.NewLinear()
	var r collective.Runner
	var s collective.Stepper
	others := collective.Stepper{Others: pol}
	for _, way := range []struct {
		name string
		run  func(seed uint64)
	}{
		{"runner", func(seed uint64) {
			if _, err := r.Run(g, cfg, pol, sim.NewStreams(seed), collective.Options{Record: true}); err != nil {
				t.Fatal(err)
			}
		}},
		{"stepper", func(seed uint64) { stepWith(t, &s, g, cfg, pol, seed, collective.Options{Record: true}) }},
		{"stepper, others", func(seed uint64) { stepWith(t, &others, g, cfg, pol, seed, collective.Options{Record: true}) }},
	} {
		seed := uint64(0)
		run := func() {
			seed++
			way.run(seed % 8)
		}
		for range 16 {
			run() // grow the memory to its steady size
		}
		assert.Zero(t, testing.AllocsPerRun(50, run), way.name)
	}
}
