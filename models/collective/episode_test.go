package collective_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// free is a collective with every overhead at zero and perfect quality
// checks, so that finish times are pure work.
func free(agents int) collective.Config {
	c := collective.Defaults()
	c.Agents = agents
	c.Calls = collective.Calls{Span: 30 * sim.Second}
	c.Comm = collective.Comm{Topology: collective.PointToPoint}
	c.Spawn = 0
	c.Check = collective.Verification{Cost: 0, Accuracy: 1, Retries: 3}
	return c
}

func org(t testing.TB, name string) collective.Policy {
	p, err := policy.Organization(name)
	require.NoError(t, err)
	return p
}

// families are task shapes without JoinAny nodes, so that every subtask is
// needed and the critical path bounds the finish time.
var families = []task.Family{
	{Shape: "chain", Length: 6, Work: sim.Exponential(300), Difficulty: sim.Const(0.2), OutputTokens: sim.Const(400)},
	{Shape: "fork-join", Width: 8, Stages: 2, Work: sim.LogNormal(300, 1), Difficulty: sim.Const(0.2), OutputTokens: sim.Const(400), Coupling: sim.Const(0.5)},
	{Shape: "tree", Branching: 3, Depth: 3, Work: sim.Exponential(200), Difficulty: sim.Uniform(0, 0.4), OutputTokens: sim.Const(300), Coupling: sim.Const(0.3)},
	{Shape: "layered", Width: 6, Depth: 5, EdgeProb: 0.4, Work: sim.Exponential(200), Difficulty: sim.Const(0.1), OutputTokens: sim.Const(300), Coupling: sim.Const(0.2)},
}

func draw(t testing.TB, f task.Family, seed uint64) *task.Graph {
	g, err := f.Draw(rand.New(rand.NewPCG(seed, 7)))
	require.NoError(t, err)
	return g
}

func TestFinishNotBeforeCriticalPath(t *testing.T) {
	for _, f := range families {
		for _, name := range []string{"sequential", "independent", "split", "team"} {
			t.Run(f.Shape+"/"+name, func(t *testing.T) {
				for seed := range uint64(20) {
					g := draw(t, f, seed)
					cfg := collective.Defaults()
					cfg.Speed = 1.5
					res, err := collective.Run(g, cfg, org(t, name), sim.NewStreams(seed), collective.Options{})
					require.NoError(t, err)
					require.False(t, res.Stalled)
					cp, _ := g.CriticalPath()
					assert.GreaterOrEqual(t, int64(res.Finish), int64(float64(cp)/1.5)-1, "seed %d", seed)
					assert.Equal(t, res.CriticalPath, sim.Time(float64(cp)/1.5+0.5))
				}
			})
		}
	}
}

func TestSequentialTakesTotalWork(t *testing.T) {
	for _, f := range families {
		f.Difficulty, f.Coupling = sim.Const(0), sim.Const(0)
		for seed := range uint64(10) {
			g := draw(t, f, seed)
			res, err := collective.Run(g, free(1), org(t, "sequential"), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.True(t, res.Acceptable)
			assert.Equal(t, g.TotalWork(), res.Finish, "%s seed %d", f.Shape, seed)
			assert.Equal(t, res.Finish, res.AgentTime)
			assert.Equal(t, 1, res.ParallelismPeak)
		}
	}
}

func TestSplitWithUnlimitedAgentsFinishesAtCriticalPath(t *testing.T) {
	for _, f := range families {
		f.Difficulty, f.Coupling = sim.Const(0), sim.Const(0)
		for seed := range uint64(10) {
			g := draw(t, f, seed)
			res, err := collective.Run(g, free(g.Len()+1), org(t, "split"), sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			require.True(t, res.Acceptable)
			cp, _ := g.CriticalPath()
			assert.Equal(t, cp, res.Finish, "%s seed %d", f.Shape, seed)
		}
	}
}

func TestAccountsAddUp(t *testing.T) {
	for _, f := range families {
		for _, name := range []string{"sequential", "independent", "split", "team"} {
			g := draw(t, f, 3)
			res, err := collective.Run(g, collective.Defaults(), org(t, name), sim.NewStreams(3), collective.Options{Trace: true, Record: true})
			require.NoError(t, err)
			tr := res.Trace
			assert.Equal(t, res.Messages, len(tr.Flows), "%s %s: one flow per message", f.Shape, name)
			var busy sim.Time
			calls := 0
			for _, s := range tr.Spans {
				busy += s.End - s.Start
				if s.Kind == "work" || s.Kind == "check" {
					calls++
				}
			}
			if res.Actions[collective.Submit] > 0 && res.Attempts > 0 {
				calls += res.Attempts + 1 // the verifier examines every candidate
			}
			assert.Equal(t, res.AgentTime, busy, "%s %s: agent time is the sum of traced activities", f.Shape, name)
			assert.Equal(t, res.ModelCalls, calls, "%s %s: model calls", f.Shape, name)
			total := 0
			for _, n := range res.Actions {
				total += n
			}
			assert.Equal(t, len(res.Decisions), total)
			assert.InDelta(t, float64(res.AgentTime)/float64(res.Finish), res.ParallelismMean, 1e-9)
		}
	}
}

func TestDeterministic(t *testing.T) {
	g := draw(t, families[1], 5)
	run := func() ([]byte, *collective.Result) {
		res, err := collective.Run(g, collective.Defaults(), org(t, "team"), sim.NewStreams(9), collective.Options{Trace: true})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, res.Trace.WriteChrome(&buf, "team"))
		return buf.Bytes(), res
	}
	a, ra := run()
	b, rb := run()
	assert.Equal(t, a, b)
	assert.Equal(t, ra, rb)
}

// TestSilentReplay checks the communication counterfactual on a team at
// a strongly coupled join: losing findings only ever adds conflicts, a
// replay without an added conflict is the same episode, and some outcomes
// change.
func TestSilentReplay(t *testing.T) {
	f := families[1]
	f.Coupling = sim.Const(0.9)
	changed, conflictsAdded := 0, 0
	for seed := range uint64(30) {
		g := draw(t, f, seed)
		cfg := collective.Defaults()
		res, err := collective.Run(g, cfg, org(t, "team"), sim.NewStreams(seed), collective.Options{Record: true})
		require.NoError(t, err)
		require.Positive(t, res.Actions[collective.Share])
		replay, err := collective.Run(g, cfg, org(t, "team"), sim.NewStreams(seed), collective.Options{Record: true, Silent: true})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, replay.Conflicts, res.Conflicts, "seed %d: losing findings never reconciles a part", seed)
		if replay.Conflicts == res.Conflicts {
			assert.Equal(t, res.Metrics, replay.Metrics, "seed %d: without an added conflict the replay is the same episode", seed)
		} else {
			conflictsAdded++
		}
		if replay.Acceptable != res.Acceptable {
			changed++
		}
	}
	assert.Positive(t, conflictsAdded, "lost findings leave parts unreconciled at κ = 0.9")
	assert.Positive(t, changed, "sharing should change some outcomes at κ = 0.9")
}

// TestSilentReplayAtCouplingZero checks that the counterfactual is exact
// for a policy that samples: at coupling 0 what a finding carries cannot
// matter, and the silent replay is the same episode, decision for
// decision. (Removing Share from the mask, as the first version did,
// renormalised the softmax and shifted every later decision.)
func TestSilentReplayAtCouplingZero(t *testing.T) {
	f := families[1]
	f.Coupling = sim.Const(0)
	shared := 0
	for seed := range uint64(30) {
		g := draw(t, f, seed)
		cfg := collective.Defaults()
		res, err := collective.Run(g, cfg, uniform, sim.NewStreams(seed), collective.Options{Record: true})
		require.NoError(t, err)
		replay, err := collective.Run(g, cfg, uniform, sim.NewStreams(seed), collective.Options{Record: true, Silent: true})
		require.NoError(t, err)
		shared += res.Actions[collective.Share]
		assert.Equal(t, res.Metrics, replay.Metrics, "seed %d", seed)
		assert.Equal(t, res.Decisions, replay.Decisions, "seed %d", seed)
	}
	assert.Positive(t, shared, "the policy shares findings")
}

func TestInvalidActionIsAnError(t *testing.T) {
	g := draw(t, families[0], 1)
	bad := collective.PolicyFunc(func(*collective.Observation, collective.Mask, float64) collective.Action { return collective.Share })
	_, err := collective.Run(g, collective.Defaults(), bad, sim.NewStreams(1), collective.Options{})
	require.ErrorIs(t, err, collective.ErrInvalidAction)
}

func TestTimeLimit(t *testing.T) {
	g := draw(t, families[0], 1)
	cfg := collective.Defaults()
	cfg.TimeLimit = 5 * sim.Minute
	res, err := collective.Run(g, cfg, org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.False(t, res.Acceptable)
	assert.Equal(t, cfg.TimeLimit, res.Finish)
}

func TestBadConfig(t *testing.T) {
	g := draw(t, families[0], 1)
	cfg := collective.Defaults()
	cfg.Agents = 0
	cfg.Check.Accuracy = 2
	_, err := collective.Run(g, cfg, org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "agents")
	assert.Contains(t, err.Error(), "check.accuracy")
}

func ExampleRun() {
	fam := task.Family{Shape: "fork-join", Width: 4, Stages: 1, Work: sim.Const(600), OutputTokens: sim.Const(500)}
	g, err := fam.Draw(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"sequential", "split"} {
		pol, err := policy.Organization(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := collective.Run(g, collective.Defaults(), pol, sim.NewStreams(1), collective.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-10s finish %5.1f min, acceptable %v, parallelism %.2f\n", name, res.Finish.Minutes(), res.Acceptable, res.ParallelismMean)
	}
	// Output:
	// sequential finish  72.1 min, acceptable true, parallelism 1.00
	// split      finish  36.1 min, acceptable true, parallelism 2.00
}

// needle builds four alternative tries of the given works feeding an `any`
// join of one minute.
func needle(t *testing.T, difficulty float64, works ...sim.Time) *task.Graph {
	var nodes []task.Node
	var edges []task.Edge
	for i, w := range works {
		nodes = append(nodes, task.Node{Name: fmt.Sprint("try", i), Work: w, Difficulty: difficulty, OutputTokens: 100})
		edges = append(edges, task.Edge{From: task.ID(i), To: task.ID(len(works))})
	}
	nodes = append(nodes, task.Node{Name: "pick", Work: sim.Minute, Join: task.JoinAny})
	g, err := task.New(nodes, edges)
	require.NoError(t, err)
	return g
}

// A sequential agent whose checks flag an alternative moves on to the next
// one: success is the chance that any of the four succeeds.
func TestNeedleSequentialTriesEveryAlternative(t *testing.T) {
	g := needle(t, 0.8, 10*sim.Minute, 10*sim.Minute, 10*sim.Minute, 10*sim.Minute)
	cfg := free(1)
	cfg.Check.Retries = 0 // a flagged try is given up, not retried
	const n = 2000
	ok := 0
	for seed := range uint64(n) {
		res, err := collective.Run(g, cfg, org(t, "sequential"), sim.NewStreams(seed), collective.Options{})
		require.NoError(t, err)
		if res.Acceptable {
			ok++
		}
	}
	p := 1 - math.Pow(0.8, 4) // a perfect check, four independent tries at 0.2
	se := math.Sqrt(p * (1 - p) / n)
	assert.InDelta(t, p, float64(ok)/n, 4*se)
}

// When one alternative succeeds, the team's agents still working on the
// others drop them at their next model call.
func TestNeedleTeamDropsMootAlternatives(t *testing.T) {
	g := needle(t, 0, 10*sim.Minute, 20*sim.Minute, 30*sim.Minute, 40*sim.Minute)
	res, err := collective.Run(g, free(4), org(t, "team"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 11*sim.Minute, res.Finish, "the first try and the pick")
	// Four agents worked ten minutes each (the others stopped at the end of
	// the model call in progress when the first try was done), then the pick.
	span := collective.Defaults().Calls.Span
	assert.LessOrEqual(t, res.AgentTime, 4*10*sim.Minute+3*span+sim.Minute)
}

// TestNeedleSkipsAlternativesByHand follows a needle search of two agents
// decision by decision: tries of 10, 20, 30 and 40 minutes (all
// acceptable) feed a one-minute pick. The main agent delegates the first
// try and, with nobody left to delegate to, works on the second itself.
// When the helper hands the first try on, the pick becomes ready and the
// other three tries are skipped: the one in progress and the two still
// ready. The progress then counts the skipped work as done, no try is
// ready any more, and the pick is the only part left, so its maker sees
// the result as complete.
func TestNeedleSkipsAlternativesByHand(t *testing.T) {
	g := needle(t, 0, 10*sim.Minute, 20*sim.Minute, 30*sim.Minute, 40*sim.Minute)
	cfg := free(2)
	cfg.TimeLimit = 2000 * sim.Second
	res, err := collective.Run(g, cfg, boss, sim.NewStreams(1), collective.Options{Record: true})
	require.NoError(t, err)
	const (
		W, D, A, C, Wt, Sub = collective.Work, collective.Delegate, collective.Attempt, collective.Check, collective.Wait, collective.Submit
	)
	mean := float64(101*sim.Minute) / 5 // the mean work of a part
	done := float64(100) / 101          // everything but the pick
	want := []struct {
		obs  collective.Observation
		mask collective.Mask
		act  collective.Action
	}{
		// t = 0: four tries ready, one helper may be spawned.
		{collective.Observation{Agent: 0, Main: true, Ready: 4, Free: 1, NextWork: float64(10*sim.Minute) / mean}, mask(W, D, A), D},
		// Nobody left to delegate to: working on the second try is all
		// the main agent may do.
		{collective.Observation{Agent: 0, Main: true, Ready: 3, Busy: 1, NextWork: float64(20*sim.Minute) / mean}, mask(W), W},
		// t = 600 s: the helper holds the first try; the third and fourth
		// are ready. It works: hands the try on and takes the pick.
		{collective.Observation{Agent: 1, TimeUsed: 0.3, Elapsed: 600, Ready: 2, Busy: 1, Unchecked: true, NextWork: float64(30*sim.Minute) / mean}, mask(W, C), W},
		// The main agent drops the second try at its call's end.
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.3, Elapsed: 600, Progress: done, Busy: 1}, mask(Wt), Wt},
		// t = 660 s: the pick is the last part, held.
		{collective.Observation{Agent: 1, TimeUsed: 0.33, Elapsed: 660, Progress: done, Idle: 1, Unchecked: true, Complete: true}, mask(C, Wt), Wt},
		{collective.Observation{Agent: 0, Main: true, TimeUsed: 0.33, Elapsed: 660, Progress: 1, Idle: 1, Complete: true}, mask(Sub), Sub},
	}
	require.Len(t, res.Decisions, len(want))
	for i, w := range want {
		d := res.Decisions[i]
		assert.InDelta(t, w.obs.NextWork, d.Obs.NextWork, 1e-12, "decision %d", i)
		assert.InDelta(t, w.obs.Progress, d.Obs.Progress, 1e-12, "decision %d", i)
		assert.InDelta(t, w.obs.TimeUsed, d.Obs.TimeUsed, 1e-12, "decision %d", i)
		d.Obs.NextWork, d.Obs.Progress, d.Obs.TimeUsed = w.obs.NextWork, w.obs.Progress, w.obs.TimeUsed
		assert.Equal(t, w.obs, d.Obs, "decision %d", i)
		assert.Equal(t, w.mask, d.Mask, "decision %d: mask", i)
		assert.Equal(t, w.act, d.Action, "decision %d: action", i)
	}
	assert.True(t, res.Acceptable)
	assert.Equal(t, 11*sim.Minute, res.Finish)
	// The helper from 0 to 660 s, the main agent until it dropped its try.
	assert.Equal(t, 21*sim.Minute, res.AgentTime)
}

// TestAnyJoinInheritsItsTrigger: an `any` join's input is the alternative
// that settled the search. One agent that never checks works on the first
// try, hands it on (which settles the search and skips the others) and
// makes the pick, which is itself always acceptable: the result is
// acceptable exactly when the first try is. The other tries' quality does
// not matter.
func TestAnyJoinInheritsItsTrigger(t *testing.T) {
	const bad = 0.999999 // an attempt succeeds with probability 1e-6
	for _, tc := range []struct {
		difficulty []float64
		acceptable bool
	}{
		{[]float64{bad, 0, 0}, false},
		{[]float64{0, bad, bad}, true},
	} {
		var nodes []task.Node
		var edges []task.Edge
		for i, d := range tc.difficulty {
			nodes = append(nodes, task.Node{Name: fmt.Sprint("try", i), Work: sim.Minute, Difficulty: d})
			edges = append(edges, task.Edge{From: task.ID(i), To: task.ID(len(tc.difficulty))})
		}
		nodes = append(nodes, task.Node{Name: "pick", Work: sim.Minute, Join: task.JoinAny})
		g, err := task.New(nodes, edges)
		require.NoError(t, err)
		for seed := range uint64(10) {
			res, err := collective.Run(g, free(1), boss, sim.NewStreams(seed), collective.Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.acceptable, res.Acceptable, "%v seed %d", tc.difficulty, seed)
			assert.Equal(t, 2*sim.Minute, res.Finish, "%v seed %d: the first try and the pick", tc.difficulty, seed)
			assert.Zero(t, res.Checks)
		}
	}
}

// TestAnyJoinReadsOnlyItsTrigger: at an `any` join only the alternative
// that made it ready is an input. The main agent delegates try a (one
// minute, 100 tokens to the pick) and works on try b (two minutes, 1000
// tokens) itself. a's maker hands a on at 60 s, which makes b moot; the
// main agent drops b at the end of its call then and takes the pick. It
// reads a's 100 tokens, at 10 ms a token, and not b's, so the pick's two
// calls start at 61 s and end at 121 s. Reading b's output instead, its
// own, would start the pick at 60 s; reading both, at 71 s.
func TestAnyJoinReadsOnlyItsTrigger(t *testing.T) {
	g, err := task.New([]task.Node{
		{Name: "a", Work: sim.Minute}, {Name: "b", Work: 2 * sim.Minute},
		{Name: "pick", Work: sim.Minute, Join: task.JoinAny},
	}, []task.Edge{{From: 0, To: 2, Tokens: 100}, {From: 1, To: 2, Tokens: 1000}})
	require.NoError(t, err)
	cfg := free(2)
	cfg.Comm.Read = 10 * sim.Millisecond
	res, err := collective.Run(g, cfg, orchestrator(false), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	assert.Equal(t, 121*sim.Second, res.Finish)
	assert.Equal(t, int64(100), res.MessageTokens, "a's output, sent to the pick's maker")
	assert.Equal(t, 1, res.Spawned)
}

// TestAnyJoinWithoutAlternatives: an `any` join with no predecessors (a
// graph file may mark one so) has nothing to pick from and starts as any
// source does, its inputs sound: with no difficulty it always succeeds,
// as its `all` twin does, at the same time.
func TestAnyJoinWithoutAlternatives(t *testing.T) {
	for _, join := range []task.JoinKind{task.JoinAll, task.JoinAny} {
		g, err := task.New([]task.Node{{Name: "a", Work: sim.Minute, Join: join}, {Name: "b", Work: sim.Minute}}, []task.Edge{{From: 0, To: 1}})
		require.NoError(t, err)
		res, err := collective.Run(g, free(1), org(t, "sequential"), sim.NewStreams(1), collective.Options{})
		require.NoError(t, err)
		assert.True(t, res.Acceptable, "join %v", join)
		assert.Equal(t, 2*sim.Minute, res.Finish, "join %v", join)
	}
}

// TestEpisodeOfNoTime: a task of no work is done at time 0; its mean
// parallelism, agent time over the finish, is 0 where 0/0 would be NaN
// in every table that averages it.
func TestEpisodeOfNoTime(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "a"}}, nil)
	require.NoError(t, err)
	res, err := collective.Run(g, free(1), org(t, "sequential"), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
	require.True(t, res.Acceptable)
	require.Zero(t, res.Finish)
	assert.Zero(t, res.ParallelismMean)
}

// TestNilArguments: a nil policy or graph is an error that names it, not a
// nil-pointer panic at the first decision, and so is a restriction to
// actions beyond the action set, which would restrict nothing; a Stepper,
// which takes its actions from outside, needs no policy.
func TestNilArguments(t *testing.T) {
	g := draw(t, families[0], 1)
	pol := org(t, "sequential")
	for _, tc := range []struct {
		name string
		g    *task.Graph
		pol  collective.Policy
		opts collective.Options
		want string
	}{
		{"nil policy", g, nil, collective.Options{}, "policy is nil"},
		{"nil graph", nil, pol, collective.Options{}, "task graph is nil"},
		{"an action beyond the set", g, pol, collective.Options{Actions: 1 << collective.NumActions}, "Options.Actions 0x80 holds bits beyond the 7 actions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := collective.Run(tc.g, collective.Defaults(), tc.pol, sim.NewStreams(1), tc.opts)
			require.ErrorContains(t, err, tc.want)
			var r collective.Runner
			_, err = r.Run(tc.g, collective.Defaults(), tc.pol, sim.NewStreams(1), tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := collective.Start(nil, collective.Defaults(), sim.NewStreams(1), collective.Options{})
	require.ErrorContains(t, err, "task graph is nil")
	_, err = collective.Start(g, collective.Defaults(), sim.NewStreams(1), collective.Options{})
	require.NoError(t, err)
}
