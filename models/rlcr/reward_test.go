package rlcr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

func TestPenaltyForms(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = 100 * sim.Second
	at := func(s float64, ok bool) collective.Metrics {
		return collective.Metrics{Finish: sim.Time(s * float64(sim.Second)), Acceptable: ok, CriticalSteps: 30}
	}
	group := []collective.Metrics{at(20, true), at(50, true), at(95, false), at(100, true)}
	cases := []struct {
		p    Penalty
		want []float64 // P(T) for the group
	}{
		{PenaltyNone, []float64{0, 0, 0, 0}},
		{PenaltyLinear, []float64{0.2, 0.5, 0.95, 1}},
		{PenaltyQuadratic, []float64{0.04, 0.25, 0.9025, 1}},
		{PenaltyExponential, []float64{1 - math.Exp(-0.2), 1 - math.Exp(-0.5), 1 - math.Exp(-0.95), 1 - math.Exp(-1)}},
		{PenaltyDeadline, []float64{0, 0, 0, 0}},
		{PenaltySoftOverlong, []float64{0, 0, 0.75, 1}}, // buffer 20s: ramp from 80s
		// λ = 0.5 − (T − 20)/80: 0.5, 0.125, −0.4375 (wrong: min(0, λ)), −0.5
		{PenaltyGroupRelative, []float64{-0.5, -0.125, 0.4375, 0.5}},
		{PenaltyCriticalSteps, []float64{0.3, 0.3, 0.3, 0.3}},
	}
	for _, tc := range cases {
		t.Run(string(tc.p), func(t *testing.T) {
			r := Reward{Task: 1, Latency: 1, Penalty: tc.p, Buffer: 20 * sim.Second, Steps: 100}
			require.NoError(t, r.Validate(&c))
			out := make([]float64, len(group))
			r.Group(&c, 0, group, out)
			for i, m := range group {
				task := 0.0
				if m.Acceptable {
					task = 1
				}
				assert.InDelta(t, task-tc.want[i], out[i], 1e-12, "rollout %d", i)
			}
		})
	}
}

func TestNoLatencyWeightIgnoresFinishTime(t *testing.T) {
	c := collective.Defaults()
	c.TimeLimit = sim.Hour
	for _, p := range Penalties {
		r := Reward{Task: 1, Latency: 0, Penalty: p, Buffer: sim.Minute, Steps: 10}
		a := []collective.Metrics{{Finish: sim.Minute, Acceptable: true}, {Finish: 50 * sim.Minute, Acceptable: false}}
		b := []collective.Metrics{{Finish: 30 * sim.Minute, Acceptable: true}, {Finish: 2 * sim.Minute, Acceptable: false}}
		ra, rb := make([]float64, 2), make([]float64, 2)
		r.Group(&c, 0, a, ra)
		r.Group(&c, 0, b, rb)
		assert.Equal(t, ra, rb, "penalty %s", p)
	}
}

func TestCostAndPARLTerms(t *testing.T) {
	c := collective.Defaults()
	c.Agents = 5
	c.TimeLimit = sim.Hour
	r := Reward{Task: 1, Penalty: PenaltyNone, Cost: 0.5, Parallel: 0.2, Finish: 0.4, Anneal: 10}
	m := []collective.Metrics{{Finish: sim.Minute, Acceptable: true, AgentTime: 2 * sim.Hour, ParallelismPeak: 3, Progress: 0.5}}
	out := make([]float64, 1)
	r.Group(&c, 0, m, out)
	assert.InDelta(t, 1-0.5*2+(0.2*0.5+0.4*0.5), out[0], 1e-12)
	r.Group(&c, 5, m, out) // half annealed
	assert.InDelta(t, 1-0.5*2+0.5*(0.2*0.5+0.4*0.5), out[0], 1e-12)
	r.Group(&c, 10, m, out) // fully annealed
	assert.InDelta(t, 0.0, out[0], 1e-12)
}

func TestRewardValidate(t *testing.T) {
	c := collective.Defaults()
	bad := []Reward{
		{Penalty: "cubic"},
		{Penalty: PenaltySoftOverlong, Scale: sim.Hour},
		{Penalty: PenaltyLinear}, // no scale and no time limit
		{Penalty: PenaltyNone, Scale: sim.Hour, Latency: math.NaN()},
	}
	for _, r := range bad {
		assert.Error(t, r.Validate(&c), "%+v", r)
	}
}
