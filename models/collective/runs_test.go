package collective_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// tieConfig is a collective whose events tie everywhere: free messages, so
// that a delegator hands out parts at one instant and its helpers start
// together; a spawn a multiple of the call span; calls whose only cost is
// their work, so that equal parts end their calls at the same instants.
func tieConfig(agents int) collective.Config {
	c := collective.Defaults()
	c.Agents = agents
	c.Calls = collective.Calls{Span: 30 * sim.Second, OutputRate: 170, SystemPrompt: 500}
	c.Comm = collective.Comm{Topology: collective.PointToPoint, MessageTokens: 300}
	c.Spawn = 2 * sim.Minute
	return c
}

// TestRunsChangeNothing runs episodes with runs of model calls and with
// every call end an event of its own, and requires the same result to the
// bit: every decision (its agent, observation, mask and action, so its
// time and everything it saw), every metric (the events counted
// included), or the same error. The cases are made for ties (equal parts
// started together, spawns a multiple of the span), for what breaks a run
// (findings by message, broadcast and board, alternatives made moot,
// duplicates, loops, checks that fail), and for the limits (a time limit
// that ends runs midway, event limits reached early, late and not at all),
// and for what must keep runs off (a trace, tool calls). The runs go on
// one Runner, as a learner's rollouts do, so that nothing of a run may
// outlive its episode; and they must happen, or the test tests nothing.
func TestRunsChangeNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (the plain run checks the claim)")
	}
	constWork := task.Family{Shape: "fork-join", Width: 8, Stages: 2, Work: sim.Const(600), Difficulty: sim.Const(0.3), OutputTokens: sim.Const(400), Coupling: sim.Const(0.5)}
	fams := append([]task.Family{
		constWork,
		{Shape: "fork-join", Width: 12, Stages: 1, Work: sim.LogNormal(600, 0.3), Difficulty: sim.Const(0.01), OutputTokens: sim.Const(500)},
		{Shape: "needle", Tries: 5, Work: sim.Const(300), Difficulty: sim.Const(0.6), OutputTokens: sim.Const(200)},
		{Shape: "chain", Length: 4, Work: sim.Const(240), Difficulty: sim.Const(0.5), OutputTokens: sim.Const(300), Loop: 3},
		// A task complete while an agent is still making a part in a run.
		{Shape: "file", Path: "testdata/nested-any.dot", Difficulty: sim.Uniform(0, 0.3)},
	}, families...)
	topologies := []collective.Topology{collective.PointToPoint, collective.Broadcast, collective.Blackboard}
	configs := []struct {
		name string
		cfg  func(n int) collective.Config
	}{
		{"defaults", func(n int) collective.Config {
			c := collective.Defaults()
			c.Agents = 2 + n%7
			return c
		}},
		{"ties", func(n int) collective.Config { return tieConfig(4 + n%9) }},
		{"ties-duplicates", func(n int) collective.Config {
			c := tieConfig(3 + n%6)
			c.Handoff.Duplicates = true
			return c
		}},
		{"time-limit", func(n int) collective.Config {
			c := tieConfig(3 + n%5)
			c.TimeLimit = sim.Time(7+n%11) * sim.Minute
			return c
		}},
		{"rework", func(n int) collective.Config {
			c := collective.Defaults()
			c.Agents = 3 + n%6
			c.Reconcile.Mode = collective.ConflictRework
			c.Calls.Span = sim.Time(10+n%25) * sim.Second
			return c
		}},
		// Duplicates out of step with their originals, which they must
		// drop at the first call after the original is done.
		{"duplicates", func(n int) collective.Config {
			c := collective.Defaults()
			c.Agents = 3 + n%6
			c.Handoff.Duplicates = true
			c.Spawn = sim.Time(1+n%7) * 7 * sim.Second
			return c
		}},
		// Prompts that take longer to read than a call's work, so that a
		// call's time is mostly its prefill.
		{"prefill", func(n int) collective.Config {
			c := tieConfig(3 + n%5)
			c.Calls.PromptToken = sim.Time(50+n%7*10) * sim.Millisecond
			return c
		}},
		{"trace", func(n int) collective.Config { return tieConfig(2 + n%5) }},
		{"tools", func(n int) collective.Config {
			c := collective.Defaults()
			c.Agents = 2 + n%5
			c.Tools.Pool = n % 3
			return c
		}},
	}
	// A split that delegates duplicates of parts in progress, when it
	// may, at half of its decisions with nothing ready.
	split := org(t, "split")
	duplicator := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
		if o.Ready == 0 && m.Has(collective.Delegate) && u < 0.5 {
			return collective.Delegate
		}
		return split.Decide(o, m, u)
	})
	pols := []collective.Policy{policy.NewLinear(), org(t, "team"), split, org(t, "independent"), duplicator}
	var runner collective.Runner
	spy := runsSpy{r: &runner}
	runBoth := func(g *task.Graph, cfg collective.Config, pol collective.Policy, seed uint64, opts collective.Options) (want, got *collective.Result, wantErr, gotErr error) {
		restore := collective.SetRunsOff(true)
		want, wantErr = collective.Run(g, cfg, pol, sim.NewStreams(seed), opts)
		restore()
		spy.Policy = pol
		got, gotErr = runner.Run(g, cfg, &spy, sim.NewStreams(seed), opts)
		return want, got, wantErr, gotErr
	}
	n, runsMatter, runsSeen := 0, 0, 0
	for fi, fam := range fams {
		for _, cc := range configs {
			for seed := range uint64(12) {
				g := draw(t, fam, seed)
				cfg := cc.cfg(n)
				cfg.Comm.Topology = topologies[n%len(topologies)]
				pol := pols[n%len(pols)]
				opts := collective.Options{Record: true, Trace: cc.name == "trace"}
				if cc.name == "tools" {
					g = g.WithTools(task.Tools{Calls: sim.Uniform(0, 4), Latency: sim.Exponential(3)})
				}
				name := fmt.Sprintf("family %d, %s, seed %d, %s, %d agents, policy %d", fi, cc.name, seed, cfg.Comm.Topology, cfg.Agents, n%len(pols))
				spy.seen = 0
				want, got, wantErr, gotErr := runBoth(g, cfg, pol, seed, opts)
				require.Equal(t, wantErr, gotErr, name)
				require.Equal(t, want, got, name)
				if want == nil {
					n++
					continue
				}
				if want.Events > uint64(len(want.Decisions))+20 {
					runsMatter++
				}
				if spy.seen > 0 {
					runsSeen++
				}
				// Event limits around the episode's own count: reached
				// early, just at the end, and not at all.
				for _, m := range []uint64{want.Events / 3, want.Events - 1, want.Events, want.Events + 1} {
					opts.MaxEvents = max(m, 1)
					want, got, wantErr, gotErr := runBoth(g, cfg, pol, seed, opts)
					require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%s, max events %d", name, m)
					require.Equal(t, want, got, "%s, max events %d", name, m)
				}
				n++
			}
		}
	}
	t.Logf("%d episodes, %d with model calls to run, %d with runs seen", n, runsMatter, runsSeen)
	require.Greater(t, runsMatter, n/2, "most episodes have model calls to run")
	require.Greater(t, runsSeen, n/4, "runs go on while agents decide")
}

// runsSpy is a policy that counts the decisions made while runs of model
// calls are going in r's episode, and leaves them to Policy.
type runsSpy struct {
	collective.Policy
	r    *collective.Runner
	seen int
}

func (s *runsSpy) Decide(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	if s.r.RunsGoing() > 0 {
		s.seen++
	}
	return s.Policy.Decide(o, m, u)
}

// TestPartRunsAsOneRun: a helper's part of two calls of 30 s, or of three
// whose last is a nanosecond longer (work of 60 s + 1 ns), runs as one run
// of model calls, which the main agent's decision at 10 s, after a call
// of its own, finds going; a part of one call has no run.
func TestPartRunsAsOneRun(t *testing.T) {
	for _, tc := range []struct {
		work sim.Time
		runs int
	}{
		{30 * sim.Second, 0},
		{60 * sim.Second, 1},
		{60*sim.Second + 1, 1},
	} {
		g, err := task.New([]task.Node{{Name: "x", Work: tc.work}, {Name: "y", Work: 10 * sim.Second}}, nil)
		require.NoError(t, err)
		var runner collective.Runner
		var seen []int
		pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
			if o.Main && o.Elapsed == 10 {
				seen = append(seen, runner.RunsGoing())
			}
			return orchestrator(false).Decide(o, m, u)
		})
		res, err := runner.Run(g, free(2), pol, sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		require.Equal(t, 1, res.Spawned, "x went to a helper")
		assert.Equal(t, []int{tc.runs}, seen, "work %v", tc.work)
	}
}
