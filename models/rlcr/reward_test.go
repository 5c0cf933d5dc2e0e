package rlcr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

func secs(s float64) sim.Time { return sim.Time(s * float64(sim.Second)) }

// ep is a finished, acceptable episode at s seconds.
func ep(s float64) collective.Metrics {
	return collective.Metrics{Finish: secs(s), Acceptable: true}
}

// timedOut is an episode the time limit stopped.
func timedOut(limit float64) collective.Metrics {
	return collective.Metrics{Finish: secs(limit), TimedOut: true}
}

// stalled is an episode that stopped at s seconds without submitting.
func stalled(s float64) collective.Metrics {
	return collective.Metrics{Finish: secs(s), Stalled: true}
}

func steps(n int) collective.Metrics {
	return collective.Metrics{Finish: secs(10), Acceptable: true, CriticalSteps: n}
}

// penalties returns P(T) of each rollout of a group, read back from the
// reward with a latency weight of 1.
func penalties(t *testing.T, r Reward, c *collective.Config, group []collective.Metrics) []float64 {
	t.Helper()
	r.Task, r.Latency = 1, 1
	require.NoError(t, r.Validate(c))
	out := make([]float64, len(group))
	r.Group(c, 0, group, out)
	for i, m := range group {
		if m.Acceptable {
			out[i] = 1 - out[i]
		} else {
			out[i] = -out[i]
		}
	}
	return out
}

// Each form below, at and beyond its scale, with the scale set below the
// time limit (100 s) so that "beyond" can happen, and an episode that
// never submitted scored at the time limit. The wanted values are worked
// by hand from the definitions in docs/rlcr.md.
func TestPenaltyFormsBelowAtAndBeyondTheirScale(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = 100 * sim.Second
	times := []collective.Metrics{ep(20), ep(40), ep(60), timedOut(100), stalled(30)}
	cases := []struct {
		name  string
		r     Reward
		group []collective.Metrics
		want  []float64
	}{
		{"linear", Reward{Penalty: PenaltyLinear, Scale: secs(40)}, times, []float64{0.5, 1, 1.5, 2.5, 2.5}},
		{"quadratic", Reward{Penalty: PenaltyQuadratic, Scale: secs(40)}, times, []float64{0.25, 1, 2.25, 6.25, 6.25}},
		{"exponential", Reward{Penalty: PenaltyExponential, Scale: secs(40)}, times,
			[]float64{1 - math.Exp(-0.5), 1 - math.Exp(-1), 1 - math.Exp(-1.5), 1 - math.Exp(-2.5), 1 - math.Exp(-2.5)}},
		// A step just after D: on time at D itself.
		{"deadline", Reward{Penalty: PenaltyDeadline, Deadline: secs(40)}, times, []float64{0, 0, 1, 1, 1}},
		// Ramp from D − b = 30 s to D = 40 s, 1 beyond.
		{"soft-overlong", Reward{Penalty: PenaltySoftOverlong, Deadline: secs(40), Buffer: secs(10)},
			[]collective.Metrics{ep(20), ep(30), ep(35), ep(40), ep(60), timedOut(100), stalled(5)}, []float64{0, 0, 0.5, 1, 1, 1, 1}},
		{"critical-steps", Reward{Penalty: PenaltyCriticalSteps, Steps: 30}, []collective.Metrics{steps(15), steps(30), steps(45)}, []float64{0.5, 1, 1.5}},
		// The group spans [20, 100] s (the stalled episode counts at the
		// limit): λ = 0.5 − (T − 20)/80 = 0.5, 0.25, 0, −0.5, −0.5; an
		// unacceptable rollout keeps only a negative λ.
		{"group-relative", Reward{Penalty: PenaltyGroupRelative}, times, []float64{-0.5, -0.25, 0, 0.5, 0.5}},
		{"group-relative, equal times", Reward{Penalty: PenaltyGroupRelative}, []collective.Metrics{ep(20), ep(20)}, []float64{0, 0}},
		{"group-relative, unacceptable and fast", Reward{Penalty: PenaltyGroupRelative},
			[]collective.Metrics{{Finish: secs(20)}, ep(60)}, []float64{0, 0.5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := penalties(t, tc.r, &c, tc.group)
			for i := range tc.want {
				assert.InDelta(t, tc.want[i], got[i], 1e-12, "rollout %d", i)
			}
		})
	}
}

// The defaults: L is the time limit, D half of it, the ramp a fifth of D,
// and 100 critical steps, so that every form can act on episodes that
// end within the time limit.
func TestPenaltyDefaults(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = 100 * sim.Second
	cases := []struct {
		p     Penalty
		group []collective.Metrics
		want  []float64
	}{
		{PenaltyLinear, []collective.Metrics{ep(50), timedOut(100)}, []float64{0.5, 1}},
		{PenaltyQuadratic, []collective.Metrics{ep(50), timedOut(100)}, []float64{0.25, 1}},
		{PenaltyExponential, []collective.Metrics{ep(50), timedOut(100)}, []float64{1 - math.Exp(-0.5), 1 - math.Exp(-1)}},
		{PenaltyDeadline, []collective.Metrics{ep(50), ep(51), timedOut(100)}, []float64{0, 1, 1}},
		{PenaltySoftOverlong, []collective.Metrics{ep(40), ep(45), ep(50), ep(70)}, []float64{0, 0.5, 1, 1}},
		{PenaltyCriticalSteps, []collective.Metrics{steps(50), steps(100), steps(150)}, []float64{0.5, 1, 1.5}},
	}
	for _, tc := range cases {
		t.Run(string(tc.p), func(t *testing.T) {
			got := penalties(t, Reward{Penalty: tc.p}, &c, tc.group)
			for i := range tc.want {
				assert.InDelta(t, tc.want[i], got[i], 1e-12, "rollout %d", i)
			}
		})
	}
}

func TestNoLatencyWeightIgnoresFinishTime(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = sim.Hour
	for _, p := range Penalties {
		r := Reward{Task: 1, Latency: 0, Penalty: p}
		require.NoError(t, r.Validate(&c))
		a := []collective.Metrics{{Finish: sim.Minute, Acceptable: true, CriticalSteps: 3}, {Finish: 50 * sim.Minute, Acceptable: false}}
		b := []collective.Metrics{{Finish: 30 * sim.Minute, Acceptable: true, CriticalSteps: 80}, {Finish: 2 * sim.Minute, Acceptable: false}}
		ra, rb := make([]float64, 2), make([]float64, 2)
		r.Group(&c, 0, a, ra)
		r.Group(&c, 0, b, rb)
		assert.Equal(t, []float64{1, 0}, ra, "penalty %s", p)
		assert.Equal(t, ra, rb, "penalty %s", p)
	}
}

// The latency penalty and the cost have scales of their own: changing one
// leaves the other's term as it was.
func TestLatencyAndCostScalesAreSeparate(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = sim.Hour
	m := []collective.Metrics{{Finish: 30 * sim.Minute, Acceptable: true, AgentTime: 2 * sim.Hour}}
	reward := func(r Reward) float64 {
		require.NoError(t, r.Validate(&c))
		out := make([]float64, 1)
		r.Group(&c, 0, m, out)
		return out[0]
	}
	base := Reward{Task: 1, Latency: 1, Penalty: PenaltyLinear, Cost: 0.5}
	assert.InDelta(t, 1-0.5-0.5*2, reward(base), 1e-12, "both scales default to the time limit")
	r := base
	r.Scale = 2 * sim.Hour
	assert.InDelta(t, 1-0.25-0.5*2, reward(r), 1e-12, "scale moves the latency term only")
	r = base
	r.CostScale = 4 * sim.Hour
	assert.InDelta(t, 1-0.5-0.5*0.5, reward(r), 1e-12, "cost_scale moves the cost term only")
}

func TestCostAndPARLTerms(t *testing.T) {
	c := collective.Defaults()
	c.Agents = 5
	c.TimeLimit = sim.Hour
	r := Reward{Task: 1, Penalty: PenaltyNone, Cost: 0.5, Parallel: 0.2, Finish: 0.4, Anneal: 10}
	require.NoError(t, r.Validate(&c))
	m := []collective.Metrics{{Finish: sim.Minute, Acceptable: true, AgentTime: 2 * sim.Hour, Spawned: 2, SubagentTasks: 4, SubagentDone: 2}}
	out := make([]float64, 1)
	r.Group(&c, 0, m, out)
	assert.InDelta(t, 1-0.5*2+(0.2*0.5+0.4*0.5), out[0], 1e-12)
	r.Group(&c, 5, m, out) // half annealed
	assert.InDelta(t, 1-0.5*2+0.5*(0.2*0.5+0.4*0.5), out[0], 1e-12)
	r.Group(&c, 10, m, out) // fully annealed
	assert.InDelta(t, 0.0, out[0], 1e-12)
	// One agent cannot spawn helpers: r_parallel is 0, not 0/0.
	c.Agents = 1
	m[0].ParallelismPeak = 1
	r.Group(&c, 0, m, out)
	assert.InDelta(t, 1-0.5*2+0.4*0.5, out[0], 1e-12)
	// Two agents: one helper is all that can be instantiated, and more
	// instantiations over the episode still count as 1.
	c.Agents = 2
	r.Group(&c, 0, m, out)
	assert.InDelta(t, 1-0.5*2+0.2*1+0.4*0.5, out[0], 1e-12)
}

// Without a time limit an episode that stalled is scored at the time it
// stalled: there is no limit to score it at.
func TestUnfinishedWithoutTimeLimit(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = 0
	got := penalties(t, Reward{Penalty: PenaltyLinear, Scale: secs(40)}, &c, []collective.Metrics{stalled(30), ep(20)})
	assert.InDelta(t, 0.75, got[0], 1e-12)
	assert.InDelta(t, 0.5, got[1], 1e-12)
}

// Each bad reward names its field; a parameter that cannot change the
// reward is an error like an out-of-range one.
func TestRewardValidate(t *testing.T) {
	limited := collective.Defaults()
	limited.TimeLimit = sim.Hour
	unlimited := collective.Defaults()
	unlimited.TimeLimit = 0
	bad := []struct {
		r    Reward
		c    *collective.Config
		want string
	}{
		{Reward{Penalty: "cubic"}, &limited, `penalty: "cubic" is not allowed (allowed: none, linear,`},
		{Reward{Penalty: PenaltyNone, Latency: math.NaN()}, &limited, "latency: NaN is not a finite number"},
		{Reward{Penalty: PenaltyCriticalSteps, Steps: math.Inf(1)}, &limited, "steps: +Inf is not a finite number"},
		{Reward{Penalty: PenaltyCriticalSteps, Steps: -1}, &limited, "steps: -1 is out of range"},
		{Reward{Penalty: PenaltyLinear, Scale: -sim.Second}, &limited, "scale: -1s is out of range"},
		{Reward{Penalty: PenaltyNone, Latency: 5}, &limited, "latency: 5 has no effect with penalty none"},
		{Reward{Penalty: PenaltyLinear, Deadline: sim.Minute}, &limited, `deadline: not used by penalty "linear" (it uses: scale)`},
		{Reward{Penalty: PenaltyDeadline, Scale: sim.Minute}, &limited, `scale: not used by penalty "deadline" (it uses: deadline)`},
		{Reward{Penalty: PenaltyDeadline, Buffer: sim.Minute}, &limited, `buffer: not used by penalty "deadline"`},
		{Reward{Penalty: PenaltyNone, Steps: 10}, &limited, `steps: not used by penalty "none" (it uses: no parameters)`},
		{Reward{Penalty: PenaltyLinear}, &unlimited, "scale: needs a duration greater than 0 when the collective has no time limit"},
		{Reward{Penalty: PenaltyDeadline}, &unlimited, "deadline: needs a duration greater than 0"},
		{Reward{Penalty: PenaltyDeadline, Deadline: sim.Hour}, &limited, "deadline: 1h0m0s is at or beyond the time limit 1h0m0s"},
		{Reward{Penalty: PenaltySoftOverlong, Deadline: 2 * sim.Hour}, &limited, "deadline: 2h0m0s is at or beyond the time limit"},
		{Reward{Penalty: PenaltySoftOverlong, Deadline: 10 * sim.Minute, Buffer: 11 * sim.Minute}, &limited, "buffer: 11m0s is longer than the deadline 10m0s"},
		{Reward{Penalty: PenaltyNone, CostScale: sim.Hour}, &limited, "cost_scale: has no effect with cost 0"},
		{Reward{Penalty: PenaltyNone, Cost: 1}, &unlimited, "cost_scale: needs a duration greater than 0"},
		{Reward{Penalty: PenaltyNone, Anneal: -1}, &limited, "anneal: -1 is negative"},
		{Reward{Penalty: PenaltyNone, Parallel: 0.1}, &limited, "anneal: 0 leaves parallel and finish without effect"},
		{Reward{Penalty: PenaltyNone, Finish: 0.1}, &limited, "anneal: 0 leaves parallel and finish without effect"},
		{Reward{Penalty: PenaltyNone, Anneal: 10}, &limited, "anneal: 10 has no effect with parallel and finish 0"},
	}
	for _, tc := range bad {
		err := tc.r.Validate(tc.c)
		if assert.Error(t, err, "%+v", tc.r) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	good := []struct {
		r Reward
		c *collective.Config
	}{
		{DefaultReward(), &limited},
		{DefaultReward(), &unlimited},
		{Reward{Penalty: PenaltyLinear, Latency: 0}, &limited}, // a zero weight is an explicit "off"
		{Reward{Penalty: PenaltyLinear, Scale: sim.Hour}, &unlimited},
		{Reward{Penalty: PenaltyDeadline, Deadline: 59 * sim.Minute}, &limited},
		{Reward{Penalty: PenaltyDeadline, Deadline: sim.Hour}, &unlimited},
		{Reward{Penalty: PenaltySoftOverlong, Deadline: 10 * sim.Minute, Buffer: 10 * sim.Minute}, &limited},
		{Reward{Penalty: PenaltyNone, Cost: 1, CostScale: sim.Hour}, &unlimited},
		{Reward{Penalty: PenaltyNone, Parallel: 0.1, Anneal: 1}, &limited},
	}
	for _, tc := range good {
		assert.NoError(t, tc.r.Validate(tc.c), "%+v", tc.r)
	}
}

func TestRewardValidateTraining(t *testing.T) {
	cfg := DefaultConfig()
	r := Reward{Penalty: PenaltyGroupRelative, Latency: 1}
	require.NoError(t, r.ValidateTraining(&cfg))
	cfg.Group = 2
	require.NoError(t, r.ValidateTraining(&cfg), "two rollouts can be ranked")
	cfg.Group = 1
	err := r.ValidateTraining(&cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "penalty: group-relative ranks the finish times of a group and has no effect with train.group 1")
	r.Latency = 0
	assert.NoError(t, r.ValidateTraining(&cfg), "no weight, nothing inert")
}
