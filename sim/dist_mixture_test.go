package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

func TestLogNormalMixture(t *testing.T) {
	d, err := sim.ParseDist("lognormal2(mean=1s, cv=0.8, mean2=30, cv2=0.9, w=0.85)")
	require.NoError(t, err)
	assert.Equal(t, sim.LogNormalMixture(1, 0.8, 30, 0.9, 0.85), d)
	assert.Equal(t, "lognormal2(mean=1, cv=0.8, mean2=30, cv2=0.9, w=0.85)", d.String())
	back, err := sim.ParseDist(d.String())
	require.NoError(t, err)
	assert.Equal(t, d, back)
	want := 0.85*1 + 0.15*30
	assert.InDelta(t, want, d.Mean(), 1e-12)
	lo, hi := d.Support()
	assert.Equal(t, 0.0, lo)
	assert.True(t, math.IsInf(hi, 1))
	assert.Equal(t, sim.LogNormalMixture(2, 0.8, 60, 0.9, 0.85), d.Scale(2))
	assert.InDelta(t, 2*want, d.Scale(2).Mean(), 1e-12, "a first mean other than 1")

	// The sample mean and the share of draws above 8 s, on 10 seeds:
	// within 4 standard errors of their exact values.
	const n = 20000
	above := func(x, mean, cv float64) float64 {
		s2 := math.Log1p(cv * cv)
		return 0.5 * math.Erfc((math.Log(x)-(math.Log(mean)-s2/2))/math.Sqrt(2*s2))
	}
	p := 0.85*above(8, 1, 0.8) + 0.15*above(8, 30, 0.9)
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		sum, tail := 0.0, 0
		for range n {
			x := d.Sample(r)
			sum += x
			if x > 8 {
				tail++
			}
		}
		sd := math.Sqrt(0.85*(1+0.64) + 0.15*900*(1+0.81) - want*want)
		assert.InDelta(t, want, sum/n, 4*sd/math.Sqrt(n), "seed %d", seed)
		assert.InDelta(t, p, float64(tail)/n, 4*math.Sqrt(p*(1-p)/n), "seed %d", seed)
	}

	for _, bad := range []string{
		"lognormal2(mean=1, cv=1, mean2=2, cv2=1, w=1.5)",
		"lognormal2(mean=1, cv=1, mean2=2, cv2=1)",
		"lognormal2(mean=1, cv=1, mean2=-2, cv2=1, w=0.5)",
	} {
		_, err := sim.ParseDist(bad)
		assert.ErrorIs(t, err, sim.ErrBadDist, bad)
	}
	_, err = sim.ParseDist("lognormal2(mean=1, cv=1, mean2=2, cv2=1, w=1.5)")
	assert.ErrorContains(t, err, "w (1.5) is the first component's weight, at most 1")
	// A weight that never draws one component gives its parameters for
	// nothing.
	for text, want := range map[string]string{
		"lognormal2(mean=1, cv=1, mean2=1h, cv2=1, w=0)": "lognormal2: w 0 never draws the first component (mean, cv): give w above 0, or lognormal(mean=M2, cv=C2) for the second alone",
		"lognormal2(mean=1, cv=1, mean2=1h, cv2=1, w=1)": "lognormal2: w 1 never draws the second component (mean2, cv2): give w below 1, or lognormal(mean=M, cv=C) for the first alone",
	} {
		_, err = sim.ParseDist(text)
		assert.ErrorContains(t, err, want, text)
	}
}
