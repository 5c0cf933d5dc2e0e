package env_test

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/scenarios"
)

// choose returns the actions pol takes in every active row of e.
func choose(e *env.Env, pol collective.Policy) []int32 {
	actions := make([]int32, e.NumEnvs())
	for i := range actions {
		if p, ok := e.Pending(i); ok {
			actions[i] = int32(pol.Decide(p.Obs, p.Mask, p.U))
		}
	}
	return actions
}

// TestReproducesRun steps the environment with each fixed organization's
// choices and checks that the rows' first episodes are those of simulate
// run: the same episodes.csv, byte for byte. With decide main the caller
// chooses for the main agent only, which every active row then shows,
// and the variant's policy section, as a set leaves it, for the others.
func TestReproducesRun(t *testing.T) {
	const episodes = 6
	for _, c := range []struct {
		scenario, variant, decide string
		sets                      []string
	}{
		{"organizations", "sequential", "", nil},
		{"organizations", "independent", "", nil},
		{"organizations", "team", "", nil},
		{"tiny", "split", "", nil},
		{"organizations", "independent", env.DecideMain, nil},
		{"organizations", "team", env.DecideMain, nil},
		// tiny's split leaves the organization to the scenario, so the set
		// takes effect (team sets its own, which would override it).
		{"tiny", "split", env.DecideMain, []string{"policy.organization=team"}},
	} {
		t.Run(c.scenario+"/"+c.variant+"/"+c.decide+strings.Join(c.sets, ","), func(t *testing.T) {
			sc, err := scenarios.Load(c.scenario, append([]string{fmt.Sprintf("episodes=%d", episodes)}, c.sets...))
			require.NoError(t, err)
			var want []experiment.Row
			require.NoError(t, experiment.Evaluate(context.Background(), sc, experiment.EvalOptions{}, func(r experiment.Row) error {
				if r.Variant == c.variant {
					r.Trace = nil
					want = append(want, r)
				}
				return nil
			}))
			require.Len(t, want, episodes)
			var v *scenarios.Variant
			for i := range sc.Variants {
				if sc.Variants[i].Name == c.variant {
					v = &sc.Variants[i]
				}
			}
			pol, err := v.Policy()
			require.NoError(t, err)

			e, err := env.New(env.Config{Scenario: c.scenario, Variant: c.variant, Sets: c.sets, NumEnvs: episodes, Group: 1, Decide: c.decide})
			require.NoError(t, err)
			assert.Empty(t, e.Warnings(), "a set the variant overrides tests nothing")
			out, err := e.Reset(nil)
			require.NoError(t, err)
			got := make([]experiment.Row, episodes)
			ended, helpers := 0, false
			for steps := 0; ended < episodes; steps++ {
				require.Less(t, steps, 100000, "the episodes never ended")
				for i, a := range out.Agent {
					if c.decide == env.DecideMain && out.Active[i] != 0 {
						require.Zero(t, a, "row %d: a helper's decision came to the caller", i)
					}
					helpers = helpers || a > 0
				}
				out, err = e.Step(choose(e, pol))
				require.NoError(t, err)
				for i := range episodes {
					if out.Terminated[i]+out.Truncated[i] == 0 || got[i].Variant != "" {
						continue
					}
					got[i], _ = e.Finished(i)
					got[i].CommChanged = want[i].CommChanged // a replay's, which the environment does not run
					assert.Equal(t, got[i].Reward, out.Reward[i], "row %d: the reward paid is episodes.csv's", i)
					ended++
				}
			}
			wantCSV, err := experiment.EpisodesCSV(want, false)
			require.NoError(t, err)
			gotCSV, err := experiment.EpisodesCSV(got, false)
			require.NoError(t, err)
			assert.Equal(t, string(wantCSV), string(gotCSV))
			if c.variant != "sequential" && c.decide == "" {
				assert.True(t, helpers, "no agent but the main one decided: the decide main cases test nothing")
			}
		})
	}
}

// finishGroups resets e, steps every row to the end of its episode with
// pol's choices and returns each row's finish time, checking that a
// finished row waits inactive.
func finishGroups(t *testing.T, e *env.Env, pol collective.Policy) []float64 {
	_, err := e.Reset(nil)
	require.NoError(t, err)
	require.Equal(t, []string{"episode", "finish_time"}, e.Metrics()[:2])
	finish := make([]float64, e.NumEnvs())
	for step := 0; ; step++ {
		require.Less(t, step, 100000)
		out, err := e.Step(choose(e, pol))
		require.NoError(t, err)
		metrics := len(e.Metrics())
		require.Len(t, out.Episode, len(out.Ended)*metrics)
		for j, i := range out.Ended {
			require.NotZero(t, out.Terminated[i]|out.Truncated[i], "row %d is listed as ended", i)
			finish[i] = out.Episode[j*metrics+1]
		}
		done := true
		for i := range out.Active {
			if out.Active[i] == 0 {
				assert.Equal(t, int32(-1), out.Agent[i], "row %d is inactive", i)
			}
			if out.Active[i] != 0 {
				require.Zero(t, finish[i], "row %d finished and is active", i)
				done = false
			}
		}
		if done {
			return finish
		}
	}
}

// TestGroupsShareTheirInstance checks that the rows of a group work on one
// task instance with the same environment draws, so that with the same
// choices they have the same episode, and that each row has its own
// decision draws, so that a sampling policy makes them differ.
func TestGroupsShareTheirInstance(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 8, Group: 4})
	require.NoError(t, err)
	team, err := policy.Organization("team")
	require.NoError(t, err)
	finish := finishGroups(t, e, team)
	for i := range 8 {
		assert.Equal(t, finish[i-i%4], finish[i], "row %d differs from its group's first", i)
	}
	assert.NotEqual(t, finish[0], finish[4], "two groups worked the same instance")

	finish = finishGroups(t, e, policy.NewLinear()) // uniform over the mask
	assert.NotEqual(t, finish[:4], []float64{finish[0], finish[0], finish[0], finish[0]}, "the rows of a group drew alike")
}

// TestEpisodeNumbers checks which task instance each row's k-th episode
// plays, k*(num_envs/group) + i/group, through resets (group 2) and
// autoresets (group 1): the numbers of simulate run's episodes.
func TestEpisodeNumbers(t *testing.T) {
	team, err := policy.Organization("team")
	require.NoError(t, err)
	for _, group := range []int{1, 2} {
		t.Run(fmt.Sprint("group ", group), func(t *testing.T) {
			const rows = 4
			e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: rows, Group: group})
			require.NoError(t, err)
			_, err = e.Reset(nil)
			require.NoError(t, err)
			_, ok := e.Finished(0)
			assert.False(t, ok, "a row with no finished episode")
			k := make([]int, rows) // episodes each row has finished
			for step := 0; step < 1000 && slices.Min(k) < 3; step++ {
				out, err := e.Step(choose(e, team))
				require.NoError(t, err)
				for _, i := range out.Ended {
					r, ok := e.Finished(int(i))
					require.True(t, ok)
					assert.Equal(t, k[i]*rows/group+int(i)/group, r.Episode, "row %d's episode %d", i, k[i])
					k[i]++
				}
				if !slices.Contains(out.Active, 1) {
					_, err = e.Reset(nil)
					require.NoError(t, err)
				}
			}
			assert.GreaterOrEqual(t, slices.Min(k), 3)
		})
	}
}

// TestTrainActionsRestrictTheMask checks that the environment poses the
// problem simulate train poses: a scenario's train.actions (rlcr-peer's
// work and delegate, or one given with set) are the only actions its
// caller may choose, and without them every valid action is offered.
func TestTrainActionsRestrictTheMask(t *testing.T) {
	work, delegate := int(collective.Work), int(collective.Delegate)
	for _, c := range []struct {
		name    string
		cfg     env.Config
		allowed func(a int) bool
	}{
		{"rlcr-peer's own", env.Config{Scenario: "rlcr-peer", Variant: "w0.5", NumEnvs: 4, Group: 1}, func(a int) bool { return a == work || a == delegate }},
		{"set", env.Config{Scenario: "latency-pressure", Variant: "high", Sets: []string{"train.actions=[work, delegate]"}, NumEnvs: 4, Group: 1}, func(a int) bool { return a == work || a == delegate }},
		{"none", env.Config{Scenario: "latency-pressure", Variant: "high", NumEnvs: 4, Group: 1}, func(int) bool { return true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := env.New(c.cfg)
			require.NoError(t, err)
			out, err := e.Reset(nil)
			require.NoError(t, err)
			offered := map[int]bool{}
			for step := 0; step < 50; step++ {
				actions := make([]int32, e.NumEnvs())
				for i := range e.NumEnvs() {
					if out.Active[i] == 0 {
						continue
					}
					for a := range env.NumActions {
						if out.Mask[i*env.NumActions+a] != 0 {
							offered[a] = true
							actions[i] = int32(a)
						}
					}
				}
				if out, err = e.Step(actions); err != nil {
					require.NoError(t, err)
				}
			}
			for a := range offered {
				assert.True(t, c.allowed(a), "action %v offered", collective.Action(a))
			}
			assert.Greater(t, len(offered), 1, "a choice was offered")
		})
	}
}

// TestBadConfig checks that what New refuses names its field and what is
// allowed, with the command line's messages for scenarios and sets.
func TestBadConfig(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   env.Config
		field string
		msg   string
	}{
		{"no rows", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 0, Group: 1}, "num_envs", "num_envs: 0 is out of range"},
		{"too many rows", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: env.MaxRows + 1, Group: 1}, "num_envs", "(1 to 65536)"},
		{"negative workers", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 1, Group: 1, Workers: -1}, "workers", "workers: -1 is out of range"},
		{"too many workers", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 1, Group: 1, Workers: env.MaxWorkers + 1}, "workers", "up to 1024"},
		{"the first of two sets", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"collective.agents=many", "collective.time_limit=3h"}, NumEnvs: 1, Group: 1}, "set.collective.agents", "collective.agents"},
		{"the first of two bad sets", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"reward.x0=1", "reward.x1=1"}, NumEnvs: 1, Group: 1}, "set.reward.x0", `unknown key "x1"`},
		{"a set whose path begins another's", env.Config{Scenario: "latency-pressure", Variant: "high", Sets: []string{"reward.cost_scale=abc", "reward.cost=0.5"}, NumEnvs: 1, Group: 1}, "set.reward.cost_scale", "reward.cost_scale: invalid virtual time"},
		{"group", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 6, Group: 4}, "group", "does not divide num_envs 6"},
		{"group 0", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 6, Group: 0}, "group", "group: 0 is out of range (allowed: a divisor of num_envs from 1"},
		{"negative group", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 6, Group: -3}, "group", "group: -3 is out of range"},
		{"scenario", env.Config{Scenario: "tinny", NumEnvs: 1, Group: 1}, "scenario", `did you mean "tiny"?`},
		{"no variant", env.Config{Scenario: "tiny", NumEnvs: 1, Group: 1}, "variant", "has 2 variants; name one (allowed: split, team)"},
		{"unknown variant", env.Config{Scenario: "tiny", Variant: "x", NumEnvs: 1, Group: 1}, "variant", `no variant "x"`},
		{"misspelt variant", env.Config{Scenario: "tiny", Variant: "tem", NumEnvs: 1, Group: 1}, "variant", `variant: scenario tiny has no variant "tem" (allowed: split, team); did you mean "team"?`},
		{"unknown key", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"reward.latencyy=1"}, NumEnvs: 1, Group: 1}, "set.reward.latencyy", "latencyy"},
		{"bad value", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"collective.agents=many"}, NumEnvs: 1, Group: 1}, "set.collective.agents", "collective.agents"},
		{"unread", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"policy.organization=split"}, NumEnvs: 1, Group: 1}, "set.policy.organization", "never reads the policy section"},
		{"unread, spaced", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"policy . organization=split"}, NumEnvs: 1, Group: 1}, "set.policy . organization", "never reads the policy section"},
		{"unread train", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"train.lr=0.1"}, NumEnvs: 1, Group: 1}, "set.train.lr", "reads only train.actions"},
		{"decide", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 1, Group: 1, Decide: "helpers"}, "decide", `decide: "helpers" is not known (allowed: all,`},
		{"misspelt decide", env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 1, Group: 1, Decide: " Main"}, "decide", `the others); did you mean "main"?`},
		{"decide main, a policy file that is not there", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"policy.file=" + filepath.Join("no", "such.json")}, NumEnvs: 1, Group: 1, Decide: env.DecideMain}, "set.policy.file", "main needs the variant's policy section"},
		{"policy without decide main", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"policy.organization=split"}, NumEnvs: 1, Group: 1, Decide: env.DecideAll}, "set.policy.organization", "unless make's decide is main"},
		{"group-relative alone", env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"reward.penalty=group-relative", "reward.latency=1"}, NumEnvs: 2, Group: 1}, "group", "always 0 in a group of one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := env.New(c.cfg)
			require.Error(t, err)
			var fe *env.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Field)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
	// The bounds themselves are allowed.
	_, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 2, Group: 1, Workers: env.MaxWorkers})
	require.NoError(t, err)

	// A scenario of one variant needs no name, and refuses another.
	minimal := filepath.Join("..", "..", "scenarios", "testdata", "good", "minimal.yaml")
	_, err = env.New(env.Config{Scenario: minimal, NumEnvs: 1, Group: 1})
	require.NoError(t, err)
	_, err = env.New(env.Config{Scenario: minimal, Variant: "x", NumEnvs: 1, Group: 1})
	require.ErrorContains(t, err, `no variant "x"`)

	// A graph file that is not there, or not a graph, is refused at make,
	// naming the set that gave it or else the scenario, not at the first
	// reset.
	dir := t.TempDir()
	graphs := filepath.Join(dir, "graphs.yaml")
	require.NoError(t, os.WriteFile(graphs, []byte("task: {shape: file, path: missing.dot, work: 1m}\npolicy: {organization: split}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cycle.dot"), []byte("digraph { a -> b -> a }"), 0o644))
	for _, c := range []struct {
		sets         []string
		field, where string
	}{
		{nil, "scenario", "missing.dot: no such file or directory (the task.path of " + graphs + ":1:"},
		{[]string{"task.path=" + filepath.Join(dir, "cycle.dot")}, "set.task.path", "cycle.dot:1:16: task: cycle: \"a\" -> \"b\" -> \"a\" (the task.path of --set task.path="},
	} {
		_, err = env.New(env.Config{Scenario: graphs, Sets: c.sets, NumEnvs: 1, Group: 1})
		var fe *env.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, c.field, fe.Field)
		assert.Contains(t, err.Error(), c.where)
	}

	_, err = scenarios.Load("tiny", []string{"reward.latencyy=1"})
	require.Error(t, err)
	_, envErr := env.New(env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"reward.latencyy=1"}, NumEnvs: 1, Group: 1})
	assert.Equal(t, err.Error(), envErr.Error(), "the command line's message")
}

// TestInvalidActionAdvancesNothing checks that an invalid action in one
// row is refused with the row, the action and the mask, and that no row
// moved: the same valid actions then give what they give without it.
func TestInvalidActionAdvancesNothing(t *testing.T) {
	team, err := policy.Organization("team")
	require.NoError(t, err)
	run := func(bad bool) []float32 {
		e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 4, Group: 1})
		require.NoError(t, err)
		_, err = e.Reset(nil)
		require.NoError(t, err)
		var out *env.Out
		for step := range 6 {
			actions := choose(e, team)
			if bad && step == 3 {
				p, _ := e.Pending(2)
				wrong := actions[2]
				for a := range collective.Action(env.NumActions) {
					if !p.Mask.Has(a) {
						wrong = int32(a)
						break
					}
				}
				invalid := append([]int32(nil), actions...)
				invalid[2] = wrong
				_, err := e.Step(invalid)
				var fe *env.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "actions[2]", fe.Field)
				assert.Contains(t, err.Error(), fmt.Sprintf("row 2: action %d (%v) is not valid; valid: %s", wrong, collective.Action(wrong), p.Mask.List()))
				for _, a := range []int32{99, int32(env.NumActions), -1} {
					invalid[2] = a
					_, err = e.Step(invalid)
					assert.ErrorContains(t, err, fmt.Sprintf("row 2: action %d is out of range (0 to 6)", a))
				}
			}
			out, err = e.Step(actions)
			require.NoError(t, err)
		}
		return append([]float32(nil), out.Obs...)
	}
	assert.Equal(t, run(false), run(true))
}

// fromDoc returns the text of docs/environment.md between the first start
// and the end after it.
func fromDoc(t *testing.T, start, end string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/environment.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(doc), start)
	require.True(t, ok, "docs/environment.md has no %q", start)
	shown, _, _ := strings.Cut(after, end)
	return shown
}

// TestRenderInDocs checks the text observation that docs/environment.md
// shows: the main agent's first decision in tiny, as render gives it.
func TestRenderInDocs(t *testing.T) {
	shown := fromDoc(t, "the main agent's first decision in `tiny`:\n\n```\n", "```")
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 1, Group: 1})
	require.NoError(t, err)
	_, err = e.Reset(nil)
	require.NoError(t, err)
	assert.Equal(t, shown, e.Render(0))
}

// TestSamplingPolicyReproducesRun steps the environment with a sampling
// policy (a linear softmax with weights drawn at random) that samples
// with the draw the environment reports, and checks that each row's first
// episode is the one collective.Run gives that policy on the same
// episode: the draws a client sees are the built-in policies' own.
func TestSamplingPolicyReproducesRun(t *testing.T) {
	const rows = 6
	pol := policy.NewLinear()
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range pol.Params() {
		pol.Params()[i] = rng.NormFloat64()
	}
	e, err := env.New(env.Config{Scenario: "organizations", Variant: "team", NumEnvs: rows, Group: 1})
	require.NoError(t, err)
	out, err := e.Reset(nil)
	require.NoError(t, err)
	got := make([]*collective.Metrics, rows)
	for steps := 0; slices.Contains(got, nil); steps++ {
		require.Less(t, steps, 100000)
		actions := make([]int32, rows)
		for i := range rows {
			p, _ := e.Pending(i)
			require.Equal(t, p.U, out.U[i])
			actions[i] = int32(pol.Decide(p.Obs, p.Mask, out.U[i]))
		}
		out, err = e.Step(actions)
		require.NoError(t, err)
		for i := range rows {
			if out.Terminated[i]+out.Truncated[i] == 1 && got[i] == nil {
				r, _ := e.Finished(i)
				got[i] = &r.Metrics
			}
		}
	}
	sc, err := scenarios.Load("organizations", nil)
	require.NoError(t, err)
	v := &sc.Variants[2]
	require.Equal(t, "team", v.Name)
	for k := range rows {
		streams, g, err := experiment.DrawEpisode(v, sc.Seed, k)
		require.NoError(t, err)
		want, err := collective.Run(g, v.Spec.Collective, pol, streams, collective.Options{})
		require.NoError(t, err)
		assert.Equal(t, want.Metrics, *got[k], "row %d", k)
	}
}

// TestWorkersChangeNothing steps the same environment on one worker and on
// several with a sampling policy, resets included, and checks that every
// output of every call is the same.
func TestWorkersChangeNothing(t *testing.T) {
	pol := policy.NewLinear()
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range pol.Params() {
		pol.Params()[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		group int
		sets  []string
	}{
		{1, nil},
		// Rewards paid when a group ends, by the worker of its last row.
		{3, []string{"reward.penalty=group-relative", "reward.latency=0.5"}},
		// Episodes without a choice, reported a step after they began.
		{1, []string{"train.actions=[check, submit]"}},
	} {
		group := c.group
		var runs [2][]string
		for w, workers := range []int{1, 4} {
			e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 12, Group: group, Workers: workers, Sets: c.sets})
			require.NoError(t, err)
			out, err := e.Reset(nil)
			require.NoError(t, err)
			for step := range 300 {
				runs[w] = append(runs[w], fmt.Sprintf("%v", *out))
				if !slices.Contains(out.Active, 1) {
					out, err = e.Reset(nil)
					require.NoError(t, err)
					continue
				}
				actions := make([]int32, 12)
				for i := range actions {
					if p, ok := e.Pending(i); ok {
						actions[i] = int32(pol.Decide(p.Obs, p.Mask, p.U))
					}
				}
				out, err = e.Step(actions)
				require.NoError(t, err, "step %d", step)
			}
		}
		require.Equal(t, runs[0], runs[1], "group %d, %v", group, c.sets)
	}
}

// rowsOf describes each row of out, whose first row is row lo of the
// environment, and the metrics of the episodes that ended in it.
func rowsOf(out *env.Out, lo, metrics int) []string {
	rows := make([]string, len(out.Agent))
	for j := range rows {
		rows[j] = fmt.Sprint(out.Obs[j*env.NumFeatures:(j+1)*env.NumFeatures], out.Mask[j*env.NumActions:(j+1)*env.NumActions],
			out.Agent[j], out.Active[j], out.U[j], out.Reward[j], out.Terminated[j], out.Truncated[j])
	}
	for k, i := range out.Ended {
		rows[int(i)-lo] += fmt.Sprint(" ended ", out.Episode[k*metrics:(k+1)*metrics])
	}
	return rows
}

// TestStepRowsPlaysWholeSteps steps an environment in whole steps and
// another, alike, in parts of whole groups taken last part first, on one
// worker and several, with a sampling policy, and checks that each row
// reports the same at every round.
func TestStepRowsPlaysWholeSteps(t *testing.T) {
	pol := policy.NewLinear()
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range pol.Params() {
		pol.Params()[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		group, workers int
		parts          []int // the parts' first rows, and the end
	}{
		{1, 1, []int{0, 5, 6, 12}},
		{3, 1, []int{0, 3, 9, 12}},
		{3, 4, []int{0, 6, 12}},
	} {
		var sets []string
		if c.group > 1 {
			sets = []string{"reward.penalty=group-relative", "reward.latency=0.5"}
		}
		cfg := env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 12, Group: c.group, Sets: sets}
		whole, err := env.New(cfg)
		require.NoError(t, err)
		cfg.Workers = c.workers
		parted, err := env.New(cfg)
		require.NoError(t, err)
		metrics := len(whole.Metrics())
		out, err := whole.Reset(nil)
		require.NoError(t, err)
		_, err = parted.Reset(nil)
		require.NoError(t, err)
		ended := 0
		for round := range 200 {
			if !slices.Contains(out.Active, 1) {
				out, err = whole.Reset(nil)
				require.NoError(t, err)
				_, err = parted.Reset(nil)
				require.NoError(t, err)
				continue
			}
			actions := choose(whole, pol)
			require.Equal(t, actions, choose(parted, pol), "round %d", round)
			out, err = whole.Step(actions)
			require.NoError(t, err)
			want := rowsOf(out, 0, metrics)
			ended += len(out.Ended)
			got := make([]string, 0, 12)
			for k := len(c.parts) - 2; k >= 0; k-- {
				lo, hi := c.parts[k], c.parts[k+1]
				o, err := parted.StepRows(lo, hi, actions[lo:hi])
				require.NoError(t, err)
				got = append(rowsOf(o, lo, metrics), got...)
			}
			require.Equal(t, want, got, "group %d, workers %d, round %d", c.group, c.workers, round)
		}
		require.Positive(t, ended, "no episode ended: the test compares no metrics")
	}
}

// TestStepRowsRefusesPartsOfGroups checks the ranges StepRows refuses.
func TestStepRowsRefusesPartsOfGroups(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 12, Group: 3})
	require.NoError(t, err)
	_, err = e.Reset(nil)
	require.NoError(t, err)
	for _, r := range [][2]int{{1, 3}, {0, 4}, {3, 3}, {6, 3}, {-3, 3}, {9, 15}} {
		_, err := e.StepRows(r[0], r[1], make([]int32, max(r[1]-r[0], 0)))
		var fe *env.FieldError
		require.ErrorAs(t, err, &fe, "rows %v", r)
		assert.Equal(t, "rows", fe.Field, "rows %v", r)
	}
	_, err = e.StepRows(3, 6, make([]int32, 4))
	assert.EqualError(t, err, "actions: 4 values for 3 rows (want one per row)")
}

// TestAFailedStepNeedsAReset steps rows whose episodes run into their
// event bound: the step fails naming the row, and the environment then
// refuses to step until a reset.
func TestAFailedStepNeedsAReset(t *testing.T) {
	pol := policy.NewLinear()
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 4, Group: 2, MaxEvents: 30})
	require.NoError(t, err)
	_, err = e.Reset(nil)
	require.NoError(t, err)
	for step := range 1000 {
		actions := choose(e, pol)
		if _, err = e.StepRows(2, 4, actions[2:]); err != nil {
			break
		}
		require.Less(t, step, 999, "no episode reached its bound of 30 events")
	}
	require.Error(t, err)
	assert.Regexp(t, `^row [23]: episode \d+: collective: sim: event limit reached`, err.Error(), "a row of the part stepped")
	_, err = e.Step(choose(e, pol))
	assert.EqualError(t, err, "step before reset: the rows have no episodes (send reset first)")
	_, err = e.Reset(nil)
	require.NoError(t, err)
	_, err = e.Step(choose(e, pol))
	assert.NoError(t, err)
}

// TestEpisodesWithoutAChoice steps rows whose episodes sometimes end
// without a decision with a choice (latency-pressure with only check and
// submit to choose between: an episode whose main agent never holds a
// finished part unchecked leaves it one valid action at every moment).
// Such a row is inactive where the episode began, and its next step
// reports the episode: every episode once, in order, the episode
// collective.Run plays with the same choices, and with groups the
// group-relative reward scored over all of the group's episodes, as
// simulate train scores a group with such a rollout.
func TestEpisodesWithoutAChoice(t *testing.T) {
	// The last valid action or the first, by the row's own decision draw.
	pol := collective.PolicyFunc(func(_ *collective.Observation, m collective.Mask, u float64) collective.Action {
		if u < 0.5 {
			return m.First()
		}
		return collective.Action(7 - bits.LeadingZeros8(uint8(m)))
	})
	for _, c := range []struct {
		name  string
		group int
		sets  []string
	}{
		{"group 1", 1, nil},
		{"group 4, group-relative", 4, []string{"reward.penalty=group-relative"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			const rows = 16
			sets := append([]string{"train.actions=[check, submit]"}, c.sets...)
			e, err := env.New(env.Config{Scenario: "latency-pressure", Variant: "high", Sets: sets, NumEnvs: rows, Group: c.group})
			require.NoError(t, err)
			sc, err := scenarios.Load("latency-pressure", sets)
			require.NoError(t, err)
			require.NoError(t, sc.Only("high"))
			v := &sc.Variants[0]
			actions, err := collective.ParseMask(v.Spec.Train.Actions)
			require.NoError(t, err)

			out, err := e.Reset(nil)
			require.NoError(t, err)
			k := make([]int, rows) // episodes each row has reported
			choiceless := 0
			for step := 0; step < 400; step++ {
				// A row inactive before the step that reports its episode
				// is one whose episode ended without a choice (a finished
				// row waiting for reset reports nothing).
				inactive := make([]bool, rows)
				texts := make([]string, rows)
				for i := range rows {
					if inactive[i] = out.Active[i] == 0; inactive[i] {
						assert.Equal(t, int32(-1), out.Agent[i], "row %d is inactive", i)
						assert.Equal(t, make([]uint8, env.NumActions), out.Mask[i*env.NumActions:(i+1)*env.NumActions], "row %d is inactive", i)
						texts[i] = e.Render(i)
					}
				}
				out, err = e.Step(choose(e, pol))
				require.NoError(t, err)
				metrics := len(e.Metrics())
				for j, i := range out.Ended {
					got, ok := e.Finished(int(i))
					require.True(t, ok)
					require.Equal(t, k[i]*rows/c.group+int(i)/c.group, got.Episode, "row %d's episode %d: none is skipped", i, k[i])
					require.Equal(t, float64(got.Episode), out.Episode[j*metrics], "row %d", i)
					k[i]++
					if inactive[i] {
						choiceless++
						text := fmt.Sprintf("Row %d has no decision pending: its episode ended where it began, with no agent ever choosing between two actions; the next step reports how.", i)
						if c.group == 1 && k[i] > 1 {
							// Begun in the step that ended the last one:
							// the words on the last one come first.
							assert.Regexp(t, `^This row's last episode ended in the last step\. .+ Its reward is -?\d`, texts[i])
							assert.True(t, strings.HasSuffix(texts[i], " "+text), texts[i])
						} else {
							assert.Equal(t, text, texts[i])
						}
					}
					// The same episode, run whole with the same choices.
					streams, g, err := experiment.DrawEpisode(v, sc.Seed, got.Episode)
					require.NoError(t, err)
					opts := collective.Options{Actions: actions}
					if member := int(i) % c.group; member > 0 {
						own := streams.Derive("member", uint64(member))
						opts.Decisions = &own
					}
					want, err := collective.Run(g, v.Spec.Collective, pol, streams, opts)
					require.NoError(t, err)
					assert.Equal(t, want.Metrics, got.Metrics, "row %d, episode %d", i, got.Episode)
				}
				if c.group > 1 {
					// A group whose last row ended in this step is paid
					// now, scored over its rows' episodes.
					for first := 0; first < rows; first += c.group {
						ended := slices.ContainsFunc(out.Ended, func(i int32) bool { return int(i)/c.group == first/c.group })
						if !ended || slices.Contains(out.Active[first:first+c.group], 1) {
							continue
						}
						group := make([]collective.Metrics, c.group)
						for j := range group {
							f, _ := e.Finished(first + j)
							group[j] = f.Metrics
						}
						want := make([]float64, c.group)
						v.Spec.Reward.Group(&v.Spec.Collective, 0, group, want)
						assert.Equal(t, want, out.Reward[first:first+c.group], "group of rows %d to %d", first, first+c.group-1)
					}
					if !slices.Contains(out.Active, 1) {
						out, err = e.Reset(nil)
						require.NoError(t, err)
					}
				}
			}
			assert.Greater(t, choiceless, 3, "too few episodes without a choice: the test tests little")
			assert.Greater(t, slices.Min(k), 3)
		})
	}
}

// TestResetWithNoChoiceAnywhere checks that a reset never leaves no row
// to step (a client stepping while a row is active would reset again and
// again): where every row's episode ends without a choice by chance (one
// row, one episode in a hundred), it starts the next instances, and
// where a thousand in a row have none, it fails.
func TestResetWithNoChoiceAnywhere(t *testing.T) {
	sets := []string{"train.actions=[check, submit]"}
	skipped := 0
	for seed := range uint64(200) {
		e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", Sets: sets, NumEnvs: 1, Group: 1, Seed: &seed})
		require.NoError(t, err)
		out, err := e.Reset(nil)
		require.NoError(t, err, "seed %d", seed)
		require.Equal(t, []uint8{1}, out.Active, "seed %d", seed)
		// Play the episode out to learn its instance: past 0 where the
		// reset skipped instances without a choice.
		for len(out.Ended) == 0 {
			p, _ := e.Pending(0)
			out, err = e.Step([]int32{int32(p.Mask.First())})
			require.NoError(t, err)
		}
		if f, _ := e.Finished(0); f.Episode > 0 {
			skipped++
		}
	}
	assert.Positive(t, skipped, "no reset met an episode without a choice: the test tests nothing")
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"train.actions=[work, submit]"}, NumEnvs: 4, Group: 2})
	require.NoError(t, err)
	_, err = e.Reset(nil)
	assert.EqualError(t, err, "the last 1000 episodes all ended without a decision for a policy to take: the scenario leaves its agents no choice (as where train.actions, or decide main, leaves one valid action at every moment)")
	_, err = e.Step(make([]int32, 4))
	assert.EqualError(t, err, "step before reset: the rows have no episodes (send reset first)")
}

// TestAnEpisodeThatFailsAtOnce checks that an episode that fails before
// its first decision with a choice (here its bound of events: with check
// and submit to choose between, the first choice comes after the work) is
// that error, at the reset that starts it, not an episode without a
// choice.
func TestAnEpisodeThatFailsAtOnce(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", Sets: []string{"train.actions=[check, submit]"}, NumEnvs: 2, Group: 1, MaxEvents: 5})
	require.NoError(t, err)
	_, err = e.Reset(nil)
	require.Error(t, err)
	assert.Regexp(t, `^row 0: episode 0: collective: sim: event limit reached`, err.Error())
}
