package experiment_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func evaluate(t *testing.T, sc *scenarios.Scenario, opt experiment.EvalOptions) []experiment.Row {
	t.Helper()
	var rows []experiment.Row
	require.NoError(t, experiment.Evaluate(context.Background(), sc, opt, func(r experiment.Row) error {
		rows = append(rows, r)
		return nil
	}))
	return rows
}

func TestEvaluateTinyGolden(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	rows := evaluate(t, sc, experiment.EvalOptions{})
	var b bytes.Buffer
	fmt.Fprintln(&b, "variant,episode,acceptable,finish,agent_time,model_calls,messages,conflicts,comm_changed")
	for _, r := range rows {
		m := r.Metrics
		fmt.Fprintf(&b, "%s,%d,%t,%v,%v,%d,%d,%d,%t\n", r.Variant, r.Episode, m.Acceptable, m.Finish, m.AgentTime, m.ModelCalls, m.Messages, m.Conflicts, r.CommChanged)
	}
	path := filepath.Join("testdata", "tiny.rows.csv")
	if *update {
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./experiment -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), b.String(), "rerun with -update if the change is intended")
}

func TestEvaluateOrderAndOptions(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	rows := evaluate(t, sc, experiment.EvalOptions{})
	require.Len(t, rows, 2*sc.Episodes)
	for i, r := range rows {
		assert.Equal(t, sc.Variants[i/sc.Episodes].Name, r.Variant)
		assert.Equal(t, i%sc.Episodes, r.Episode)
	}

	seed := sc.Seed
	same := evaluate(t, sc, experiment.EvalOptions{Seed: &seed, Episodes: sc.Episodes})
	assert.Equal(t, rows, same, "the scenario's seed and episodes, given explicitly")

	other := uint64(99)
	more := evaluate(t, sc, experiment.EvalOptions{Seed: &other, Episodes: 12})
	require.Len(t, more, 24)
	assert.NotEqual(t, rows[0].Metrics, more[0].Metrics, "another seed, other draws")
}

func TestEvaluateWorkers(t *testing.T) {
	sc, err := scenarios.Load("coupled-work", []string{"episodes=37"})
	require.NoError(t, err)
	one := evaluate(t, sc, experiment.EvalOptions{Workers: 1})
	for _, w := range []int{2, 5, 16} {
		assert.Equal(t, one, evaluate(t, sc, experiment.EvalOptions{Workers: w}), "workers=%d", w)
	}
}

func TestEvaluateCommonRandomNumbers(t *testing.T) {
	// Every variant of episode k works on the same task graph: the same
	// total work and critical path.
	sc, err := scenarios.Load("organizations", []string{"episodes=50"})
	require.NoError(t, err)
	rows := evaluate(t, sc, experiment.EvalOptions{})
	n := sc.Episodes
	for k := range n {
		first := rows[k].Metrics
		for v := 1; v < len(sc.Variants); v++ {
			m := rows[v*n+k].Metrics
			assert.Equal(t, first.SerialWork, m.SerialWork, "episode %d", k)
			assert.Equal(t, first.CriticalPath, m.CriticalPath, "episode %d", k)
		}
	}
}

func TestEvaluateCommChanged(t *testing.T) {
	sc, err := scenarios.Load("coupled-work", []string{"episodes=40"})
	require.NoError(t, err)
	rows := evaluate(t, sc, experiment.EvalOptions{})
	changed := map[string]int{}
	for _, r := range rows {
		if r.CommChanged {
			changed[r.Variant]++
		}
		if r.Metrics.Actions[collective.Share] == 0 {
			assert.False(t, r.CommChanged, "no finding shared, nothing to drop")
		}
	}
	assert.Zero(t, changed["split"])
	assert.Zero(t, changed["independent"])
	assert.Positive(t, changed["team"], "the team's findings reconcile its parts")
}

// TestEvaluateSilentRunFails: an error of the hidden second run of an
// episode, without what findings carry, says which run it is. Episode 0 of
// tiny's team takes 60 events, and 93 without its findings.
func TestEvaluateSilentRunFails(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	require.NoError(t, sc.Only("team"))
	err = experiment.Evaluate(context.Background(), sc, experiment.EvalOptions{Episodes: 1, MaxEvents: 80}, func(experiment.Row) error { return nil })
	assert.ErrorIs(t, err, sim.ErrEventLimit)
	assert.ErrorContains(t, err, `tiny: variant "team", episode 0: the episode's hidden second run (the same episode without what the findings carry, which says whether they changed the outcome: comm_changed_outcome; losing them can take more events) failed where the first did not: collective: sim: event limit reached`)
}

func TestEvaluateStops(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	for _, workers := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		err := experiment.Evaluate(ctx, sc, experiment.EvalOptions{Workers: workers}, func(experiment.Row) error {
			if n++; n == 3 {
				cancel()
			}
			return nil
		})
		assert.ErrorIs(t, err, context.Canceled)
		assert.Less(t, n, 2*sc.Episodes)

		stop := errors.New("stop")
		err = experiment.Evaluate(context.Background(), sc, experiment.EvalOptions{Workers: workers}, func(experiment.Row) error { return stop })
		assert.ErrorIs(t, err, stop)
	}
	assert.Error(t, experiment.Evaluate(context.Background(), nil, experiment.EvalOptions{}, nil))
	assert.Error(t, experiment.Evaluate(context.Background(), sc, experiment.EvalOptions{Episodes: -1}, nil))
}

func TestSummarize(t *testing.T) {
	row := func(v string, ok bool, finish, agent sim.Time) experiment.Row {
		r := experiment.Row{Variant: v, Metrics: collective.Metrics{Acceptable: ok, Finish: finish, AgentTime: agent, ModelCalls: 4}}
		if ok {
			r.Reward = 1 - finish.Minutes()/60
		}
		return r
	}
	rows := []experiment.Row{
		row("b", true, 10*sim.Minute, 20*sim.Minute),
		row("a", false, 60*sim.Minute, 60*sim.Minute),
		row("b", true, 20*sim.Minute, 40*sim.Minute),
		row("b", false, 30*sim.Minute, 60*sim.Minute),
		row("a", false, 60*sim.Minute, 60*sim.Minute),
	}
	s := experiment.Summarize(rows)
	require.Len(t, s, 2)
	b, a := s[0], s[1]
	assert.Equal(t, "b", b.Variant, "variants in order of first appearance")
	assert.Equal(t, 3, b.N)
	assert.Equal(t, 2, b.Acceptable)
	assert.InDelta(t, 2.0/3, b.Success.Value, 1e-12)
	assert.InDelta(t, 1200, b.Finish.Value, 1e-9)
	assert.InDelta(t, 900, b.FinishAcceptable.Value, 1e-9)
	// Two values 600 and 1200: the percentile bootstrap spans them, and
	// never beyond (a t interval would reach -2912 s).
	assert.Equal(t, 600.0, b.FinishAcceptable.Lo)
	assert.Equal(t, 1200.0, b.FinishAcceptable.Hi)
	assert.InDelta(t, (1-1.0/6+1-2.0/6)/3, b.Reward.Value, 1e-12, "the mean of the rows' rewards")
	assert.InDelta(t, 4, b.ModelCalls.Value, 0)
	assert.InDelta(t, 4, b.ModelCalls.Lo, 0, "no spread, no width")
	assert.InDelta(t, (20+40+60)*60.0/2, b.CostPerAcceptable, 1e-9)

	assert.Equal(t, 0, a.Acceptable)
	assert.True(t, math.IsInf(a.CostPerAcceptable, 1), "no acceptable result: infinite cost")
	assert.True(t, math.IsNaN(a.FinishAcceptable.Value))
	assert.Zero(t, a.Success.Lo)
	assert.Empty(t, experiment.Summarize(nil))
}

// TestCommCounterfactualIsExact trains the flagship's medium variant
// briefly and evaluates the learned policy, which samples and still
// shares findings now and then: at the flagship's coupling 0 what a
// finding carries cannot matter, and the counterfactual never reports a
// change; with the same policy on weakly coupled work (the control,
// κ = 0.02: at κ near 1 nearly every episode fails with or without the few
// findings it shares) it does.
func TestCommCounterfactualIsExact(t *testing.T) {
	sc, err := scenarios.Load("latency-pressure", []string{"train.iterations=15"})
	require.NoError(t, err)
	v := sc.Variants[2]
	require.Equal(t, "medium", v.Name)
	pol, err := rlcr.Train(context.Background(), rlcr.Run{Problem: v.Problem(), Config: v.Spec.Train, Seed: 3, Workers: 2})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, policy.Save(&buf, pol))
	v.Spec.Policy.File = filepath.Join(t.TempDir(), "medium.json")
	require.NoError(t, os.WriteFile(v.Spec.Policy.File, buf.Bytes(), 0o644))
	coupled := v
	coupled.Name = "coupled"
	coupled.Spec.Task.Coupling = sim.Const(0.02)
	sc.Variants = []scenarios.Variant{v, coupled}

	const episodes = 300
	rows := evaluate(t, sc, experiment.EvalOptions{Episodes: episodes})
	shared, changed := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if r.Metrics.Actions[collective.Share] > 0 {
			shared[r.Variant]++
		}
		if r.CommChanged {
			changed[r.Variant]++
		}
	}
	assert.Greater(t, shared["medium"], episodes/10, "the learned policy shares in some episodes")
	assert.Zero(t, changed["medium"], "at coupling 0 losing the findings changes no outcome")
	assert.Positive(t, changed["coupled"], "at coupling 0.02 losing the findings changes some outcomes")
}

// TestEvaluateTrace: with Trace, episode 0 of every variant keeps its
// trace, the other episodes none, and no number of any row changes: a
// run's timelines are drawn from the episodes it evaluated.
func TestEvaluateTrace(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	plain := evaluate(t, sc, experiment.EvalOptions{Episodes: 3, Workers: 2})
	traced := evaluate(t, sc, experiment.EvalOptions{Episodes: 3, Workers: 2, Trace: true})
	require.Len(t, traced, len(plain))
	for i := range traced {
		r := traced[i]
		if r.Episode == 0 {
			require.NotNil(t, r.Trace, "%s episode 0", r.Variant)
			assert.NotEmpty(t, r.Trace.Spans, "%s episode 0", r.Variant)
		} else {
			assert.Nil(t, r.Trace, "%s episode %d", r.Variant, r.Episode)
		}
		assert.Nil(t, plain[i].Trace)
		r.Trace = nil
		assert.Equal(t, plain[i], r, "%s episode %d", r.Variant, r.Episode)
	}
}
