package collective_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// stepWith runs an episode on s with pol choosing each pending decision
// from outside, as an environment's client would, and returns its result.
// It also returns the number of decisions put to pol.
func stepWith(t testing.TB, s *collective.Stepper, g *task.Graph, cfg collective.Config, pol collective.Policy, seed uint64, opts collective.Options) (*collective.Result, int) {
	if err := s.Start(g, cfg, sim.NewStreams(seed), opts); err != nil {
		t.Fatal(err)
	}
	asked := 0
	for {
		p, ok := s.Next()
		if !ok {
			break
		}
		asked++
		if err := s.Act(pol.Decide(p.Obs, p.Mask, p.U)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res, asked
}

// trainedPolicy trains a small linear policy for a few iterations, writes
// it as a policy file and reads the file back: a learned policy that
// samples, with weights no test wrote.
func trainedPolicy(t testing.TB) policy.Softmax {
	c := collective.Defaults()
	c.Agents, c.TimeLimit = 4, 4*sim.Hour
	cfg := rlcr.DefaultConfig()
	cfg.Iterations, cfg.Batch, cfg.Group = 3, 2, 2
	prob := rlcr.Problem{
		Task:       task.Family{Shape: "fork-join", Width: 4, Stages: 1, Work: sim.LogNormal(600, 0.3), OutputTokens: sim.Const(500)},
		Collective: c,
		Reward:     rlcr.Reward{Task: 1, Latency: 1, Penalty: rlcr.PenaltyLinear},
	}
	pol, err := rlcr.Train(context.Background(), rlcr.Run{Problem: prob, Config: cfg, Seed: 3, Workers: 1})
	require.NoError(t, err)
	var file bytes.Buffer
	require.NoError(t, policy.Save(&file, pol))
	loaded, err := policy.Load(&file, "trained.json")
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(loaded.Params(), func(w float64) bool { return w != 0 }), "training left the weights at zero")
	return loaded
}

// TestStepperMatchesRun checks that an episode stepped from outside, with
// each decision chosen by a built-in policy, is the episode Run gives with
// that policy: result, metrics, recorded decisions and trace, for every
// fixed organization and a trained policy, on every task shape, with an
// own server, a shared one, an API and tools, a time limit and an action
// restriction that forces decisions.
func TestStepperMatchesRun(t *testing.T) {
	pols := map[string]collective.Policy{"trained": trainedPolicy(t)}
	for name := range policy.Organizations() {
		pols[name] = org(t, name)
	}
	var s collective.Stepper // one for all: nothing of an episode leaks into the next
	type episode struct {
		name string
		g    *task.Graph
		cfg  collective.Config
	}
	var episodes []episode
	for seed := range uint64(2) {
		for _, fam := range families {
			cfg := collective.Defaults()
			cfg.Agents = 5
			episodes = append(episodes, episode{fam.Shape, draw(t, fam, seed), cfg})
		}
	}
	for _, e := range sharedEpisodes(t) {
		episodes = append(episodes, episode{e.name, e.g, e.cfg})
	}
	limited := episodes[1]
	limited.name, limited.cfg.TimeLimit = "time-limit", 10*sim.Minute
	episodes = append(episodes, limited)
	asked := 0
	for i, e := range episodes {
		for name, pol := range pols {
			for _, opts := range []collective.Options{
				{},
				{Record: true, Trace: true},
				{Record: true, Actions: collective.Mask(0).With(collective.Work).With(collective.Delegate).With(collective.Wait)},
			} {
				seed := uint64(i)
				want, err := collective.Run(e.g, e.cfg, pol, sim.NewStreams(seed), opts)
				require.NoError(t, err)
				got, n := stepWith(t, &s, e.g, e.cfg, pol, seed, opts)
				require.Equal(t, want, got, "%s, %s, options %+v", e.name, name, opts)
				asked += n
			}
		}
	}
	assert.Positive(t, asked, "no decision was put to the outside")
}

// TestStepperOthersDecideTheHelpers checks that with Others set the
// stepper asks only for the main agent's decisions, and that an episode so
// stepped, with the main agent's choices made by the same policy as
// Others, is the episode Run gives with that policy: for every fixed
// organization and a trained policy, on every task shape and the shared
// servers' episodes. Where helpers or attempts decide, fewer decisions
// come to the outside than without Others.
func TestStepperOthersDecideTheHelpers(t *testing.T) {
	pols := map[string]collective.Policy{"trained": trainedPolicy(t)}
	for name := range policy.Organizations() {
		pols[name] = org(t, name)
	}
	type episode struct {
		name string
		g    *task.Graph
		cfg  collective.Config
	}
	var episodes []episode
	for _, fam := range families {
		cfg := collective.Defaults()
		cfg.Agents = 5
		episodes = append(episodes, episode{fam.Shape, draw(t, fam, 1), cfg})
	}
	for _, e := range sharedEpisodes(t) {
		episodes = append(episodes, episode{e.name, e.g, e.cfg})
	}
	fewer := 0
	for i, e := range episodes {
		for name, pol := range pols {
			seed := uint64(i)
			opts := collective.Options{Record: true}
			want, err := collective.Run(e.g, e.cfg, pol, sim.NewStreams(seed), opts)
			require.NoError(t, err)
			var all collective.Stepper
			_, everyone := stepWith(t, &all, e.g, e.cfg, pol, seed, opts)

			main := collective.Stepper{Others: pol}
			require.NoError(t, main.Start(e.g, e.cfg, sim.NewStreams(seed), opts))
			asked := 0
			for p, ok := main.Next(); ok; p, ok = main.Next() {
				require.Zero(t, p.Agent, "%s, %s: a helper's decision came to the outside", e.name, name)
				asked++
				require.NoError(t, main.Act(pol.Decide(p.Obs, p.Mask, p.U)))
			}
			got, err := main.Result()
			require.NoError(t, err)
			require.Equal(t, want, got, "%s, %s", e.name, name)
			// The main agent decides first in every episode.
			require.Positive(t, asked, "%s, %s", e.name, name)
			if asked < everyone {
				fewer++
			}
		}
	}
	assert.Positive(t, fewer, "in no episode did a helper decide")
}

// TestStepperRefusesInvalidAction checks that an action outside the mask
// is refused and changes nothing: the episode then goes on as if it had
// never been given.
func TestStepperRefusesInvalidAction(t *testing.T) {
	g := draw(t, families[1], 4)
	cfg := collective.Defaults()
	cfg.Agents = 4
	pol := org(t, "team")
	want, err := collective.Run(g, cfg, pol, sim.NewStreams(4), collective.Options{Record: true})
	require.NoError(t, err)

	s, err := collective.Start(g, cfg, sim.NewStreams(4), collective.Options{Record: true})
	require.NoError(t, err)
	refused := 0
	for {
		p, ok := s.Next()
		if !ok {
			break
		}
		for a := range collective.Action(collective.NumActions) {
			if !p.Mask.Has(a) {
				err := s.Act(a)
				require.ErrorIs(t, err, collective.ErrInvalidAction)
				assert.Contains(t, err.Error(), a.String())
				refused++
				break
			}
		}
		again, ok := s.Next()
		require.True(t, ok)
		require.Equal(t, p, again, "a refused action moved the episode")
		require.NoError(t, s.Act(pol.Decide(p.Obs, p.Mask, p.U)))
	}
	assert.Positive(t, refused)
	got, err := s.Result()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Error(t, s.Act(collective.Wait), "an action after the end")
}

// TestStepperResultBeforeEnd checks that a result is not given while a
// decision waits, and that a bad configuration fails Start as it fails Run.
func TestStepperResultBeforeEnd(t *testing.T) {
	s, err := collective.Start(draw(t, families[0], 1), collective.Defaults(), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	_, ok := s.Next()
	require.True(t, ok, "the main agent's first decision has a choice")
	_, err = s.Result()
	assert.Error(t, err)

	bad := collective.Defaults()
	bad.Agents = 0
	_, runErr := collective.Run(draw(t, families[0], 1), bad, org(t, "split"), sim.NewStreams(1), collective.Options{})
	_, err = collective.Start(draw(t, families[0], 1), bad, sim.NewStreams(1), collective.Options{})
	require.Error(t, err)
	assert.Equal(t, runErr.Error(), err.Error())
}

// TestStepperStopsWithContext checks that a done context ends a stepped
// episode with its error, as it ends Run.
func TestStepperStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := collective.Start(draw(t, families[0], 1), collective.Defaults(), sim.NewStreams(1), collective.Options{Context: ctx})
	require.NoError(t, err)
	p, ok := s.Next()
	require.True(t, ok)
	cancel()
	require.NoError(t, s.Act(p.Mask.First()))
	_, ok = s.Next()
	assert.False(t, ok)
	_, err = s.Result()
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
}

// Step an episode from outside: each decision with a choice is put to
// the caller, here answered with the split organization's choice, and the
// episode is the one Run gives that organization.
func ExampleStepper() {
	fam := task.Family{Shape: "fork-join", Width: 4, Stages: 1, Work: sim.Exponential(300), OutputTokens: sim.Const(400)}
	g, err := fam.Draw(sim.NewStreams(1).New("task", 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := collective.Defaults()
	cfg.Agents = 4
	split, err := policy.Organization("split")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := collective.Start(g, cfg, sim.NewStreams(1), collective.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	asked := 0
	for p, ok := s.Next(); ok; p, ok = s.Next() {
		asked++
		if err := s.Act(split.Decide(p.Obs, p.Mask, p.U)); err != nil {
			fmt.Println(err)
			return
		}
	}
	stepped, err := s.Result()
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := collective.Run(g, cfg, split, sim.NewStreams(1), collective.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d decisions asked; finished at %v, the same as Run: %v\n", asked, stepped.Finish, stepped.Metrics == run.Metrics)
	// Output:
	// 11 decisions asked; finished at 29m22.58279401s, the same as Run: true
}

// TestStepperResultWithoutEpisode: a Stepper whose Start failed gives
// Start's error as its Result, as Run gives it, not a nil result with no
// error; one never started says so, not that an episode is in progress.
func TestStepperResultWithoutEpisode(t *testing.T) {
	bad := collective.Defaults()
	bad.Agents = 0
	for _, tc := range []struct {
		name  string
		setup func(s *collective.Stepper) error // the Start error, if any
		want  string
	}{
		{"never started", func(*collective.Stepper) error { return nil }, "never started"},
		{"bad configuration", func(s *collective.Stepper) error {
			return s.Start(draw(t, families[0], 1), bad, sim.NewStreams(1), collective.Options{})
		}, "agents: 0 is out of range"},
		{"nil graph after an episode", func(s *collective.Stepper) error {
			require.NoError(t, s.Start(draw(t, families[0], 1), collective.Defaults(), sim.NewStreams(1), collective.Options{}))
			return s.Start(nil, collective.Defaults(), sim.NewStreams(1), collective.Options{})
		}, "task graph is nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s collective.Stepper
			startErr := tc.setup(&s)
			res, err := s.Result()
			require.Nil(t, res)
			require.ErrorContains(t, err, tc.want)
			if startErr != nil {
				require.Equal(t, startErr.Error(), err.Error())
			}
			_, ok := s.Next()
			require.False(t, ok)
		})
	}
}

// TestStepperBudgetUsed: what the episode in progress has drawn from its
// token budget, read at each decision, never falls and ends no higher
// than the result's; it is 0 without a budget, before Start and once the
// episode is over.
func TestStepperBudgetUsed(t *testing.T) {
	var s collective.Stepper
	require.Zero(t, s.BudgetUsed(), "never started")
	pol := org(t, "split")
	for _, budget := range []int64{0, 1_000_000} {
		cfg := collective.Defaults()
		cfg.Agents, cfg.TokenBudget = 5, budget
		require.NoError(t, s.Start(draw(t, families[1], 3), cfg, sim.NewStreams(3), collective.Options{}))
		last, grew := int64(0), false
		for {
			p, ok := s.Next()
			if !ok {
				break
			}
			used := s.BudgetUsed()
			require.GreaterOrEqual(t, used, last, "budget %d: spent never falls", budget)
			grew = grew || used > last
			last = used
			require.NoError(t, s.Act(pol.Decide(p.Obs, p.Mask, p.U)))
		}
		res, err := s.Result()
		require.NoError(t, err)
		require.Zero(t, s.BudgetUsed(), "budget %d: over", budget)
		require.LessOrEqual(t, last, res.BudgetUsed, "budget %d", budget)
		require.Equal(t, budget > 0, grew, "budget %d: spending is seen between decisions", budget)
	}
}
