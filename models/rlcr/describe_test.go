package rlcr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// TestDescribeEveryTerm checks that each term Group scores with is in the
// words, with its weight and its parameters as Group resolves them (the
// defaults from the time limit), and that a term Group leaves out is not.
func TestDescribeEveryTerm(t *testing.T) {
	c := &collective.Config{Agents: 5, TimeLimit: 2 * sim.Hour}
	for _, tc := range []struct {
		name string
		r    Reward
		want []string
		not  []string
	}{
		{"task only", Reward{Task: 1, Penalty: PenaltyNone},
			[]string{"earns one reward, paid when it ends (0 before)", "1 if the submitted result is acceptable, else 0.", "time limit of 2h0m0s is cut off: its result is not acceptable"},
			[]string{"minus", "plus", "group"}},
		{"linear at the time limit", Reward{Task: 1, Penalty: PenaltyLinear, Latency: 0.5, Cost: 1},
			[]string{"minus 0.5 × the finish time over 2h0m0s", "minus 1 × the total busy time of all agents over 2h0m0s"}, nil},
		{"linear, a scale of its own", Reward{Task: 1, Penalty: PenaltyLinear, Latency: 2, Scale: 30 * sim.Minute, Cost: 1, CostScale: sim.Hour},
			[]string{"minus 2 × the finish time over 30m0s", "busy time of all agents over 1h0m0s"}, nil},
		{"quadratic", Reward{Task: 1, Penalty: PenaltyQuadratic, Latency: 1}, []string{"minus 1 × the square of the finish time over 2h0m0s"}, []string{"busy time"}},
		{"exponential", Reward{Task: 1, Penalty: PenaltyExponential, Latency: 1}, []string{"minus 1 × (1 − exp(−finish time / 2h0m0s))"}, nil},
		{"deadline by default", Reward{Task: 1, Penalty: PenaltyDeadline, Latency: 1}, []string{"(1 if the finish time is after 1h0m0s, else 0)"}, nil},
		{"soft-overlong by default", Reward{Task: 1, Penalty: PenaltySoftOverlong, Latency: 1}, []string{"(0 for a finish time up to 48m0s, rising linearly to 1 at 1h0m0s, and 1 after)"}, nil},
		{"soft-overlong", Reward{Task: 1, Penalty: PenaltySoftOverlong, Latency: 1, Deadline: 90 * sim.Minute, Buffer: sim.Hour}, []string{"up to 30m0s, rising linearly to 1 at 1h30m0s"}, nil},
		{"group-relative", Reward{Task: 1, Penalty: PenaltyGroupRelative, Latency: 1}, []string{"paid when the last episode of its group ends (0 before)", "plus 1 × λ, where λ is 0.5 for the earliest finish", "0 for all where they finish together or the group is one row", "at most 0 for a result that is not acceptable"}, []string{"minus"}},
		{"critical steps by default", Reward{Task: 1, Penalty: PenaltyCriticalSteps, Latency: 1}, []string{"minus 1 × the steps on the critical chain (model calls, and the main agent's decisions) over 100"}, nil},
		// A negative weight turns the term's sign in the words, not into
		// "minus -0.5".
		{"negative weights", Reward{Task: 1, Penalty: PenaltyLinear, Latency: -0.5, Cost: -1, Parallel: -0.3, Anneal: 10},
			[]string{"plus 0.5 × the finish time over 2h0m0s", "plus 1 × the total busy time", "minus 0.3 × the helpers"}, []string{"-"}},
		{"PARL", Reward{Task: 1, Penalty: PenaltyNone, Parallel: 0.3, Finish: 0.2, Anneal: 10},
			[]string{"plus 0.3 × the helpers and independent attempts started over the 4 that could exist", "plus 0.2 × the share of the subtasks handed to helpers"}, nil},
		// r_finish alone is worded without r_parallel's term.
		{"PARL's finish alone", Reward{Task: 1, Penalty: PenaltyNone, Finish: 0.2, Anneal: 10},
			[]string{"plus 0.2 × the share of the subtasks handed to helpers that they completed"}, []string{"independent attempts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.r.Validate(c))
			got := tc.r.Describe(c)
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			for _, w := range tc.not {
				assert.NotContains(t, got, w)
			}
		})
	}
	noLimit := &collective.Config{Agents: 2}
	assert.Contains(t, (&Reward{Task: 1, Penalty: PenaltyNone}).Describe(noLimit), "There is no time limit.")

	// A lone agent instantiates nothing, and Group pays it no r_parallel.
	alone := &collective.Config{Agents: 1, TimeLimit: sim.Hour}
	parl := Reward{Task: 1, Penalty: PenaltyNone, Parallel: 0.3, Finish: 0.2, Anneal: 10}
	require.NoError(t, parl.Validate(alone))
	out := make([]float64, 1)
	parl.Group(alone, 0, []collective.Metrics{{Acceptable: true, Spawned: 3}}, out)
	assert.Equal(t, 1.0, out[0])
	assert.NotContains(t, parl.Describe(alone), "helpers and independent attempts started")
}

// TestDescribeTokenBudget checks the words against finishTime: a stalled
// episode counts as finishing at the time limit, and one that the token
// budget ends counts at the time it ended, possibly acceptable, so the
// words must not lump it in with the stalls.
func TestDescribeTokenBudget(t *testing.T) {
	c := &collective.Config{Agents: 2, TimeLimit: sim.Hour, TokenBudget: 5000}
	r := Reward{Task: 1, Penalty: PenaltyLinear, Latency: 1}
	require.NoError(t, r.Validate(c))
	got := r.Describe(c)
	assert.Contains(t, got, "(so does one that stalls, with nothing left to do before a submission)")
	assert.Contains(t, got, "a budget of 5000 tokens")
	assert.Contains(t, got, "the episode ends there, at that time, its result judged on the work complete by then")
	out := make([]float64, 1)
	for _, tc := range []struct {
		m    collective.Metrics
		want float64
	}{
		{collective.Metrics{Finish: sim.Hour / 4, Stalled: true}, -1},
		{collective.Metrics{Finish: sim.Hour / 4, BudgetExhausted: true, Acceptable: true}, 0.75},
	} {
		r.Group(c, 0, []collective.Metrics{tc.m}, out)
		assert.InDelta(t, tc.want, out[0], 1e-12, "%+v", tc.m)
	}
	assert.NotContains(t, r.Describe(&collective.Config{Agents: 2, TimeLimit: sim.Hour}), "budget")
}

// TestDescribeKnowsEveryPenalty checks that no penalty form falls through
// to the words of none: a form added to Penalties needs its words too.
func TestDescribeKnowsEveryPenalty(t *testing.T) {
	c := &collective.Config{Agents: 2, TimeLimit: sim.Hour}
	for _, p := range Penalties {
		if p == PenaltyNone || p == PenaltyGroupRelative {
			continue
		}
		r := Reward{Task: 1, Penalty: p, Latency: 1}
		require.NoError(t, r.Validate(c), "%s", p)
		assert.NotContains(t, r.Describe(c), "× 0.", "%s", p)
	}
}
