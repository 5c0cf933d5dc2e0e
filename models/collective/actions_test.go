package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// TestRestrictedActions runs episodes whose policy may only work or
// delegate, and checks what the policy is asked and what is recorded: the
// policy sees only masks within the restriction with a real choice, every
// recorded decision lies within it, and decisions the policy was not asked
// about are exactly the ones with one valid action.
func TestRestrictedActions(t *testing.T) {
	allowed := collective.Mask(0).With(collective.Work).With(collective.Delegate)
	lin := policy.NewLinear()
	for seed := range uint64(10) {
		g := draw(t, families[1], seed)
		var asked []collective.Mask
		pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
			asked = append(asked, m)
			return lin.Decide(o, m, u)
		})
		res, err := collective.Run(g, free(5), pol, sim.NewStreams(seed), collective.Options{Record: true, Actions: allowed})
		require.NoError(t, err)
		for _, m := range asked {
			assert.Equal(t, m, m&allowed, "seed %d: the policy was offered %08b", seed, m)
			assert.False(t, m.Single(), "seed %d: the policy was asked about a forced choice %08b", seed, m)
		}
		forced := 0
		for _, d := range res.Decisions {
			assert.Equal(t, d.Mask, d.Mask&allowed, "seed %d: recorded mask %08b", seed, d.Mask)
			assert.True(t, d.Mask.Has(d.Action))
			if d.Mask.Single() {
				forced++
			}
		}
		assert.Equal(t, len(res.Decisions)-forced, len(asked), "seed %d: one policy call per decision with a choice", seed)
		// Every subtask is claimed by exactly one Work, or handed over by
		// one Delegate; nothing else is decided.
		assert.Equal(t, g.Len(), res.Actions[collective.Work]+res.Actions[collective.Delegate], "seed %d", seed)
		assert.Equal(t, g.Len(), len(res.Decisions), "seed %d", seed)
	}
}

// TestForcedDecisionsSkipThePolicy checks that, without a restriction, a
// policy is never asked about a mask with one valid action, and that
// skipping it changes nothing: a policy that samples gives the same episode
// as before.
func TestForcedDecisionsSkipThePolicy(t *testing.T) {
	lin := policy.NewLinear()
	g := draw(t, families[1], 3)
	calls := 0
	pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
		require.False(t, m.Single(), "asked about %08b", m)
		calls++
		return lin.Decide(o, m, u)
	})
	res, err := collective.Run(g, collective.Defaults(), pol, sim.NewStreams(3), collective.Options{Record: true})
	require.NoError(t, err)
	again, err := collective.Run(g, collective.Defaults(), lin, sim.NewStreams(3), collective.Options{Record: true})
	require.NoError(t, err)
	assert.Equal(t, res, again)
	assert.Less(t, calls, len(res.Decisions), "some decisions were forced")
}

func TestMust(t *testing.T) {
	m := func(as ...collective.Action) collective.Mask {
		var m collective.Mask
		for _, a := range as {
			m = m.With(a)
		}
		return m
	}
	for _, tt := range []struct {
		valid    collective.Mask
		complete bool
		want     collective.Action
	}{
		{m(collective.Work, collective.Share, collective.Check), false, collective.Work},
		{m(collective.Check, collective.Wait, collective.Submit), true, collective.Submit},
		{m(collective.Check, collective.Wait, collective.Submit), false, collective.Wait},
		{m(collective.Share, collective.Submit), false, collective.Submit},
		{m(collective.Attempt, collective.Check), false, collective.Attempt},
	} {
		o := collective.Observation{Complete: tt.complete}
		assert.Equal(t, tt.want, collective.Must(&o, tt.valid), "valid %08b complete %v", tt.valid, tt.complete)
	}
}

func TestParseMask(t *testing.T) {
	m, err := collective.ParseMask([]string{"delegate", "work"})
	require.NoError(t, err)
	assert.Equal(t, collective.Mask(0).With(collective.Work).With(collective.Delegate), m)
	assert.Equal(t, collective.Work, m.First())
	_, err = collective.ParseMask([]string{"work", "wrk"})
	assert.ErrorContains(t, err, `[1]: unknown action "wrk" (allowed: work, delegate, attempt, share, check, wait, submit); did you mean "work"?`)
	_, err = collective.ParseMask([]string{"work", "work"})
	assert.ErrorContains(t, err, `[1]: "work" is listed twice`)
}

// TestUnlistedSubmitIsAutomatic restricts the policy to actions that leave
// submitting out but keep waiting and sharing: a main agent holding the
// finished result must then submit without a decision, not wait (forced,
// since wait is its only listed valid action) until nothing is left to
// happen and the episode ends without a result.
func TestUnlistedSubmitIsAutomatic(t *testing.T) {
	allowed := collective.Mask(0).With(collective.Work).With(collective.Delegate).With(collective.Wait).With(collective.Share)
	lin := policy.NewLinear()
	fam := task.Family{Shape: "fork-join", Width: 2, Stages: 1, Work: sim.LogNormal(600, 0.3), Difficulty: sim.Const(0), OutputTokens: sim.Const(500)}
	c := collective.Defaults()
	c.Agents, c.Spawn = 2, 2*sim.Minute
	for seed := range uint64(20) {
		g, err := fam.Draw(sim.NewStreams(seed).New("task", 0))
		require.NoError(t, err)
		pol := collective.PolicyFunc(func(o *collective.Observation, m collective.Mask, u float64) collective.Action {
			require.False(t, m.Has(collective.Submit), "seed %d: offered submit in %08b", seed, m)
			return lin.Decide(o, m, u)
		})
		res, err := collective.Run(g, c, pol, sim.NewStreams(seed), collective.Options{Record: true, Actions: allowed})
		require.NoError(t, err)
		assert.True(t, res.Acceptable, "seed %d: no result was submitted (finish %v)", seed, res.Finish)
		assert.Equal(t, 1, res.Actions[collective.Submit], "seed %d", seed)
		for _, d := range res.Decisions {
			assert.NotEqual(t, collective.Submit, d.Action, "seed %d: a submit was recorded as a decision", seed)
		}
	}
}
